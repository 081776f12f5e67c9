/* DIAG product C = A B on the device, any schemes: the pairs kernel.

   Each diagonal c of C is a sum over its pairs (a, b) of entry diagonals of A and B (the
   plan, <gpumats_diag_format.h>) of elementwise products of a slice of A's diagonal a and a
   slice of B's diagonal b, shifted by A's offset:
     c[p] = sum over pairs of  A.val[ea_base[a] + i] * B.val[eb_base[b] + i + da],  i = p + shift,
   each pair over its own contiguous range of rows (DiagPairSegment, the function the host
   numeric phase uses: DiagProductPlanNumericHost is this kernel's twin).

   A thread block takes one diagonal of C and a tile of DIAG_PAIRS_TILE slots of it (each
   thread DIAG_PAIRS_ROWS slots, DIAG_PAIRS_THREADS apart, so that a warp's loads are
   consecutive).  The block stages up to DIAG_PAIRS_THREADS pairs at a time in shared memory,
   each thread computing one pair's range clipped to the tile and its two value offsets;
   then every thread runs over the staged pairs, accumulating its slots in registers: per
   pair and slot two coalesced loads and one FMA, no index arithmetic beyond a compare.  C is
   written once, no atomics, a fixed summation order (the plan's).  Where one or two pairs meet on
   each diagonal of C (the DIAG paper's Table 1) it is bound by L2's bandwidth, and still the
   fastest: kernels that read A from shared memory instead spent more in instructions than they
   saved in bytes (BENCHMARKS.md, "diag: products").  From 3 pairs the shuffle kernel
   (diag_product_staged.cu) does the same sums with A from shared memory, and wins. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_PAIRS_THREADS 256
#define DIAG_PAIRS_ROWS    4
#define DIAG_PAIRS_TILE    (DIAG_PAIRS_THREADS * DIAG_PAIRS_ROWS)
#define DIAG_PAIRS_GRID_Y  65535 /* most blocks along C's diagonals; more loop */

__global__ void __launch_bounds__(DIAG_PAIRS_THREADS) DiagProductPairsKernel(int m, int k, int n, int c_hm, int ndiag_c, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ pair_b, const int *__restrict__ ea_d, const long long *__restrict__ ea_base, const int *__restrict__ eb_d, const long long *__restrict__ eb_base, const long long *__restrict__ c_start, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  __shared__ long long s_ao[DIAG_PAIRS_THREADS], s_bo[DIAG_PAIRS_THREADS]; /* value offsets of slot 0 in A and B */
  __shared__ int       s_lo[DIAG_PAIRS_THREADS], s_hi[DIAG_PAIRS_THREADS]; /* the pair's slots within this tile */
  const int            p0 = blockIdx.x * DIAG_PAIRS_TILE;

  for (int c = blockIdx.y; c < ndiag_c; c += gridDim.y) { /* block-uniform: the barriers below are reached by all */
    const long long cs  = c_start[c];
    const int       len = (int)(c_start[c + 1] - cs);
    const int       q1  = pair_start[c + 1];
    double          sum[DIAG_PAIRS_ROWS];

    if (p0 >= len) continue;
#pragma unroll
    for (int r = 0; r < DIAG_PAIRS_ROWS; r++) sum[r] = 0.0;
    for (int q0 = pair_start[c]; q0 < q1; q0 += DIAG_PAIRS_THREADS) {
      const int nq = min(DIAG_PAIRS_THREADS, q1 - q0);

      __syncthreads(); /* the previous pairs are no longer read */
      if ((int)threadIdx.x < nq) {
        const int a = pair_a[q0 + threadIdx.x], b = pair_b[q0 + threadIdx.x], da = ea_d[a];
        PetscInt  i0, i1, shift;

        DiagPairSegment(m, k, n, c_hm, da, eb_d[b], &i0, &i1, &shift);
        s_lo[threadIdx.x] = max((int)(i0 - shift), p0);
        s_hi[threadIdx.x] = min((int)(i1 - shift), p0 + DIAG_PAIRS_TILE);
        s_ao[threadIdx.x] = ea_base[a] + shift;
        s_bo[threadIdx.x] = eb_base[b] + da + shift;
      }
      __syncthreads();
      for (int t = 0; t < nq; t++) {
        const int       lo = s_lo[t], hi = s_hi[t];
        const long long ao = s_ao[t], bo = s_bo[t];

        if (lo >= hi) continue; /* the pair misses this tile (uniform) */
#pragma unroll
        for (int r = 0; r < DIAG_PAIRS_ROWS; r++) {
          const int p = p0 + (int)threadIdx.x + r * DIAG_PAIRS_THREADS;

          if (p >= lo && p < hi) sum[r] = fma(__ldg(a_val + ao + p), __ldg(b_val + bo + p), sum[r]);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < DIAG_PAIRS_ROWS; r++) {
      const int p = p0 + (int)threadIdx.x + r * DIAG_PAIRS_THREADS;

      if (p < len) c_val[cs + p] = sum[r]; /* every slot of the tile, zeros where no pair meets */
    }
  }
}

PetscErrorCode DiagDeviceProductNumericPairs(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  void *s;
  dim3  grid;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "pairs"));
  if (!p->ndiag_c || !p->max_len) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  grid = dim3((unsigned)((p->max_len + DIAG_PAIRS_TILE - 1) / DIAG_PAIRS_TILE), (unsigned)PetscMin(p->ndiag_c, DIAG_PAIRS_GRID_Y));
  DiagProductPairsKernel<<<grid, DIAG_PAIRS_THREADS, 0, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->scheme == DIAG_SCHEME_HM, p->ndiag_c, p->pair_start, p->pair_a, p->pair_b, p->ea_d, p->ea_base, p->eb_d, p->eb_base, C->start, A->val, B->val, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
