/* DIAG product plan: C's diagonals and the pairs of entry diagonals meeting on each, by
   counting; the host numeric phase as contiguous multiply-adds.  See <gpumats_diag_format.h>. */
#include "diag_format.h"
#include <stdlib.h>
#include <string.h>

/* The entry diagonals of f (HM: each diagonal; CDM: each present part), their offsets and
   value bases.  d and base hold 2 ndiag. */
static PetscInt DiagEntryDiagonals(const DiagFormat *f, PetscInt *d, PetscInt64 *base)
{
  PetscInt ne = 0;

  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt k = f->offset[t];

    if (f->scheme == DIAG_SCHEME_HM) {
      d[ne] = k, base[ne++] = f->start[t] - DiagHMFirstRow(k);
      continue;
    }
    if (k == 0 || (f->part[t] & DIAG_PART_UPPER)) d[ne] = k, base[ne++] = f->start[t]; /* rows 0 .. n-k-1 (k = 0: the main diagonal) */
    if (k > 0 && (f->part[t] & DIAG_PART_LOWER)) d[ne] = k - f->ncols, base[ne++] = f->start[t]; /* rows n-k .. n-1 */
  }
  return ne;
}

static void DiagMinMax(PetscInt n, const PetscInt *v, PetscInt *lo, PetscInt *hi)
{
  *lo = n ? v[0] : 0, *hi = n ? v[0] : -1;
  for (PetscInt i = 1; i < n; i++) *lo = PetscMin(*lo, v[i]), *hi = PetscMax(*hi, v[i]);
}

/* C's stored diagonals from the marks over the sums dc in [lo, hi] (mark[dc - lo] > 0), in the
   scheme's order; slot[dc - lo] becomes the index of C's stored diagonal of dc. */
static DiagStatus DiagProductOffsets(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt lo, PetscInt hi, PetscInt64 *slot, DiagFormat *C)
{
  PetscInt nd = 0;

  for (PetscInt dc = lo; dc <= hi; dc++) nd += slot[dc - lo] > 0;
  C->offset = (PetscInt *)malloc(sizeof(PetscInt) * (size_t)PetscMax(nd, 1));
  C->start  = (PetscInt64 *)malloc(sizeof(PetscInt64) * (size_t)(nd + 1));
  if (scheme == DIAG_SCHEME_CDM) C->part = (unsigned char *)malloc((size_t)PetscMax(nd, 1));
  if (!C->offset || !C->start || (scheme == DIAG_SCHEME_CDM && !C->part)) return DIAG_ERR_MEMORY;
  if (scheme == DIAG_SCHEME_HM) { /* 0, 1, 2, ..., then -1, -2, ... */
    for (PetscInt dc = PetscMax(lo, 0); dc <= hi; dc++)
      if (slot[dc - lo] > 0) slot[dc - lo] = C->ndiag, C->offset[C->ndiag++] = dc;
    for (PetscInt dc = PetscMin(hi, -1); dc >= lo; dc--)
      if (slot[dc - lo] > 0) slot[dc - lo] = C->ndiag, C->offset[C->ndiag++] = dc;
  } else { /* compact k ascending: the upper parts k = dc >= 0 merged with the lower k = dc + n */
    PetscInt u = PetscMax(lo, 0), l = lo;

    for (;;) {
      PetscInt ku, kl;

      while (u <= hi && slot[u - lo] <= 0) u++;
      while (l < PetscMin(hi + 1, 0) && slot[l - lo] <= 0) l++;
      ku = u <= hi ? u : PETSC_MAX_INT;
      kl = l < PetscMin(hi + 1, 0) ? l + n : PETSC_MAX_INT;
      if (ku == PETSC_MAX_INT && kl == PETSC_MAX_INT) break;
      C->offset[C->ndiag] = PetscMin(ku, kl);
      C->part[C->ndiag]   = 0;
      if (ku <= kl) C->part[C->ndiag] |= DIAG_PART_UPPER, slot[u - lo] = C->ndiag, u++;
      if (kl <= ku) C->part[C->ndiag] |= DIAG_PART_LOWER, slot[l - lo] = C->ndiag, l++;
      C->ndiag++;
    }
  }
  C->start[0] = 0;
  for (PetscInt c = 0; c < C->ndiag; c++) C->start[c + 1] = C->start[c] + (scheme == DIAG_SCHEME_HM ? DiagHMLength(m, n, C->offset[c]) : n);
  return DIAG_OK;
}

typedef struct {
  PetscInt d;
  int      e;
} DiagEntrySort;

static int DiagEntryCompare(const void *x, const void *y)
{
  const PetscInt dx = ((const DiagEntrySort *)x)->d, dy = ((const DiagEntrySort *)y)->d;

  return dx < dy ? -1 : dx > dy;
}

int *DiagOffsetOrder(PetscInt ne, const PetscInt *d)
{
  DiagEntrySort *sorted = (DiagEntrySort *)malloc(sizeof(DiagEntrySort) * (size_t)PetscMax(ne, 1));
  int           *order  = (int *)malloc(sizeof(int) * (size_t)PetscMax(ne, 1));

  if (!sorted || !order) {
    free(sorted), free(order);
    return NULL;
  }
  for (PetscInt e = 0; e < ne; e++) sorted[e].d = d[e], sorted[e].e = (int)e;
  qsort(sorted, (size_t)ne, sizeof(DiagEntrySort), DiagEntryCompare);
  for (PetscInt e = 0; e < ne; e++) order[e] = sorted[e].e;
  free(sorted);
  return order;
}

/* The offsets db of B's entry diagonals that meet A's entry diagonal da (m x k A, k x n B) on at
   least one row: DiagPairSegment's rows are max(La, -da - db) .. min(Ha, n - da - db) with La =
   max(0, -da) and Ha = min(m, k - da), not empty exactly for -da - Ha < db < n - da - La (and
   La < Ha).  The pairs are then found in O(nea log neb + pairs), not O(nea neb). */
static inline PetscInt DiagPairLast(PetscInt m, PetscInt k, PetscInt n, PetscInt da)
{
  const PetscInt La = PetscMax(0, -da), Ha = PetscMin(m, k - da);

  return La < Ha ? n - da - La - 1 : PETSC_MIN_INT;
}

/* the first of B's entry diagonals (in b_order) at or above the smallest offset meeting da */
static PetscInt DiagPairFirst(const DiagProductPlan *p, PetscInt da)
{
  const PetscInt dlo = -da - PetscMin(p->nrows, p->inner - da) + 1;
  PetscInt       lo = 0, hi = p->neb;

  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (p->eb_d[p->b_order[mid]] < dlo) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void DiagProductPlanFree(DiagProductPlan *p)
{
  free(p->ea_d), free(p->eb_d), free(p->ea_base), free(p->eb_base);
  free(p->pair_start), free(p->pair_a), free(p->pair_b);
  free(p->sum_slot), free(p->c_sum), free(p->a_order), free(p->b_order);
  memset(p, 0, sizeof(*p));
}

DiagStatus DiagProductPlanBegin(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *p, DiagFormat *C)
{
  const PetscInt m = A->nrows, k = A->ncols, n = B->ncols;
  const int      hm = !(A->scheme == DIAG_SCHEME_CDM && B->scheme == DIAG_SCHEME_CDM);
  PetscInt       lo_a, hi_a, lo_b, hi_b, hi;

  memset(p, 0, sizeof(*p));
  memset(C, 0, sizeof(*C));
  if (A->ncols != B->nrows) return DIAG_ERR_INCOMPATIBLE;
  /* the sums da + db and C's offsets in PetscInt */
  if ((PetscInt64)m + k > PETSC_MAX_INT || (PetscInt64)k + n > PETSC_MAX_INT || (PetscInt64)m + n > PETSC_MAX_INT) return DIAG_ERR_TOO_LARGE;
  p->nrows = m, p->inner = k, p->ncols = n;
  p->scheme_c = hm ? DIAG_SCHEME_HM : DIAG_SCHEME_CDM;
  C->scheme = p->scheme_c, C->nrows = m, C->ncols = n;
  p->ea_d    = (PetscInt *)malloc(sizeof(PetscInt) * (2 * (size_t)A->ndiag + 1));
  p->eb_d    = (PetscInt *)malloc(sizeof(PetscInt) * (2 * (size_t)B->ndiag + 1));
  p->ea_base = (PetscInt64 *)malloc(sizeof(PetscInt64) * (2 * (size_t)A->ndiag + 1));
  p->eb_base = (PetscInt64 *)malloc(sizeof(PetscInt64) * (2 * (size_t)B->ndiag + 1));
  if (!p->ea_d || !p->eb_d || !p->ea_base || !p->eb_base) goto fail;
  p->nea = DiagEntryDiagonals(A, p->ea_d, p->ea_base);
  p->neb = DiagEntryDiagonals(B, p->eb_d, p->eb_base);
  if (p->nea > INT32_MAX || p->neb > INT32_MAX) {
    DiagProductPlanFree(p);
    return DIAG_ERR_TOO_LARGE;
  }
  p->a_order = DiagOffsetOrder(p->nea, p->ea_d);
  p->b_order = DiagOffsetOrder(p->neb, p->eb_d);
  if (!p->a_order || !p->b_order) goto fail;
  /* the sums, clipped to C's shape: an array over their range, not over n */
  DiagMinMax(p->nea, p->ea_d, &lo_a, &hi_a);
  DiagMinMax(p->neb, p->eb_d, &lo_b, &hi_b);
  p->sum_lo = PetscMax(lo_a + lo_b, -(m - 1));
  hi        = PetscMin(hi_a + hi_b, n - 1);
  p->nsum   = hi >= p->sum_lo ? (PetscInt64)hi - p->sum_lo + 1 : 0;
  p->sum_slot = (PetscInt64 *)calloc((size_t)PetscMax(p->nsum, 1), sizeof(PetscInt64));
  if (!p->sum_slot) goto fail;
  return DIAG_OK;
fail:
  DiagProductPlanFree(p);
  return DIAG_ERR_MEMORY;
}

/* The pairs meeting on each sum (at least one row), into sum_slot, and the flops: for each entry
   diagonal of A only the run of B's (in ascending offset) that meets it */
static void DiagProductPlanCount(DiagProductPlan *p)
{
  const int hm = p->scheme_c == DIAG_SCHEME_HM;

  for (PetscInt a = 0; a < p->nea; a++) {
    const PetscInt da = p->ea_d[a], last = DiagPairLast(p->nrows, p->inner, p->ncols, da);

    for (PetscInt q = DiagPairFirst(p, da); q < p->neb && p->eb_d[p->b_order[q]] <= last; q++) {
      const PetscInt db = p->eb_d[p->b_order[q]];
      PetscInt       i0, i1, cs;

      DiagPairSegment(p->nrows, p->inner, p->ncols, hm, da, db, &i0, &i1, &cs);
      p->sum_slot[da + db - p->sum_lo]++, p->flops += 2 * (PetscInt64)(i1 - i0);
    }
  }
}

DiagStatus DiagProductPlanEnd(DiagProductPlan *p, DiagFormat *C)
{
  const PetscInt64 range = p->nsum;
  PetscInt64      *count = NULL;
  DiagStatus       st;

  p->npairs = 0;
  for (PetscInt64 r = 0; r < range; r++) p->npairs += p->sum_slot[r];
  if (p->npairs > INT32_MAX) return DIAG_ERR_TOO_LARGE;
  /* the counts, kept aside: DiagProductOffsets turns sum_slot[] into C's diagonal indices */
  count = (PetscInt64 *)malloc(sizeof(PetscInt64) * (size_t)PetscMax(range, 1));
  if (!count) return DIAG_ERR_MEMORY;
  memcpy(count, p->sum_slot, sizeof(PetscInt64) * (size_t)range);
  st = DiagProductOffsets(p->scheme_c, p->nrows, p->ncols, p->sum_lo, p->sum_lo + (PetscInt)range - 1, p->sum_slot, C);
  if (st == DIAG_OK) {
    p->ndiag_c    = C->ndiag;
    p->pair_start = (PetscInt64 *)calloc((size_t)C->ndiag + 1, sizeof(PetscInt64));
    p->c_sum      = (PetscInt64 *)malloc(sizeof(PetscInt64) * 2 * (size_t)PetscMax(C->ndiag, 1));
    if (!p->pair_start || !p->c_sum) st = DIAG_ERR_MEMORY;
  }
  if (st == DIAG_OK) {
    /* a CDM diagonal of C holds two sums, its upper part k and its lower part k - n */
    for (PetscInt c = 0; c < 2 * C->ndiag; c++) p->c_sum[c] = -1;
    for (PetscInt64 r = 0; r < range; r++) {
      if (count[r] <= 0) continue;
      p->pair_start[p->sum_slot[r] + 1] += count[r];
      p->c_sum[2 * p->sum_slot[r] + (p->c_sum[2 * p->sum_slot[r]] >= 0)] = r;
    }
    for (PetscInt c = 0; c < C->ndiag; c++) p->pair_start[c + 1] += p->pair_start[c];
    C->nnz = DiagPatternSize(C);
  }
  free(count);
  return st;
}

DiagStatus DiagProductPlanPairs(DiagProductPlan *p)
{
  PetscInt64 *fill;

  if (p->pair_a) return DIAG_OK;
  p->pair_a = (int *)malloc(sizeof(int) * (size_t)PetscMax(p->npairs, 1));
  p->pair_b = (int *)malloc(sizeof(int) * (size_t)PetscMax(p->npairs, 1));
  fill      = (PetscInt64 *)malloc(sizeof(PetscInt64) * (size_t)(p->ndiag_c + 1));
  if (!p->pair_a || !p->pair_b || !fill) {
    free(p->pair_a), free(p->pair_b), free(fill);
    p->pair_a = p->pair_b = NULL;
    return DIAG_ERR_MEMORY;
  }
  /* each pair in its diagonal's list (fill[] runs ahead in sum_slot's place), A's entry diagonals in
     ascending offset: on each diagonal of C the pairs come by ascending da, as the device makes them */
  memcpy(fill, p->pair_start, sizeof(PetscInt64) * (size_t)(p->ndiag_c + 1));
  for (PetscInt qa = 0; qa < p->nea; qa++) {
    const PetscInt a = p->a_order[qa], da = p->ea_d[a], last = DiagPairLast(p->nrows, p->inner, p->ncols, da);

    for (PetscInt q = DiagPairFirst(p, da); q < p->neb && p->eb_d[p->b_order[q]] <= last; q++) {
      const PetscInt64 r = fill[p->sum_slot[da + p->eb_d[p->b_order[q]] - p->sum_lo]]++;

      p->pair_a[r] = (int)a, p->pair_b[r] = p->b_order[q];
    }
  }
  free(fill);
  return DIAG_OK;
}

DiagStatus DiagProductPlanCreate(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *p, DiagFormat *C)
{
  DiagStatus st = DiagProductPlanBegin(A, B, p, C);

  if (st != DIAG_OK) return st;
  DiagProductPlanCount(p);
  st = DiagProductPlanEnd(p, C);
  if (st == DIAG_OK) st = DiagProductPlanPairs(p);
  if (st != DIAG_OK) {
    DiagProductPlanFree(p);
    DiagFormatFree(C);
  }
  return st;
}

/* c[i] += a[i] b[i], i < len: unit stride, no aliasing, unrolled for the vectoriser */
static void DiagMultiplyAdd(PetscInt len, PetscScalar *PETSC_RESTRICT c, const PetscScalar *PETSC_RESTRICT a, const PetscScalar *PETSC_RESTRICT b)
{
  PetscInt i = 0;

  for (; i + 4 <= len; i += 4) {
    c[i] += a[i] * b[i];
    c[i + 1] += a[i + 1] * b[i + 1];
    c[i + 2] += a[i + 2] * b[i + 2];
    c[i + 3] += a[i + 3] * b[i + 3];
  }
  for (; i < len; i++) c[i] += a[i] * b[i];
}

/* rows of C computed at a time: the slices of A, B and C they touch stay in cache while every pair
   of every diagonal of C adds to them.  One diagonal of C at a time over all rows, a band of 401
   diagonals ran slower than AIJ (A and B streamed from memory again for each diagonal of C);
   128 rows at a time (the best of 128, 256, 512 on bands of 101-401 diagonals and Table 2) faster */
#define DIAG_HOST_ROWS 128

/* one diagonal of C at a time over the rows [r0, r1) (all of them: 0, nrows) */
static void DiagProductRows(const DiagProductPlan *p, const PetscInt *seg, PetscInt r0, PetscInt r1, const DiagFormat *A, const DiagFormat *B, DiagFormat *C)
{
  const int hm = p->scheme_c == DIAG_SCHEME_HM;

  for (PetscInt c = 0; c < p->ndiag_c; c++) {
    const PetscInt   cs  = hm && C->offset[c] < 0 ? -C->offset[c] : 0; /* row of slot 0 */
    const PetscInt64 len = C->start[c + 1] - C->start[c];
    const PetscInt64 zlo = PetscMax(r0, cs), zhi = PetscMin((PetscInt64)r1, cs + len);
    PetscScalar     *cv  = C->val + C->start[c]; /* slot of row i: i - cs */

    if (zhi <= zlo) continue;
    memset(cv + (zlo - cs), 0, sizeof(PetscScalar) * (size_t)(zhi - zlo));
    for (PetscInt64 q = p->pair_start[c]; q < p->pair_start[c + 1]; q++) {
      const PetscInt a = p->pair_a[q], b = p->pair_b[q], da = p->ea_d[a];
      PetscInt       i0, i1, shift;

      if (seg) i0 = seg[2 * q], i1 = seg[2 * q + 1];
      else DiagPairSegment(p->nrows, p->inner, p->ncols, hm, da, p->eb_d[b], &i0, &i1, &shift);
      i0 = PetscMax(i0, r0), i1 = PetscMin(i1, r1);
      /* row i: c slot i - cs, A's value ea_base + i, B's (row i + da) eb_base + i + da */
      if (i1 > i0) DiagMultiplyAdd(i1 - i0, cv + (i0 - cs), A->val + (p->ea_base[a] + i0), B->val + (p->eb_base[b] + da + i0));
    }
  }
}

void DiagProductPlanNumericHost(const DiagProductPlan *p, const DiagFormat *A, const DiagFormat *B, DiagFormat *C)
{
  const int hm  = p->scheme_c == DIAG_SCHEME_HM;
  PetscInt *seg = (PetscInt *)malloc(sizeof(PetscInt) * (2 * (size_t)p->npairs + 1)); /* each pair's rows */

  if (!seg) { /* no room for the rows: one diagonal of C at a time over all rows */
    DiagProductRows(p, NULL, 0, p->nrows, A, B, C);
    return;
  }
  for (PetscInt64 q = 0; q < p->npairs; q++) {
    PetscInt shift;

    DiagPairSegment(p->nrows, p->inner, p->ncols, hm, p->ea_d[p->pair_a[q]], p->eb_d[p->pair_b[q]], &seg[2 * q], &seg[2 * q + 1], &shift);
  }
  for (PetscInt r0 = 0; r0 < p->nrows; r0 += DIAG_HOST_ROWS) DiagProductRows(p, seg, r0, PetscMin(r0 + DIAG_HOST_ROWS, p->nrows), A, B, C);
  free(seg);
}

PetscInt64 DiagProductPlanBytes(const DiagFormat *A, const DiagFormat *B, const DiagFormat *C)
{
  return (PetscInt64)sizeof(PetscScalar) * (A->start[A->ndiag] + B->start[B->ndiag] + C->start[C->ndiag]);
}
