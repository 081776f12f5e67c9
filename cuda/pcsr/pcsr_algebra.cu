/* Value changes on a PCSR device copy, the same as AIJ makes on its arrays (the values are in
   AIJ's order): the device copy follows MatScale, MatShift, MatDiagonalSet, MatAXPY and MatCopy
   with the same pattern, and MatZeroEntries, instead of being uploaded again
   (src/common/shadow_values.c).  A transposed copy is refreshed on its next use. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}

#define PCSR_ALGEBRA_THREADS 256

static void PCSRValuesChanged(PCSRDevice dev)
{
  if (dev->t_built) dev->t_stale = PETSC_TRUE;
}

/* val = alpha val + beta x (x NULL: alpha val); no fused multiply-add, as the host's BLAS axpy
   and scal without one (diag's kernels do the same) */
__global__ void PCSRUpdateValues(long long n, double alpha, double beta, const double *__restrict__ x, double *__restrict__ val)
{
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) val[k] = x ? __dadd_rn(__dmul_rn(alpha, val[k]), __dmul_rn(beta, x[k])) : __dmul_rn(alpha, val[k]);
}

static PetscErrorCode PCSRDeviceUpdateValues(PCSRDevice dev, PetscScalar alpha, PetscScalar beta, const double *x)
{
  void *stream;

  PetscFunctionBegin;
  if (!dev->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PCSRUpdateValues<<<GpuMatsCUDAGridBlocks(dev->nnz, PCSR_ALGEBRA_THREADS), PCSR_ALGEBRA_THREADS, 0, (cudaStream_t)stream>>>(dev->nnz, alpha, beta, x, dev->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PCSRValuesChanged(dev);
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceScaleValues(PCSRDevice dev, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(PCSRDeviceUpdateValues(dev, a, 0.0, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceZeroValues(PCSRDevice dev)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAMemset(dev->val, 0, (size_t)dev->nnz * sizeof(double)));
  PCSRValuesChanged(dev);
  PetscFunctionReturn(0);
}

/* y = y + a x, or y = x (copy); *done false when x has another shape */
PetscErrorCode PCSRDeviceAXPYValues(PCSRDevice y, PetscScalar a, PCSRDevice x, PetscBool copy, PetscBool *done)
{
  PetscFunctionBegin;
  *done = (PetscBool)(x && x->nrows == y->nrows && x->ncols == y->ncols && x->nnz == y->nnz);
  if (!*done) PetscFunctionReturn(0);
  if (copy) {
    PetscCall(GpuMatsCUDACopyOnDevice(y->val, x->val, (size_t)y->nnz * sizeof(double)));
    PCSRValuesChanged(y);
  } else PetscCall(PCSRDeviceUpdateValues(y, 1.0, a, x->val));
  PetscFunctionReturn(0);
}

/* a_ii + shift (d NULL), d[i] (insert) or a_ii + d[i] (add) for every stored a_ii: a thread a
   row, a binary search of its sorted columns; a row without a_ii is left alone, as AIJ leaves it
   when it may not add the entry (else its pattern changed and the copy is rebuilt) */
__global__ void PCSRUpdateDiagonal(int n, const int32_t *__restrict__ ptr, const int32_t *__restrict__ col, double *__restrict__ val, double shift, const double *__restrict__ d, int add)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int       lo, hi;

  if (i >= n) return;
  lo = ptr[i], hi = ptr[i + 1];
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;

    if (col[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  if (lo == ptr[i + 1] || col[lo] != i) return;
  if (!d) val[lo] += shift;
  else val[lo] = add ? val[lo] + d[i] : d[i];
}

PetscErrorCode PCSRDeviceUpdateDiagonal(PCSRDevice dev, PetscScalar shift, const PetscScalar *d, PetscBool add)
{
  const int n = PetscMin(dev->nrows, dev->ncols);
  void     *stream;

  PetscFunctionBegin;
  if (!n || !dev->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PCSRUpdateDiagonal<<<(unsigned)((n + PCSR_ALGEBRA_THREADS - 1) / PCSR_ALGEBRA_THREADS), PCSR_ALGEBRA_THREADS, 0, (cudaStream_t)stream>>>(n, dev->ptr, dev->col, dev->val, shift, d, (int)add);
  GpuMatsCallCUDA(cudaGetLastError());
  PCSRValuesChanged(dev);
  PetscFunctionReturn(0);
}
