/* DIAG product C = A B of CDM matrices by tiles in shared memory: our reading of the
   paper's Algorithm 1 (Haque, Parvez, Hossain, Algorithms 2024, 17(1):31), kept as a
   reference variant of DiagDeviceProductNumeric (same result, same summation order).

   Compact diagonal k_c of C at row i is the sum, over the stored diagonals k_a of A
   whose partner k_b = (k_c - k_a) mod n is a stored diagonal of B, of
     a_{k_a}[i] * b_{k_b}[(i + k_a) mod n].
   The grid is a 2-D array of T x T thread blocks (T = DIAG_TILED_T = 16): block
   (bx, by) computes rows bx T .. bx T + T-1 of C's stored diagonals by T .. by T + T-1,
   thread (x, y) the entry at row bx T + x of C's diagonal by T + y.  A's stored
   diagonals are taken T at a time.  For each such tile the block stages in shared memory
     - A's values, T diagonals x T rows, each row of threads loading T consecutive
       values of one diagonal (coalesced along the rows), and A's T offsets;
     - for each of its T diagonals of C and the T diagonals of A, where B's partner
       diagonal starts (or -1 where B has none), one look-up per thread in a device
       table of n ints (B's stored index of each compact offset, or -1; built once by
       made on the device at the first tiled product and kept in the product object);
   then each thread runs over the T diagonals of the tile, reading A from shared memory
   and B from global memory at row (i + k_a) mod n: consecutive threads read
   consecutive entries of B's diagonal.  Each entry of C is accumulated in a register
   and written once, no atomics.  The paper gives the tiling; the shared table of B's
   partner diagonals is ours. */
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

#define DIAG_TILED_T      16    /* rows, C diagonals and A diagonals of a tile */
#define DIAG_TILED_GRID_Y 65535 /* most blocks along C's diagonals; more loop */

__global__ void __launch_bounds__(DIAG_TILED_T * DIAG_TILED_T) DiagProductTiledKernel(int n, int ndiag_a, int ndiag_c, int nblocks_c, const int *__restrict__ b_index, const int *__restrict__ a_offset, const long long *__restrict__ a_start, const double *__restrict__ a_val, const long long *__restrict__ b_start, const double *__restrict__ b_val, const int *__restrict__ c_offset, const long long *__restrict__ c_start, double *__restrict__ c_val)
{
  __shared__ double    s_a[DIAG_TILED_T][DIAG_TILED_T];     /* [t][x]: A's diagonal a0 + t at row i0 + x */
  __shared__ long long s_b[DIAG_TILED_T][DIAG_TILED_T + 1]; /* [y][t]: start of B's partner of (C's y, A's t), or -1 (padded: no bank conflicts) */
  __shared__ int       s_ka[DIAG_TILED_T];                  /* [t]: A's compact offset */
  const int            x = threadIdx.x, y = threadIdx.y;
  const long long      row    = (long long)blockIdx.x * DIAG_TILED_T + x;
  const bool           row_ok = row < n;
  const int            i      = row_ok ? (int)row : 0;

  for (int cb = blockIdx.y; cb < nblocks_c; cb += gridDim.y) { /* block-uniform: the barriers below are reached by all */
    const int  c    = cb * DIAG_TILED_T + y;                   /* C's stored diagonal of this thread */
    const bool c_ok = c < ndiag_c;
    const int  kc   = c_ok ? c_offset[c] : 0;
    double     sum  = 0.0;

    for (int a0 = 0; a0 < ndiag_a; a0 += DIAG_TILED_T) {
      const int na = min(DIAG_TILED_T, ndiag_a - a0);

      __syncthreads(); /* the previous tile is no longer read */
      s_a[y][x] = y < na && row_ok ? a_val[a_start[a0 + y] + i] : 0.0;
      if (x < na) {
        const int ka = a_offset[a0 + x];
        const int kb = kc >= ka ? kc - ka : kc - ka + n; /* (k_c - k_a) mod n, no overflow */
        const int sb = c_ok ? b_index[kb] : -1;

        s_b[y][x] = sb >= 0 ? b_start[sb] : -1;
        if (y == 0) s_ka[x] = ka;
      }
      __syncthreads();
      if (c_ok && row_ok) {
        for (int t = 0; t < na; t++) {
          const long long bs = s_b[y][t];

          if (bs >= 0) {
            const int ka = s_ka[t], r = i >= n - ka ? i - (n - ka) : i + ka; /* (i + k_a) mod n */

            sum = fma(s_a[t][x], b_val[bs + r], sum);
          }
        }
      }
    }
    if (c_ok && row_ok) c_val[c_start[c] + i] = sum;
  }
}

PetscErrorCode DiagDeviceProductNumericTiled(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  void     *s;
  long long nblocks_x, nblocks_c;
  dim3      grid, block(DIAG_TILED_T, DIAG_TILED_T);

  PetscFunctionBegin;
  PetscCheck(p && A && B && C, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The tiled DIAG product needs the product plan and the device copies of A, B and C (one of them is NULL)");
  PetscCheck(p->scheme == DIAG_SCHEME_CDM, PETSC_COMM_SELF, PETSC_ERR_SUP, "The tiled DIAG product (the paper's Algorithm 1) is for CDM matrices; this product is HM: use DiagDeviceProductNumeric or DiagDeviceProductNumericAtomic");
  PetscCheck(A->scheme == DIAG_SCHEME_CDM && B->scheme == DIAG_SCHEME_CDM && C->scheme == DIAG_SCHEME_CDM, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The tiled DIAG product needs A, B and C in the CDM scheme (schemes %d, %d, %d; CDM is %d)", (int)A->scheme, (int)B->scheme, (int)C->scheme, (int)DIAG_SCHEME_CDM);
  PetscCheck(A->nrows == p->nrows && A->ncols == p->nrows && B->nrows == p->nrows && B->ncols == p->nrows && C->nrows == p->nrows && C->ncols == p->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "The tiled DIAG product was set up for %d x %d matrices; got A %d x %d, B %d x %d, C %d x %d", p->nrows, p->nrows, A->nrows, A->ncols, B->nrows, B->ncols, C->nrows, C->ncols);
  PetscCheck(A->ndiag == p->ndiag_a && B->ndiag == p->ndiag_b && C->ndiag == p->ndiag_c, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The tiled DIAG product was set up for %d, %d and %d diagonals in A, B and C; got %d, %d and %d (create the product again)", p->ndiag_a, p->ndiag_b, p->ndiag_c, A->ndiag,
             B->ndiag, C->ndiag);
  if (!p->nrows || !p->ndiag_c) PetscFunctionReturn(0);
  if (!p->b_index) PetscCall(DiagDeviceIndexOffsets(B->ndiag, B->offset, 0, B->ncols, &p->b_index)); /* at its first use: n ints */
  nblocks_x = ((long long)p->nrows + DIAG_TILED_T - 1) / DIAG_TILED_T;
  nblocks_c = ((long long)p->ndiag_c + DIAG_TILED_T - 1) / DIAG_TILED_T;
  grid      = dim3((unsigned)nblocks_x, (unsigned)PetscMin(nblocks_c, (long long)DIAG_TILED_GRID_Y));
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagProductTiledKernel<<<grid, block, 0, (cudaStream_t)s>>>(p->nrows, p->ndiag_a, p->ndiag_c, (int)nblocks_c, p->b_index, A->offset, A->start, A->val, B->start, B->val, C->offset, C->start, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
