/* What solvers do to an operator, done on the device copy of a CIHYBRID matrix without a
   host copy: scale, shift, set or add to the diagonal, Y += a X and copies between matrices of
   one pattern, zeroing, duplication, norms, and the pattern comparison these need. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}
#include "cihybrid_arrays.cuh"

#define CIHYBRID_ALG_BLOCK      256
#define CIHYBRID_ALG_MAX_BLOCKS 65536u
#define CIHYBRID_FULL_WARP      0xffffffffu

static unsigned CIHybridFlatGrid(size_t n)
{
  const size_t blocks = (n + CIHYBRID_ALG_BLOCK - 1) / CIHYBRID_ALG_BLOCK;
  return (unsigned)(blocks < CIHYBRID_ALG_MAX_BLOCKS ? (blocks ? blocks : 1) : CIHYBRID_ALG_MAX_BLOCKS);
}

static size_t CIHybridEllSlots(CIHybridDevice d)
{
  return (size_t)d->nrows * (size_t)d->pitch;
}

/* ---- values: y = alpha y + a x on the stored entries (x NULL: y = alpha y) ------------------- */

/* ELLPACK slots beyond a row's length are padding and stay (-1, 0) whatever alpha is. */
__global__ void CIHybridEllUpdate(size_t slots, int pitch, const int32_t *ell_len, double alpha, double a, const double *x, double *y)
{
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < slots; k += (size_t)gridDim.x * blockDim.x) {
    const int row = (int)(k / (size_t)pitch), p = (int)(k % (size_t)pitch);

    if (p < (ell_len ? ell_len[row] : 0)) y[k] = x ? alpha * y[k] + a * x[k] : alpha * y[k];
  }
}

__global__ void CIHybridFlatUpdate(size_t n, double alpha, double a, const double *x, double *y)
{
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) y[k] = x ? alpha * y[k] + a * x[k] : alpha * y[k];
}

static PetscErrorCode CIHybridDeviceUpdateValues(CIHybridDevice y, PetscScalar alpha, PetscScalar a, CIHybridDevice x)
{
  void        *stream;
  const size_t slots = CIHybridEllSlots(y);

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  if (slots && y->width) {
    CIHybridEllUpdate<<<CIHybridFlatGrid(slots), CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>(slots, (int)y->pitch, y->ell_len, alpha, a, x ? x->ell_val : NULL, y->ell_val);
    PetscCall(CIHybridLaunched("CIHybridEllUpdate<<<>>>"));
  }
  if (y->nnz_csr) {
    CIHybridFlatUpdate<<<CIHybridFlatGrid((size_t)y->nnz_csr), CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>((size_t)y->nnz_csr, alpha, a, x ? x->csr_val : NULL, y->csr_val);
    PetscCall(CIHybridLaunched("CIHybridFlatUpdate<<<>>>"));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceScale(CIHybridDevice dev, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceUpdateValues(dev, a, 0.0, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceAXPY(CIHybridDevice y, PetscScalar a, CIHybridDevice x)
{
  PetscFunctionBegin;
  PetscCheck(x->nrows == y->nrows && x->pitch == y->pitch && x->nnz_csr == y->nnz_csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid device AXPY of two patterns");
  PetscCall(CIHybridDeviceUpdateValues(y, 1.0, a, x));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceCopyValues(CIHybridDevice dst, CIHybridDevice src)
{
  PetscFunctionBegin;
  PetscCheck(src->nrows == dst->nrows && src->pitch == dst->pitch && src->nnz_csr == dst->nnz_csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid device copy between two patterns");
  PetscCall(GpuMatsCUDACopyOnDevice(dst->ell_val, src->ell_val, CIHybridEllSlots(src) * sizeof(PetscScalar)));
  PetscCall(GpuMatsCUDACopyOnDevice(dst->csr_val, src->csr_val, (size_t)src->nnz_csr * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceZeroValues(CIHybridDevice dev)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAMemset(dev->ell_val, 0, CIHybridEllSlots(dev) * sizeof(PetscScalar)));
  PetscCall(GpuMatsCUDAMemset(dev->csr_val, 0, (size_t)dev->nnz_csr * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceDuplicate(CIHybridDevice src, const CIHybridFormat *layout, PetscBool copy_values, CIHybridDevice *dup)
{
  CIHybridDevice d;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *dup = NULL;
  PetscCall(PetscNew(&d));
  ierr = CIHybridDeviceAllocateArrays(d, layout);
  if (!ierr && d->ell_len) ierr = GpuMatsCUDACopyOnDevice(d->ell_len, src->ell_len, (size_t)src->nrows * sizeof(int32_t));
  if (!ierr && d->csr_start) ierr = GpuMatsCUDACopyOnDevice(d->csr_start, src->csr_start, ((size_t)src->nrows + 1) * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDACopyOnDevice(d->ell_col, src->ell_col, CIHybridEllSlots(src) * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDACopyOnDevice(d->csr_col, src->csr_col, (size_t)src->nnz_csr * sizeof(int32_t));
  if (!ierr) ierr = copy_values ? CIHybridDeviceCopyValues(d, src) : CIHybridDeviceZeroValues(d);
  if (!ierr) d->filled = PETSC_TRUE;
  if (ierr) {
    (void)CIHybridDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dup = d;
  PetscFunctionReturn(0);
}

/* ---- the pattern --------------------------------------------------------------------------- */

__global__ void CIHybridCompareInt32(size_t n, const int32_t *a, const int32_t *b, int *differ)
{
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
    if (a[k] != b[k]) {
      *differ = 1;
      return;
    }
}

PetscErrorCode CIHybridDeviceSamePattern(CIHybridDevice a, CIHybridDevice b, PetscBool *same)
{
  const int32_t *arrays[4][2] = {
    {a->ell_len,   b->ell_len  },
    {a->csr_start, b->csr_start},
    {a->ell_col,   b->ell_col  },
    {a->csr_col,   b->csr_col  }
  };
  size_t         sizes[4] = {a->width ? (size_t)a->nrows : 0, a->nrows ? (size_t)a->nrows + 1 : 0, CIHybridEllSlots(a), (size_t)a->nnz_csr};
  int           *differ   = NULL, hdiffer = 0;
  void          *stream;
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  *same = (PetscBool)(a->nrows == b->nrows && a->ncols == b->ncols && a->width == b->width && a->pitch == b->pitch && a->nnz_csr == b->nnz_csr);
  if (!*same || a == b) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(GpuMatsCUDAMalloc((void **)&differ, sizeof(int), "cihybrid pattern comparison: flag"));
  ierr = GpuMatsCUDAMemset(differ, 0, sizeof(int));
  for (int i = 0; i < 4 && !ierr; i++) {
    if (!sizes[i]) continue;
    CIHybridCompareInt32<<<CIHybridFlatGrid(sizes[i]), CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>(sizes[i], arrays[i][0], arrays[i][1], differ);
    ierr = CIHybridLaunched("CIHybridCompareInt32<<<>>>");
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hdiffer, differ, sizeof(int));
  (void)GpuMatsCUDAFree(differ);
  PetscCall(ierr);
  *same = hdiffer ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ---- the diagonal ---------------------------------------------------------------------------- */

/* One warp per row r < n: the position p of column r in the row (entries counted ELLPACK first),
   or -1 with a count of the rows that have none. */
__global__ void CIHybridFindDiagonal(CIHybridArrays A, int n, int32_t *pos, int *missing)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= n) return;
  const int    s = A.ell_len ? A.ell_len[row] : 0, cs = A.csr_start[row], len = s + A.csr_start[row + 1] - cs;
  const size_t ell = (size_t)row * (size_t)A.pitch;
  int          found = -1;

  for (int p = lane; p < len; p += 32) {
    const int c = p < s ? A.ell_col[ell + p] : A.csr_col[cs + p - s];
    if (c == row) found = p;
  }
  for (int offset = 16; offset > 0; offset /= 2) found = max(found, __shfl_down_sync(CIHYBRID_FULL_WARP, found, offset));
  if (lane == 0) {
    pos[row] = found;
    if (found < 0) atomicAdd(missing, 1);
  }
}

/* The position of every diagonal entry, found once per pattern (kept until the device copy goes). */
static PetscErrorCode CIHybridDeviceDiagonalPositions(CIHybridDevice dev)
{
  const PetscInt n = PetscMin(dev->nrows, dev->ncols);
  int           *missing = NULL, hmissing = 0;
  void          *stream;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (dev->diag_known) PetscFunctionReturn(0);
  if (!n) {
    dev->diag_missing = 0;
    dev->diag_known   = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(GpuMatsCUDAMalloc((void **)&dev->diag_pos, (size_t)n * sizeof(int32_t), "cihybrid: the positions of the diagonal entries"));
  ierr = GpuMatsCUDAMalloc((void **)&missing, sizeof(int), "cihybrid: count of missing diagonal entries");
  if (!ierr) ierr = GpuMatsCUDAMemset(missing, 0, sizeof(int));
  if (!ierr) {
    CIHybridFindDiagonal<<<CIHybridRowWarpGrid(n, CIHYBRID_ALG_BLOCK), CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), (int)n, dev->diag_pos, missing);
    ierr = CIHybridLaunched("CIHybridFindDiagonal<<<>>>");
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hmissing, missing, sizeof(int));
  (void)GpuMatsCUDAFree(missing);
  if (ierr) {
    (void)GpuMatsCUDAFree(dev->diag_pos);
    dev->diag_pos = NULL;
    PetscCall(ierr);
  }
  dev->diag_missing = hmissing;
  dev->diag_known   = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceMissingDiagonal(CIHybridDevice dev, PetscInt *missing)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceDiagonalPositions(dev));
  *missing = dev->diag_missing;
  PetscFunctionReturn(0);
}

/* a_rr = a_rr + shift (d NULL), d[r] (insert) or a_rr + d[r] (add), for every stored a_rr */
__global__ void CIHybridUpdateDiagonal(int n, int pitch, const int32_t *ell_len, const int32_t *csr_start, const int32_t *pos, double *ell_val, double *csr_val, double shift, const double *d, int add)
{
  const int row = blockIdx.x * blockDim.x + threadIdx.x;

  if (row >= n || pos[row] < 0) return;
  const int s = ell_len ? ell_len[row] : 0, p = pos[row];
  double   *v = p < s ? &ell_val[(size_t)row * (size_t)pitch + p] : &csr_val[csr_start[row] + p - s];

  if (!d) *v += shift;
  else *v = add ? *v + d[row] : d[row];
}

static PetscErrorCode CIHybridDeviceUpdateDiagonal(CIHybridDevice dev, PetscScalar shift, const PetscScalar *d, PetscBool add)
{
  const PetscInt n = PetscMin(dev->nrows, dev->ncols);
  void          *stream;

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceDiagonalPositions(dev));
  PetscCheck(!dev->diag_missing, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: %" PetscInt_FMT " diagonal entries are not stored: the caller must take the host path", dev->diag_missing);
  if (!n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  CIHybridUpdateDiagonal<<<(unsigned)((n + CIHYBRID_ALG_BLOCK - 1) / CIHYBRID_ALG_BLOCK), CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>((int)n, (int)dev->pitch, dev->ell_len, dev->csr_start, dev->diag_pos, dev->ell_val, dev->csr_val, shift, d, add ? 1 : 0);
  PetscCall(CIHybridLaunched("CIHybridUpdateDiagonal<<<>>>"));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceShiftDiagonal(CIHybridDevice dev, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceUpdateDiagonal(dev, a, NULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceSetDiagonal(CIHybridDevice dev, const PetscScalar *d, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceUpdateDiagonal(dev, 0.0, d, add));
  PetscFunctionReturn(0);
}

/* ---- norms ------------------------------------------------------------------------------------ */

/* Nonnegative doubles order like their bit patterns read as unsigned integers. */
__device__ static void CIHybridAtomicMaxNonneg(double *addr, double v)
{
  atomicMax((unsigned long long *)addr, (unsigned long long)__double_as_longlong(v));
}

__device__ static double CIHybridBlockSum(double v)
{
  __shared__ double partial[CIHYBRID_ALG_BLOCK / 32];
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(CIHYBRID_FULL_WARP, v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(CIHYBRID_FULL_WARP, v, offset);
  return v;
}

/* Sum of squares of the values (padding is 0). */
__global__ void CIHybridSumSquares(size_t n, const double *v, double *sum)
{
  double s = 0.0;

  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) s += v[k] * v[k];
  s = CIHybridBlockSum(s);
  if (threadIdx.x == 0) atomicAdd(sum, s);
}

/* One warp per row: the largest row sum of |a_ij|. */
__global__ void CIHybridMaxRowSum(CIHybridArrays A, double *nrm)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= A.nrows) return;
  const int    s = A.ell_len ? A.ell_len[row] : 0, cs = A.csr_start[row], len = s + A.csr_start[row + 1] - cs;
  const size_t ell = (size_t)row * (size_t)A.pitch;
  double       sum = 0.0;

  for (int p = lane; p < len; p += 32) sum += fabs(p < s ? A.ell_val[ell + p] : A.csr_val[cs + p - s]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(CIHYBRID_FULL_WARP, sum, offset);
  if (lane == 0) CIHybridAtomicMaxNonneg(nrm, sum);
}

/* Column sums of |a_ij| (padding has column -1). */
__global__ void CIHybridColumnSums(size_t n, const int32_t *col, const double *v, double *colsum)
{
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
    if (col[k] >= 0) atomicAdd(&colsum[col[k]], fabs(v[k]));
}

__global__ void CIHybridMaxOf(size_t n, const double *v, double *nrm)
{
  double m = 0.0;

  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) m = fmax(m, v[k]);
  CIHybridAtomicMaxNonneg(nrm, m);
}

PetscErrorCode CIHybridDeviceNorm(CIHybridDevice dev, NormType type, PetscReal *nrm)
{
  const size_t   slots = CIHybridEllSlots(dev), ncsr = (size_t)dev->nnz_csr;
  double        *result = NULL, *colsum = NULL, hresult = 0.0;
  void          *stream;
  cudaStream_t   s;
  PetscErrorCode ierr;
  char           what[96];

  PetscFunctionBegin;
  PetscCheck(type == NORM_FROBENIUS || type == NORM_1 || type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid: no %s norm of a matrix (NORM_1, NORM_FROBENIUS and NORM_INFINITY are)", NormTypes[type]);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  PetscCall(GpuMatsCUDAMalloc((void **)&result, sizeof(double), "cihybrid norm: result"));
  ierr = GpuMatsCUDAMemset(result, 0, sizeof(double));
  if (!ierr && type == NORM_FROBENIUS) {
    if (slots) CIHybridSumSquares<<<CIHybridFlatGrid(slots), CIHYBRID_ALG_BLOCK, 0, s>>>(slots, dev->ell_val, result);
    if (ncsr) CIHybridSumSquares<<<CIHybridFlatGrid(ncsr), CIHYBRID_ALG_BLOCK, 0, s>>>(ncsr, dev->csr_val, result);
  } else if (!ierr && type == NORM_INFINITY) {
    if (dev->nrows) CIHybridMaxRowSum<<<CIHybridRowWarpGrid(dev->nrows, CIHYBRID_ALG_BLOCK), CIHYBRID_ALG_BLOCK, 0, s>>>(CIHybridArraysOf(dev), result);
  } else if (!ierr) {
    snprintf(what, sizeof(what), "cihybrid 1-norm: %lld column sums", (long long)dev->ncols);
    ierr = GpuMatsCUDAMalloc((void **)&colsum, (size_t)dev->ncols * sizeof(double), what);
    if (!ierr) ierr = GpuMatsCUDAMemset(colsum, 0, (size_t)dev->ncols * sizeof(double));
    if (!ierr) {
      if (slots) CIHybridColumnSums<<<CIHybridFlatGrid(slots), CIHYBRID_ALG_BLOCK, 0, s>>>(slots, dev->ell_col, dev->ell_val, colsum);
      if (ncsr) CIHybridColumnSums<<<CIHybridFlatGrid(ncsr), CIHYBRID_ALG_BLOCK, 0, s>>>(ncsr, dev->csr_col, dev->csr_val, colsum);
      if (dev->ncols) CIHybridMaxOf<<<CIHybridFlatGrid((size_t)dev->ncols), CIHYBRID_ALG_BLOCK, 0, s>>>((size_t)dev->ncols, colsum, result);
    }
  }
  if (!ierr) ierr = CIHybridLaunched("cihybrid norm kernels");
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hresult, result, sizeof(double));
  (void)GpuMatsCUDAFree(colsum);
  (void)GpuMatsCUDAFree(result);
  PetscCall(ierr);
  *nrm = type == NORM_FROBENIUS ? PetscSqrtReal(hresult) : hresult;
  PetscFunctionReturn(0);
}

/* ---- values set into the stored pattern ------------------------------------------------------- */

/* The slot of entry k of the row, ELLPACK slots first, then the remainder's after them. */
__device__ static size_t CIHybridSlot(const CIHybridArrays &A, int row, int s, int p)
{
  return p < s ? (size_t)row * (size_t)A.pitch + p : (size_t)A.nrows * (size_t)A.pitch + (size_t)A.csr_start[row] + (p - s);
}

/* A thread per entry (rows[k], cols[k]): binary search of its column in the row (columns ascend
   through both parts); the slot, or a count of the entries that have none. */
__global__ void CIHybridLocate(CIHybridArrays A, int n, const int32_t *rows, const int32_t *cols, long long *slot, int *missing)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;

  if (k >= n) return;
  const int row = rows[k], col = cols[k], s = A.ell_len ? A.ell_len[row] : 0, cs = A.csr_start[row];
  int       lo = 0, hi = s + A.csr_start[row + 1] - cs - 1;

  while (lo <= hi) {
    const int mid = (lo + hi) / 2, c = mid < s ? A.ell_col[(size_t)row * A.pitch + mid] : A.csr_col[cs + mid - s];
    if (c == col) {
      slot[k] = (long long)CIHybridSlot(A, row, s, mid);
      return;
    }
    if (c < col) lo = mid + 1;
    else hi = mid - 1;
  }
  slot[k] = -1;
  atomicAdd(missing, 1);
}

/* Entries are unique, so no two threads write one slot. */
__global__ void CIHybridApplyValues(int n, const long long *slot, const double *vals, int add, size_t ell_slots, double *ell_val, double *csr_val)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;

  if (k >= n) return;
  double *v = (size_t)slot[k] < ell_slots ? &ell_val[slot[k]] : &csr_val[(size_t)slot[k] - ell_slots];
  *v        = add ? *v + vals[k] : vals[k];
}

PetscErrorCode CIHybridDeviceSetValues(CIHybridDevice dev, PetscInt n, const int32_t *rows, const int32_t *cols, const PetscScalar *vals, PetscBool add, PetscInt *missing)
{
  int32_t       *drows = NULL, *dcols = NULL;
  double        *dvals = NULL;
  long long     *slot  = NULL;
  int           *dmissing = NULL, hmissing = 0;
  void          *stream;
  const unsigned grid = (unsigned)((n + CIHYBRID_ALG_BLOCK - 1) / CIHYBRID_ALG_BLOCK);
  char           what[96];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *missing = 0;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  snprintf(what, sizeof(what), "cihybrid MatSetValues: %lld entries", (long long)n);
  ierr = GpuMatsCUDAMalloc((void **)&drows, (size_t)n * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&dcols, (size_t)n * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&dvals, (size_t)n * sizeof(double), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&slot, (size_t)n * sizeof(long long), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&dmissing, sizeof(int), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(drows, rows, (size_t)n * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(dcols, cols, (size_t)n * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(dvals, vals, (size_t)n * sizeof(double));
  if (!ierr) ierr = GpuMatsCUDAMemset(dmissing, 0, sizeof(int));
  if (!ierr) {
    CIHybridLocate<<<grid, CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), (int)n, drows, dcols, slot, dmissing);
    ierr = CIHybridLaunched("CIHybridLocate<<<>>>");
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hmissing, dmissing, sizeof(int));
  if (!ierr && !hmissing) { /* all or nothing: the caller takes another path for the whole set */
    CIHybridApplyValues<<<grid, CIHYBRID_ALG_BLOCK, 0, (cudaStream_t)stream>>>((int)n, slot, dvals, add ? 1 : 0, CIHybridEllSlots(dev), dev->ell_val, dev->csr_val);
    ierr = CIHybridLaunched("CIHybridApplyValues<<<>>>");
  }
  (void)GpuMatsCUDAFree(drows);
  (void)GpuMatsCUDAFree(dcols);
  (void)GpuMatsCUDAFree(dvals);
  (void)GpuMatsCUDAFree(slot);
  (void)GpuMatsCUDAFree(dmissing);
  PetscCall(ierr);
  *missing = hmissing;
  PetscFunctionReturn(0);
}
