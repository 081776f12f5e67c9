/* DIAG on the host: building HM and CDM from CSR, the products, the diagonal product. */
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
  }
  return "unknown status";
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
  return scheme == DIAG_SCHEME_HM ? j - i : (j - i + n) % n;
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

/* The offsets marked in present[] (slot d + m - 1 for HM, k for CDM), in a new array;
   present is freed. */
static DiagStatus DiagOffsetsPresent(DiagScheme scheme, PetscInt m, PetscInt range, char *present, PetscInt *ndiag, PetscInt **offset)
{
  *ndiag = 0;
  for (PetscInt r = 0; r < range; r++) *ndiag += present[r];
  *offset = (PetscInt *)malloc(sizeof(PetscInt) * (size_t)PetscMax(*ndiag, 1));
  if (!*offset) {
    free(present);
    return DIAG_ERR_MEMORY;
  }
  *ndiag = 0;
  for (PetscInt r = 0; r < range; r++)
    if (present[r]) (*offset)[(*ndiag)++] = scheme == DIAG_SCHEME_HM ? r - (m - 1) : r;
  free(present);
  return DIAG_OK;
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

DiagStatus DiagFromCSR(DiagScheme scheme, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, double max_fill, PetscInt64 *stored, DiagFormat *fmt)
{
  const PetscInt range = scheme == DIAG_SCHEME_HM ? m + n : n; /* offsets d + m - 1 in [0, m + n - 1) (HM), k in [0, n) */
  char          *present;
  PetscInt      *offset, ndiag = 0;
  DiagStatus     st;

  memset(fmt, 0, sizeof(*fmt));
  if (stored) *stored = 0;
  if (m < 0 || n < 0 || (scheme == DIAG_SCHEME_CDM && m != n)) return DIAG_ERR_ARGUMENT;
  present = (char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      if (aj[p] < 0 || aj[p] >= n) {
        free(present);
        return DIAG_ERR_ARGUMENT;
      }
      present[scheme == DIAG_SCHEME_HM ? aj[p] - i + m - 1 : DiagOffsetOf(scheme, n, i, aj[p])] = 1;
    }
  }
  st = DiagOffsetsPresent(scheme, m, range, present, &ndiag, &offset); /* frees present */
  if (st != DIAG_OK) return st;
  st = DiagAllocate(scheme, m, n, ndiag, offset, fmt);
  fmt->nnz = m ? (PetscInt64)ai[m] - ai[0] : 0;
  if (st == DIAG_OK && stored) *stored = fmt->start[ndiag];
  if (st == DIAG_OK && max_fill > 0 && (double)fmt->start[ndiag] > max_fill * (double)PetscMax(fmt->nnz, 1)) st = DIAG_ERR_TOO_SPREAD;
  if (st != DIAG_OK) {
    DiagFormatFree(fmt);
    return st;
  }
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      const PetscInt d = DiagOffsetOf(scheme, n, i, aj[p]), t = DiagFind(fmt, d);

      fmt->val[fmt->start[t] + DiagSlotOf(scheme, i, d)] += aa[p]; /* += : a repeated column adds, as in MatSetValues ADD */
    }
  }
  return DIAG_OK;
}

void DiagFormatFree(DiagFormat *fmt)
{
  free(fmt->offset);
  free(fmt->start);
  free(fmt->val);
  memset(fmt, 0, sizeof(*fmt));
}

/* y = A x or A^T x (+ y0), diagonal by diagonal (the order the GPU kernels use too). */
static void DiagApplyHost(const DiagFormat *f, int transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const PetscInt ny = transpose ? f->ncols : f->nrows, n = f->ncols;

  if (y0 != y)
    for (PetscInt i = 0; i < ny; i++) y[i] = y0 ? y0[i] : 0;
  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt     d   = f->offset[t];
    const PetscScalar *v   = f->val + f->start[t];
    const PetscInt64   len = f->start[t + 1] - f->start[t];

    if (f->scheme == DIAG_SCHEME_HM) {
      const PetscInt i0 = DiagHMFirstRow(d);

      for (PetscInt64 p = 0; p < len; p++) {
        const PetscInt i = i0 + (PetscInt)p, j = i + d;

        if (transpose) y[j] += v[p] * x[i];
        else y[i] += v[p] * x[j];
      }
    } else {
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt j = (PetscInt)(((PetscInt64)i + d) % n);

        if (transpose) y[j] += v[i] * x[i];
        else y[i] += v[i] * x[j];
      }
    }
  }
}

void DiagMultHost(const DiagFormat *f, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  DiagApplyHost(f, 0, x, y0, y);
}

void DiagMultTransposeHost(const DiagFormat *f, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  DiagApplyHost(f, 1, x, y0, y);
}

DiagStatus DiagProductSymbolic(const DiagFormat *A, const DiagFormat *B, DiagFormat *C)
{
  const DiagScheme scheme = A->scheme;
  const PetscInt   m = A->nrows, n = B->ncols, range = scheme == DIAG_SCHEME_HM ? m + n : n;
  char            *present;
  PetscInt        *offset, ndiag = 0;
  DiagStatus       st;

  memset(C, 0, sizeof(*C));
  if (A->scheme != B->scheme || A->ncols != B->nrows) return DIAG_ERR_INCOMPATIBLE;
  present = (char *)calloc((size_t)PetscMax(range, 1), 1);
  if (!present) return DIAG_ERR_MEMORY;
  for (PetscInt s = 0; s < A->ndiag; s++) {
    for (PetscInt t = 0; t < B->ndiag; t++) {
      if (scheme == DIAG_SCHEME_HM) {
        const PetscInt d = A->offset[s] + B->offset[t];

        if (DiagHMLength(m, n, d) > 0) present[d + m - 1] = 1;
      } else present[(A->offset[s] + B->offset[t]) % n] = 1;
    }
  }
  st = DiagOffsetsPresent(scheme, m, range, present, &ndiag, &offset); /* frees present */
  if (st != DIAG_OK) return st;
  st = DiagAllocate(scheme, m, n, ndiag, offset, C);
  if (st != DIAG_OK) DiagFormatFree(C);
  return st;
}

/* c(i, i + dA + dB) += a(i, i + dA) b(i + dA, i + dA + dB), over every pair of diagonals
   (HM; indices mod n for CDM). */
void DiagProductNumericHost(const DiagFormat *A, const DiagFormat *B, DiagFormat *C)
{
  memset(C->val, 0, sizeof(PetscScalar) * (size_t)C->start[C->ndiag]);
  for (PetscInt s = 0; s < A->ndiag; s++) {
    const PetscInt     da = A->offset[s];
    const PetscScalar *av = A->val + A->start[s];

    for (PetscInt t = 0; t < B->ndiag; t++) {
      const PetscInt     db = B->offset[t];
      const PetscScalar *bv = B->val + B->start[t];

      if (A->scheme == DIAG_SCHEME_HM) {
        const PetscInt dc = da + db, tc = DiagFind(C, dc);
        PetscInt       i0, i1;

        if (tc < 0) continue; /* outside C's shape */
        /* rows i with (i, i+da) in A, (i+da, i+dc) in B and (i, i+dc) in C */
        i0 = PetscMax(PetscMax(DiagHMFirstRow(da), DiagHMFirstRow(db) - da), DiagHMFirstRow(dc));
        i1 = PetscMin(PetscMin(A->nrows, A->ncols - da), B->ncols - dc); /* A->ncols == B->nrows */
        for (PetscInt i = i0; i < i1; i++) C->val[C->start[tc] + i - DiagHMFirstRow(dc)] += av[i - DiagHMFirstRow(da)] * bv[i + da - DiagHMFirstRow(db)];
      } else {
        const PetscInt n = A->nrows, tc = DiagFind(C, (da + db) % n);

        for (PetscInt i = 0; i < n; i++) C->val[C->start[tc] + i] += av[i] * bv[(i + da) % n];
      }
    }
  }
}
