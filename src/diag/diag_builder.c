/* The DIAG builder, plain C: the diagonals of a CSR matrix or of a set of offsets in HM or
   CDM, the choice of scheme, finding an entry, copies and the transpose of a DiagFormat.
   The host products: diag_host.c; the product of two diag matrices: diag_product_plan.c. */
#include "diag_format.h"
#include <stdlib.h>
#include <string.h>

const char *DiagStatusString(DiagStatus s)
{
  switch (s) {
  case DIAG_OK:
    return "ok";
  case DIAG_ERR_MEMORY:
    return "out of host memory";
  case DIAG_ERR_ARGUMENT:
    return "invalid argument";
  case DIAG_ERR_TOO_SPREAD:
    return "the nonzeros spread over too many diagonals";
  case DIAG_ERR_INCOMPATIBLE:
    return "incompatible operands";
  case DIAG_ERR_TOO_LARGE:
    return "rows + columns exceed the largest PetscInt (use more MPI processes)";
  }
  return "unknown status";
}

PetscBool DiagFitsDeviceIndices(PetscInt m, PetscInt n)
{
  return m >= 0 && n >= 0 && (PetscInt64)m + n <= DIAG_MAX_DEVICE_ROWS_PLUS_COLS ? PETSC_TRUE : PETSC_FALSE;
}

/* The offsets of an m x n matrix are indexed d + m - 1 in [0, m + n - 1) (HM), and a CDM
   offset k + i < 2n is formed: both need m + n to fit PetscInt.  Checked before any
   allocation. */
static int DiagSizesFit(PetscInt m, PetscInt n)
{
  return (PetscInt64)m + (PetscInt64)n <= (PetscInt64)PETSC_MAX_INT;
}

PetscInt DiagHMFirstRow(PetscInt d)
{
  return d < 0 ? -d : 0;
}

PetscInt64 DiagHMLength(PetscInt m, PetscInt n, PetscInt d)
{
  const PetscInt64 lo = DiagHMFirstRow(d), hi = PetscMin((PetscInt64)m, (PetscInt64)n - d);

  return hi > lo ? hi - lo : 0;
}

/* HM order: 0, then 1, 2, ..., then -1, -2, ...: a key that sorts ascending in it
   (subdiagonals after every superdiagonal, whose offsets are below 2^40) */
static PetscInt64 DiagHMKey(PetscInt d)
{
  return d >= 0 ? (PetscInt64)d : ((PetscInt64)1 << 40) - (PetscInt64)d;
}

static int DiagCompareHM(const void *a, const void *b)
{
  const PetscInt64 x = DiagHMKey(*(const PetscInt *)a), y = DiagHMKey(*(const PetscInt *)b);

  return x < y ? -1 : x > y;
}

static int DiagCompareAscending(const void *a, const void *b)
{
  const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;

  return x < y ? -1 : x > y;
}

/* The offset of entry (i, j) in the scheme (HM d = j - i, CDM k = (j - i) mod n), and
   the slot of row i within that diagonal. */
static PetscInt DiagOffsetOf(DiagScheme scheme, PetscInt n, PetscInt i, PetscInt j)
{
  return scheme == DIAG_SCHEME_HM ? j - i : (PetscInt)(((PetscInt64)j - i + n) % n);
}

static PetscInt64 DiagSlotOf(DiagScheme scheme, PetscInt i, PetscInt offset)
{
  return scheme == DIAG_SCHEME_HM ? i - DiagHMFirstRow(offset) : i;
}

/* offsets (ndiag of them, distinct) in the scheme's order; start[] and val (zeros) for them */
static DiagStatus DiagAllocate(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt ndiag, PetscInt *offset, DiagFormat *fmt)
{
  memset(fmt, 0, sizeof(*fmt));
  fmt->scheme = scheme;
  fmt->nrows  = m;
  fmt->ncols  = n;
  fmt->ndiag  = ndiag;
  fmt->offset = offset;
  qsort(offset, (size_t)ndiag, sizeof(PetscInt), scheme == DIAG_SCHEME_HM ? DiagCompareHM : DiagCompareAscending);
  fmt->start = (PetscInt64 *)malloc(sizeof(PetscInt64) * (size_t)(ndiag + 1));
  if (!fmt->start) return DIAG_ERR_MEMORY;
  fmt->start[0] = 0;
  for (PetscInt t = 0; t < ndiag; t++) fmt->start[t + 1] = fmt->start[t] + (scheme == DIAG_SCHEME_HM ? DiagHMLength(m, n, offset[t]) : n);
  fmt->val = (PetscScalar *)calloc((size_t)PetscMax(fmt->start[ndiag], 1), sizeof(PetscScalar));
  return fmt->val ? DIAG_OK : DIAG_ERR_MEMORY;
}

/* The offsets marked in present[] (slot d + m - 1 for HM, k for CDM), in a new array. */
static DiagStatus DiagOffsetsPresent(DiagScheme scheme, PetscInt m, PetscInt range, const unsigned char *present, PetscInt *ndiag, PetscInt **offset)
{
  *ndiag = 0;
  for (PetscInt r = 0; r < range; r++) *ndiag += present[r] != 0;
  *offset = (PetscInt *)malloc(sizeof(PetscInt) * (size_t)PetscMax(*ndiag, 1));
  if (!*offset) return DIAG_ERR_MEMORY;
  *ndiag = 0;
  for (PetscInt r = 0; r < range; r++)
    if (present[r]) (*offset)[(*ndiag)++] = scheme == DIAG_SCHEME_HM ? r - (m - 1) : r;
  return DIAG_OK;
}

/* The format with the diagonals marked in present[] (CDM: the marks are the parts), values zero. */
static DiagStatus DiagAllocatePresent(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt range, const unsigned char *present, DiagFormat *fmt)
{
  PetscInt  *offset, ndiag;
  DiagStatus st;

  memset(fmt, 0, sizeof(*fmt));
  st = DiagOffsetsPresent(scheme, m, range, present, &ndiag, &offset);
  if (st == DIAG_OK) st = DiagAllocate(scheme, m, n, ndiag, offset, fmt);
  else free(offset);
  if (st == DIAG_OK && scheme == DIAG_SCHEME_CDM) {
    fmt->part = (unsigned char *)malloc((size_t)PetscMax(ndiag, 1));
    if (!fmt->part) st = DIAG_ERR_MEMORY;
    else
      for (PetscInt t = 0; t < ndiag; t++) fmt->part[t] = present[fmt->offset[t]];
  }
  if (st != DIAG_OK) DiagFormatFree(fmt);
  return st;
}

/* Mark the diagonal of entry (i, j) of an m x n matrix (CDM: with its part). */
static void DiagMark(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt i, PetscInt j, unsigned char *present)
{
  if (scheme == DIAG_SCHEME_HM) present[j - i + m - 1] = 1;
  else present[DiagOffsetOf(scheme, n, i, j)] |= j >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER;
}

PetscInt DiagFind(const DiagFormat *fmt, PetscInt offset)
{
  const PetscInt64 key = fmt->scheme == DIAG_SCHEME_HM ? DiagHMKey(offset) : offset;
  PetscInt         lo = 0, hi = fmt->ndiag;

  while (lo < hi) { /* offsets are sorted by key */
    const PetscInt   mid = lo + (hi - lo) / 2;
    const PetscInt64 k   = fmt->scheme == DIAG_SCHEME_HM ? DiagHMKey(fmt->offset[mid]) : fmt->offset[mid];

    if (k < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < fmt->ndiag && fmt->offset[lo] == offset ? lo : -1;
}

PetscInt DiagLocate(const DiagFormat *fmt, PetscInt i, PetscInt j, PetscInt64 *slot)
{
  const PetscInt offset = DiagOffsetOf(fmt->scheme, fmt->ncols, i, j);

  *slot = DiagSlotOf(fmt->scheme, i, offset);
  return DiagFind(fmt, offset);
}

DiagStatus DiagFromCSR(DiagScheme scheme, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, double max_fill, PetscInt64 *stored, DiagFormat *fmt)
{
  const PetscInt range = scheme == DIAG_SCHEME_HM ? m + n : n; /* offsets d + m - 1 in [0, m + n - 1) (HM), k in [0, n) */
  unsigned char *present;
  DiagStatus     st;

  memset(fmt, 0, sizeof(*fmt));
  if (stored) *stored = 0;
  if (m < 0 || n < 0 || (scheme == DIAG_SCHEME_CDM && m != n)) return DIAG_ERR_ARGUMENT;
  if (!DiagSizesFit(m, n)) return DIAG_ERR_TOO_LARGE; /* before range is used or ai read */
  present = (unsigned char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      if (aj[p] < 0 || aj[p] >= n) {
        free(present);
        return DIAG_ERR_ARGUMENT;
      }
      DiagMark(scheme, m, n, i, aj[p], present);
    }
  }
  st = DiagAllocatePresent(scheme, m, n, range, present, fmt);
  free(present);
  if (st != DIAG_OK) return st;
  fmt->nnz = m ? (PetscInt64)ai[m] - ai[0] : 0;
  if (stored) *stored = fmt->start[fmt->ndiag];
  if (max_fill > 0 && (double)fmt->start[fmt->ndiag] > max_fill * (double)PetscMax(fmt->nnz, 1)) {
    const PetscInt   ndiag = fmt->ndiag;
    const PetscInt64 nnz   = fmt->nnz;

    DiagFormatFree(fmt);
    fmt->ndiag = ndiag, fmt->nnz = nnz; /* for the caller's message */
    return DIAG_ERR_TOO_SPREAD;
  }
  if (!aa) return DIAG_OK; /* the structure only */
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      const PetscInt d = DiagOffsetOf(scheme, n, i, aj[p]), t = DiagFind(fmt, d);

      fmt->val[fmt->start[t] + DiagSlotOf(scheme, i, d)] += aa[p]; /* += : a repeated column adds, as in MatSetValues ADD */
    }
  }
  return DIAG_OK;
}

DiagStatus DiagFromOffsets(DiagScheme scheme, PetscInt m, PetscInt n, const unsigned char *present, PetscInt64 entries, double max_fill, PetscInt64 *stored, DiagFormat *fmt)
{
  const PetscInt range = scheme == DIAG_SCHEME_HM ? m + n : n;
  unsigned char *marks;
  PetscInt       ndiag = 0;
  PetscInt64     values = 0;
  DiagStatus     st;

  memset(fmt, 0, sizeof(*fmt));
  if (stored) *stored = 0;
  if (m < 0 || n < 0 || (scheme == DIAG_SCHEME_CDM && m != n)) return DIAG_ERR_ARGUMENT;
  if (!DiagSizesFit(m, n)) return DIAG_ERR_TOO_LARGE;
  marks = (unsigned char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!marks) return DIAG_ERR_MEMORY;
  for (PetscInt d = -(m - 1); d < n; d++) {
    if (!present[d + m - 1]) continue;
    if (scheme == DIAG_SCHEME_HM) marks[d + m - 1] = 1;
    else marks[d >= 0 ? d : d + n] |= d >= 0 ? DIAG_PART_UPPER : DIAG_PART_LOWER;
  }
  /* the values it would store, refused before anything that size is allocated */
  for (PetscInt r = 0; r < range; r++)
    if (marks[r]) ndiag++, values += scheme == DIAG_SCHEME_HM ? DiagHMLength(m, n, r - (m - 1)) : n;
  if (stored) *stored = values;
  if (max_fill > 0 && (double)values > max_fill * (double)PetscMax(entries, 1)) {
    free(marks);
    fmt->ndiag = ndiag, fmt->nnz = entries; /* for the caller's message */
    return DIAG_ERR_TOO_SPREAD;
  }
  st = DiagAllocatePresent(scheme, m, n, range, marks, fmt);
  free(marks);
  if (st != DIAG_OK) return st;
  fmt->nnz = entries;
  return DIAG_OK;
}

DiagStatus DiagChooseScheme(PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, DiagScheme *scheme, PetscInt64 *hm, PetscInt64 *cdm)
{
  unsigned char *present;
  DiagStatus     st;

  *scheme = DIAG_SCHEME_HM;
  *hm = 0, *cdm = -1;
  if (m < 0 || n < 0) return DIAG_ERR_ARGUMENT;
  if (!DiagSizesFit(m, n)) return DIAG_ERR_TOO_LARGE;
  present = (unsigned char *)calloc((size_t)PetscMax(m + n, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++)
      if (aj[p] >= 0 && aj[p] < n) present[aj[p] - i + m - 1] = 1;
  st = DiagChooseSchemeFromOffsets(m, n, present, scheme, hm, cdm);
  free(present);
  return st;
}

DiagStatus DiagChooseSchemeFromOffsets(PetscInt m, PetscInt n, const unsigned char *present, DiagScheme *scheme, PetscInt64 *hm, PetscInt64 *cdm)
{
  *scheme = DIAG_SCHEME_HM;
  *hm = 0, *cdm = -1;
  if (m < 0 || n < 0) return DIAG_ERR_ARGUMENT;
  if (!DiagSizesFit(m, n)) return DIAG_ERR_TOO_LARGE;
  if (m == n) *cdm = 0;
  for (PetscInt d = -(m - 1); d < n; d++) {
    if (!present[d + m - 1]) continue;
    *hm += DiagHMLength(m, n, d);
    if (m == n && (d <= 0 || !present[d - n + m - 1])) *cdm += n; /* compact diagonal (d mod n), counted once */
  }
  if (m == n && (double)*cdm <= (1.0 + DIAG_CDM_MAX_EXTRA) * (double)*hm) *scheme = DIAG_SCHEME_CDM;
  return DIAG_OK;
}

PetscInt64 DiagPatternSize(const DiagFormat *f)
{
  PetscInt64 size = 0;

  if (f->scheme == DIAG_SCHEME_HM) return f->start[f->ndiag];
  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt k = f->offset[t];

    if (f->part[t] & DIAG_PART_UPPER) size += f->ncols - k;
    if (f->part[t] & DIAG_PART_LOWER) size += k;
  }
  return size;
}

DiagStatus DiagFormatCopy(const DiagFormat *src, DiagFormat *dst)
{
  const size_t nd = (size_t)PetscMax(src->ndiag, 1), nv = (size_t)PetscMax(src->start[src->ndiag], 1);

  *dst        = *src;
  dst->offset = (PetscInt *)malloc(sizeof(PetscInt) * nd);
  dst->start  = (PetscInt64 *)malloc(sizeof(PetscInt64) * (nd + 1));
  dst->val    = (PetscScalar *)malloc(sizeof(PetscScalar) * nv);
  dst->part   = src->part ? (unsigned char *)malloc(nd) : NULL;
  if (!dst->offset || !dst->start || !dst->val || (src->part && !dst->part)) {
    DiagFormatFree(dst);
    return DIAG_ERR_MEMORY;
  }
  memcpy(dst->offset, src->offset, sizeof(PetscInt) * (size_t)src->ndiag);
  memcpy(dst->start, src->start, sizeof(PetscInt64) * (size_t)(src->ndiag + 1));
  memcpy(dst->val, src->val, sizeof(PetscScalar) * (size_t)src->start[src->ndiag]);
  if (src->part) memcpy(dst->part, src->part, (size_t)src->ndiag);
  return DIAG_OK;
}

DiagStatus DiagFormatCopyStructure(const DiagFormat *src, DiagFormat *dst)
{
  const size_t nd = (size_t)PetscMax(src->ndiag, 1);

  *dst        = *src;
  dst->val    = NULL;
  dst->offset = (PetscInt *)malloc(sizeof(PetscInt) * nd);
  dst->start  = (PetscInt64 *)malloc(sizeof(PetscInt64) * (nd + 1));
  dst->part   = src->part ? (unsigned char *)malloc(nd) : NULL;
  if (!dst->offset || !dst->start || (src->part && !dst->part)) {
    DiagFormatFree(dst);
    return DIAG_ERR_MEMORY;
  }
  memcpy(dst->offset, src->offset, sizeof(PetscInt) * (size_t)src->ndiag);
  memcpy(dst->start, src->start, sizeof(PetscInt64) * (size_t)(src->ndiag + 1));
  if (src->part) memcpy(dst->part, src->part, (size_t)src->ndiag);
  return DIAG_OK;
}

PetscBool DiagFormatSameStructure(const DiagFormat *a, const DiagFormat *b)
{
  if (a->scheme != b->scheme || a->nrows != b->nrows || a->ncols != b->ncols || a->ndiag != b->ndiag) return PETSC_FALSE;
  if (memcmp(a->offset, b->offset, sizeof(PetscInt) * (size_t)a->ndiag)) return PETSC_FALSE;
  if (a->scheme == DIAG_SCHEME_CDM && memcmp(a->part, b->part, (size_t)a->ndiag)) return PETSC_FALSE;
  return PETSC_TRUE;
}

DiagStatus DiagFormatTranspose(const DiagFormat *A, DiagFormat *At)
{
  const PetscInt n = A->ncols, range = A->scheme == DIAG_SCHEME_HM ? A->nrows + A->ncols : n;
  unsigned char *present;
  DiagStatus     st;

  memset(At, 0, sizeof(*At));
  if (!DiagSizesFit(A->nrows, A->ncols)) return DIAG_ERR_TOO_LARGE;
  present = (unsigned char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt t = 0; t < A->ndiag; t++) {
    const PetscInt d = A->offset[t];

    if (A->scheme == DIAG_SCHEME_HM) present[-d + n - 1] = 1; /* At is n x m: slot -d + n - 1 */
    else present[(n - d) % n] = (unsigned char)(d ? ((A->part[t] & DIAG_PART_UPPER) ? DIAG_PART_LOWER : 0) | ((A->part[t] & DIAG_PART_LOWER) ? DIAG_PART_UPPER : 0) : A->part[t]);
  }
  st = DiagAllocatePresent(A->scheme, A->ncols, A->nrows, range, present, At);
  free(present);
  if (st != DIAG_OK) return st;
  At->nnz = A->nnz;
  for (PetscInt t = 0; t < At->ndiag; t++) {
    const PetscInt     d = At->offset[t], s = DiagFind(A, A->scheme == DIAG_SCHEME_HM ? -d : (n - d) % n);
    const PetscScalar *v = A->val + A->start[s];
    PetscScalar       *w = At->val + At->start[t];

    if (A->scheme == DIAG_SCHEME_HM) memcpy(w, v, sizeof(PetscScalar) * (size_t)(At->start[t + 1] - At->start[t]));
    else {
      memcpy(w, v + d, sizeof(PetscScalar) * (size_t)(n - d)); /* w[i] = v[(i + d) mod n] */
      memcpy(w + n - d, v, sizeof(PetscScalar) * (size_t)d);
    }
  }
  return DIAG_OK;
}

DiagStatus DiagFormatWithDiagonals(const DiagFormat *A, PetscInt nextra, const PetscInt *extra, const unsigned char *extra_part, DiagFormat *out)
{
  const PetscInt m = A->nrows, n = A->ncols, range = A->scheme == DIAG_SCHEME_HM ? m + n : n;
  unsigned char *present;
  DiagStatus     st;

  memset(out, 0, sizeof(*out));
  if (!DiagSizesFit(m, n)) return DIAG_ERR_TOO_LARGE;
  present = (unsigned char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt t = 0; t < A->ndiag; t++) present[A->scheme == DIAG_SCHEME_HM ? A->offset[t] + m - 1 : A->offset[t]] |= A->part ? A->part[t] : 1;
  for (PetscInt t = 0; t < nextra; t++) {
    const PetscInt d = extra[t];

    if (A->scheme == DIAG_SCHEME_HM) {
      if (DiagHMLength(m, n, d) > 0) present[d + m - 1] = 1;
    } else if (d >= 0 && d < n) present[d] |= extra_part ? extra_part[t] : (DIAG_PART_UPPER | DIAG_PART_LOWER);
  }
  st = DiagAllocatePresent(A->scheme, m, n, range, present, out);
  free(present);
  if (st != DIAG_OK) return st;
  out->nnz = A->nnz;
  for (PetscInt t = 0; t < A->ndiag; t++) {
    const PetscInt u = DiagFind(out, A->offset[t]);

    memcpy(out->val + out->start[u], A->val + A->start[t], sizeof(PetscScalar) * (size_t)(A->start[t + 1] - A->start[t]));
  }
  return DIAG_OK;
}

void DiagFormatFree(DiagFormat *fmt)
{
  free(fmt->part);
  free(fmt->offset);
  free(fmt->start);
  free(fmt->val);
  memset(fmt, 0, sizeof(*fmt));
}

