static const char help[] = "Does a smaller matrix make the SpMV of a symmetric FCI Hamiltonian faster?  Times the same product\n\
with 32-bit CSR columns (csr32), 16-bit column deltas with escapes (csr16d) and the upper triangle alone\n\
(upper_atomic), against cuSPARSE CSR ALG1 and ALG2.\n\
  -fcidump <file>              the FCI Hamiltonian of these integrals (fci/), with\n\
    -fci_sector <none|isym|1..8> -fci_ordering <lexical|excitation> -fci_reference <lowest|aufbau>\n\
  -hubbard_lx <3> -hubbard_ly <4> -hubbard_t <1> -hubbard_u <8>   instead: the Hubbard model (open, half filling)\n\
  -n <20000> -seed <2024>      without either: a random symmetric matrix of n rows (smoke test)\n\
  -warmup <10> -reps <100>     untimed and timed single SpMVs per kernel (median and min reported)\n\
  -bw_gib <4>                  size of the bandwidth-test array\n\
  -check_shapes <true>         first check every kernel on small and wide symmetric matrices (escapes, long rows)\n\
  -host_only                   build the matrix and its encodings, check the csr16d decoding and the product\n\
                               from the upper triangle on the host, and stop before any CUDA call\n\
  -csv <path>                  also write one line per kernel:\n\
                               kernel,ms_median,ms_min,bytes_per_nnz,matrix_bytes,gbs,pct_read,err\n";

/* An experiment, not a format of the library: the SpMV of these matrices reads mostly the matrix,
   so bytes per nonzero should set the time.  csr32 reads 12 bytes a nonzero, csr16d 10 (plus 4 for
   each escaped column), upper_atomic about half of csr32 but pays with atomic updates of y.
   The harness (timing, errors, bandwidth, cuSPARSE) is benchmarks/src/bench_common.h; a kernel whose
   error exceeds 1e-12 fails the run (nonzero exit status). */
#include "bench_common.h"
#include <math.h>
#include <stdint.h>
extern "C" {
#include "bench_host.h"
#include "matgen.h"
}

#define BENCH_FULL_WARP       0xffffffffu
#define BENCH_ESCAPE          0xFFFF /* csr16d: the column is in the row's escape list */
#define BENCH_WARPS_PER_BLOCK 8
/* relative difference of a_ij and a_ji above which the matrix does not count as symmetric: the
   upper triangle's product then differs from the full one by more than rounding */
#define BENCH_SYMMETRY_TOLERANCE 1e-14

/* ------------------------------------------------------------------------ */
/* host: the matrix and its three encodings */

/* A random symmetric matrix with its diagonal: up to upper_max random entries right of the
   diagonal in each row (near_fraction of them within near_width of it, the others anywhere to the
   right), every far_every-th row also far_count entries far_step apart, mirrored below. */
typedef struct {
  PetscInt           n, upper_max;
  double             near_fraction;
  PetscInt           near_width, far_every, far_count, far_step;
  unsigned long long seed;
} BenchSymSpec;

static PetscErrorCode BenchCSRSymmetricRandom(const BenchSymSpec *spec, BenchCSR *A)
{
  const PetscInt     n = spec->n, far_rows = spec->far_every ? n / spec->far_every + 1 : 0;
  const size_t       capacity = (size_t)n * spec->upper_max + (size_t)far_rows * spec->far_count + 1;
  unsigned long long state    = spec->seed;
  PetscInt          *urowptr, *ucol, *next, nu = 0;
  PetscScalar       *uval;
  PetscInt           nnz;

  PetscFunctionBegin;
  PetscCheck((double)n + 2.0 * capacity <= (double)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A random symmetric matrix of %" PetscInt_FMT " rows may have more nonzeros than PetscInt holds: use a smaller -n", n);
  /* the strict upper triangle U, row by row, columns sorted and unique */
  PetscCall(PetscMalloc3(n + 1, &urowptr, capacity, &ucol, capacity, &uval));
  urowptr[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt right = n - 1 - i; /* columns right of the diagonal */
    PetscInt       len   = 0, *cols = ucol + nu;

    if (right > 0) {
      const PetscInt want = (PetscInt)(MatGenRandom(&state) % (unsigned long long)(spec->upper_max + 1));

      for (PetscInt k = 0; k < want; k++) {
        const PetscBool near = 0.5 * (MatGenUniform(&state) + 1.0) < spec->near_fraction ? PETSC_TRUE : PETSC_FALSE;
        const PetscInt  span = near ? PetscMin(spec->near_width, right) : right;

        cols[len++] = i + 1 + (PetscInt)(MatGenRandom(&state) % (unsigned long long)span);
      }
      if (spec->far_every && i % spec->far_every == 0)
        for (PetscInt m = 1; m <= spec->far_count && (PetscInt64)m * spec->far_step <= right; m++) cols[len++] = i + m * spec->far_step;
      PetscCall(PetscSortRemoveDupsInt(&len, cols));
    }
    for (PetscInt k = 0; k < len; k++) uval[nu + k] = MatGenUniform(&state);
    nu += len;
    urowptr[i + 1] = nu;
  }
  nnz = n + 2 * nu;

  /* A = U + D + U^T: row i is its entries left of the diagonal (column i of U, found in the rows
     above, hence in ascending order), the diagonal, then row i of U */
  A->nrows = A->ncols = n;
  PetscCall(PetscMalloc1(n + 1, &A->rowptr));
  PetscCall(PetscMalloc1(nnz, &A->colidx));
  PetscCall(PetscMalloc1(nnz, &A->vals));
  PetscCall(PetscCalloc1(n + 1, &next));
  for (PetscInt k = 0; k < nu; k++) next[ucol[k]]++;
  A->rowptr[0] = 0;
  for (PetscInt i = 0; i < n; i++) A->rowptr[i + 1] = A->rowptr[i] + next[i] + 1 + urowptr[i + 1] - urowptr[i];
  for (PetscInt i = 0; i < n; i++) next[i] = A->rowptr[i];
  for (PetscInt i = 0; i < n; i++) {
    A->colidx[next[i]] = i;
    A->vals[next[i]++] = 4.0 + MatGenUniform(&state);
    for (PetscInt k = urowptr[i]; k < urowptr[i + 1]; k++) {
      const PetscInt j = ucol[k];

      A->colidx[next[i]] = j;
      A->vals[next[i]++] = uval[k];
      A->colidx[next[j]] = i;
      A->vals[next[j]++] = uval[k];
    }
  }
  PetscCall(PetscFree(next));
  PetscCall(PetscFree3(urowptr, ucol, uval));
  PetscFunctionReturn(0);
}

/* Columns strictly ascending in every row (the deltas are positive), and a_ji present and equal to
   a_ij up to BENCH_SYMMETRY_TOLERANCE for every a_ij: what the upper-triangle product assumes. */
static PetscErrorCode BenchCheckSymmetric(const BenchCSR *A, double *asymmetry)
{
  PetscInt64 zeros;

  PetscFunctionBegin;
  PetscCheck(A->nrows == A->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "A symmetric matrix is square, not %" PetscInt_FMT " x %" PetscInt_FMT, A->nrows, A->ncols);
  PetscCall(MatGenCheckCSR(A->nrows, A->ncols, A->rowptr, A->colidx, A->vals, &zeros));
  *asymmetry = 0.0;
  for (PetscInt i = 0; i < A->nrows; i++)
    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const PetscInt j = A->colidx[k];
      PetscInt       loc;
      double         scale, diff;

      PetscCall(PetscFindInt(i, A->rowptr[j + 1] - A->rowptr[j], A->colidx + A->rowptr[j], &loc));
      PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The matrix is not structurally symmetric: (%" PetscInt_FMT ", %" PetscInt_FMT ") is stored, (%" PetscInt_FMT ", %" PetscInt_FMT ") is not", i, j, j, i);
      scale = PetscMax(PetscAbsScalar(A->vals[k]), PetscAbsScalar(A->vals[A->rowptr[j] + loc]));
      diff  = PetscAbsScalar(A->vals[k] - A->vals[A->rowptr[j] + loc]);
      if (diff > 0) *asymmetry = PetscMax(*asymmetry, diff / scale);
      PetscCheck(*asymmetry <= BENCH_SYMMETRY_TOLERANCE, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The matrix is not numerically symmetric: a(%" PetscInt_FMT ", %" PetscInt_FMT ") = %.17g but a(%" PetscInt_FMT ", %" PetscInt_FMT ") = %.17g", i, j, (double)A->vals[k], j, i, (double)A->vals[A->rowptr[j] + loc]);
    }
  PetscFunctionReturn(0);
}

/* csr32: rowptr, colidx, vals; csr16d: the same rowptr and vals with delta, escape_start and
   escape_col; upper_atomic: urowptr, ucolidx, uvals, the entries with j >= i. */
typedef struct {
  PetscInt  nrows, nnz, nescape, nnz_upper;
  int32_t  *rowptr, *colidx, *escape_start, *escape_col, *urowptr, *ucolidx;
  uint16_t *delta;
  double   *vals, *uvals; /* vals is the BenchCSR's own array */
} BenchFormats;

static PetscErrorCode BenchFormatsCreate(const BenchCSR *A, BenchFormats *f)
{
  const PetscInt n = A->nrows, nnz = A->rowptr[n];

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscScalar) == sizeof(double), PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_bytes needs a PETSc with real double scalars");
#if defined(PETSC_USE_64BIT_INDICES)
  PetscCheck(nnz <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " nonzeros: the kernels index with 32 bits, at most %d", nnz, INT32_MAX);
#endif
  f->nrows     = n;
  f->nnz       = nnz;
  f->vals      = A->vals;
  f->nescape   = 0;
  f->nnz_upper = 0;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (A->colidx[k] - (k > A->rowptr[i] ? A->colidx[k - 1] : 0) >= BENCH_ESCAPE) f->nescape++;
      if (A->colidx[k] >= i) f->nnz_upper++;
    }
  PetscCall(PetscMalloc5(n + 1, &f->rowptr, nnz, &f->colidx, nnz, &f->delta, n + 1, &f->escape_start, f->nescape, &f->escape_col));
  PetscCall(PetscMalloc3(n + 1, &f->urowptr, f->nnz_upper, &f->ucolidx, f->nnz_upper, &f->uvals));
  f->rowptr[0] = f->escape_start[0] = f->urowptr[0] = 0;
  for (PetscInt i = 0, e = 0, u = 0; i < n; i++) {
    PetscInt previous = 0; /* the first delta of a row is its first column */

    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const PetscInt j = A->colidx[k], d = j - previous;

      f->colidx[k] = (int32_t)j;
      if (d < BENCH_ESCAPE) f->delta[k] = (uint16_t)d;
      else {
        f->delta[k]        = BENCH_ESCAPE;
        f->escape_col[e++] = (int32_t)j;
      }
      previous = j;
      if (j >= i) {
        f->ucolidx[u] = (int32_t)j;
        f->uvals[u++] = A->vals[k];
      }
    }
    f->rowptr[i + 1]       = (int32_t)A->rowptr[i + 1];
    f->escape_start[i + 1] = (int32_t)e;
    f->urowptr[i + 1]      = (int32_t)u;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchFormatsDestroy(BenchFormats *f)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(f->rowptr, f->colidx, f->delta, f->escape_start, f->escape_col));
  PetscCall(PetscFree3(f->urowptr, f->ucolidx, f->uvals));
  PetscFunctionReturn(0);
}

/* Decodes csr16d row by row, as the kernel's columns must come out, and compares with colidx. */
static PetscErrorCode BenchCSR16DValidate(const BenchFormats *f)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < f->nrows; i++) {
    PetscInt e = f->escape_start[i], column = 0;

    for (PetscInt k = f->rowptr[i]; k < f->rowptr[i + 1]; k++) {
      column = f->delta[k] == BENCH_ESCAPE ? f->escape_col[e++] : column + f->delta[k];
      PetscCheck(column == f->colidx[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "csr16d row %" PetscInt_FMT ", entry %" PetscInt_FMT ": decodes to column %" PetscInt_FMT ", not %d", i, k - f->rowptr[i], column, (int)f->colidx[k]);
    }
    PetscCheck(e == f->escape_start[i + 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "csr16d row %" PetscInt_FMT ": %" PetscInt_FMT " escapes decoded, %d stored", i, e - f->escape_start[i], (int)(f->escape_start[i + 1] - f->escape_start[i]));
  }
  PetscFunctionReturn(0);
}

/* y = U x + (U - D)^T x on the host: what upper_atomic computes */
static void BenchUpperMultHost(const BenchFormats *f, const double *x, double *y)
{
  for (PetscInt i = 0; i < f->nrows; i++) y[i] = 0.0;
  for (PetscInt i = 0; i < f->nrows; i++)
    for (PetscInt k = f->urowptr[i]; k < f->urowptr[i + 1]; k++) {
      const PetscInt j = f->ucolidx[k];

      y[i] += f->uvals[k] * x[j];
      if (j != i) y[j] += f->uvals[k] * x[i];
    }
}

/* What the kernels rely on beyond symmetry, checked on the host: the csr16d decoding, and the
   product from the upper triangle against the full reference (ref, absref of x). */
static PetscErrorCode BenchHostChecks(const BenchFormats *f, const double *x, const double *ref, const double *absref, double *upper_err)
{
  double *y;

  PetscFunctionBegin;
  PetscCall(BenchCSR16DValidate(f));
  PetscCall(PetscMalloc1(f->nrows, &y));
  BenchUpperMultHost(f, x, y);
  *upper_err = BenchMaxRelError(f->nrows, y, ref, absref);
  PetscCall(PetscFree(y));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* kernels: one warp per row, 32 lanes over its entries */
__device__ static inline double BenchWarpSum(double s)
{
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(BENCH_FULL_WARP, s, offset);
  return s; /* in lane 0 */
}

__global__ static void BenchCSR32Kernel(int nrows, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colidx, const double *__restrict__ vals, const double *__restrict__ x, double *__restrict__ y)
{
  const int row = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
  double    s   = 0.0;

  if (row >= nrows) return; /* the whole warp */
  for (int k = rowptr[row] + lane; k < rowptr[row + 1]; k += 32) s += vals[k] * x[colidx[k]];
  s = BenchWarpSum(s);
  if (lane == 0) y[row] = s;
}

/* Columns from 16-bit deltas, 32 entries at a time.  Lane l's column is its inclusive prefix sum S of
   the deltas (escapes counting 0) plus the column carried from the previous chunk, plus a base: the
   last escape at or before l, m, knows its column, so c_l = c_m + S_l - S_m = S_l + (c_m - S_m).
   c_m - S_m is the sum of the true escaped deltas up to m, which grows along the row (each is at
   least 65535) and is 0 before the first escape: the base is a max scan of c_m - S_m over the
   escape lanes, others contributing 0. */
__global__ static void BenchCSR16DKernel(int nrows, const int32_t *__restrict__ rowptr, const uint16_t *__restrict__ delta, const int32_t *__restrict__ escape_start, const int32_t *__restrict__ escape_col, const double *__restrict__ vals, const double *__restrict__ x, double *__restrict__ y)
{
  const int      row = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
  const unsigned below = (1u << lane) - 1u;
  double         s     = 0.0;

  if (row >= nrows) return; /* the whole warp */
  const int end    = rowptr[row + 1];
  int       escape = escape_start[row], carry = 0; /* the row's escapes before this chunk; the last column of the previous chunk (0 before the first) */

  for (int start = rowptr[row]; start < end; start += 32) {
    const int      k         = start + lane;
    const unsigned code      = k < end ? delta[k] : 0u;
    const bool     is_escape = code == BENCH_ESCAPE;
    const unsigned escapes   = __ballot_sync(BENCH_FULL_WARP, is_escape);
    int            sum       = is_escape ? 0 : (int)code, base, col;

    for (int offset = 1; offset < 32; offset *= 2) {
      const int t = __shfl_up_sync(BENCH_FULL_WARP, sum, offset);

      if (lane >= offset) sum += t;
    }
    sum += carry;
    base = is_escape ? escape_col[escape + __popc(escapes & below)] - sum : 0;
    for (int offset = 1; offset < 32; offset *= 2) {
      const int t = __shfl_up_sync(BENCH_FULL_WARP, base, offset);

      if (lane >= offset) base = max(base, t);
    }
    col = sum + base;
    if (k < end) s += vals[k] * x[col];
    carry = __shfl_sync(BENCH_FULL_WARP, col, 31); /* used only when this chunk was full */
    escape += __popc(escapes);
  }
  s = BenchWarpSum(s);
  if (lane == 0) y[row] = s;
}

/* y += U x + (U - D)^T x for y zeroed: the row's dot product and, for each entry off the diagonal,
   its mirror a_ij x_i into y_j.  Other warps add into y_i at any time, so y_i is an atomic sum too. */
__global__ static void BenchUpperAtomicKernel(int nrows, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colidx, const double *__restrict__ vals, const double *__restrict__ x, double *y)
{
  const int row = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
  double    s   = 0.0;

  if (row >= nrows) return; /* the whole warp */
  const double xi = x[row];

  for (int k = rowptr[row] + lane; k < rowptr[row + 1]; k += 32) {
    const int    j = colidx[k];
    const double a = vals[k];

    s += a * x[j];
    if (j != row) atomicAdd(&y[j], a * xi);
  }
  s = BenchWarpSum(s);
  if (lane == 0) atomicAdd(&y[row], s);
}

/* ------------------------------------------------------------------------ */
/* device copies and the runs */
typedef struct {
  PetscInt  nrows;
  int32_t  *rowptr, *colidx, *escape_start, *escape_col, *urowptr, *ucolidx;
  uint16_t *delta;
  double   *vals, *uvals, *x, *y;
} BenchDevice;

static PetscErrorCode BenchUpload(void *dev, const void *host, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDAMalloc((void **)dev, bytes, what));
  PetscCall(BenchCUDACopyToDevice(*(void **)dev, host, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchDeviceDestroy(BenchDevice *d)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDAFree(d->rowptr));
  PetscCall(BenchCUDAFree(d->colidx));
  PetscCall(BenchCUDAFree(d->escape_start));
  PetscCall(BenchCUDAFree(d->escape_col));
  PetscCall(BenchCUDAFree(d->urowptr));
  PetscCall(BenchCUDAFree(d->ucolidx));
  PetscCall(BenchCUDAFree(d->delta));
  PetscCall(BenchCUDAFree(d->vals));
  PetscCall(BenchCUDAFree(d->uvals));
  PetscCall(BenchCUDAFree(d->x));
  PetscCall(BenchCUDAFree(d->y));
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchDeviceUpload(const BenchFormats *f, const double *x, BenchDevice *d)
{
  const size_t n = (size_t)f->nrows, nnz = (size_t)f->nnz, nu = (size_t)f->nnz_upper;

  PetscFunctionBegin;
  d->nrows = f->nrows;
  PetscCall(BenchUpload(&d->rowptr, f->rowptr, (n + 1) * sizeof(int32_t), "the row pointers"));
  PetscCall(BenchUpload(&d->colidx, f->colidx, nnz * sizeof(int32_t), "the 32-bit columns"));
  PetscCall(BenchUpload(&d->vals, f->vals, nnz * sizeof(double), "the values"));
  PetscCall(BenchUpload(&d->delta, f->delta, nnz * sizeof(uint16_t), "the 16-bit column deltas"));
  PetscCall(BenchUpload(&d->escape_start, f->escape_start, (n + 1) * sizeof(int32_t), "the escape-list pointers"));
  PetscCall(BenchUpload(&d->escape_col, f->escape_col, (size_t)f->nescape * sizeof(int32_t), "the escaped columns"));
  PetscCall(BenchUpload(&d->urowptr, f->urowptr, (n + 1) * sizeof(int32_t), "the upper triangle's row pointers"));
  PetscCall(BenchUpload(&d->ucolidx, f->ucolidx, nu * sizeof(int32_t), "the upper triangle's columns"));
  PetscCall(BenchUpload(&d->uvals, f->uvals, nu * sizeof(double), "the upper triangle's values"));
  PetscCall(BenchUpload(&d->x, x, n * sizeof(double), "x"));
  PetscCall(BenchCUDAMalloc((void **)&d->y, n * sizeof(double), "y"));
  PetscFunctionReturn(0);
}

/* All device arrays or none: a failed upload frees what it had allocated. */
static PetscErrorCode BenchDeviceCreate(const BenchFormats *f, const double *x, BenchDevice *d)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  ierr = BenchDeviceUpload(f, x, d);
  if (ierr) PetscCall(BenchDeviceDestroy(d));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

typedef enum {
  BENCH_CSR32,
  BENCH_CSR16D,
  BENCH_UPPER_ATOMIC,
  BENCH_CUSPARSE_ALG1,
  BENCH_CUSPARSE_ALG2,
  BENCH_NUM_KERNELS
} BenchKind;

static const char *const BenchKindNames[BENCH_NUM_KERNELS] = {"csr32", "csr16d", "upper_atomic", "cusparse_csr_alg1", "cusparse_csr_alg2"};

/* One product y = A x as a run of the common harness (BenchTime, BenchRunError) */
typedef struct {
  BenchKind      kind;
  BenchDevice   *d;
  BenchCUSPARSE *cusparse; /* for the cuSPARSE kinds */
  cudaStream_t   stream;
} BenchCall;

static PetscErrorCode BenchRunCall(void *ctx)
{
  const BenchCall   *c      = (const BenchCall *)ctx;
  const BenchDevice *d      = c->d;
  const int          nrows  = (int)d->nrows;
  const unsigned     blocks = (unsigned)((nrows + BENCH_WARPS_PER_BLOCK - 1) / BENCH_WARPS_PER_BLOCK), threads = 32 * BENCH_WARPS_PER_BLOCK;

  PetscFunctionBegin;
  switch (c->kind) {
  case BENCH_CSR32:
    if (!nrows) break;
    BenchCSR32Kernel<<<blocks, threads, 0, c->stream>>>(nrows, d->rowptr, d->colidx, d->vals, d->x, d->y);
    BenchCallCUDA(cudaGetLastError());
    break;
  case BENCH_CSR16D:
    if (!nrows) break;
    BenchCSR16DKernel<<<blocks, threads, 0, c->stream>>>(nrows, d->rowptr, d->delta, d->escape_start, d->escape_col, d->vals, d->x, d->y);
    BenchCallCUDA(cudaGetLastError());
    break;
  case BENCH_UPPER_ATOMIC:
    if (!nrows) break;
    BenchCallCUDA(cudaMemsetAsync(d->y, 0, (size_t)nrows * sizeof(double), c->stream));
    BenchUpperAtomicKernel<<<blocks, threads, 0, c->stream>>>(nrows, d->urowptr, d->ucolidx, d->uvals, d->x, d->y);
    BenchCallCUDA(cudaGetLastError());
    break;
  case BENCH_CUSPARSE_ALG1:
    PetscCall(BenchCUSPARSEMult(c->cusparse, CUSPARSE_SPMV_CSR_ALG1));
    break;
  case BENCH_CUSPARSE_ALG2:
    PetscCall(BenchCUSPARSEMult(c->cusparse, CUSPARSE_SPMV_CSR_ALG2));
    break;
  case BENCH_NUM_KERNELS:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No kernel BENCH_NUM_KERNELS");
  }
  PetscFunctionReturn(0);
}

/* The matrix arrays a kernel reads, in bytes (vectors not counted) */
static double BenchMatrixBytes(BenchKind kind, const BenchFormats *f)
{
  const double rows = (double)f->nrows + 1;

  switch (kind) {
  case BENCH_CSR32:
    return 12.0 * f->nnz + 4.0 * rows;
  case BENCH_CSR16D: /* values, deltas, escaped columns, row and escape pointers */
    return 10.0 * f->nnz + 4.0 * f->nescape + 8.0 * rows;
  case BENCH_UPPER_ATOMIC:
    return 12.0 * f->nnz_upper + 4.0 * rows;
  case BENCH_CUSPARSE_ALG1:
  case BENCH_CUSPARSE_ALG2: /* PetscInt indices */
    return (8.0 + sizeof(PetscInt)) * f->nnz + sizeof(PetscInt) * rows;
  case BENCH_NUM_KERNELS:
    break;
  }
  return 0.0;
}

/* Runs csr32, csr16d and upper_atomic once each on d and returns their worst error. */
static PetscErrorCode BenchCheckKernels(BenchDevice *d, cudaStream_t stream, const double *ref, const double *absref, double *host_y, double *worst)
{
  PetscFunctionBegin;
  for (int k = BENCH_CSR32; k <= BENCH_UPPER_ATOMIC; k++) {
    BenchCall call = {(BenchKind)k, d, NULL, stream};
    double    err;

    PetscCall(BenchRunError(BenchRunCall, &call, d->y, d->nrows, ref, absref, host_y, &err));
    *worst = PetscMax(*worst, err);
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Edge cases first: one row, rows longer than a warp, and wide matrices whose rows have escapes in
   the first lane, in consecutive lanes, across chunks, and deltas of exactly 65534, 65535, 65536. */
static PetscErrorCode BenchCheckShapes(PetscBool host_only, cudaStream_t stream, PetscBool *failed)
{
  const BenchSymSpec cases[] = {
    {0,       0,  0.0, 0,   0,      0,  0,     11},
    {1,       0,  0.0, 0,   0,      0,  0,     12},
    {100,     100, 0.0, 0,  0,      0,  0,     13}, /* rows of up to 100 entries: several chunks */
    {200000,  40, 0.7, 200, 1000,   3,  65535, 14}, /* long rows, a few escapes */
    {2300000, 1,  0.0, 0,   100003, 34, 65535, 15}, /* mostly escapes; 35 in a row: across chunks */
    {2300000, 1,  0.0, 0,   100019, 34, 65534, 16},
    {2300000, 1,  0.0, 0,   100043, 34, 65536, 17}
  };
  double   worst_host = 0.0, worst_device = 0.0;
  PetscInt escapes = 0, longest = 0;

  PetscFunctionBegin;
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    BenchCSR     A;
    BenchFormats f;
    double      *x, *ref, *absref, *y, asymmetry, err;

    PetscCall(BenchCSRSymmetricRandom(&cases[c], &A));
    PetscCall(BenchCheckSymmetric(&A, &asymmetry));
    PetscCall(BenchFormatsCreate(&A, &f));
    PetscCall(PetscMalloc4(A.nrows, &x, A.nrows, &ref, A.nrows, &absref, A.nrows, &y));
    BenchFillX(A.nrows, x);
    BenchCSRMult(&A, x, NULL, ref, absref);
    PetscCall(BenchHostChecks(&f, x, ref, absref, &err));
    worst_host = PetscMax(worst_host, err);
    escapes += f.nescape;
    for (PetscInt i = 0; i < A.nrows; i++) longest = PetscMax(longest, A.rowptr[i + 1] - A.rowptr[i]);
    if (!host_only) {
      BenchDevice    d;
      PetscErrorCode ierr;

      PetscCall(BenchDeviceCreate(&f, x, &d));
      ierr = BenchCheckKernels(&d, stream, ref, absref, y, &worst_device);
      PetscCall(BenchDeviceDestroy(&d)); /* also after a failed run */
      PetscCall(ierr);
    }
    PetscCall(PetscFree4(x, ref, absref, y));
    PetscCall(BenchFormatsDestroy(&f));
    PetscCall(BenchCSRFree(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Edge-case checks on %d symmetric matrices (up to %" PetscInt_FMT " rows, rows up to %" PetscInt_FMT " long, %" PetscInt_FMT " escaped columns): host csr16d decoding exact, upper-triangle host product max rel error %.2e%s", (int)(sizeof(cases) / sizeof(cases[0])),
                        cases[sizeof(cases) / sizeof(cases[0]) - 1].n, longest, escapes, worst_host, worst_host > BENCH_TOLERANCE ? "  FAILED" : ""));
  if (!host_only) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; csr32, csr16d, upper_atomic on the device max rel error %.2e%s", worst_device, worst_device > BENCH_TOLERANCE ? "  FAILED" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  if (PetscMax(worst_host, worst_device) > BENCH_TOLERANCE) *failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
typedef struct {
  double ms_median, ms_min, bytes, err;
} BenchResult;

/* Every kernel on the device copies: checked once, then timed; results[k] of BenchKind k. */
static PetscErrorCode BenchKernels(const BenchCSR *A, const BenchFormats *f, BenchTimer *timer, BenchDevice *d, BenchCUSPARSE *cusparse, const double *hx, const double *ref, const double *absref, PetscInt warmup, PetscInt reps, BenchResult *results)
{
  double *host_y;

  PetscFunctionBegin;
  PetscCall(BenchDeviceCreate(f, hx, d));
  PetscCall(BenchCUSPARSECreate(A, timer->stream, d->x, d->y, cusparse));
  PetscCall(PetscMalloc1(A->nrows, &host_y));
  for (int k = 0; k < BENCH_NUM_KERNELS; k++) {
    BenchCall call = {(BenchKind)k, d, cusparse, timer->stream};

    results[k].bytes = BenchMatrixBytes((BenchKind)k, f);
    PetscCall(BenchRunError(BenchRunCall, &call, d->y, A->nrows, ref, absref, host_y, &results[k].err));
    PetscCall(BenchTime(timer, BenchRunCall, &call, warmup, reps, &results[k].ms_median, &results[k].ms_min));
  }
  PetscCall(PetscFree(host_y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchReport(const BenchFormats *f, const BenchResult *results, double read_gbs, FILE *csv, PetscBool *failed)
{
  int device, l2_bytes;

  PetscFunctionBegin;
  BenchCallCUDA(cudaGetDevice(&device));
  BenchCallCUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  if (results[BENCH_CSR32].bytes < 2.0 * l2_bytes) /* then repeated products read much of the matrix from the cache */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nNote: csr32's arrays (%.1f MB) are less than twice the L2 cache (%.1f MB): these times are the cache's, not the memory's\n", results[BENCH_CSR32].bytes / 1e6, l2_bytes / 1e6));
  PetscCall(BenchPrintHeader("SpMV y = A x: GB/s and %read over the matrix arrays each kernel reads (vectors not counted)", "B/nnz"));
  for (int k = 0; k < BENCH_NUM_KERNELS; k++) {
    const double gbs = BenchGBs(results[k].bytes, results[k].ms_median), per_nnz = f->nnz ? results[k].bytes / f->nnz : 0.0;
    char         info[16], err_text[32];

    snprintf(info, sizeof(info), "%.2f", per_nnz);
    PetscCall(BenchPrintRow(BenchKindNames[k], info, results[k].ms_median, results[k].ms_min, gbs, BenchPercentOfRead(gbs, read_gbs), results[k].err));
    BenchErrorText(results[k].err, err_text, sizeof(err_text));
    if (csv) PetscCall(PetscFPrintf(PETSC_COMM_SELF, csv, "%s,%.6f,%.6f,%.4f,%.0f,%.2f,%.2f,%s\n", BenchKindNames[k], results[k].ms_median, results[k].ms_min, per_nnz, results[k].bytes, gbs, BenchPercentOfRead(gbs, read_gbs), err_text));
    if (results[k].err > BENCH_TOLERANCE) *failed = PETSC_TRUE;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nSummary (x_csr32 = csr32's median time / this one's: above 1 is faster)\n%-20s %10s %7s %7s %8s\n", "kernel", "ms_median", "B/nnz", "%read", "x_csr32"));
  for (int k = 0; k < BENCH_NUM_KERNELS; k++)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-20s %10.4f %7.2f %7.1f %8.3f\n", BenchKindNames[k], results[k].ms_median, f->nnz ? results[k].bytes / f->nnz : 0.0, BenchPercentOfRead(BenchGBs(results[k].bytes, results[k].ms_median), read_gbs),
                          results[BENCH_CSR32].ms_median / results[k].ms_median));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchMain(PetscBool *failed)
{
  BenchSymSpec   spec = {20000, 32, 0.5, 64, 0, 0, 0, 2024};
  PetscInt       warmup = 10, reps = 100, seed = 2024;
  PetscReal      bw_gib = 4.0;
  PetscBool      check_shapes = PETSC_TRUE, host_only = PETSC_FALSE, has_help, avail;
  const char    *why;
  char           csv_path[PETSC_MAX_PATH_LEN] = "";
  FILE          *csv = NULL;
  BenchFCIInfo   fci;
  BenchCSR       A;
  BenchFormats   f;
  BenchTimer     timer;
  BenchBandwidth bw;
  double        *hx, *ref, *absref, asymmetry, upper_err;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &spec.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  spec.seed = (unsigned long long)seed;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bw_gib", &bw_gib, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_shapes", &check_shapes, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_only", &host_only, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv_path, sizeof(csv_path), NULL));
  PetscCheck(spec.n > 0 && reps > 0 && warmup >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -n > 0, -reps > 0 and -warmup >= 0");
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (has_help) PetscFunctionReturn(0); /* PetscInitialize printed the help */

  PetscCall(PetscMemzero(&timer, sizeof(timer)));
  PetscCall(PetscMemzero(&bw, sizeof(bw)));
  if (!host_only) {
    PetscCall(GpuMatsCUDAInitialize(&avail, &why));
    PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "bench_bytes needs a CUDA device (or -host_only): %s", why);
    PetscCall(BenchTimerCreate(&timer));
    PetscCall(BenchPrintDevice());
    if (csv_path[0]) {
      PetscCall(PetscFOpen(PETSC_COMM_SELF, csv_path, "w", &csv));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, csv, "kernel,ms_median,ms_min,bytes_per_nnz,matrix_bytes,gbs,pct_read,err\n"));
    }
  }
  if (check_shapes) PetscCall(BenchCheckShapes(host_only, timer.stream, failed));
  if (!host_only) { /* before the matrix takes device memory */
    PetscCall(BenchMeasureBandwidth(&timer, bw_gib, 20, &bw));
    PetscCall(BenchPrintBandwidth(&bw));
  }

  /* the matrix, its encodings, the reference and the host checks */
  PetscCall(PetscTime(&t0));
  PetscCall(BenchFCIMatrix(&fci, &A.nrows, &A.rowptr, &A.colidx, &A.vals));
  if (fci.used) A.ncols = A.nrows;
  else PetscCall(BenchCSRSymmetricRandom(&spec, &A));
  PetscCall(PetscTime(&t1));
  PetscCall(BenchCheckSymmetric(&A, &asymmetry));
  PetscCall(BenchFormatsCreate(&A, &f));
  PetscCall(PetscMalloc3(A.nrows, &hx, A.nrows, &ref, A.nrows, &absref));
  BenchFillX(A.nrows, hx);
  BenchCSRMult(&A, hx, NULL, ref, absref);
  PetscCall(BenchHostChecks(&f, hx, ref, absref, &upper_err));
  if (fci.used) PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nMatrix: %s\n        n %" PetscInt_FMT ", nnz %" PetscInt_FMT " (%.1f a row), built in %.1f s\n", fci.description, A.nrows, f.nnz, A.nrows ? (double)f.nnz / A.nrows : 0.0, t1 - t0));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nMatrix: random symmetric, n %" PetscInt_FMT ", nnz %" PetscInt_FMT " (%.1f a row), seed %" PetscInt_FMT "\n", A.nrows, f.nnz, (double)f.nnz / A.nrows, seed));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Symmetric: structurally, and numerically up to a relative difference of %.2e\n", asymmetry));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "csr16d: %" PetscInt_FMT " escaped columns (%.4f%% of nnz); host decoding equals the 32-bit columns\n", f.nescape, f.nnz ? 100.0 * f.nescape / f.nnz : 0.0));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "upper triangle: %" PetscInt_FMT " entries (%.2f%% of nnz); host y = U x + (U - D)^T x max rel error %.2e%s\n", f.nnz_upper, f.nnz ? 100.0 * f.nnz_upper / f.nnz : 0.0, upper_err, upper_err > BENCH_TOLERANCE ? "  FAILED" : ""));
  if (upper_err > BENCH_TOLERANCE) *failed = PETSC_TRUE;

  if (!host_only) {
    BenchDevice    d;
    BenchCUSPARSE  cusparse;
    BenchResult    results[BENCH_NUM_KERNELS];
    PetscErrorCode ierr;

    PetscCall(PetscMemzero(&d, sizeof(d)));
    PetscCall(PetscMemzero(&cusparse, sizeof(cusparse)));
    ierr = BenchKernels(&A, &f, &timer, &d, &cusparse, hx, ref, absref, warmup, reps, results);
    /* the device copies go also when a kernel failed */
    PetscCall(BenchCUSPARSEDestroy(&cusparse));
    PetscCall(BenchDeviceDestroy(&d));
    PetscCall(ierr);
    PetscCall(BenchReport(&f, results, bw.read_gbs, csv, failed));
    if (csv) PetscCall(PetscFClose(PETSC_COMM_SELF, csv));
    PetscCall(BenchTimerDestroy(&timer));
  }
  PetscCall(PetscFree3(hx, ref, absref));
  PetscCall(BenchFormatsDestroy(&f));
  PetscCall(BenchCSRFree(&A));
  if (host_only) PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", *failed ? "FAILED: a host check's error exceeds 1e-12" : "Host checks passed (no device run: -host_only)"));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", *failed ? "FAILED: some kernel's error exceeds 1e-12" : "All kernels within 1e-12 of the host CSR reference"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return BenchMainOneRank(argc, argv, help, "bench_bytes", BenchMain);
}
