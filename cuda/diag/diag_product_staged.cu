/* DIAG product C = A B on the device, any schemes: the pairs kernel with A staged in shared
   memory, for structured-sparse products whose A has at most a few hundred diagonals.

   The pairs kernel (diag_product_pairs.cu) reads both A's and B's values from L2 for every
   multiply-add: 16 bytes a flop pair, which bounds it by the L2 bandwidth on the tables' products
   (C = A B with 200-600 diagonals each at n = 10^4: 0.6-5.7 Gflop, 10-90 GB from L2).  Here a
   thread block takes T = 32 (or 16) consecutive rows and stages every entry diagonal of A on
   those rows in shared memory once (nea x T values); then each warp (T lanes, one row each) walks
   diagonals of C, summing its pairs with A from shared memory and B from global memory: 8 bytes
   from L2 a multiply-add, half the pairs kernel's.  Each pair's rows and B's value offset are
   precomputed per pair on the device (DiagDeviceProductCreate, from the plan), so a pair costs a
   warp four uniform loads and a compare.  Every row of the tile of every diagonal of C the block
   takes is written once (zeros where no pair meets), no atomics; the pairs of a diagonal of C
   are summed in four interleaved partial sums (four loads of B in flight a warp).
   Used where nea x T doubles fit the shared memory (at most DIAG_STAGED_SMEM bytes), else the
   pairs kernel runs. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
#include "../../src/diag/diag_product_plan.h"
}

#define DIAG_STAGED_THREADS 1024 /* 32 warps: with 150 KiB of A one block an SM, and its warps hide L2's latency */
#define DIAG_STAGED_SMEM    (200 * 1024) /* within the 227 KiB an H100/H200 block may opt in to */
#define DIAG_STAGED_CPW     64           /* diagonals of C a warp takes, about */
#define DIAG_STAGED_GRID_Y  65535

/* per pair: its rows [lo, hi), A's entry diagonal, and B's value index of row i: b_off + i */
__global__ void DiagPairRecordsKernel(int m, int k, int n, int c_hm, long long npairs, const int *__restrict__ pair_a, const int *__restrict__ pair_b, const int *__restrict__ ea_d, const int *__restrict__ eb_d, const long long *__restrict__ eb_base, int *__restrict__ rec_lo, int *__restrict__ rec_hi, long long *__restrict__ rec_b)
{
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (q < npairs) {
    const int a = pair_a[q], b = pair_b[q], da = ea_d[a];
    PetscInt  i0, i1, shift;

    DiagPairSegment(m, k, n, c_hm, da, eb_d[b], &i0, &i1, &shift);
    rec_lo[q] = (int)i0;
    rec_hi[q] = (int)i1;
    rec_b[q]  = eb_base[b] + da;
  }
}

template <int T>
__global__ void __launch_bounds__(DIAG_STAGED_THREADS) DiagProductStagedKernel(int m, int k, int nea, int ndiag_c, int c_hm, const int *__restrict__ c_offset, const long long *__restrict__ c_start, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ rec_lo, const int *__restrict__ rec_hi, const long long *__restrict__ rec_b, const int *__restrict__ ea_d, const long long *__restrict__ ea_base, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  extern __shared__ double s_a[]; /* [e][x]: A's entry diagonal e at row i0 + x (0 outside its rows) */
  const int                i0 = blockIdx.x * T, x = threadIdx.x % T, y = threadIdx.x / T, ny = DIAG_STAGED_THREADS / T;
  const int                i  = i0 + x; /* this thread's row */

  for (int idx = threadIdx.x; idx < nea * T; idx += DIAG_STAGED_THREADS) {
    const int e = idx / T, r = i0 + (idx - e * T), d = ea_d[e], lo = d < 0 ? -d : 0, hi = min(m, k - d);

    s_a[idx] = r >= lo && r < hi ? a_val[ea_base[e] + r] : 0.0;
  }
  __syncthreads(); /* the only barrier: below, each group of T lanes goes its own way */
  if (i >= m) return;
  for (int c = blockIdx.y * ny + y; c < ndiag_c; c += gridDim.y * ny) {
    const int       dc = c_offset[c], shift = c_hm && dc < 0 ? -dc : 0, q1 = pair_start[c + 1];
    const long long cs = c_start[c], len = c_start[c + 1] - cs, p = (long long)i - shift; /* C's slot of row i */
    double          s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int             q  = pair_start[c];

    if (p < 0 || p >= len) continue; /* row i is not on this diagonal of C */
    for (; q + 3 < q1; q += 4) { /* four pairs at a time: four loads of B in flight, four sums */
      const int lo0 = rec_lo[q], hi0 = rec_hi[q], lo1 = rec_lo[q + 1], hi1 = rec_hi[q + 1];
      const int lo2 = rec_lo[q + 2], hi2 = rec_hi[q + 2], lo3 = rec_lo[q + 3], hi3 = rec_hi[q + 3];

      if (i >= lo0 && i < hi0) s0 = fma(s_a[pair_a[q] * T + x], __ldg(b_val + rec_b[q] + i), s0);
      if (i >= lo1 && i < hi1) s1 = fma(s_a[pair_a[q + 1] * T + x], __ldg(b_val + rec_b[q + 1] + i), s1);
      if (i >= lo2 && i < hi2) s2 = fma(s_a[pair_a[q + 2] * T + x], __ldg(b_val + rec_b[q + 2] + i), s2);
      if (i >= lo3 && i < hi3) s3 = fma(s_a[pair_a[q + 3] * T + x], __ldg(b_val + rec_b[q + 3] + i), s3);
    }
    for (; q < q1; q++)
      if (i >= rec_lo[q] && i < rec_hi[q]) s0 = fma(s_a[pair_a[q] * T + x], __ldg(b_val + rec_b[q] + i), s0);
    c_val[cs + p] = (s0 + s1) + (s2 + s3);
  }
}

PetscErrorCode DiagDeviceProductStagedRows(DiagDeviceProduct p, int *T)
{
  static int optin = 0; /* the device's largest shared memory per block */
  size_t     limit;

  PetscFunctionBegin;
  *T = 0;
  if (!optin) {
    int dev;

    GpuMatsCallCUDA(cudaGetDevice(&dev));
    GpuMatsCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  }
  limit = PetscMin((size_t)DIAG_STAGED_SMEM, (size_t)optin);
  if ((size_t)p->nea * 32 * sizeof(double) <= limit) *T = 32;
  else if ((size_t)p->nea * 16 * sizeof(double) <= limit) *T = 16;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductRecordsCreate(DiagDeviceProduct p)
{
  char  what[128];
  void *s;

  PetscFunctionBegin;
  if (p->rec_lo || !p->npairs) PetscFunctionReturn(0);
  snprintf(what, sizeof(what), "DIAG product: rows and offsets of %lld pairs of diagonals", p->npairs);
  PetscCall(GpuMatsCUDAMalloc((void **)&p->rec_lo, (size_t)p->npairs * sizeof(int), what));
  PetscCall(GpuMatsCUDAMalloc((void **)&p->rec_hi, (size_t)p->npairs * sizeof(int), what));
  PetscCall(GpuMatsCUDAMalloc((void **)&p->rec_b, (size_t)p->npairs * sizeof(long long), what));
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagPairRecordsKernel<<<(unsigned)((p->npairs + 255) / 256), 256, 0, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->scheme == DIAG_SCHEME_HM, p->npairs, p->pair_a, p->pair_b, p->ea_d, p->eb_d, p->eb_base, p->rec_lo, p->rec_hi, p->rec_b);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

template <int T>
static PetscErrorCode DiagLaunchStaged(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C, cudaStream_t stream)
{
  const size_t bytes = (size_t)PetscMax(p->nea, 1) * T * sizeof(double);
  const int    ny    = DIAG_STAGED_THREADS / T;
  dim3         grid((unsigned)((p->nrows + T - 1) / T), (unsigned)PetscMin(PetscMax((p->ndiag_c + ny * DIAG_STAGED_CPW - 1) / (ny * DIAG_STAGED_CPW), 1), DIAG_STAGED_GRID_Y));

  PetscFunctionBegin;
  if (bytes > 48 * 1024) GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductStagedKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  DiagProductStagedKernel<T><<<grid, DIAG_STAGED_THREADS, bytes, stream>>>(p->nrows, p->inner, p->nea, p->ndiag_c, p->scheme == DIAG_SCHEME_HM, C->offset, C->start, p->pair_start, p->pair_a, p->rec_lo, p->rec_hi, p->rec_b, p->ea_d, p->ea_base, A->val, B->val, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericStaged(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  int   T;
  void *s;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "staged"));
  if (!p->ndiag_c || !p->nrows) PetscFunctionReturn(0);
  if (!p->npairs) { /* no pair meets: C is zero (every diagonal of C has a pair, so C has none: nothing to do) */
    PetscFunctionReturn(0);
  }
  PetscCall(DiagDeviceProductRecordsCreate(p));
  PetscCall(DiagDeviceProductStagedRows(p, &T));
  PetscCheck(T, PETSC_COMM_SELF, PETSC_ERR_SUP, "The staged DIAG product stages A's %d diagonals in shared memory: %zu bytes for 16 rows, more than this device's or %d; use DiagDeviceProductNumericPairs", p->nea, (size_t)p->nea * 16 * sizeof(double), DIAG_STAGED_SMEM);
  PetscCall(GpuMatsCUDAGetStream(&s));
  if (T == 32) PetscCall(DiagLaunchStaged<32>(p, A, B, C, (cudaStream_t)s));
  else PetscCall(DiagLaunchStaged<16>(p, A, B, C, (cudaStream_t)s));
  PetscFunctionReturn(0);
}
