/* DIAG SpMM on the device, DiagDeviceSpMM: C = A B (+ C) for k column-major dense
   columns, HM or CDM, with the index rules of the SpMV y = A x (diag_spmv.cu):
     HM:  c_ij += v_t[i - first(d)] b_{i+d, j}   where 0 <= i + d < ncols
     CDM: c_ij += v_t[i] b_{(i+k) mod n, j}

   One thread per row of C (consecutive threads on consecutive rows) and a chunk of up to
   DIAG_SPMM_COLS columns of B and C at a time, accumulated in registers: each value of
   A read for a chunk serves all its columns.  The diagonals' offsets and value starts
   are staged in shared memory a tile of DIAG_SPMM_TILE at a time, as in the SpMV.  For
   each diagonal the loads of A's values, of a column of B and the stores of a column of
   C by consecutive threads are at consecutive addresses (coalesced).  More than
   DIAG_SPMM_COLS columns: the thread runs the chunks one after the other, reading its
   rows of A again, then mostly from the caches.  The sums run over the diagonals in
   stored order, as in the SpMV. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The DIAG CUDA kernels are written for real double-precision PetscScalar"
#endif

#define DIAG_SPMM_THREADS 256
#define DIAG_SPMM_TILE    256 /* diagonals staged in shared memory at a time: 256 x (4 + 8) bytes */
#define DIAG_SPMM_COLS    8   /* columns a thread holds in registers */

template <bool HM, int CT>
__global__ void __launch_bounds__(DIAG_SPMM_THREADS) DiagSpMMKernel(int nrows, int ncols, int ndiag, const int *__restrict__ offset, const long long *__restrict__ start, const double *__restrict__ val, int k, const double *__restrict__ B, long long ldb, int add, double *C, long long ldc)
{
  __shared__ int       s_off[DIAG_SPMM_TILE];
  __shared__ long long s_start[DIAG_SPMM_TILE];
  const long long      row    = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool           active = row < nrows;
  const int            i      = active ? (int)row : 0;

  for (int j0 = 0; j0 < k; j0 += CT) { /* block-uniform: the barriers below are reached by all */
    const int     nc = min(CT, k - j0);
    const double *Bc = B + (long long)j0 * ldb;
    double        acc[CT];

#pragma unroll
    for (int q = 0; q < CT; q++) acc[q] = 0.0;
    for (int t0 = 0; t0 < ndiag; t0 += DIAG_SPMM_TILE) {
      const int nt = min(DIAG_SPMM_TILE, ndiag - t0);

      __syncthreads(); /* the previous tile is no longer read */
      for (int t = threadIdx.x; t < nt; t += blockDim.x) {
        s_off[t]   = offset[t0 + t];
        s_start[t] = start[t0 + t];
      }
      __syncthreads();
      if (!active) continue;
      for (int t = 0; t < nt; t++) {
        const int d = s_off[t];
        long long p; /* slot of row i in the diagonal */
        int       j; /* the row of B */

        if (HM) {
          const long long jj = (long long)i + d;

          if (jj < 0 || jj >= ncols) continue; /* the diagonal does not cover row i */
          j = (int)jj;
          p = s_start[t] + (i - (d < 0 ? -d : 0));
        } else {
          j = i >= ncols - d ? i - (ncols - d) : i + d; /* (i + k) mod n, no overflow */
          p = s_start[t] + i;
        }
        {
          const double a = __ldg(val + p);

#pragma unroll
          for (int q = 0; q < CT; q++)
            if (q < nc) acc[q] = fma(a, __ldg(Bc + j + q * ldb), acc[q]);
        }
      }
    }
    if (active) {
#pragma unroll
      for (int q = 0; q < CT; q++)
        if (q < nc) {
          double *cij = C + (long long)(j0 + q) * ldc + i;

          *cij = add ? *cij + acc[q] : acc[q];
        }
    }
  }
}

template <bool HM, int CT>
static PetscErrorCode DiagSpMMLaunch(DiagDevice A, int k, cudaStream_t stream, const double *B, long long ldb, int add, double *C, long long ldc)
{
  const unsigned grid = (unsigned)(((long long)A->nrows + DIAG_SPMM_THREADS - 1) / DIAG_SPMM_THREADS);

  PetscFunctionBegin;
  DiagSpMMKernel<HM, CT><<<grid, DIAG_SPMM_THREADS, 0, stream>>>(A->nrows, A->ncols, A->ndiag, A->offset, A->start, A->val, k, B, ldb, add, C, ldc);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

template <bool HM>
static PetscErrorCode DiagSpMMDispatch(DiagDevice A, int k, cudaStream_t stream, const double *B, long long ldb, int add, double *C, long long ldc)
{
  PetscFunctionBegin;
  /* columns per thread: k rounded up to a power of two, at most DIAG_SPMM_COLS */
  if (k == 1) PetscCall(DiagSpMMLaunch<HM, 1>(A, k, stream, B, ldb, add, C, ldc));
  else if (k == 2) PetscCall(DiagSpMMLaunch<HM, 2>(A, k, stream, B, ldb, add, C, ldc));
  else if (k <= 4) PetscCall(DiagSpMMLaunch<HM, 4>(A, k, stream, B, ldb, add, C, ldc));
  else PetscCall(DiagSpMMLaunch<HM, DIAG_SPMM_COLS>(A, k, stream, B, ldb, add, C, ldc));
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceSpMM(DiagDevice A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  void        *s;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(A, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DIAG SpMM: the device copy of A is NULL (create it with DiagDeviceCreate first)");
  PetscCheck(k >= 0 && k < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DIAG SpMM with %" PetscInt_FMT " columns: give 0 to 2^31-2", k);
  if (!A->nrows || !k) PetscFunctionReturn(0);
  PetscCheck(ldb >= A->ncols && ldc >= A->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "DIAG SpMM of a %d x %d matrix: leading dimensions ldb %" PetscInt_FMT " and ldc %" PetscInt_FMT " must be at least the rows of B (%d) and of C (%d)", A->nrows, A->ncols, ldb, ldc, A->ncols, A->nrows);
  PetscCheck(C && (B || !A->ncols), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DIAG SpMM of a %d x %d matrix with %" PetscInt_FMT " columns: B or C is NULL", A->nrows, A->ncols, k);
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  if (A->scheme == DIAG_SCHEME_HM) PetscCall(DiagSpMMDispatch<true>(A, (int)k, stream, B, ldb, add ? 1 : 0, C, ldc));
  else PetscCall(DiagSpMMDispatch<false>(A, (int)k, stream, B, ldb, add ? 1 : 0, C, ldc));
  PetscFunctionReturn(0);
}
