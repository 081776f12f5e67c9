/* CIHYBRID SpMM: C = A B (+ C) for k column-major dense columns, one kernel
   that reads each row of the matrix once for all the columns of a tile.

   One warp per row.  Its 32 lanes are SLOTS entry slots times KW column
   lanes (lane = slot * KW + cl, SLOTS = 32 / KW, KW = min(32, k rounded up
   to a power of 2)).  The warp loads 32 (column, value) pairs of its row at
   a time, coalesced, one per lane, and passes them round by shuffles: slot s
   takes the pairs s, s + SLOTS, ...; column lane cl accumulates columns
   j0 + cl + q * KW, q < CPL, of the current tile of KW * CPL columns.  So
   k = 1 is the warp-per-row SpMV, k >= 32 gives every lane its own columns,
   and no work is spent reducing partial sums that are not there.  At the
   end of a tile the slots are summed by xor-shuffles.  k larger than one
   tile (128 columns) loops over tiles, reading the row again from cache.

   B is first copied row-major into a work array of the device copy (k
   contiguous values for each row of B), so the KW column lanes of a slot
   gather one matrix entry's B values from one or two 32-byte sectors
   instead of KW sectors of column-major B, where 8 of every 32 bytes read
   are used.  The copy moves 2 x 8 n k bytes, a few percent of the product.
   With fewer than CIHYBRID_SPMM_ROWMAJOR_MIN_K columns, or where the work
   array cannot be allocated, the kernel reads B as it is. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}
#include "cihybrid_arrays.cuh"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The CIHYBRID CUDA kernels are written for real double-precision PetscScalar"
#endif

#define CIHYBRID_SPMM_BLOCK_SIZE 256
#define CIHYBRID_SPMM_FULL_WARP  0xffffffffu
#define CIHYBRID_SPMM_MAX_CPL    4 /* columns per lane: a tile is at most 32 * 4 columns */
/* B goes through the row-major copy from this many columns on: measured faster than reading
   column-major B for k = 8, 16, 64, slower for k = 2 */
#define CIHYBRID_SPMM_ROWMAJOR_MIN_K 8

/* What the kernel reads of the device copy, passed by value. */
/* B(c, j) is B[c * ldb + j] when ROWMAJOR, else B[c + j * ldb]. */
template <int KW, int CPL, bool ROWMAJOR>
__global__ void __launch_bounds__(CIHYBRID_SPMM_BLOCK_SIZE) CIHybridSpMMWarpPerRow(CIHybridArrays A, int k, const double *__restrict__ B, long long ldb, int add, double *C, long long ldc)
{
  constexpr int   SLOTS = 32 / KW;
  const int       lane  = threadIdx.x % 32, slot = lane / KW, cl = lane % KW;
  const long long row   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;

  if (row >= A.nrows) return; /* the whole warp leaves together */
  const int      len_ell = A.ell_len ? A.ell_len[row] : 0;
  const int      begin   = A.csr_start[row];
  const int      len     = len_ell + A.csr_start[row + 1] - begin;
  const int32_t *ecol    = A.ell_col + row * A.pitch;
  const double  *evalue  = A.ell_val + row * A.pitch;

  for (int j0 = 0; j0 < k; j0 += KW * CPL) {
    double acc[CPL];

#pragma unroll
    for (int q = 0; q < CPL; q++) acc[q] = 0.0;
    for (int base = 0; base < len; base += 32) {
      const int p      = base + lane;
      const int nvalid = min(32, len - base);
      int       col    = -1; /* lanes past the row's end, like ELL padding, hold column -1 */
      double    val    = 0.0;

      if (p < len_ell) col = ecol[p], val = evalue[p];
      else if (p < len) col = A.csr_col[begin + p - len_ell], val = A.csr_val[begin + p - len_ell];
      for (int t = 0; t < nvalid; t += SLOTS) { /* warp-uniform: every lane joins the shuffles */
        const int    c = __shfl_sync(CIHYBRID_SPMM_FULL_WARP, col, t + slot);
        const double v = __shfl_sync(CIHYBRID_SPMM_FULL_WARP, val, t + slot);

        if (c < 0) continue;
#pragma unroll
        for (int q = 0; q < CPL; q++) {
          const int j = j0 + cl + q * KW;

          if (j < k) acc[q] = fma(v, __ldg(ROWMAJOR ? B + c * ldb + j : B + c + j * ldb), acc[q]);
        }
      }
    }
#pragma unroll
    for (int q = 0; q < CPL; q++) {
      const int j = j0 + cl + q * KW;

      for (int offset = 16; offset >= KW; offset /= 2) acc[q] += __shfl_xor_sync(CIHYBRID_SPMM_FULL_WARP, acc[q], offset);
      if (slot == 0 && j < k) {
        double *c = C + row + j * ldc;

        *c = add ? *c + acc[q] : acc[q];
      }
    }
  }
}

/* Bt = B row-major: Bt[c * k + j] = B[c + j * ldb]; consecutive threads write consecutive entries. */
__global__ void CIHybridSpMMTransposeB(long long n, int k, const double *__restrict__ B, long long ldb, double *Bt)
{
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n * k; e += (long long)gridDim.x * blockDim.x) {
    const long long c = e / k;
    const int       j = (int)(e - c * k);

    Bt[e] = B[c + j * ldb];
  }
}

template <int KW, int CPL>
static PetscErrorCode CIHybridSpMMLaunch(const CIHybridArrays &A, int k, cudaStream_t stream, const double *B, long long ldb, bool rowmajor, int add, double *C, long long ldc)
{
  const unsigned grid = (unsigned)(((size_t)A.nrows * 32 + CIHYBRID_SPMM_BLOCK_SIZE - 1) / CIHYBRID_SPMM_BLOCK_SIZE);

  PetscFunctionBegin;
  if (rowmajor) CIHybridSpMMWarpPerRow<KW, CPL, true><<<grid, CIHYBRID_SPMM_BLOCK_SIZE, 0, stream>>>(A, k, B, ldb, add, C, ldc);
  else CIHybridSpMMWarpPerRow<KW, CPL, false><<<grid, CIHYBRID_SPMM_BLOCK_SIZE, 0, stream>>>(A, k, B, ldb, add, C, ldc);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* The work array for B row-major, grown on demand; *ok false (and no error) when the
   device has no room for it. */
static PetscErrorCode CIHybridSpMMWorkReserve(CIHybridDevice dev, size_t bytes, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (bytes <= dev->spmm_work_bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDASynchronize()); /* an earlier product may still read the old array */
  PetscCall(GpuMatsCUDAFree(dev->spmm_work));
  dev->spmm_work_bytes = 0;
  PetscCall(GpuMatsCUDATryMalloc((void **)&dev->spmm_work, bytes, ok));
  if (*ok) dev->spmm_work_bytes = bytes;
  else PetscCall(PetscInfo(NULL, "No device memory for a %zu-byte row-major copy of B: the SpMM reads B column-major\n", bytes));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceSpMMLayout(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool rowmajor_copy, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  CIHybridArrays A;
  void          *s;
  cudaStream_t   stream;
  int            kw = 1, cpl = 1;
  long long      ld = ldb;
  const double  *b  = B;
  bool           rowmajor = false;

  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SpMM with %" PetscInt_FMT " columns: give 0 to %d", k, INT32_MAX);
  if (!dev->nrows || !k) PetscFunctionReturn(0);
  if (k == 1) { /* one column is an SpMV: the SpMV kernel spreads short rows over fewer lanes (measured faster on Hubbard 3x4) */
    PetscCall(CIHybridDeviceMult(dev, CIHYBRID_KERNEL_TUNED, B, add ? C : NULL, C));
    PetscFunctionReturn(0);
  }
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  if (rowmajor_copy && k >= CIHYBRID_SPMM_ROWMAJOR_MIN_K && dev->ncols) {
    PetscBool ok;

    PetscCall(CIHybridSpMMWorkReserve(dev, (size_t)dev->ncols * (size_t)k * sizeof(PetscScalar), &ok));
    if (ok) {
      const size_t   total = (size_t)dev->ncols * (size_t)k;
      const unsigned grid  = (unsigned)PetscMin((total + 255) / 256, (size_t)65535 * 16);

      CIHybridSpMMTransposeB<<<grid, 256, 0, stream>>>((long long)dev->ncols, (int)k, B, ldb, dev->spmm_work);
      GpuMatsCallCUDA(cudaGetLastError());
      b        = dev->spmm_work;
      ld       = k;
      rowmajor = true;
    }
  }
  A = CIHybridArraysOf(dev);
  while (kw < 32 && kw < k) kw *= 2;
  while (cpl < CIHYBRID_SPMM_MAX_CPL && kw * cpl < k) cpl *= 2;
  if (kw < 32) { /* k <= kw: one column per lane */
    switch (kw) {
    case 2:
      PetscCall(CIHybridSpMMLaunch<2, 1>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
      break;
    case 4:
      PetscCall(CIHybridSpMMLaunch<4, 1>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
      break;
    case 8:
      PetscCall(CIHybridSpMMLaunch<8, 1>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
      break;
    default:
      PetscCall(CIHybridSpMMLaunch<16, 1>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
    }
  } else {
    switch (cpl) {
    case 1:
      PetscCall(CIHybridSpMMLaunch<32, 1>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
      break;
    case 2:
      PetscCall(CIHybridSpMMLaunch<32, 2>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
      break;
    default:
      PetscCall(CIHybridSpMMLaunch<32, CIHYBRID_SPMM_MAX_CPL>(A, (int)k, stream, b, ld, rowmajor, add, C, ldc));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceSpMM(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceSpMMLayout(dev, k, B, ldb, PETSC_TRUE, add, C, ldc));
  PetscFunctionReturn(0);
}
