/* DIAG product C = A B of banded CDM matrices with both operands staged in shared memory.

   A banded matrix in CDM has compact diagonals that are each a superdiagonal d = k or a
   subdiagonal d = k - n, never both: its offsets d lie in [-p, q] with p + q small.  Row i
   of C's compact diagonal k_c is the sum over the pairs (s, t) meeting on it of
   a_s[i] b_t[(i + d_s) mod n], so a block of T consecutive rows i0 .. i0 + T - 1 needs
   A's diagonals at those rows and B's diagonals at the rows i0 - p .. i0 + T - 1 + q (mod n)
   only.  The block loads both once, coalesced, into shared memory and then every thread
   (a row, a diagonal of C at a time) sums its pairs from shared memory: global memory sees
   A once, B (T + p + q) / T times and C once, where the pairs kernel re-reads A and B for
   every diagonal of C and the paper's Algorithm 1 re-reads B for every tile.  Bands too wide
   for shared memory (T = 32 rows must fit) keep the pairs kernel.  Where B is a band too the
   sweep kernel (diag_product_sweep.cu) is taken instead: it needs no lists and holds A's value
   in registers (faster on bands of 5-101 diagonals); this one stays for a band times scattered
   offsets. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

/* NT threads a block: 512, and 1024 for tiles of 32 rows whose wide bands leave room for one
   block an SM only; at least DIAG_BANDED_MIN_BLOCKS blocks (below, the pairs kernel fills
   the device better: measured faster at n = 10^4) */
#define DIAG_BANDED_MIN_BLOCKS 1024

template <int T, int NT>
__global__ void __launch_bounds__(NT) DiagProductBandedKernel(int n, int ndiag_a, int ndiag_b, int ndiag_c, int p, int width, const int *__restrict__ a_signed, const long long *__restrict__ a_start, const double *__restrict__ a_val, const long long *__restrict__ b_start, const double *__restrict__ b_val, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ pair_b, const long long *__restrict__ c_start, double *__restrict__ c_val)
{
  extern __shared__ double smem[];
  double   *s_a = smem;                      /* [s][x]: A's diagonal s at row i0 + x */
  double   *s_b = smem + (size_t)ndiag_a * T; /* [t][j]: B's diagonal t at row (i0 - p + j) mod n */
  const int i0  = blockIdx.x * T;

  for (int idx = threadIdx.x; idx < ndiag_a * T; idx += blockDim.x) {
    const int s = idx / T, x = idx - s * T;

    s_a[idx] = i0 + x < n ? a_val[a_start[s] + i0 + x] : 0.0;
  }
  for (int idx = threadIdx.x; idx < ndiag_b * width; idx += blockDim.x) {
    const int t = idx / width, j = idx - t * width;
    int       r = (i0 - p + j) % n;

    s_b[idx] = b_val[b_start[t] + (r < 0 ? r + n : r)];
  }
  __syncthreads();
  {
    const int x = threadIdx.x % T, i = i0 + x;

    if (i >= n) return;
    for (int c = threadIdx.x / T; c < ndiag_c; c += NT / T) {
      double sum = 0.0;

      for (int q = pair_start[c]; q < pair_start[c + 1]; q++) {
        const int s = pair_a[q];

        sum += s_a[s * T + x] * s_b[pair_b[q] * width + x + a_signed[s] + p];
      }
      c_val[c_start[c] + i] = sum;
    }
  }
}

/* Shared memory of a block of T rows */
static size_t DiagBandedBytes(DiagDeviceProduct prod, int T)
{
  return sizeof(double) * ((size_t)prod->ndiag_a * T + (size_t)prod->ndiag_b * (T + prod->band_p + prod->band_q));
}

PetscErrorCode DiagDeviceProductBandedTile(DiagDeviceProduct prod, int *T)
{
  int optin; /* the device's largest shared memory per block */

  PetscFunctionBegin;
  *T = 0;
  PetscCall(GpuMatsCUDADeviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin));
  /* the widest tile within 96 KiB (two blocks an SM) that still makes enough blocks, else 32 rows
     within what the device allows */
  for (int t = 128; t >= 32 && !*T; t /= 2)
    if (DiagBandedBytes(prod, t) <= 96 * 1024 && (prod->nrows + t - 1) / t >= DIAG_BANDED_MIN_BLOCKS) *T = t;
  if (!*T && DiagBandedBytes(prod, 32) <= (size_t)optin && (prod->nrows + 31) / 32 >= DIAG_BANDED_MIN_BLOCKS) *T = 32;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductBandedRows(DiagDeviceProduct prod, int *T)
{
  PetscFunctionBegin;
  *T = 0;
  if (prod->a_signed) PetscCall(DiagDeviceProductBandedTile(prod, T));
  PetscFunctionReturn(0);
}

template <int T, int NT>
static PetscErrorCode DiagLaunchBanded(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C, cudaStream_t stream)
{
  const size_t bytes = DiagBandedBytes(p, T);

  PetscFunctionBegin;
  if (bytes > 48 * 1024) GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductBandedKernel<T, NT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  DiagProductBandedKernel<T, NT><<<(unsigned)((p->nrows + T - 1) / T), NT, bytes, stream>>>(p->nrows, p->ndiag_a, p->ndiag_b, p->ndiag_c, p->band_p, T + p->band_p + p->band_q, p->a_signed, A->start, A->val, B->start, B->val, p->band_pair_start, p->band_pair_a, p->band_pair_b, C->start, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericBanded(DiagDeviceProduct p, int T, DiagDevice A, DiagDevice B, DiagDevice C)
{
  void *s;

  PetscFunctionBegin;
  PetscCheck(p->a_signed && p->one_scheme && p->scheme == DIAG_SCHEME_CDM, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The banded DIAG product is for CDM matrices whose compact diagonals are each a super- or a subdiagonal");
  if (!p->nrows || !p->ndiag_c) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  switch (T) {
  case 128:
    PetscCall(DiagLaunchBanded<128, 512>(p, A, B, C, (cudaStream_t)s));
    break;
  case 64:
    PetscCall(DiagLaunchBanded<64, 512>(p, A, B, C, (cudaStream_t)s));
    break;
  case 32:
    if (DiagBandedBytes(p, 32) > 96 * 1024) PetscCall(DiagLaunchBanded<32, 1024>(p, A, B, C, (cudaStream_t)s));
    else PetscCall(DiagLaunchBanded<32, 512>(p, A, B, C, (cudaStream_t)s));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The banded DIAG product takes tiles of 32, 64 or 128 rows, not %d", T);
  }
  PetscFunctionReturn(0);
}
