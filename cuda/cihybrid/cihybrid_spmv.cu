/* CIHYBRID SpMV kernels and their launchers: y = A x (+ y0) and y = A^T x (+ y0).

   Row i of the matrix is two contiguous runs of (column, value) pairs: its
   s_i ELL entries at ell_*[i*pitch ...] (32-byte aligned, since pitch is a
   multiple of 8) and its remainder at csr_*[csr_start[i] ...] (any alignment).

   PAPER is the warp-per-row kernel of Mahmoud, Hoffmann and Reza (2018).

   TUNED reads both runs of a row as one stream of entries, so a group of
   LANES lanes per row (4..32, from the average row length) stays busy across
   the ELL/remainder seam, reads only the s_i real ELL entries (ell_len) and no
   padding, and handles the ragged ends of each run by masking entries by
   their position in the run instead of scalar head/tail loops.  Each lane
   issues UNROLL loads before using any (memory-level parallelism); matrix
   data is loaded with L1::no_allocate so that x keeps L1, x goes through the
   read-only path.  Variants measured against it and dropped
   (bench_cihybrid): 8 loads in flight, software pipelining, 2- and 4-entry
   vector loads, evict-first / cached / plain loads, plain strided loops. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}
#include "cihybrid_arrays.cuh"
#include "../common/gpumats_loads.cuh"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The CIHYBRID CUDA kernels are written for real double-precision PetscScalar"
#endif

#define CIHYBRID_BLOCK_SIZE 128 /* fine-grained: less lost to register-limited occupancy and to the last wave */
#define CIHYBRID_FULL_WARP  0xffffffffu

static unsigned CIHybridGridSize(PetscInt nrows, int lanes_per_row)
{
  return (unsigned)(((size_t)nrows * (size_t)lanes_per_row + CIHYBRID_BLOCK_SIZE - 1) / CIHYBRID_BLOCK_SIZE);
}

/* ------------------------------------------------------------------------ */
/* PAPER: one warp per row; lanes stride the row's ELL slots, skipping padding,
   then its remainder; shuffle reduction; lane 0 writes. */
__global__ void CIHybridSpMVWarpPerRow_Paper(CIHybridArrays A, const double *x, const double *y0, double *y)
{
  const int       lane = threadIdx.x % 32;
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  double          sum  = 0.0;

  if (row >= A.nrows) return; /* the whole warp leaves together */
  const int32_t *col = A.ell_col + row * A.pitch;
  const double  *val = A.ell_val + row * A.pitch;
  for (int j = lane; j < A.width; j += 32) {
    const int c = col[j];
    if (c >= 0) sum += val[j] * x[c];
  }
  for (int k = A.csr_start[row] + lane; k < A.csr_start[row + 1]; k += 32) sum += A.csr_val[k] * x[A.csr_col[k]];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(CIHYBRID_FULL_WARP, sum, offset);
  if (lane == 0) y[row] = y0 ? y0[row] + sum : sum;
}

/* ------------------------------------------------------------------------ */
/* TUNED (matrix data through GpuMatsLoadStreaming: read once, kept out of L1, which x needs) */
/* Row i as one stream of entries: t in [0, lenA) is ELL entry ell + t,
   t in [lenA, len) remainder entry csr + t - lenA.  Offsets are int: the
   builder guarantees nrows*pitch and the remainder fit; 32-bit and 64-bit
   offsets measured about as fast (either ahead depending on the size). */
struct CIHybridRowRuns {
  int ell;  /* first ELL slot of the row */
  int lenA; /* s_i */
  int csr;  /* first remainder entry of the row */
  int len;  /* s_i + remainder length */
};

__device__ __forceinline__ CIHybridRowRuns CIHybridRowRunsOf(const CIHybridArrays &A, long long row)
{
  CIHybridRowRuns r;
  const int       begin = __ldg(A.csr_start + row), end = __ldg(A.csr_start + row + 1);

  r.ell  = (int)(row * A.pitch);
  r.lenA = A.ell_len ? __ldg(A.ell_len + row) : 0;
  r.csr  = begin;
  r.len  = r.lenA + end - begin;
  return r;
}

/* entry t of the row, (0, 0) past its end */
__device__ __forceinline__ void CIHybridLoadRowEntry(const CIHybridArrays &A, const CIHybridRowRuns &r, int t, int *c, double *v)
{
  const bool     ell = t < r.lenA; /* select, not branch: one load instruction per array */
  const int32_t *col = ell ? A.ell_col : A.csr_col;
  const double  *val = ell ? A.ell_val : A.csr_val;
  const int      q   = ell ? r.ell + t : r.csr + t - r.lenA;

  if (t < r.len) {
    *c = GpuMatsLoadStreaming(col + q);
    *v = GpuMatsLoadStreaming(val + q);
  } else *c = 0, *v = 0.0;
}

/* LANES lanes per row; each lane takes entries lane, lane + LANES, ..., UNROLL at a time */
template <int UNROLL, int LANES>
__global__ void __launch_bounds__(CIHYBRID_BLOCK_SIZE) CIHybridSpMVGroupPerRow_Tuned(CIHybridArrays A, const double *__restrict__ x, const double *y0, double *y)
{
  constexpr int   STEP = UNROLL * LANES;
  const int       lane = threadIdx.x % LANES;
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES;
  CIHybridRowRuns r    = {};
  double          acc[UNROLL];

  for (int u = 0; u < UNROLL; u++) acc[u] = 0.0;
  if (row < A.nrows) r = CIHybridRowRunsOf(A, row); /* rows past the end have len 0 but join the shuffles */
  for (int t0 = lane; t0 < r.len; t0 += STEP) {
    int    c[UNROLL];
    double v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) CIHybridLoadRowEntry(A, r, t0 + u * LANES, &c[u], &v[u]);
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (t0 + u * LANES < r.len) acc[u] = fma(v[u], __ldg(x + c[u]), acc[u]);
  }
  double sum = acc[0];
  for (int u = 1; u < UNROLL; u++) sum += acc[u];
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(CIHYBRID_FULL_WARP, sum, offset);
  if (lane == 0 && row < A.nrows) y[row] = y0 ? y0[row] + sum : sum;
}

typedef PetscErrorCode (*CIHybridTunedLauncher)(const CIHybridArrays &, int, cudaStream_t, const double *, const double *, double *);

template <int UNROLL>
static PetscErrorCode CIHybridLaunchTuned(const CIHybridArrays &A, int lanes, cudaStream_t stream, const double *x, const double *y0, double *y)
{
  const unsigned grid = CIHybridGridSize(A.nrows, lanes);

  PetscFunctionBegin;
  switch (lanes) {
  case 4:
    CIHybridSpMVGroupPerRow_Tuned<UNROLL, 4><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 8:
    CIHybridSpMVGroupPerRow_Tuned<UNROLL, 8><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 16:
    CIHybridSpMVGroupPerRow_Tuned<UNROLL, 16><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 32:
    CIHybridSpMVGroupPerRow_Tuned<UNROLL, 32><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%d lanes per row: give 4, 8, 16 or 32", lanes);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

static const struct {
  int                   unroll;
  CIHybridTunedLauncher launch;
} CIHybridTuned[] = {
  {4, CIHybridLaunchTuned<4>}, /* CIHYBRID_TUNED_SCALAR */
};
const char *const CIHybridTunedVariantNames[] = {"scalar"};
static_assert(sizeof(CIHybridTuned) / sizeof(CIHybridTuned[0]) == CIHYBRID_TUNED_NUM_VARIANTS, "one launcher per variant");
static_assert(sizeof(CIHybridTunedVariantNames) / sizeof(CIHybridTunedVariantNames[0]) == CIHYBRID_TUNED_NUM_VARIANTS, "one name per variant");

PetscErrorCode CIHybridDeviceTunedLanesPerRow(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt *lanes)
{
  PetscFunctionBegin;
  PetscCheck(variant >= 0 && variant < CIHYBRID_TUNED_NUM_VARIANTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown tuned CIHYBRID kernel variant %d", (int)variant);
  {
    /* enough lanes that one pass of the group (lanes*unroll entries) covers an average row */
    const double avg_len = dev->nrows ? (double)dev->nnz / (double)dev->nrows : 0.0;
    const double chunks  = avg_len + (dev->nnz_csr ? 1.0 : 0.0);

    *lanes = 4;
    while (*lanes < 32 && *lanes * CIHybridTuned[variant].unroll < chunks) *lanes *= 2;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceMultTuned(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt lanes_per_row, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  void *stream;

  PetscFunctionBegin;
  if (!lanes_per_row) PetscCall(CIHybridDeviceTunedLanesPerRow(dev, variant, &lanes_per_row));
  else PetscCheck(variant >= 0 && variant < CIHYBRID_TUNED_NUM_VARIANTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown tuned CIHYBRID kernel variant %d", (int)variant);
  if (!dev->nrows) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(CIHybridTuned[variant].launch(CIHybridArraysOf(dev), (int)lanes_per_row, (cudaStream_t)stream, x, y0, y));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceMult(CIHybridDevice dev, CIHybridKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  void *stream;

  PetscFunctionBegin;
  switch (kernel) {
  case CIHYBRID_KERNEL_TUNED:
    PetscCall(CIHybridDeviceMultTuned(dev, CIHYBRID_TUNED_DEFAULT, 0, x, y0, y));
    break;
  case CIHYBRID_KERNEL_PAPER:
    if (!dev->nrows) break;
    PetscCall(GpuMatsCUDAGetStream(&stream));
    CIHybridSpMVWarpPerRow_Paper<<<CIHybridGridSize(dev->nrows, 32), CIHYBRID_BLOCK_SIZE, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), x, y0, y);
    GpuMatsCallCUDA(cudaGetLastError());
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown CIHYBRID kernel %d: use CIHYBRID_KERNEL_PAPER or CIHYBRID_KERNEL_TUNED", (int)kernel);
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* y += A^T x: one warp per row scatters a_ij x_i into y_j with atomics. */
__global__ void CIHybridSpMVTransposeWarpPerRow(CIHybridArrays A, const double *__restrict__ x, double *y)
{
  const int       lane = threadIdx.x % 32;
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;

  if (row >= A.nrows) return;
  const double   xi  = x[row];
  const int      len = A.ell_len ? A.ell_len[row] : 0;
  const int32_t *col = A.ell_col + row * A.pitch;
  const double  *val = A.ell_val + row * A.pitch;
  for (int j = lane; j < len; j += 32) atomicAdd(y + col[j], val[j] * xi);
  for (int k = A.csr_start[row] + lane; k < A.csr_start[row + 1]; k += 32) atomicAdd(y + A.csr_col[k], A.csr_val[k] * xi);
}

PetscErrorCode CIHybridDeviceMultTranspose(CIHybridDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const size_t ybytes = (size_t)dev->ncols * sizeof(PetscScalar);
  void        *stream;

  PetscFunctionBegin;
  if (!dev->nrows && !dev->ncols) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(GpuMatsCUDAStartSum(y, y0, ybytes));
  if (!dev->nrows) PetscFunctionReturn(0);
  CIHybridSpMVTransposeWarpPerRow<<<CIHybridGridSize(dev->nrows, 32), CIHYBRID_BLOCK_SIZE, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), x, y);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
