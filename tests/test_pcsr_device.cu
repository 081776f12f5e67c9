/* Correctness of the PCSR device layer (cuda/pcsr/) against a host reference, with no
   PETSc matrix in between: every SpMV kernel, both transposed products (also after new
   values), the SpMM, and the rejection of bad input.

   Matrices: 0x0, empty, 1x1, 0 rows, 0 columns, rectangular both ways with empty rows,
   one row of 100000 entries, many short rows with a few 50000-entry rows, power-law row
   lengths, power-law column counts and dense columns (long and chunked rows of the
   transposed copy), a 5-point stencil and short random rows (the SpMM at every k from 1
   to 17), row lengths at the adaptive kernel's window and chunk boundaries; the row
   pointers start at a nonzero offset, and the entries before it hold invalid columns,
   so reading them would be caught.  Outputs are poisoned with NaN before each product;
   y0 is NULL, distinct, or y itself.  Componentwise error bound: |y - yref|_i <=
   1e-12 (|A| |x| + |y0|)_i.  Exits nonzero on the first failure, saying what failed;
   prints "skipped" and exits 0 when no CUDA device is usable. */
#include <gpumats.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
extern "C" {
#include "cuda/common/gpumats_cuda.h"
#include "cuda/pcsr/pcsr_cuda.h"
}

static const char help[] = "PCSR device kernels against a host reference\n";

#define TOL 1e-12

static const char *const KernelNames[]    = {"AUTO", "PAPER", "FUSED", "VECTOR", "ADAPTIVE"}; /* as numbered in MatPCSRKernel */
static const char *const TransposeNames[] = {"ATOMIC", "COPY"};                             /* MatPCSRTranspose */
static const char *const Y0Names[]        = {"y0 NULL", "y0 distinct", "y0 == y"};

/* ---- deterministic random numbers ------------------------------------------------------ */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t RandU64(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static double RandUnit(void) { return (double)(RandU64() >> 11) / 9007199254740992.0; } /* [0, 1) */
static double RandValue(void) { return 2.0 * RandUnit() - 1.0; }
static PetscInt RandInt(PetscInt n) { return n > 0 ? (PetscInt)(RandU64() % (uint64_t)n) : 0; }

/* ---- test matrices ---------------------------------------------------------------------- */
typedef struct {
  char         name[64];
  PetscInt     nrows, ncols, base; /* ai[0] == base */
  PetscInt    *ai, *aj;            /* aj, aa: base + nnz entries; the first base are junk */
  PetscScalar *aa;
} TestMatrix;

/* Rows of the given lengths (capped at ncols), sorted distinct columns spread over the row. */
static PetscErrorCode MatrixFromLengths(const char *name, PetscInt nrows, PetscInt ncols, const PetscInt *len, TestMatrix *M)
{
  PetscInt64 nnz = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(M, sizeof(*M)));
  PetscCall(PetscStrncpy(M->name, name, sizeof(M->name)));
  M->nrows = nrows;
  M->ncols = ncols;
  M->base  = 3;
  for (PetscInt i = 0; i < nrows; i++) nnz += PetscMin(len[i], ncols);
  PetscCall(PetscMalloc3(nrows + 1, &M->ai, M->base + nnz + 1, &M->aj, M->base + nnz + 1, &M->aa));
  for (PetscInt k = 0; k < M->base; k++) M->aj[k] = -12345, M->aa[k] = NAN; /* never to be read */
  M->ai[0] = M->base;
  for (PetscInt i = 0; i < nrows; i++) {
    const PetscInt L = PetscMin(len[i], ncols);
    PetscInt      *col = M->aj + M->ai[i];

    for (PetscInt p = 0; p < L; p++) { /* column p in stratum [p n / L, (p + 1) n / L) */
      const PetscInt lo = (PetscInt)((PetscInt64)p * ncols / L), hi = (PetscInt)((PetscInt64)(p + 1) * ncols / L);

      col[p]             = lo + RandInt(hi - lo);
      M->aa[M->ai[i] + p] = RandValue();
    }
    M->ai[i + 1] = M->ai[i] + L;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatrixDestroy(TestMatrix *M)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(M->ai, M->aj, M->aa));
  PetscFunctionReturn(0);
}

typedef enum {
  LEN_UNIFORM,   /* lengths in [lo, hi] */
  LEN_SOME_EMPTY /* a fifth of the rows empty, the rest in [lo, hi] */
} LengthKind;

static PetscErrorCode MatrixRandom(const char *name, PetscInt nrows, PetscInt ncols, PetscInt lo, PetscInt hi, LengthKind kind, TestMatrix *M)
{
  PetscInt *len;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nrows + 1, &len));
  for (PetscInt i = 0; i < nrows; i++) len[i] = (kind == LEN_SOME_EMPTY && RandInt(5) == 0) ? 0 : lo + RandInt(hi - lo + 1);
  PetscCall(MatrixFromLengths(name, nrows, ncols, len, M));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* Rows of lo..hi entries whose columns crowd towards column 0 (column p of a row of L in
   the stratum [n (p/L)^power, n ((p+1)/L)^power), pushed right to stay increasing): the
   first columns are dense, the column counts fall off like a power law. */
static PetscErrorCode MatrixSkewedColumns(const char *name, PetscInt nrows, PetscInt ncols, PetscInt lo, PetscInt hi, double power, TestMatrix *M)
{
  PetscFunctionBeginUser;
  PetscCall(MatrixRandom(name, nrows, ncols, lo, hi, LEN_UNIFORM, M));
  for (PetscInt i = 0; i < nrows; i++) {
    const PetscInt L = M->ai[i + 1] - M->ai[i];
    PetscInt      *col = M->aj + M->ai[i], prev = -1;

    for (PetscInt p = 0; p < L; p++) {
      const PetscInt s0 = (PetscInt)(ncols * pow((double)p / L, power)), s1 = (PetscInt)(ncols * pow((double)(p + 1) / L, power));
      const PetscInt c  = PetscMax(prev + 1, s0 + RandInt(s1 - s0));

      col[p] = prev = PetscMin(c, ncols - (L - p)); /* room for the rest of the row */
    }
  }
  PetscFunctionReturn(0);
}

/* The 5-point stencil on an N x N grid, natural ordering. */
static PetscErrorCode MatrixStencil5(const char *name, PetscInt N, TestMatrix *M)
{
  const PetscInt n = N * N;
  PetscInt      *len;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &len));
  for (PetscInt i = 0; i < n; i++) len[i] = 1 + (i % N > 0) + (i % N < N - 1) + (i >= N) + (i < n - N);
  PetscCall(MatrixFromLengths(name, n, n, len, M));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt *col = M->aj + M->ai[i], p = 0;

    if (i >= N) col[p++] = i - N;
    if (i % N > 0) col[p++] = i - 1;
    col[p++] = i;
    if (i % N < N - 1) col[p++] = i + 1;
    if (i < n - N) col[p++] = i + N;
  }
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* ---- host reference --------------------------------------------------------------------- */

/* y = op(A) x + y0 and the bound (|op(A)| |x| + |y0|), in long double */
static void ReferenceMult(const TestMatrix *M, PetscBool transpose, const double *x, const double *y0, double *y, double *bound)
{
  const PetscInt m = transpose ? M->ncols : M->nrows;
  long double   *s, *b;

  s = (long double *)calloc((size_t)m + 1, sizeof(long double));
  b = (long double *)calloc((size_t)m + 1, sizeof(long double));
  for (PetscInt i = 0; i < M->nrows; i++)
    for (PetscInt k = M->ai[i]; k < M->ai[i + 1]; k++) {
      const PetscInt j = M->aj[k];

      if (!transpose) {
        s[i] += (long double)M->aa[k] * x[j];
        b[i] += fabsl((long double)M->aa[k] * x[j]);
      } else {
        s[j] += (long double)M->aa[k] * x[i];
        b[j] += fabsl((long double)M->aa[k] * x[i]);
      }
    }
  for (PetscInt i = 0; i < m; i++) {
    y[i]     = (double)(s[i] + (y0 ? y0[i] : 0.0));
    bound[i] = (double)(b[i] + (y0 ? fabs(y0[i]) : 0.0));
  }
  free(s);
  free(b);
}

static PetscErrorCode Compare(const char *what, const TestMatrix *M, PetscInt m, const double *y, const double *yref, const double *bound, PetscInt stride_index)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) {
    const double err = fabs(y[i] - yref[i]);

    if (!(err <= TOL * bound[i])) { /* NaN fails too */
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: FAILED %s on %s (%" PetscInt_FMT " x %" PetscInt_FMT "): entry %" PetscInt_FMT " (column %" PetscInt_FMT ") is %.17g, expected %.17g (bound %g)\n", what, M->name, M->nrows, M->ncols, i, stride_index, y[i], yref[i], TOL * bound[i]));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr_device: %s on %s is wrong", what, M->name);
    }
  }
  PetscFunctionReturn(0);
}

/* ---- device helpers (all on the gpumats stream) ----------------------------------------- */
static PetscErrorCode DeviceAlloc(double **d, PetscInt n, const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(GpuMatsCUDAMalloc((void **)d, (size_t)PetscMax(n, 1) * sizeof(double), what));
  PetscFunctionReturn(0);
}
static PetscErrorCode Poison(double *d, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(GpuMatsCUDAMemset(d, 0xff, (size_t)n * sizeof(double))); /* all-ones bytes: a NaN */
  PetscFunctionReturn(0);
}

typedef struct {
  double *x, *xt, *y0, *y0t, *y; /* device: x (ncols), xt (nrows), y0 (nrows), y0t (ncols), y (max) */
  double *hx, *hxt, *hy0, *hy0t, *hy, *href, *hbound;
  PetscInt maxn;
} Work;

static PetscErrorCode WorkCreate(const TestMatrix *M, Work *w)
{
  const PetscInt m = M->nrows, n = M->ncols, maxn = PetscMax(PetscMax(m, n), 1);

  PetscFunctionBeginUser;
  w->maxn = maxn;
  PetscCall(PetscMalloc7(maxn, &w->hx, maxn, &w->hxt, maxn, &w->hy0, maxn, &w->hy0t, maxn, &w->hy, maxn, &w->href, maxn, &w->hbound));
  for (PetscInt i = 0; i < maxn; i++) w->hx[i] = RandValue(), w->hxt[i] = RandValue(), w->hy0[i] = RandValue(), w->hy0t[i] = RandValue();
  PetscCall(DeviceAlloc(&w->x, n, "test x"));
  PetscCall(DeviceAlloc(&w->xt, m, "test xt"));
  PetscCall(DeviceAlloc(&w->y0, m, "test y0"));
  PetscCall(DeviceAlloc(&w->y0t, n, "test y0t"));
  PetscCall(DeviceAlloc(&w->y, maxn, "test y"));
  PetscCall(GpuMatsCUDACopyToDevice(w->x, w->hx, (size_t)n * sizeof(double)));
  PetscCall(GpuMatsCUDACopyToDevice(w->xt, w->hxt, (size_t)m * sizeof(double)));
  PetscCall(GpuMatsCUDACopyToDevice(w->y0, w->hy0, (size_t)m * sizeof(double)));
  PetscCall(GpuMatsCUDACopyToDevice(w->y0t, w->hy0t, (size_t)n * sizeof(double)));
  PetscFunctionReturn(0);
}

static PetscErrorCode WorkDestroy(Work *w)
{
  PetscFunctionBeginUser;
  PetscCall(GpuMatsCUDASynchronize());
  PetscCall(GpuMatsCUDAFree(w->x));
  PetscCall(GpuMatsCUDAFree(w->xt));
  PetscCall(GpuMatsCUDAFree(w->y0));
  PetscCall(GpuMatsCUDAFree(w->y0t));
  PetscCall(GpuMatsCUDAFree(w->y));
  PetscCall(PetscFree7(w->hx, w->hxt, w->hy0, w->hy0t, w->hy, w->href, w->hbound));
  PetscFunctionReturn(0);
}

/* One product op (a MatPCSRKernel, or a MatPCSRTranspose) with y0 mode ymode, checked. */
static PetscErrorCode CheckProduct(PCSRDevice dev, const TestMatrix *M, Work *w, PetscBool transpose, int op, int ymode, const char *when)
{
  const PetscInt m   = transpose ? M->ncols : M->nrows;
  const double  *x   = transpose ? w->xt : w->x;
  const double  *hx  = transpose ? w->hxt : w->hx;
  double        *dy0 = transpose ? w->y0t : w->y0;
  const double  *hy0 = transpose ? w->hy0t : w->hy0;
  const double  *y0  = NULL;
  char           what[160];

  PetscFunctionBeginUser;
  PetscCall(Poison(w->y, w->maxn));
  if (ymode == 1) y0 = dy0;
  else if (ymode == 2) {
    PetscCall(GpuMatsCUDACopyToDevice(w->y, hy0, (size_t)m * sizeof(double)));
    y0 = w->y;
  }
  if (transpose) PetscCall(PCSRDeviceMultTranspose(dev, (MatPCSRTranspose)op, x, y0, w->y));
  else PetscCall(PCSRDeviceMult(dev, (MatPCSRKernel)op, x, y0, w->y));
  PetscCall(GpuMatsCUDACopyToHost(w->hy, w->y, (size_t)m * sizeof(double)));
  ReferenceMult(M, transpose, hx, ymode ? hy0 : NULL, w->href, w->hbound);
  snprintf(what, sizeof(what), "%s %s, %s%s", transpose ? "MultTranspose" : "Mult", transpose ? TransposeNames[op] : KernelNames[op], Y0Names[ymode], when);
  PetscCall(Compare(what, M, m, w->hy, w->href, w->hbound, -1));
  PetscFunctionReturn(0);
}

/* C = A B (+ C) for k columns, ldb > ncols, ldc > nrows; the padding rows of C must stay. */
static PetscErrorCode CheckSpMM(PCSRDevice dev, const TestMatrix *M, PetscInt k, PetscBool add)
{
  const PetscInt m = M->nrows, n = M->ncols, ldb = n + 3, ldc = m + 5;
  const double   pad = 271828.0;
  double        *hB, *hC, *hC0, *dB, *dC, *yref, *bound;
  char           what[128];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(ldb * k, &hB, ldc * k, &hC, ldc * k, &hC0, PetscMax(m, 1), &yref, PetscMax(m, 1), &bound));
  for (PetscInt e = 0; e < ldb * k; e++) hB[e] = e % ldb < n ? RandValue() : NAN; /* padding of B must not be read */
  for (PetscInt e = 0; e < ldc * k; e++) hC0[e] = e % ldc < m ? (add ? RandValue() : NAN) : pad;
  PetscCall(DeviceAlloc(&dB, ldb * k, "test B"));
  PetscCall(DeviceAlloc(&dC, ldc * k, "test C"));
  PetscCall(GpuMatsCUDACopyToDevice(dB, hB, (size_t)(ldb * k) * sizeof(double)));
  PetscCall(GpuMatsCUDACopyToDevice(dC, hC0, (size_t)(ldc * k) * sizeof(double)));
  PetscCall(PCSRDeviceSpMM(dev, k, dB, ldb, add, dC, ldc));
  PetscCall(GpuMatsCUDACopyToHost(hC, dC, (size_t)(ldc * k) * sizeof(double)));
  for (PetscInt j = 0; j < k; j++) {
    ReferenceMult(M, PETSC_FALSE, hB + j * ldb, add ? hC0 + j * ldc : NULL, yref, bound);
    snprintf(what, sizeof(what), "SpMM k = %d, add %s, column %d", (int)k, add ? "true" : "false", (int)j);
    PetscCall(Compare(what, M, m, hC + j * ldc, yref, bound, j));
    for (PetscInt i = m; i < ldc; i++)
      if (hC[i + j * ldc] != pad) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: FAILED SpMM k = %d on %s: padding row %d of column %d of C was written\n", (int)k, M->name, (int)i, (int)j));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr_device: SpMM wrote past the rows of C");
      }
  }
  PetscCall(GpuMatsCUDAFree(dB));
  PetscCall(GpuMatsCUDAFree(dC));
  PetscCall(PetscFree5(hB, hC, hC0, yref, bound));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckAllProducts(PCSRDevice dev, const TestMatrix *M, Work *w, const char *when)
{
  PetscFunctionBeginUser;
  for (int kernel = MAT_PCSR_KERNEL_PAPER; kernel <= MAT_PCSR_KERNEL_ADAPTIVE; kernel++) /* every one but AUTO */
    for (int ymode = 0; ymode < 3; ymode++) PetscCall(CheckProduct(dev, M, w, PETSC_FALSE, kernel, ymode, when));
  for (int mode = MAT_PCSR_TRANSPOSE_ATOMIC; mode <= MAT_PCSR_TRANSPOSE_COPY; mode++)
    for (int ymode = 0; ymode < 3; ymode++) PetscCall(CheckProduct(dev, M, w, PETSC_TRUE, mode, ymode, when));
  PetscFunctionReturn(0);
}

/* The statistics made on the device with the copy are the host's (PCSRRowStatsFromCSR). */
static PetscErrorCode CheckRowStats(PCSRDevice dev, const TestMatrix *M)
{
  PCSRRowStats d, h;

  PetscFunctionBeginUser;
  PetscCall(PCSRDeviceGetRowStats(dev, &d));
  PCSRRowStatsFromCSR(M->nrows, M->ncols, M->ai, &h);
  PetscCheck(d.nrows == h.nrows && d.ncols == h.ncols && d.nnz == h.nnz && d.max_row_len == h.max_row_len && d.empty_rows == h.empty_rows && PetscAbsReal(d.mean_row_len - h.mean_row_len) <= 1e-12 * PetscMax(1.0, h.mean_row_len) && PetscAbsReal(d.stddev_row_len - h.stddev_row_len) <= 1e-9 * PetscMax(1.0, h.stddev_row_len), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "pcsr_device: %s: row statistics on the device (nnz %" PetscInt64_FMT ", longest %" PetscInt64_FMT ", %" PetscInt64_FMT " empty, mean %g, deviation %g) differ from the host's (%" PetscInt64_FMT ", %" PetscInt64_FMT ", %" PetscInt64_FMT ", %g, %g)", M->name, d.nnz, d.max_row_len, d.empty_rows, d.mean_row_len, d.stddev_row_len, h.nnz, h.max_row_len, h.empty_rows, h.mean_row_len, h.stddev_row_len);
  PetscFunctionReturn(0);
}

/* every_k: the SpMM at every k from 1 to 17 (each column-tile remainder of the short-row
   kernel), then the wider ones of the few k used otherwise. */
static PetscErrorCode RunMatrix(TestMatrix *M, PetscBool every_k)
{
  PCSRDevice     dev;
  Work           w;
  size_t         bytes0, bytes1;
  const PetscInt nnz     = M->ai[M->nrows] - M->ai[0];
  const PetscInt ks[]    = {1, 3, 8, 17, 40, 130};
  const PetscInt nks     = M->nrows * M->ncols > 50000000 ? 4 : 6; /* the wide SpMMs only on the smaller matrices */

  PetscFunctionBeginUser;
  PetscCall(PCSRDeviceCreateFromCSR(M->nrows, M->ncols, M->ai, M->aj, M->aa, &dev));
  PetscCall(CheckRowStats(dev, M));
  PetscCall(PCSRDeviceBytes(dev, &bytes0));
  PetscCall(WorkCreate(M, &w));
  PetscCall(CheckAllProducts(dev, M, &w, ""));
  PetscCall(PCSRDeviceBytes(dev, &bytes1));
  PetscCheck(bytes1 >= bytes0 + (size_t)nnz * (sizeof(double) + sizeof(int32_t) + sizeof(double)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr_device: %s: PCSRDeviceBytes %zu after the products, %zu before: the middle array and the transposed copy are not counted", M->name, bytes1, bytes0);

  /* new values, same structure: every kernel, and the transposed copy must be refreshed */
  for (PetscInt k = M->ai[0]; k < M->ai[M->nrows]; k++) M->aa[k] = RandValue();
  PetscCall(PCSRDeviceCopyValues(dev, M->ai, M->aa));
  PetscCall(CheckAllProducts(dev, M, &w, ", after new values"));

  for (PetscInt k = 1; every_k && k <= 17; k++) {
    PetscCall(CheckSpMM(dev, M, k, PETSC_FALSE));
    PetscCall(CheckSpMM(dev, M, k, PETSC_TRUE));
  }
  for (PetscInt i = every_k ? 4 : 0; i < nks; i++) {
    PetscCall(CheckSpMM(dev, M, ks[i], PETSC_FALSE));
    PetscCall(CheckSpMM(dev, M, ks[i], PETSC_TRUE));
  }
  PetscCall(WorkDestroy(&w));
  PetscCall(PCSRDeviceDestroy(&dev));
  PetscCheck(!dev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCSRDeviceDestroy left the handle set");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: %-28s %7d x %-7d %9d nonzeros: ok (%zu bytes on the device)\n", M->name, (int)M->nrows, (int)M->ncols, (int)nnz, bytes1));
  PetscFunctionReturn(0);
}

/* ---- bad input -------------------------------------------------------------------------- */
static PetscErrorCode ExpectCreateError(const char *what, PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscErrorCode expected)
{
  PCSRDevice     dev = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSRDeviceCreateFromCSR(nrows, ncols, ai, aj, aa, &dev);
  PetscCall(PetscPopErrorHandler());
  if (ierr != expected || dev) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: FAILED bad input (%s): error %d, expected %d%s\n", what, (int)ierr, (int)expected, dev ? ", and a device copy was returned" : ""));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr_device: bad input (%s) not reported", what);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: bad input (%s) is reported: ok\n", what));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckBadInput(void)
{
  const PetscInt    ai[]     = {0, 2, 3, 5};
  const PetscInt    big[]    = {0, 1, 2, 2};
  const PetscInt    high[]   = {0, 2, 1, 3};
  const PetscInt    aj[]     = {0, 2, 1, 0, 2};
  const PetscInt    aj_hi[]  = {0, 2, 1, 0, 3};
  const PetscInt    aj_neg[] = {0, -1, 1, 0, 2};
  const PetscScalar aa[]     = {1, 2, 3, 4, 5};

  PetscFunctionBeginUser;
  PetscCall(ExpectCreateError("column == ncols", 3, 3, ai, aj_hi, aa, PETSC_ERR_ARG_OUTOFRANGE));
  PetscCall(ExpectCreateError("negative column", 3, 3, ai, aj_neg, aa, PETSC_ERR_ARG_OUTOFRANGE));
  PetscCall(ExpectCreateError("column >= ncols = 2", 3, 2, ai, aj, aa, PETSC_ERR_ARG_OUTOFRANGE));
  PetscCall(ExpectCreateError("decreasing row pointers", 3, 3, high, aj, aa, PETSC_ERR_ARG_CORRUPT));
  PetscCall(ExpectCreateError("negative size", -1, 3, big, aj, aa, PETSC_ERR_ARG_OUTOFRANGE));
  PetscFunctionReturn(0);
}

/* ---- the matrices ----------------------------------------------------------------------- */
static PetscErrorCode RunAll(void)
{
  TestMatrix M;
  PetscInt  *len;
  PetscInt   n;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(200001, &len));

  PetscCall(MatrixFromLengths("0 x 0", 0, 0, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  for (PetscInt i = 0; i < 7; i++) len[i] = 0;
  PetscCall(MatrixFromLengths("no nonzeros", 7, 5, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixFromLengths("0 rows", 0, 9, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  for (PetscInt i = 0; i < 9; i++) len[i] = 3; /* capped at 0 columns */
  PetscCall(MatrixFromLengths("0 columns", 9, 0, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  len[0] = 1;
  PetscCall(MatrixFromLengths("1 x 1", 1, 1, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  len[0] = 1000;
  PetscCall(MatrixFromLengths("one row", 1, 1000, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixRandom("wide, empty rows", 300, 1000, 1, 40, LEN_SOME_EMPTY, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixRandom("tall, empty rows", 1000, 300, 1, 40, LEN_SOME_EMPTY, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixRandom("tall, one column", 5000, 1, 0, 1, LEN_UNIFORM, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixRandom("regular 8..64", 20000, 20000, 8, 64, LEN_UNIFORM, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  len[0] = 100000;
  PetscCall(MatrixFromLengths("one row of 100000", 1, 200000, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  /* the long row among empty ones: the paper kernel's block holds it with 255 empty rows */
  for (PetscInt i = 0; i < 600; i++) len[i] = i == 300 ? 100000 : 0;
  PetscCall(MatrixFromLengths("100000 among empty rows", 600, 100000, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  n = 20000;
  for (PetscInt i = 0; i < n; i++) len[i] = RandInt(31);
  len[17] = len[9000] = len[n - 1] = 50000;
  PetscCall(MatrixFromLengths("short rows + 3 of 50000", n, 60000, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  n = 50000; /* power law: P(len > L) ~ L^-1.2, lengths 1..50000 */
  for (PetscInt i = 0; i < n; i++) len[i] = (PetscInt)PetscMin(50000.0, floor(pow(1.0 - RandUnit(), -1.0 / 1.2)));
  PetscCall(MatrixFromLengths("power law", n, n, len, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  { /* lengths at the adaptive window (2048) and long-row chunk (16384) boundaries */
    const PetscInt edge[] = {2048, 2049, 0, 2047, 1, 16384, 16385, 32768, 32769, 3, 1024, 1024, 1025, 0, 5000, 2, 2048, 2048};

    n = (PetscInt)(sizeof(edge) / sizeof(edge[0]));
    for (PetscInt i = 0; i < n; i++) len[i] = edge[i];
    PetscCall(MatrixFromLengths("window/chunk boundaries", n, 40000, len, &M));
    PetscCall(RunMatrix(&M, PETSC_FALSE));
    PetscCall(MatrixDestroy(&M));
  }

  PetscCall(MatrixRandom("many empty-ish rows", 300000, 1000, 0, 1, LEN_SOME_EMPTY, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  /* transposed copy: a few columns of 60000 entries (rows of A^T cut into chunks), and
     power-law column counts */
  PetscCall(MatrixSkewedColumns("dense columns", 60000, 60000, 2, 8, 12.0, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixSkewedColumns("power-law columns", 50000, 50000, 1, 12, 3.0, &M));
  PetscCall(RunMatrix(&M, PETSC_FALSE));
  PetscCall(MatrixDestroy(&M));

  /* short rows: the SpMM's thread-per-row kernel at every k */
  PetscCall(MatrixStencil5("5-point stencil 150", 150, &M));
  PetscCall(RunMatrix(&M, PETSC_TRUE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(MatrixRandom("short rows, empty rows", 7000, 9000, 1, 9, LEN_SOME_EMPTY, &M));
  PetscCall(RunMatrix(&M, PETSC_TRUE));
  PetscCall(MatrixDestroy(&M));

  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool      avail;
  const char    *why;
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  if (!avail) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: skipped (no CUDA device)\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
  ierr = CheckBadInput();
  if (!ierr) ierr = RunAll();
  if (ierr) {
    (void)PetscPrintf(PETSC_COMM_SELF, "pcsr_device: FAILED (error %d)\n", (int)ierr);
    (void)PetscFinalize();
    return 1;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "pcsr_device: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
