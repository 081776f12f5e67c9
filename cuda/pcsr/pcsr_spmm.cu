/* PCSR SpMM, PCSRDeviceSpMM: C = A B (+ C) for k column-major dense columns, reading
   each row of the matrix once for all the columns of a tile.

   Rows of 16 entries or more and of similar lengths: one warp per row.  Its 32 lanes
   are SLOTS entry slots times KW column lanes (lane = slot * KW + cl, SLOTS = 32 / KW,
   KW = k rounded up to a power of two, at most 32).  The warp loads 32 entries of its
   row at a time, coalesced, one per lane, and hands them round by shuffles: slot s
   takes entries s, s + SLOTS, ...; column lane cl accumulates columns j0 + cl + q KW
   (q < CPL) of the current tile of KW CPL columns.  At the end of the row the slots'
   partial sums are added by xor-shuffles (a fixed order: the result does not depend on
   timing).  More than one tile (k > 128) reads the row again, from L2.

   Short rows (at most PCSR_SPMM_SHORT_MAX entries): one thread per row and a tile of
   up to PCSR_SPMM_THREAD_COLS columns in registers.  Each entry's B values are gathered
   column by column: the threads of a warp hold consecutive rows, so where neighbouring
   rows have neighbouring columns (stencils) the gathers of a column are coalesced, and
   elsewhere a gather costs what the SpMV's gather of x costs; the matrix is read once a
   tile instead of once a column.  B is read as it is: a row-major copy (as cihybrid
   makes from 8 columns on) would add 16 k bytes a row of B to the 16 k + 12 nnz/row
   the product moves, nearly doubling a stencil's traffic for gathers that are
   coalesced already.

   Elsewhere (a few rows far longer than the rest: power-law graphs, circuits) and for
   k = 1 the product is k SpMVs of the ADAPTIVE kernel, which were faster there
   (BENCHMARKS.md, R-MAT graphs and circuits). */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The PCSR CUDA kernels are written for real double-precision PetscScalar"
#endif

#define PCSR_SPMM_THREADS     256
#define PCSR_SPMM_FULL_WARP   0xffffffffu
#define PCSR_SPMM_MAX_CPL     4  /* columns per lane: a tile has at most 32 * 4 columns */
#define PCSR_SPMM_THREAD_COLS 8  /* columns a thread of the thread-per-row kernel holds */
#define PCSR_SPMM_SHORT_MAX   32 /* the longest row the thread-per-row kernel takes */

template <int KW, int CPL>
__global__ void __launch_bounds__(PCSR_SPMM_THREADS) PCSRSpMMWarpPerRow(int nrows, const int32_t *ptr, const int32_t *col, const double *val, int k, const double *__restrict__ B, long long ldb, int add, double *C, long long ldc)
{
  constexpr int   SLOTS = 32 / KW;
  const int       lane  = threadIdx.x % 32, slot = lane / KW, cl = lane % KW;
  const long long row   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;

  if (row >= nrows) return; /* the whole warp leaves together */
  const int begin = __ldg(ptr + row), end = __ldg(ptr + row + 1);

  for (int j0 = 0; j0 < k; j0 += KW * CPL) {
    double acc[CPL];

#pragma unroll
    for (int q = 0; q < CPL; q++) acc[q] = 0.0;
    for (int base = begin; base < end; base += 32) {
      const int n = min(32, end - base);
      int32_t   c = 0;
      double    a = 0.0;

      if (lane < n) c = __ldg(col + base + lane), a = __ldg(val + base + lane);
      for (int t = 0; t < n; t += SLOTS) { /* warp-uniform: every lane joins the shuffles; t + slot < 32 */
        const int     src = t + slot;
        const int32_t cc  = __shfl_sync(PCSR_SPMM_FULL_WARP, c, src);
        const double  aa  = __shfl_sync(PCSR_SPMM_FULL_WARP, a, src);

        if (src < n) {
#pragma unroll
          for (int q = 0; q < CPL; q++) {
            const int j = j0 + cl + q * KW;

            if (j < k) acc[q] = fma(aa, __ldg(B + cc + j * ldb), acc[q]);
          }
        }
      }
    }
#pragma unroll
    for (int q = 0; q < CPL; q++) {
      const int j = j0 + cl + q * KW;

#pragma unroll
      for (int offset = 16; offset >= KW; offset /= 2) acc[q] += __shfl_xor_sync(PCSR_SPMM_FULL_WARP, acc[q], offset);
      if (slot == 0 && j < k) {
        double *cij = C + row + j * ldc;

        *cij = add ? *cij + acc[q] : acc[q];
      }
    }
  }
}

template <int KW, int CPL>
static PetscErrorCode PCSRSpMMLaunch(PCSRDevice dev, int k, cudaStream_t stream, const double *B, long long ldb, int add, double *C, long long ldc)
{
  const unsigned grid = (unsigned)(((size_t)dev->nrows * 32 + PCSR_SPMM_THREADS - 1) / PCSR_SPMM_THREADS);

  PetscFunctionBegin;
  PCSRSpMMWarpPerRow<KW, CPL><<<grid, PCSR_SPMM_THREADS, 0, stream>>>(dev->nrows, dev->ptr, dev->col, dev->val, k, B, ldb, add, C, ldc);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

template <int CT>
__global__ void __launch_bounds__(PCSR_SPMM_THREADS) PCSRSpMMThreadPerRow(int nrows, const int32_t *ptr, const int32_t *col, const double *val, int k, const double *__restrict__ B, long long ldb, int add, double *C, long long ldc)
{
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (row >= nrows) return;
  const int begin = __ldg(ptr + row), end = __ldg(ptr + row + 1);

  for (int j0 = 0; j0 < k; j0 += CT) {
    const double *Bt = B + j0 * ldb;
    double        acc[CT];

#pragma unroll
    for (int q = 0; q < CT; q++) acc[q] = 0.0;
#pragma unroll 2
    for (int e = begin; e < end; e++) { /* the row stays in L1 for the next tile */
      const int32_t c = __ldg(col + e);
      const double  a = __ldg(val + e);

#pragma unroll
      for (int q = 0; q < CT; q++)
        if (j0 + q < k) acc[q] = fma(a, __ldg(Bt + c + q * ldb), acc[q]);
    }
#pragma unroll
    for (int q = 0; q < CT; q++)
      if (j0 + q < k) {
        double *cij = C + row + (j0 + q) * ldc;

        *cij = add ? *cij + acc[q] : acc[q];
      }
  }
}

template <int CT>
static PetscErrorCode PCSRSpMMThreadLaunch(PCSRDevice dev, int k, cudaStream_t stream, const double *B, long long ldb, int add, double *C, long long ldc)
{
  const unsigned grid = (unsigned)(((size_t)dev->nrows + PCSR_SPMM_THREADS - 1) / PCSR_SPMM_THREADS);

  PetscFunctionBegin;
  PCSRSpMMThreadPerRow<CT><<<grid, PCSR_SPMM_THREADS, 0, stream>>>(dev->nrows, dev->ptr, dev->col, dev->val, k, B, ldb, add, C, ldc);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

#define PCSR_SPMM_MIN_MEAN        16.0
#define PCSR_SPMM_LONG_ROW_FACTOR 8.0

typedef enum {
  PCSR_SPMM_ADAPTIVE_SPMVS,
  PCSR_SPMM_THREAD_PER_ROW,
  PCSR_SPMM_WARP_PER_ROW
} PCSRSpMMScheme;

static PCSRSpMMScheme PCSRSpMMChooseScheme(PCSRDevice dev, PetscInt k)
{
  const double mean = (double)dev->nnz / (double)dev->nrows;

  if (k == 1) return PCSR_SPMM_ADAPTIVE_SPMVS;
  if (mean >= PCSR_SPMM_MIN_MEAN && (double)dev->stats.max_row_len <= PCSR_SPMM_LONG_ROW_FACTOR * mean) return PCSR_SPMM_WARP_PER_ROW;
  if (mean < PCSR_SPMM_MIN_MEAN && dev->stats.max_row_len <= PCSR_SPMM_SHORT_MAX) return PCSR_SPMM_THREAD_PER_ROW;
  return PCSR_SPMM_ADAPTIVE_SPMVS;
}

PetscErrorCode PCSRDeviceSpMM(PCSRDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  void          *s;
  cudaStream_t   stream;
  int            kw = 1, cpl = 1;
  PCSRSpMMScheme scheme;

  PetscFunctionBegin;
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR device copy is NULL: create it with PCSRDeviceCreateFromCSR first");
  PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR SpMM with %" PetscInt_FMT " columns: give 0 or more", k);
  if (!dev->nrows || !k) PetscFunctionReturn(0);
  PetscCheck(ldb >= dev->ncols && ldc >= dev->nrows && ldb >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCSR SpMM of a %d x %d matrix: leading dimensions ldb %" PetscInt_FMT " and ldc %" PetscInt_FMT " must be at least the rows of B (%d) and of C (%d)", (int)dev->nrows,
             (int)dev->ncols, ldb, ldc, (int)dev->ncols, (int)dev->nrows);
  PetscCheck(k < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR SpMM with %" PetscInt_FMT " columns: give fewer than 2^31-1", k);
  scheme = PCSRSpMMChooseScheme(dev, k);
  if (scheme == PCSR_SPMM_ADAPTIVE_SPMVS) {
    for (PetscInt j = 0; j < k; j++) PetscCall(PCSRDeviceMult(dev, MAT_PCSR_KERNEL_ADAPTIVE, B + (size_t)j * ldb, add ? C + (size_t)j * ldc : NULL, C + (size_t)j * ldc));
    PetscFunctionReturn(0);
  }
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  if (scheme == PCSR_SPMM_THREAD_PER_ROW) { /* columns per thread: k rounded up to a power of two, at most PCSR_SPMM_THREAD_COLS */
    if (k <= 2) PetscCall(PCSRSpMMThreadLaunch<2>(dev, (int)k, stream, B, ldb, add, C, ldc));
    else if (k <= 4) PetscCall(PCSRSpMMThreadLaunch<4>(dev, (int)k, stream, B, ldb, add, C, ldc));
    else PetscCall(PCSRSpMMThreadLaunch<PCSR_SPMM_THREAD_COLS>(dev, (int)k, stream, B, ldb, add, C, ldc));
    PetscFunctionReturn(0);
  }
  while (kw < 32 && kw < k) kw *= 2;
  while (cpl < PCSR_SPMM_MAX_CPL && kw * cpl < k) cpl *= 2;
  switch (kw * 8 + cpl) { /* (KW, CPL): CPL > 1 only with KW = 32 */
  case 2 * 8 + 1:
    PetscCall(PCSRSpMMLaunch<2, 1>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  case 4 * 8 + 1:
    PetscCall(PCSRSpMMLaunch<4, 1>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  case 8 * 8 + 1:
    PetscCall(PCSRSpMMLaunch<8, 1>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  case 16 * 8 + 1:
    PetscCall(PCSRSpMMLaunch<16, 1>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  case 32 * 8 + 1:
    PetscCall(PCSRSpMMLaunch<32, 1>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  case 32 * 8 + 2:
    PetscCall(PCSRSpMMLaunch<32, 2>(dev, (int)k, stream, B, ldb, add, C, ldc));
    break;
  default:
    PetscCall(PCSRSpMMLaunch<32, PCSR_SPMM_MAX_CPL>(dev, (int)k, stream, B, ldb, add, C, ldc));
  }
  PetscFunctionReturn(0);
}
