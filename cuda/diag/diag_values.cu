/* Operations on the values of a diag matrix's device copy alone (MatScale, MatShift, MatDiagonalSet
   and the MatAXPY of two matrices with the same diagonals, when the values are current there): one
   pass over the values, no copy between host and device. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The DIAG CUDA kernels are written for real double-precision PetscScalar"
#endif

#define VALUES_THREADS 256

__global__ void DiagScaleValues(long long n, double a, double *v)
{
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) v[p] *= a;
}

__global__ void DiagAddValues(long long n, double a, double *v)
{
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) v[p] += a;
}

__global__ void DiagSetValues(long long n, const double *__restrict__ d, int add, double *v)
{
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) v[p] = add ? v[p] + d[p] : d[p];
}

__global__ void DiagAXPYValues(long long n, double a, const double *__restrict__ x, double *y)
{
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) y[p] = __dadd_rn(y[p], __dmul_rn(a, x[p])); /* as the host: no fused multiply-add */
}

static PetscErrorCode DiagValuesLaunchSetup(long long n, unsigned *grid, cudaStream_t *stream)
{
  void *s;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&s));
  *stream = (cudaStream_t)s;
  *grid   = (unsigned)PetscMin((n + VALUES_THREADS - 1) / VALUES_THREADS, 65536);
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceScaleValues(DiagDevice A, PetscScalar a)
{
  unsigned     grid;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!A->nval) PetscFunctionReturn(0);
  PetscCall(DiagValuesLaunchSetup(A->nval, &grid, &stream));
  DiagScaleValues<<<grid, VALUES_THREADS, 0, stream>>>(A->nval, a, A->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceShiftValues(DiagDevice A, PetscInt64 start, PetscInt n, PetscScalar a)
{
  unsigned     grid;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(start >= 0 && start + n <= A->nval, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DIAG shift of values [%lld, %lld) outside the %lld values on the device", (long long)start, (long long)(start + n), A->nval);
  if (!n) PetscFunctionReturn(0);
  PetscCall(DiagValuesLaunchSetup(n, &grid, &stream));
  DiagAddValues<<<grid, VALUES_THREADS, 0, stream>>>((long long)n, a, A->val + start);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceSetValues(DiagDevice A, PetscInt64 start, PetscInt n, const PetscScalar *d, PetscBool add)
{
  unsigned     grid;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(start >= 0 && start + n <= A->nval, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DIAG set of values [%lld, %lld) outside the %lld values on the device", (long long)start, (long long)(start + n), A->nval);
  if (!n) PetscFunctionReturn(0);
  PetscCall(DiagValuesLaunchSetup(n, &grid, &stream));
  DiagSetValues<<<grid, VALUES_THREADS, 0, stream>>>((long long)n, d, (int)add, A->val + start);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceAXPYValues(DiagDevice Y, PetscScalar a, DiagDevice X)
{
  unsigned     grid;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(Y->nval == X->nval && Y->ndiag == X->ndiag, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DIAG AXPY of the device values: Y has %d diagonals, %lld values; X %d, %lld", Y->ndiag, Y->nval, X->ndiag, X->nval);
  if (!Y->nval) PetscFunctionReturn(0);
  PetscCall(DiagValuesLaunchSetup(Y->nval, &grid, &stream));
  DiagAXPYValues<<<grid, VALUES_THREADS, 0, stream>>>(Y->nval, a, X->val, Y->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
