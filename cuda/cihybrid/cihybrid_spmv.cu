/* CIHYBRID SpMV kernels and their launchers: y = A x (+ y0) and y = A^T x (+ y0).

   Row i of the matrix is two contiguous runs of (column, value) pairs: its
   s_i ELL entries at ell_*[i*pitch ...] (32-byte aligned, since pitch is a
   multiple of 8) and its remainder at csr_*[csr_start[i] ...] (any alignment).

   PAPER is the warp-per-row kernel of Mahmoud, Hoffmann and Reza (2018).

   TUNED reads both runs of a row as one stream of aligned "chunks" of VEC
   entries, so a group of LANES lanes per row (4..32, from the average row
   length) stays busy across the ELL/remainder seam, reads only the s_i real
   ELL entries (ell_len) and no padding, and handles the ragged ends of each
   run by masking entries by their position in the run instead of scalar
   head/tail loops.  Each lane issues UNROLL chunks' loads before using any
   (memory-level parallelism), matrix data is loaded with a streaming cache
   policy so that x keeps L1, and x goes through the read-only path.
   The default is VEC = 1: vector loads (VEC 2, 4) cut instructions but not
   L1 wavefronts (128-byte lines a warp touches), and they spread each x
   gather instruction over VEC times as many lines of x, which on the
   paper's dense reference block makes the L1, not DRAM, the limit.
   bench_cihybrid times all variants. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The CIHYBRID CUDA kernels are written for real double-precision PetscScalar"
#endif

#define CIHYBRID_BLOCK_SIZE 128 /* fine-grained: less lost to register-limited occupancy and to the last wave */
#define CIHYBRID_FULL_WARP  0xffffffffu

/* What the kernels read of the device copy, passed by value. */
struct CIHybridArrays {
  int            nrows, width, pitch;
  const int32_t *ell_col;
  const double  *ell_val;
  const int32_t *ell_len; /* NULL: every row has s_i = 0 */
  const int32_t *csr_start;
  const int32_t *csr_col;
  const double  *csr_val;
};

static CIHybridArrays CIHybridArraysOf(CIHybridDevice d)
{
  CIHybridArrays A;

  A.nrows     = (int)d->nrows;
  A.width     = (int)d->width;
  A.pitch     = (int)d->pitch;
  A.ell_col   = d->ell_col;
  A.ell_val   = d->ell_val;
  A.ell_len   = d->ell_len;
  A.csr_start = d->csr_start;
  A.csr_col   = d->csr_col;
  A.csr_val   = d->csr_val;
  return A;
}

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
/* TUNED: loads of matrix data under a cache policy */
enum CIHybridLoad {
  CIHYBRID_LOAD_L1_NO_ALLOCATE, /* ld.global.nc.L1::no_allocate: read once, leave L1 to x */
  CIHYBRID_LOAD_EVICT_FIRST,    /* ld.global.cs (__ldcs): evict-first in L1 and L2 */
  CIHYBRID_LOAD_CACHED,         /* ld.global.nc (__ldg) */
  CIHYBRID_LOAD_PLAIN           /* ld.global, as the paper's kernel */
};

__device__ __forceinline__ int LoadNoAllocate(const int *p)
{
  int r;
  asm("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ int2 LoadNoAllocate(const int2 *p)
{
  int2 r;
  asm("ld.global.nc.L1::no_allocate.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ int4 LoadNoAllocate(const int4 *p)
{
  int4 r;
  asm("ld.global.nc.L1::no_allocate.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}
__device__ __forceinline__ double LoadNoAllocate(const double *p)
{
  double r;
  asm("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ double2 LoadNoAllocate(const double2 *p)
{
  double2 r;
  asm("ld.global.nc.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p));
  return r;
}

template <CIHybridLoad L, typename T>
__device__ __forceinline__ T LoadMatrix(const T *p)
{
  if constexpr (L == CIHYBRID_LOAD_L1_NO_ALLOCATE) return LoadNoAllocate(p);
  else if constexpr (L == CIHYBRID_LOAD_EVICT_FIRST) return __ldcs(p);
  else if constexpr (L == CIHYBRID_LOAD_CACHED) return __ldg(p);
  else return *p;
}

/* VEC consecutive entries starting at a multiple of VEC */
template <int VEC>
struct CIHybridChunk {
  int    col[VEC];
  double val[VEC];
};

template <int VEC, CIHybridLoad L>
__device__ __forceinline__ CIHybridChunk<VEC> LoadChunk(const int32_t *col, const double *val, int q)
{
  CIHybridChunk<VEC> ch;

  if constexpr (VEC == 1) {
    ch.col[0] = LoadMatrix<L>(col + q);
    ch.val[0] = LoadMatrix<L>(val + q);
  } else if constexpr (VEC == 2) {
    const int2    c = LoadMatrix<L>(reinterpret_cast<const int2 *>(col) + q);
    const double2 v = LoadMatrix<L>(reinterpret_cast<const double2 *>(val) + q);
    ch.col[0] = c.x, ch.col[1] = c.y;
    ch.val[0] = v.x, ch.val[1] = v.y;
  } else {
    static_assert(VEC == 4, "chunks are 1, 2 or 4 entries");
    const int4    c  = LoadMatrix<L>(reinterpret_cast<const int4 *>(col) + q);
    const double2 v0 = LoadMatrix<L>(reinterpret_cast<const double2 *>(val) + 2 * q);
    const double2 v1 = LoadMatrix<L>(reinterpret_cast<const double2 *>(val) + 2 * q + 1);
    ch.col[0] = c.x, ch.col[1] = c.y, ch.col[2] = c.z, ch.col[3] = c.w;
    ch.val[0] = v0.x, ch.val[1] = v0.y, ch.val[2] = v1.x, ch.val[3] = v1.y;
  }
  return ch;
}

/* Row i as a stream of chunks: t in [0, nA) are ELL chunks qA + t (the run
   starts aligned), t in [nA, nA + nB) remainder chunks qB + t - nA, whose
   first chunk begins headB entries before the run. */
struct CIHybridRowChunks {
  int qA, nA, lenA;
  int qB, headB, lenB;
  int nchunks;
};

template <int VEC>
__device__ __forceinline__ CIHybridRowChunks CIHybridRowChunksOf(const CIHybridArrays &A, long long row)
{
  CIHybridRowChunks r;
  const int         begin = __ldg(A.csr_start + row), end = __ldg(A.csr_start + row + 1);

  r.lenA    = A.ell_len ? __ldg(A.ell_len + row) : 0;
  r.qA      = (int)(row * A.pitch / VEC); /* exact: pitch is a multiple of 8 */
  r.nA      = (r.lenA + VEC - 1) / VEC;   /* stays inside the row's pitch slots */
  r.lenB    = end - begin;
  r.qB      = begin / VEC;
  r.headB   = begin - r.qB * VEC;
  r.nchunks = r.nA + (r.lenB > 0 ? (r.headB + r.lenB + VEC - 1) / VEC : 0); /* stays inside the padded remainder */
  return r;
}

template <int VEC, CIHybridLoad L>
__device__ __forceinline__ CIHybridChunk<VEC> LoadRowChunk(const CIHybridArrays &A, const CIHybridRowChunks &r, int t)
{
  const bool     ell = t < r.nA; /* select, not branch: one load instruction per array */
  const int32_t *col = ell ? A.ell_col : A.csr_col;
  const double  *val = ell ? A.ell_val : A.csr_val;
  const int      q   = ell ? r.qA + t : r.qB + t - r.nA;

  if (t < r.nchunks) return LoadChunk<VEC, L>(col, val, q);
  return CIHybridChunk<VEC>{};
}

/* acc + the chunk's entries that lie inside their run (none when t is past the row) */
template <int VEC>
__device__ __forceinline__ double AccumulateRowChunk(const CIHybridRowChunks &r, int t, const CIHybridChunk<VEC> &ch, const double *__restrict__ x, double acc)
{
  int first, len; /* position in its run of the chunk's first entry, and the run's length */

  if (t < r.nA) first = t * VEC, len = r.lenA;
  else first = (t - r.nA) * VEC - r.headB, len = t < r.nchunks ? r.lenB : 0;
#pragma unroll
  for (int e = 0; e < VEC; e++)
    if ((unsigned)(first + e) < (unsigned)len) acc = fma(ch.val[e], __ldg(x + ch.col[e]), acc);
  return acc;
}

/* LANES lanes per row; each lane takes chunks lane, lane + LANES, ..., UNROLL at a time.
   PIPELINE: the loads of the next UNROLL chunks are issued before the x
   gathers of the current ones, so the matrix stream never waits for x. */
template <int VEC, int UNROLL, CIHybridLoad L, bool PIPELINE, int LANES>
__global__ void __launch_bounds__(CIHYBRID_BLOCK_SIZE) CIHybridSpMVGroupPerRow_Tuned(CIHybridArrays A, const double *__restrict__ x, const double *y0, double *y)
{
  constexpr int      STEP = UNROLL * LANES;
  const int          lane = threadIdx.x % LANES;
  const long long    row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES;
  CIHybridRowChunks  r    = {};
  CIHybridChunk<VEC> ch[UNROLL], next[UNROLL];
  double             acc[UNROLL];

  for (int u = 0; u < UNROLL; u++) acc[u] = 0.0;
  if (row < A.nrows) r = CIHybridRowChunksOf<VEC>(A, row); /* rows past the end keep nchunks = 0 but join the shuffles */
  if constexpr (PIPELINE)
    for (int u = 0; u < UNROLL; u++) next[u] = LoadRowChunk<VEC, L>(A, r, lane + u * LANES);
  for (int t0 = lane; t0 < r.nchunks; t0 += STEP) {
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if constexpr (PIPELINE) {
        ch[u]   = next[u];
        next[u] = LoadRowChunk<VEC, L>(A, r, t0 + STEP + u * LANES);
      } else ch[u] = LoadRowChunk<VEC, L>(A, r, t0 + u * LANES);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) acc[u] = AccumulateRowChunk<VEC>(r, t0 + u * LANES, ch[u], x, acc[u]);
  }
  double sum = acc[0];
  for (int u = 1; u < UNROLL; u++) sum += acc[u];
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(CIHYBRID_FULL_WARP, sum, offset);
  if (lane == 0 && row < A.nrows) y[row] = y0 ? y0[row] + sum : sum;
}

/* RUNS: the two runs of a row summed separately, each in plain strided loops
   of UNROLL independent streaming loads per lane (no per-entry selects or
   masks), the ELL run bounded by ell_len so padding is never read. */
template <int UNROLL, CIHybridLoad L, int LANES>
__device__ __forceinline__ double CIHybridRunSum(const int32_t *__restrict__ col, const double *__restrict__ val, int len, int lane, const double *__restrict__ x)
{
  double acc[UNROLL];
  int    j = lane;

#pragma unroll
  for (int u = 0; u < UNROLL; u++) acc[u] = 0.0;
  for (; j + (UNROLL - 1) * LANES < len; j += UNROLL * LANES) {
    int    c[UNROLL];
    double v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      c[u] = LoadMatrix<L>(col + j + u * LANES);
      v[u] = LoadMatrix<L>(val + j + u * LANES);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) acc[u] = fma(v[u], __ldg(x + c[u]), acc[u]);
  }
  for (; j < len; j += LANES) acc[0] = fma(LoadMatrix<L>(val + j), __ldg(x + LoadMatrix<L>(col + j)), acc[0]);
#pragma unroll
  for (int u = 1; u < UNROLL; u++) acc[0] += acc[u];
  return acc[0];
}

template <int VEC, int UNROLL, CIHybridLoad L, bool PIPELINE, int LANES>
__global__ void __launch_bounds__(CIHYBRID_BLOCK_SIZE) CIHybridSpMVGroupPerRow_Runs(CIHybridArrays A, const double *__restrict__ x, const double *y0, double *y)
{
  const int       lane = threadIdx.x % LANES;
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES;
  double          sum  = 0.0;

  if (row < A.nrows) { /* rows past the end join the shuffles with 0 */
    const int len = A.ell_len ? __ldg(A.ell_len + row) : 0, begin = __ldg(A.csr_start + row), end = __ldg(A.csr_start + row + 1);

    if (len) sum = CIHybridRunSum<UNROLL, L, LANES>(A.ell_col + row * A.pitch, A.ell_val + row * A.pitch, len, lane, x);
    sum += CIHybridRunSum<UNROLL, L, LANES>(A.csr_col + begin, A.csr_val + begin, end - begin, lane, x);
  }
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(CIHYBRID_FULL_WARP, sum, offset);
  if (lane == 0 && row < A.nrows) y[row] = y0 ? y0[row] + sum : sum;
}

typedef PetscErrorCode (*CIHybridTunedLauncher)(const CIHybridArrays &, int, cudaStream_t, const double *, const double *, double *);

template <int VEC, int UNROLL, CIHybridLoad L, bool PIPELINE, bool RUNS = false>
static PetscErrorCode CIHybridLaunchTuned(const CIHybridArrays &A, int lanes, cudaStream_t stream, const double *x, const double *y0, double *y)
{
  const unsigned grid = CIHybridGridSize(A.nrows, lanes);

  PetscFunctionBegin;
  switch (lanes) {
  case 4:
    if constexpr (RUNS) CIHybridSpMVGroupPerRow_Runs<VEC, UNROLL, L, PIPELINE, 4><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    else CIHybridSpMVGroupPerRow_Tuned<VEC, UNROLL, L, PIPELINE, 4><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 8:
    if constexpr (RUNS) CIHybridSpMVGroupPerRow_Runs<VEC, UNROLL, L, PIPELINE, 8><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    else CIHybridSpMVGroupPerRow_Tuned<VEC, UNROLL, L, PIPELINE, 8><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 16:
    if constexpr (RUNS) CIHybridSpMVGroupPerRow_Runs<VEC, UNROLL, L, PIPELINE, 16><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    else CIHybridSpMVGroupPerRow_Tuned<VEC, UNROLL, L, PIPELINE, 16><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  case 32:
    if constexpr (RUNS) CIHybridSpMVGroupPerRow_Runs<VEC, UNROLL, L, PIPELINE, 32><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    else CIHybridSpMVGroupPerRow_Tuned<VEC, UNROLL, L, PIPELINE, 32><<<grid, CIHYBRID_BLOCK_SIZE, 0, stream>>>(A, x, y0, y);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%d lanes per row: give 4, 8, 16 or 32", lanes);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

static const struct {
  int                   vec, unroll;
  CIHybridTunedLauncher launch;
} CIHybridTuned[] = {
  {1, 4, CIHybridLaunchTuned<1, 4, CIHYBRID_LOAD_L1_NO_ALLOCATE, false>},      /* CIHYBRID_TUNED_SCALAR */
  {1, 8, CIHybridLaunchTuned<1, 8, CIHYBRID_LOAD_L1_NO_ALLOCATE, false>},      /* CIHYBRID_TUNED_SCALAR_DEEP */
  {1, 4, CIHybridLaunchTuned<1, 4, CIHYBRID_LOAD_L1_NO_ALLOCATE, true>},       /* CIHYBRID_TUNED_SCALAR_PIPELINED */
  {1, 2, CIHybridLaunchTuned<1, 2, CIHYBRID_LOAD_L1_NO_ALLOCATE, false, true>}, /* CIHYBRID_TUNED_RUNS2 */
  {1, 2, CIHybridLaunchTuned<1, 2, CIHYBRID_LOAD_PLAIN, false, true>},         /* CIHYBRID_TUNED_RUNS2_PLAIN */
  {1, 1, CIHybridLaunchTuned<1, 1, CIHYBRID_LOAD_PLAIN, false, true>},         /* CIHYBRID_TUNED_RUNS1_PLAIN */
};
const char *const CIHybridTunedVariantNames[] = {"scalar", "scalar_deep", "scalar_pipelined", "runs2", "runs2_plain", "runs1_plain"};
static_assert(sizeof(CIHybridTuned) / sizeof(CIHybridTuned[0]) == CIHYBRID_TUNED_NUM_VARIANTS, "one launcher per variant");
static_assert(sizeof(CIHybridTunedVariantNames) / sizeof(CIHybridTunedVariantNames[0]) == CIHYBRID_TUNED_NUM_VARIANTS, "one name per variant");

PetscErrorCode CIHybridDeviceTunedLanesPerRow(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt *lanes)
{
  PetscFunctionBegin;
  PetscCheck(variant >= 0 && variant < CIHYBRID_TUNED_NUM_VARIANTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown tuned CIHYBRID kernel variant %d", (int)variant);
  {
    /* enough lanes that one pass of the group (lanes*unroll chunks) covers an average row;
       a remainder run that starts unaligned costs about one chunk more */
    const double avg_len = dev->nrows ? (double)dev->nnz / (double)dev->nrows : 0.0;
    const double chunks  = avg_len / CIHybridTuned[variant].vec + (dev->nnz_csr ? 1.0 : 0.0);

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
  if (!y0) PetscCall(GpuMatsCUDAMemset(y, 0, ybytes));
  else if (y0 != y && ybytes) GpuMatsCallCUDA(cudaMemcpyAsync(y, y0, ybytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
  if (!dev->nrows) PetscFunctionReturn(0);
  CIHybridSpMVTransposeWarpPerRow<<<CIHybridGridSize(dev->nrows, 32), CIHYBRID_BLOCK_SIZE, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), x, y);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
