/* PCSR SpMV kernels and PCSRDeviceMult: y = A x (+ y0) on plain CSR.

   PAPER (He & Gao 2016): kernel 1, PCSRSpMVPaperProducts, one thread per nonzero,
   writes v[k] = val[k] x[col[k]] into the middle array v (fully coalesced except for
   the gather of x).  Kernel 2, PCSRSpMVPaperSum (the paper's Algorithm 3), gives each
   thread block PCSR_PAPER_THREADS consecutive rows: it stages their row pointers in
   shared memory, walks the block's slice of v in windows of PCSR_PAPER_WINDOW entries
   loaded coalesced into shared memory, and after each window thread t adds the part of
   row t that lies in it.  A row longer than a window spans several windows.

   FUSED: kernel 2 computing val[k] x[col[k]] while staging, so v is neither written
   nor read (16 bytes per nonzero less traffic), one launch instead of two.

   VECTOR: a group of 2..32 lanes per row (a power of two from the mean row length),
   4 loads in flight per lane, shuffle reduction; matrix data is loaded with
   L1::no_allocate so that L1 keeps x.  Good on regular rows of similar length.

   ADAPTIVE (after CSR-Adaptive, Greathouse & Daga 2014): thread blocks over row blocks
   made at creation (pcsr_device.cu).  A block of several short rows stages its products
   in shared memory coalesced, then sums each row from there with 1..32 threads per row
   (more when the block has few rows).  A block of one row reduces it with the whole
   thread block, and a row longer than PCSR_ADAPTIVE_LONG_CHUNK is cut into chunks, one
   thread block each, whose partial sums the last block to finish adds in chunk order
   (deterministic, no atomics on y).  Meant for irregular matrices: power-law graphs
   and circuit matrices where a few rows hold a large share of the nonzeros.

   Every kernel sums each row in a fixed order, and reads y0[i] before writing y[i] in
   the same thread, so y0 may be y. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}
#include "../common/gpumats_loads.cuh"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The PCSR CUDA kernels are written for real double-precision PetscScalar"
#endif

#define PCSR_FULL_WARP        0xffffffffu
#define PCSR_PRODUCTS_THREADS 256
#define PCSR_VECTOR_THREADS   128 /* fine-grained blocks: less lost in the last wave */
#define PCSR_VECTOR_UNROLL    4   /* loads in flight per lane */
#define PCSR_LONG_UNROLL      4   /* the same for the whole-block reduction of a long row */

/* ------------------------------------------------------------------------------------- */
/* PAPER and FUSED */

/* Kernel 1 of the paper: one thread per nonzero. */
__global__ void __launch_bounds__(PCSR_PRODUCTS_THREADS) PCSRSpMVPaperProducts(int nnz, const int32_t *col, const double *val, const double *__restrict__ x, double *v)
{
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < nnz) v[k] = GpuMatsLoadStreaming(val + k) * __ldg(x + GpuMatsLoadStreaming(col + k));
}

/* Kernel 2 of the paper (Algorithm 3); FUSED computes the products while staging
   (v unused), else it stages v. */
template <bool FUSED>
__global__ void __launch_bounds__(PCSR_PAPER_THREADS) PCSRSpMVPaperSum(int nrows, const int32_t *ptr, const double *v, const int32_t *col, const double *val, const double *__restrict__ x, const double *y0, double *y)
{
  __shared__ int32_t row_start[PCSR_PAPER_THREADS + 1];
  __shared__ double  window[PCSR_PAPER_WINDOW];
  const int          t     = threadIdx.x;
  const long long    first = (long long)blockIdx.x * PCSR_PAPER_THREADS;
  const int          nr    = (int)min((long long)PCSR_PAPER_THREADS, nrows - first);

  for (int i = t; i <= nr; i += PCSR_PAPER_THREADS) row_start[i] = ptr[first + i];
  __syncthreads();
  const int begin = row_start[0], end = row_start[nr];
  const int mine_begin = t < nr ? row_start[t] : end, mine_end = t < nr ? row_start[t + 1] : end;
  double    sum = 0.0;

  for (int w0 = begin; w0 < end;) {
    const int wn = min(PCSR_PAPER_WINDOW, end - w0);

    for (int j = t; j < wn; j += PCSR_PAPER_THREADS) {
      const int k = w0 + j;

      window[j] = FUSED ? GpuMatsLoadStreaming(val + k) * __ldg(x + GpuMatsLoadStreaming(col + k)) : GpuMatsLoadStreaming(v + k);
    }
    __syncthreads();
    {
      const int lo = max(mine_begin, w0), hi = min(mine_end, w0 + wn);

      for (int k = lo; k < hi; k++) sum += window[k - w0];
    }
    __syncthreads(); /* the window is overwritten next */
    w0 += wn;
  }
  if (t < nr) y[first + t] = y0 ? y0[first + t] + sum : sum;
}

static PetscErrorCode PCSRDeviceMultPaper(PCSRDevice dev, PetscBool fused, cudaStream_t stream, const double *x, const double *y0, double *y)
{
  const unsigned grid = (unsigned)(((size_t)dev->nrows + PCSR_PAPER_THREADS - 1) / PCSR_PAPER_THREADS);

  PetscFunctionBegin;
  if (fused) {
    PCSRSpMVPaperSum<true><<<grid, PCSR_PAPER_THREADS, 0, stream>>>(dev->nrows, dev->ptr, NULL, dev->col, dev->val, x, y0, y);
    GpuMatsCallCUDA(cudaGetLastError());
    PetscFunctionReturn(0);
  }
  if (!dev->v && dev->nnz) {
    char what[128];

    snprintf(what, sizeof(what), "PCSR middle array v of the paper's kernel (%d nonzeros)", (int)dev->nnz);
    PetscCall(PCSRDeviceAllocate(dev, (void **)&dev->v, (size_t)dev->nnz * sizeof(double), what));
  }
  if (dev->nnz) {
    PCSRSpMVPaperProducts<<<(unsigned)(((size_t)dev->nnz + PCSR_PRODUCTS_THREADS - 1) / PCSR_PRODUCTS_THREADS), PCSR_PRODUCTS_THREADS, 0, stream>>>(dev->nnz, dev->col, dev->val, x, dev->v);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PCSRSpMVPaperSum<false><<<grid, PCSR_PAPER_THREADS, 0, stream>>>(dev->nrows, dev->ptr, dev->v, NULL, NULL, x, y0, y);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------- */
/* VECTOR */

template <int LANES>
__global__ void __launch_bounds__(PCSR_VECTOR_THREADS) PCSRSpMVVector(int nrows, const int32_t *ptr, const int32_t *col, const double *val, const double *__restrict__ x, const double *y0, double *y)
{
  constexpr int   STEP = LANES * PCSR_VECTOR_UNROLL;
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES;
  const int       lane = threadIdx.x % LANES;
  int             begin = 0, end = 0;
  double          acc[PCSR_VECTOR_UNROLL];

#pragma unroll
  for (int u = 0; u < PCSR_VECTOR_UNROLL; u++) acc[u] = 0.0;
  if (row < nrows) begin = __ldg(ptr + row), end = __ldg(ptr + row + 1); /* rows past the end are empty but join the shuffles */
  for (int k0 = begin + lane; k0 < end; k0 += STEP) {
    int32_t c[PCSR_VECTOR_UNROLL];
    double  a[PCSR_VECTOR_UNROLL];

#pragma unroll
    for (int u = 0; u < PCSR_VECTOR_UNROLL; u++) { /* every load first, then the arithmetic */
      const int k = k0 + u * LANES;

      c[u] = k < end ? GpuMatsLoadStreaming(col + k) : 0;
      a[u] = k < end ? GpuMatsLoadStreaming(val + k) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < PCSR_VECTOR_UNROLL; u++)
      if (k0 + u * LANES < end) acc[u] = fma(a[u], __ldg(x + c[u]), acc[u]);
  }
  double sum = acc[0];
#pragma unroll
  for (int u = 1; u < PCSR_VECTOR_UNROLL; u++) sum += acc[u];
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(PCSR_FULL_WARP, sum, offset);
  if (lane == 0 && row < nrows) y[row] = y0 ? y0[row] + sum : sum;
}

/* Lanes per row: enough that one pass (lanes * unroll entries) covers a mean row. */
static int PCSRVectorLanes(const PCSRDeviceCSR *A)
{
  const double mean  = A->nrows ? (double)A->nnz / (double)A->nrows : 0.0;
  int          lanes = 2;

  while (lanes < 32 && lanes * PCSR_VECTOR_UNROLL < mean) lanes *= 2;
  return lanes;
}

PetscErrorCode PCSRDeviceCSRMultVector(const PCSRDeviceCSR *A, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const int    lanes = PCSRVectorLanes(A);
  unsigned     grid;
  void        *s;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!A->nrows) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  grid   = (unsigned)(((size_t)A->nrows * (size_t)lanes + PCSR_VECTOR_THREADS - 1) / PCSR_VECTOR_THREADS);
  switch (lanes) {
  case 2:
    PCSRSpMVVector<2><<<grid, PCSR_VECTOR_THREADS, 0, stream>>>(A->nrows, A->ptr, A->col, A->val, x, y0, y);
    break;
  case 4:
    PCSRSpMVVector<4><<<grid, PCSR_VECTOR_THREADS, 0, stream>>>(A->nrows, A->ptr, A->col, A->val, x, y0, y);
    break;
  case 8:
    PCSRSpMVVector<8><<<grid, PCSR_VECTOR_THREADS, 0, stream>>>(A->nrows, A->ptr, A->col, A->val, x, y0, y);
    break;
  case 16:
    PCSRSpMVVector<16><<<grid, PCSR_VECTOR_THREADS, 0, stream>>>(A->nrows, A->ptr, A->col, A->val, x, y0, y);
    break;
  default:
    PCSRSpMVVector<32><<<grid, PCSR_VECTOR_THREADS, 0, stream>>>(A->nrows, A->ptr, A->col, A->val, x, y0, y);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------- */
/* ADAPTIVE */

struct PCSRAdaptiveArrays {
  const int32_t *ptr, *col;
  const double  *val;
  const int32_t *block_row, *block_chunk;
  double        *chunk_partial;
  int32_t       *chunk_arrived;
};

/* With y0 == y (MatMultAdd into y, as MPIAIJ does with the off-diagonal block) an empty
   row adds nothing: its y is neither read nor written.  An off-diagonal block is mostly
   empty rows, and skipping them spares a read and a write of the whole y. */
__device__ __forceinline__ void PCSRAdaptiveStore(int r, bool empty, double sum, const double *y0, double *y)
{
  if (y0 == y) {
    if (!empty) y[r] += sum;
  } else y[r] = y0 ? y0[r] + sum : sum;
}

/* Several short rows [r0, r1) whose nonzeros fit the window: products staged in shared
   memory, coalesced; then 'lanes' threads per row sum them (lanes from 1 to 32, as many
   as the block's rows leave threads for). */
__device__ __forceinline__ void PCSRAdaptiveShortRows(const PCSRAdaptiveArrays &A, int r0, int r1, double *window, const double *__restrict__ x, const double *y0, double *y)
{
  const int t = threadIdx.x, nr = r1 - r0;
  const int begin = __ldg(A.ptr + r0), n = __ldg(A.ptr + r1) - begin;
  int       lanes = 1;

  for (int j = t; j < n; j += PCSR_ADAPTIVE_THREADS) window[j] = GpuMatsLoadStreaming(A.val + begin + j) * __ldg(x + GpuMatsLoadStreaming(A.col + begin + j));
  __syncthreads();
  while (lanes < 32 && nr * lanes * 2 <= PCSR_ADAPTIVE_THREADS) lanes *= 2; /* uniform over the block */
  if (lanes == 1) {
    for (int r = r0 + t; r < r1; r += PCSR_ADAPTIVE_THREADS) {
      const int lo = __ldg(A.ptr + r) - begin, hi = __ldg(A.ptr + r + 1) - begin;
      double    sum = 0.0;

      for (int k = lo; k < hi; k++) sum += window[k];
      PCSRAdaptiveStore(r, lo == hi, sum, y0, y);
    }
  } else { /* nr * lanes <= threads: one pass; the groups lie inside warps (lanes divides 32) */
    const int r    = r0 + t / lanes;
    const int lane = t % lanes;
    double    sum  = 0.0;
    int       lo = 0, hi = 0;

    if (r < r1) {
      lo = __ldg(A.ptr + r) - begin;
      hi = __ldg(A.ptr + r + 1) - begin;
      for (int k = lo + lane; k < hi; k += lanes) sum += window[k];
    }
    for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(PCSR_FULL_WARP, sum, offset);
    if (lane == 0 && r < r1) PCSRAdaptiveStore(r, lo == hi, sum, y0, y);
  }
}

/* Sum over the thread block; the result is valid in thread 0. */
__device__ __forceinline__ double PCSRBlockSum(double sum, double *warp_sums)
{
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(PCSR_FULL_WARP, sum, offset);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < PCSR_ADAPTIVE_THREADS / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(PCSR_FULL_WARP, sum, offset);
  }
  return sum;
}

/* Chunk 'chunk' of row r, reduced by the whole thread block.  A row of one chunk is
   written at once; else the partial sum goes to chunk_partial[b] and the block that
   arrives last adds the row's partial sums in chunk order and resets the counter. */
__device__ __forceinline__ void PCSRAdaptiveLongRow(const PCSRAdaptiveArrays &A, int b, int r, int chunk, double *warp_sums, const double *__restrict__ x, const double *y0, double *y)
{
  const int row_begin = __ldg(A.ptr + r), row_end = __ldg(A.ptr + r + 1);
  const int nchunks   = max(1, (row_end - row_begin + PCSR_ADAPTIVE_LONG_CHUNK - 1) / PCSR_ADAPTIVE_LONG_CHUNK);
  const int lo = row_begin + chunk * PCSR_ADAPTIVE_LONG_CHUNK, hi = min(row_end, lo + PCSR_ADAPTIVE_LONG_CHUNK);
  double    acc[PCSR_LONG_UNROLL];

#pragma unroll
  for (int u = 0; u < PCSR_LONG_UNROLL; u++) acc[u] = 0.0;
  for (int k0 = lo + (int)threadIdx.x; k0 < hi; k0 += PCSR_ADAPTIVE_THREADS * PCSR_LONG_UNROLL) {
    int32_t c[PCSR_LONG_UNROLL];
    double  a[PCSR_LONG_UNROLL];

#pragma unroll
    for (int u = 0; u < PCSR_LONG_UNROLL; u++) {
      const int k = k0 + u * PCSR_ADAPTIVE_THREADS;

      c[u] = k < hi ? GpuMatsLoadStreaming(A.col + k) : 0;
      a[u] = k < hi ? GpuMatsLoadStreaming(A.val + k) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < PCSR_LONG_UNROLL; u++)
      if (k0 + u * PCSR_ADAPTIVE_THREADS < hi) acc[u] = fma(a[u], __ldg(x + c[u]), acc[u]);
  }
  double sum = acc[0];
#pragma unroll
  for (int u = 1; u < PCSR_LONG_UNROLL; u++) sum += acc[u];
  sum = PCSRBlockSum(sum, warp_sums);
  if (threadIdx.x != 0) return;
  if (nchunks == 1) {
    y[r] = y0 ? y0[r] + sum : sum;
    return;
  }
  {
    const int first = b - chunk; /* the row's first block: its counter, and the first partial sum */

    A.chunk_partial[b] = sum;
    __threadfence(); /* the partial sum is visible before the arrival is counted */
    if (atomicAdd(A.chunk_arrived + first, 1) == nchunks - 1) {
      double total = 0.0;

      __threadfence();
      for (int j = 0; j < nchunks; j++) total += __ldcg(A.chunk_partial + first + j); /* from L2, not a stale L1 line */
      y[r]                     = y0 ? y0[r] + total : total;
      A.chunk_arrived[first]   = 0; /* ready for the next product */
    }
  }
}

__global__ void __launch_bounds__(PCSR_ADAPTIVE_THREADS) PCSRSpMVAdaptive(PCSRAdaptiveArrays A, const double *__restrict__ x, const double *y0, double *y)
{
  __shared__ double window[PCSR_ADAPTIVE_WINDOW];
  const int         b     = blockIdx.x;
  const int         r0    = __ldg(A.block_row + b);
  const int         chunk = __ldg(A.block_chunk + b);

  if (chunk < 0) PCSRAdaptiveShortRows(A, r0, __ldg(A.block_row + b + 1), window, x, y0, y);
  else PCSRAdaptiveLongRow(A, b, r0, chunk, window, x, y0, y); /* the window holds the warps' sums */
}

PetscErrorCode PCSRDeviceCSRMultAdaptive(const PCSRDeviceCSR *M, const PCSRRowBlocks *rb, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PCSRAdaptiveArrays A;
  void              *s;

  PetscFunctionBegin;
  if (!M->nrows) PetscFunctionReturn(0);
  PetscCheck(rb->row, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCSR adaptive kernel: the row blocks of the %d-row matrix were not made", (int)M->nrows);
  PetscCall(GpuMatsCUDAGetStream(&s));
  A.ptr           = M->ptr;
  A.col           = M->col;
  A.val           = M->val;
  A.block_row     = rb->row;
  A.block_chunk   = rb->chunk;
  A.chunk_partial = rb->partial;
  A.chunk_arrived = rb->arrived;
  PCSRSpMVAdaptive<<<(unsigned)rb->nblocks, PCSR_ADAPTIVE_THREADS, 0, (cudaStream_t)s>>>(A, x, y0, y);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------- */

PetscErrorCode PCSRDeviceMult(PCSRDevice dev, MatPCSRKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  void         *s;
  cudaStream_t  stream;
  PCSRDeviceCSR A;

  PetscFunctionBegin;
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR device copy is NULL: create it with PCSRDeviceCreateFromCSR first");
  PetscCheck(kernel >= MAT_PCSR_KERNEL_PAPER && kernel <= MAT_PCSR_KERNEL_ADAPTIVE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR kernel %d: give MAT_PCSR_KERNEL_PAPER, FUSED, VECTOR or ADAPTIVE (AUTO is resolved before the device layer)", (int)kernel);
  if (!dev->nrows) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  switch (kernel) {
  case MAT_PCSR_KERNEL_PAPER:
    PetscCall(PCSRDeviceMultPaper(dev, PETSC_FALSE, stream, x, y0, y));
    break;
  case MAT_PCSR_KERNEL_FUSED:
    PetscCall(PCSRDeviceMultPaper(dev, PETSC_TRUE, stream, x, y0, y));
    break;
  case MAT_PCSR_KERNEL_VECTOR:
    PetscCall(PCSRDeviceGetCSR(dev, PETSC_FALSE, &A));
    PetscCall(PCSRDeviceCSRMultVector(&A, x, y0, y));
    break;
  default: /* MAT_PCSR_KERNEL_ADAPTIVE */
    PetscCall(PCSRDeviceGetCSR(dev, PETSC_FALSE, &A));
    PetscCall(PCSRDeviceCSRMultAdaptive(&A, &dev->blocks, x, y0, y));
  }
  PetscFunctionReturn(0);
}
