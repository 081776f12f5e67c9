/* DIAG product C = A B on the device, any schemes: the pairs kernel with A staged in shared
   memory, for structured-sparse products whose A has at most a few hundred diagonals.

   The pairs kernel (diag_product_pairs.cu) reads both A's and B's values from L2 for every
   multiply-add: 16 bytes a flop pair, which bounds it by the L2 bandwidth on the tables' products
   (C = A B with 200-600 diagonals each at n = 10^4: 0.6-5.7 Gflop, 10-90 GB from L2).  Here a
   thread block takes 32 consecutive rows and stages every entry diagonal of A on those rows in
   shared memory once (nea x 32 values); then each warp (a lane a row) walks diagonals of C,
   summing its pairs with A from shared memory and B from global memory: 8 bytes from L2 a
   multiply-add, half the pairs kernel's.

   What bounds it then is the load pipe (L1 and shared memory): each load instruction of a warp
   costs a pass whether its lanes read one address or 32, and a warp read four words of each pair
   that way (600 x 600 diagonals: 34 load instructions a multiply-add of a warp, the pipe near
   its peak).  So the pairs of a diagonal of C are read 32 at a time, a lane a pair
   (its rows, precomputed per pair on the device from the plan, A's diagonal and B's value
   offset), and those that hold on all 32 rows of the warp (nearly all: a pair's rows run over
   thousands) are listed in the warp's shared memory as one 16-byte record each; a pair then
   costs one read of its record, one of A, one of B and a multiply-add, with no test.  The few
   pairs that end within the 32 rows are taken one by one with each lane's test.  (The same
   product: 16 instructions; what passes L1 is then the data: the record, 256 bytes of A, 256
   bytes of B not aligned to 128.)  Every row of the tile of every diagonal of C
   the block takes is written once (zeros where no pair meets), no atomics; the pairs are summed
   in four interleaved partial sums (four loads of B in flight a warp).  Used where the nea x 32
   doubles and the records fit the shared memory (at most DIAG_STAGED_SMEM bytes), else the pairs
   kernel runs.

   The shuffle kernel, for few pairs a diagonal of C (the DIAG paper's Table 2: 4.6-9.5): there
   the records' making (a ballot, a store, a barrier) and each diagonal's bounds are repaid by a
   handful of pairs on 32 rows, and the pairs kernel stays faster.  So each lane takes R = 4 or 2
   rows (a warp's tile 32 R rows, A's nea x 32 R doubles staged), the pairs come to the warp by
   shuffles of its lanes' loads, and a pair that holds on the whole tile costs R reads of A, R of
   B and R multiply-adds, two pairs' loads in flight together.  The sums run in the plan's order
   from 0, one a row, as in the pairs kernel: the same C bit for bit.  Faster than the pairs
   kernel there (8 bytes from L2 a multiply-add instead of 16; bound by L1 and shared memory
   then; BENCHMARKS.md, "diag: products"). */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_STAGED_ROWS    32   /* rows a block, a lane a row */
#define DIAG_STAGED_THREADS 1024 /* 32 warps: with 150 KiB of A one block an SM, and its warps hide L2's latency */
#define DIAG_STAGED_SMEM    (200 * 1024) /* within the 227 KiB an H100/H200 block may opt in to */
#define DIAG_STAGED_CPW     64           /* diagonals of C a warp takes, at most */
#define DIAG_STAGED_CPW_MIN 8            /*   and at least, where C has them (DiagStagedGridY) */
#define DIAG_STAGED_FILL    256          /* warps an SM the grid gives, where the above allow */
#define DIAG_STAGED_GRID_Y  65535

/* a pair of diagonals that holds on all of a warp's rows, in one 16-byte record (one load): x, the
   address of B's value for row 0, and y, A's diagonal's first row in s_a */
typedef longlong2 DiagStagedPair;

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

/* A's nea entry diagonals on the T rows from i0 into s_a[e * T + x] (0 outside each one's rows) */
template <int T>
__device__ static inline void DiagStageA(int m, int k, int nea, int i0, const int *__restrict__ ea_d, const long long *__restrict__ ea_base, const double *__restrict__ a_val, double *s_a)
{
  for (int idx = threadIdx.x; idx < nea * T; idx += DIAG_STAGED_THREADS) {
    const int e = idx / T, r = i0 + (idx - e * T), d = ea_d[e], lo = d < 0 ? -d : 0, hi = min(m, k - d);

    s_a[idx] = r >= lo && r < hi ? a_val[ea_base[e] + r] : 0.0;
  }
}

__global__ void __launch_bounds__(DIAG_STAGED_THREADS) DiagProductStagedKernel(int m, int k, int nea, int ndiag_c, int c_hm, const int *__restrict__ c_offset, const long long *__restrict__ c_start, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ rec_lo, const int *__restrict__ rec_hi, const long long *__restrict__ rec_b, const int *__restrict__ ea_d, const long long *__restrict__ ea_base, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  const int       T = DIAG_STAGED_ROWS, ny = DIAG_STAGED_THREADS / T;
  extern __shared__ double s_a[]; /* [e][x]: A's entry diagonal e at row i0 + x (0 outside its rows); then the warps' records */
  const int       i0 = blockIdx.x * T, x = threadIdx.x % T, y = threadIdx.x / T, i = i0 + x; /* this lane's row */
  const unsigned  below = (1u << x) - 1;                                                      /* the lanes before this one */
  DiagStagedPair *s_pair = (DiagStagedPair *)(s_a + (size_t)nea * T) + y * T;                 /* this warp's records */

  DiagStageA<T>(m, k, nea, i0, ea_d, ea_base, a_val, s_a);
  __syncthreads(); /* the only barrier: below, each warp goes its own way */
  for (int c = blockIdx.y * ny + y; c < ndiag_c; c += gridDim.y * ny) {
    const int       dc = c_offset[c], shift = c_hm && dc < 0 ? -dc : 0, q1 = pair_start[c + 1];
    const long long cs = c_start[c], len = c_start[c + 1] - cs, p = (long long)i - shift; /* C's slot of row i */
    const bool      on = i < m && p >= 0 && p < len;                                      /* row i is on this diagonal of C */
    double          s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;

    if (!__any_sync(0xffffffffu, on)) continue;
    for (int qb = pair_start[c]; qb < q1; qb += T) { /* 32 pairs, a lane each */
      const int      q = qb + x;
      const int      lo = q < q1 ? rec_lo[q] : 0, hi = q < q1 ? rec_hi[q] : 0, a = q < q1 ? pair_a[q] * T : 0;
      const double  *b = b_val + (q < q1 ? rec_b[q] : 0);
      const bool     all = lo <= i0 && hi >= i0 + T; /* on every row of the warp (so in C's and A's rows) */
      const unsigned full = __ballot_sync(0xffffffffu, all), some = __ballot_sync(0xffffffffu, !all && lo < i0 + T && hi > i0);
      const int      nfull = __popc(full);
      int            j = 0;

      if (all) s_pair[__popc(full & below)] = make_longlong2((long long)b, a);
      __syncwarp();
      for (; j + 3 < nfull; j += 4) {
        const DiagStagedPair r0 = s_pair[j], r1 = s_pair[j + 1], r2 = s_pair[j + 2], r3 = s_pair[j + 3];

        s0 = fma(s_a[(int)r0.y + x], __ldg((const double *)r0.x + i), s0);
        s1 = fma(s_a[(int)r1.y + x], __ldg((const double *)r1.x + i), s1);
        s2 = fma(s_a[(int)r2.y + x], __ldg((const double *)r2.x + i), s2);
        s3 = fma(s_a[(int)r3.y + x], __ldg((const double *)r3.x + i), s3);
      }
      for (; j < nfull; j++) {
        const DiagStagedPair r = s_pair[j];

        s0 = fma(s_a[(int)r.y + x], __ldg((const double *)r.x + i), s0);
      }
      __syncwarp(); /* the records read before the next 32 are written */
      for (unsigned rest = some; rest; rest &= rest - 1) { /* the pairs that end within the warp's rows */
        const int     l  = __ffs(rest) - 1;
        const int     lo_l = __shfl_sync(0xffffffffu, lo, l), hi_l = __shfl_sync(0xffffffffu, hi, l), a_l = __shfl_sync(0xffffffffu, a, l);
        const double *b_l = (const double *)__shfl_sync(0xffffffffu, (unsigned long long)b, l);

        if (i >= lo_l && i < hi_l) s1 = fma(s_a[a_l + x], __ldg(b_l + i), s1);
      }
    }
    if (on) c_val[cs + p] = (s0 + s1) + (s2 + s3);
  }
}

/* The shuffle kernel: R rows a lane, a warp's tile of 32 R rows; the pairs of a diagonal of C read
   32 at a time, a lane each, and handed to the warp by shuffles */
template <int R>
__global__ void __launch_bounds__(DIAG_STAGED_THREADS, 1) DiagProductShuffleKernel(int m, int k, int nea, int ndiag_c, int c_hm, const int *__restrict__ c_offset, const long long *__restrict__ c_start, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ rec_lo, const int *__restrict__ rec_hi, const long long *__restrict__ rec_b, const int *__restrict__ ea_d, const long long *__restrict__ ea_base, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  const int T = 32 * R, ny = DIAG_STAGED_THREADS / 32;
  extern __shared__ double s_a[]; /* [e][x]: A's entry diagonal e at row i0 + x */
  const int i0 = blockIdx.x * T, x = threadIdx.x % 32, y = threadIdx.x / 32; /* rows i0 + x + 32 r */

  DiagStageA<T>(m, k, nea, i0, ea_d, ea_base, a_val, s_a);
  __syncthreads(); /* the only barrier */
  for (int c = blockIdx.y * ny + y; c < ndiag_c; c += gridDim.y * ny) {
    const int       dc = c_offset[c], shift = c_hm && dc < 0 ? -dc : 0, q1 = pair_start[c + 1];
    const long long cs = c_start[c], len = c_start[c + 1] - cs;
    double          s[R];

#pragma unroll
    for (int r = 0; r < R; r++) s[r] = 0.0;
    for (int qb = pair_start[c]; qb < q1; qb += 32) {
      const int       q = qb + x, nq = min(32, q1 - qb);
      const int       lo = q < q1 ? rec_lo[q] : 0, hi = q < q1 ? rec_hi[q] : 0, a = q < q1 ? pair_a[q] * T : 0;
      const long long bo = q < q1 ? rec_b[q] + i0 : 0; /* a lane's pair; the lanes that take it add their x */
      const unsigned  full = __ballot_sync(0xffffffffu, q < q1 && lo <= i0 && hi >= i0 + T);

      if (full == (nq == 32 ? 0xffffffffu : (1u << nq) - 1)) { /* every pair on every row of the tile: no tests */
        int t = 0;

        for (; t + 1 < nq; t += 2) {
          const int     a0 = __shfl_sync(0xffffffffu, a, t) + x, a1 = __shfl_sync(0xffffffffu, a, t + 1) + x;
          const double *b0 = b_val + __shfl_sync(0xffffffffu, bo, t) + x, *b1 = b_val + __shfl_sync(0xffffffffu, bo, t + 1) + x;
          double        v0[R], v1[R];

#pragma unroll
          for (int r = 0; r < R; r++) {
            v0[r] = __ldg(b0 + 32 * r);
            v1[r] = __ldg(b1 + 32 * r);
          }
#pragma unroll
          for (int r = 0; r < R; r++) s[r] = fma(s_a[a0 + 32 * r], v0[r], s[r]);
#pragma unroll
          for (int r = 0; r < R; r++) s[r] = fma(s_a[a1 + 32 * r], v1[r], s[r]);
        }
        if (t < nq) {
          const int     a0 = __shfl_sync(0xffffffffu, a, t) + x;
          const double *b0 = b_val + __shfl_sync(0xffffffffu, bo, t) + x;

#pragma unroll
          for (int r = 0; r < R; r++) s[r] = fma(s_a[a0 + 32 * r], __ldg(b0 + 32 * r), s[r]);
        }
      } else { /* some pair ends within the tile (or the tile passes the last row): each row tested */
        for (int t = 0; t < nq; t++) {
          const int     lo_t = __shfl_sync(0xffffffffu, lo, t), hi_t = __shfl_sync(0xffffffffu, hi, t), a_t = __shfl_sync(0xffffffffu, a, t) + x;
          const double *b_t = b_val + __shfl_sync(0xffffffffu, bo, t) + x;

          if (lo_t >= i0 + T || hi_t <= i0) continue; /* uniform */
#pragma unroll
          for (int r = 0; r < R; r++) {
            const int i = i0 + x + 32 * r;

            if (i >= lo_t && i < hi_t) s[r] = fma(s_a[a_t + 32 * r], __ldg(b_t + 32 * r), s[r]);
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
      const int       i = i0 + x + 32 * r;
      const long long p = (long long)i - shift; /* C's slot of row i */

      if (i < m && p >= 0 && p < len) c_val[cs + p] = s[r]; /* every row of the tile, zeros where no pair meets */
    }
  }
}

/* A's nea diagonals on the block's rows, and each warp's 32 records */
static size_t DiagStagedSharedBytes(int nea)
{
  return (size_t)PetscMax(nea, 1) * DIAG_STAGED_ROWS * sizeof(double) + (size_t)DIAG_STAGED_THREADS * sizeof(DiagStagedPair);
}

PetscErrorCode DiagDeviceProductStagedRows(DiagDeviceProduct p, int *T)
{
  int    optin; /* the device's largest shared memory per block */
  size_t limit;

  PetscFunctionBegin;
  *T = 0;
  PetscCall(GpuMatsCUDADeviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin));
  limit = PetscMin((size_t)DIAG_STAGED_SMEM, (size_t)optin);
  if (DiagStagedSharedBytes(p->nea) <= limit) *T = DIAG_STAGED_ROWS;
  PetscFunctionReturn(0);
}

/* The blocks a row tile has (grid.y), from the diagonals of C each warp takes: so many that the
   grid gives the device DIAG_STAGED_FILL warps an SM (four times the SM's 64), within
   [DIAG_STAGED_CPW_MIN, DIAG_STAGED_CPW]: on bands of a few hundred diagonals one block a row
   tile leaves the last wave of the grid mostly idle, and a few blocks a tile were faster.  With
   fewer diagonals a warp the block's staging of A is not repaid: the bands of 51 and 101
   diagonals were slower with about one a warp. */
static PetscErrorCode DiagStagedGridY(unsigned nrow_tiles, int ndiag_c, unsigned *grid_y)
{
  const int ny = DIAG_STAGED_THREADS / DIAG_STAGED_ROWS;
  int       nsm; /* the device's SMs */
  long long cpw;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDADeviceAttribute(cudaDevAttrMultiProcessorCount, &nsm));
  cpw     = PetscMax(PetscMin((long long)nrow_tiles * ndiag_c / ((long long)DIAG_STAGED_FILL * nsm), DIAG_STAGED_CPW), DIAG_STAGED_CPW_MIN);
  *grid_y = (unsigned)PetscMin(PetscMax((ndiag_c + ny * cpw - 1) / (ny * cpw), 1), DIAG_STAGED_GRID_Y);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductRecordsCreate(DiagDeviceProduct p)
{
  char  what[128];
  void *s;

  PetscFunctionBegin;
  if (p->rec_b || !p->npairs) PetscFunctionReturn(0);
  snprintf(what, sizeof(what), "DIAG product: rows and offsets of %lld pairs of diagonals", p->npairs);
  /* one block, made whole or not at all: a product that failed here finds none the next time */
  PetscCall(GpuMatsCUDAMalloc((void **)&p->rec_b, (size_t)p->npairs * (sizeof(long long) + 2 * sizeof(int)), what));
  p->rec_lo = (int *)(p->rec_b + p->npairs);
  p->rec_hi = p->rec_lo + p->npairs;
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagPairRecordsKernel<<<(unsigned)((p->npairs + 255) / 256), 256, 0, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->scheme == DIAG_SCHEME_HM, p->npairs, p->pair_a, p->pair_b, p->ea_d, p->eb_d, p->eb_base, p->rec_lo, p->rec_hi, p->rec_b);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericStaged(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  int    T;
  size_t bytes;
  void  *s;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "staged"));
  if (!p->ndiag_c || !p->nrows) PetscFunctionReturn(0);
  if (!p->npairs) { /* no pair meets: C is zero (every diagonal of C has a pair, so C has none: nothing to do) */
    PetscFunctionReturn(0);
  }
  PetscCall(DiagDeviceProductRecordsCreate(p));
  PetscCall(DiagDeviceProductStagedRows(p, &T));
  bytes = DiagStagedSharedBytes(p->nea);
  PetscCheck(T, PETSC_COMM_SELF, PETSC_ERR_SUP, "The staged DIAG product stages A's %d diagonals in shared memory: %zu bytes, more than this device's or %d; use DiagDeviceProductNumericPairs", p->nea, bytes, DIAG_STAGED_SMEM);
  PetscCall(GpuMatsCUDAGetStream(&s));
  {
    dim3 grid((unsigned)((p->nrows + T - 1) / T), 1);

    PetscCall(DiagStagedGridY(grid.x, p->ndiag_c, &grid.y));
    if (bytes > 48 * 1024) GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductStagedKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    DiagProductStagedKernel<<<grid, DIAG_STAGED_THREADS, bytes, (cudaStream_t)s>>>(p->nrows, p->inner, p->nea, p->ndiag_c, p->scheme == DIAG_SCHEME_HM, C->offset, C->start, p->pair_start, p->pair_a, p->rec_lo, p->rec_hi, p->rec_b, p->ea_d, p->ea_base, A->val, B->val, C->val);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}

/* A's nea diagonals on the tile of 32 R rows */
static size_t DiagShuffleSharedBytes(int nea, int R)
{
  return (size_t)PetscMax(nea, 1) * 32 * R * sizeof(double);
}

PetscErrorCode DiagDeviceProductShuffleRows(DiagDeviceProduct p, int *R)
{
  int optin; /* the device's largest shared memory per block */

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDADeviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin));
  /* one row a lane was slower than both the staged and the pairs kernels (200 x 200 diagonals) */
  *R = 4;
  while (*R >= 2 && DiagShuffleSharedBytes(p->nea, *R) > (size_t)optin) *R /= 2;
  if (*R < 2) *R = 0;
  PetscFunctionReturn(0);
}

template <int R>
static PetscErrorCode DiagLaunchShuffle(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C, cudaStream_t stream)
{
  const size_t bytes = DiagShuffleSharedBytes(p->nea, R);
  dim3         grid((unsigned)((p->nrows + 32 * R - 1) / (32 * R)), 1);

  PetscFunctionBegin;
  PetscCall(DiagStagedGridY(grid.x, p->ndiag_c, &grid.y));
  GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductShuffleKernel<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  DiagProductShuffleKernel<R><<<grid, DIAG_STAGED_THREADS, bytes, stream>>>(p->nrows, p->inner, p->nea, p->ndiag_c, p->scheme == DIAG_SCHEME_HM, C->offset, C->start, p->pair_start, p->pair_a, p->rec_lo, p->rec_hi, p->rec_b, p->ea_d, p->ea_base, A->val, B->val, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericShuffle(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  int   R;
  void *s;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "shuffle"));
  PetscCall(DiagDeviceProductShuffleRows(p, &R));
  PetscCheck(R, PETSC_COMM_SELF, PETSC_ERR_SUP, "The shuffle DIAG product stages A's %d diagonals on 64 rows in shared memory, more than this device's block holds; use DiagDeviceProductNumericStaged or DiagDeviceProductNumericPairs", p->nea);
  if (!p->ndiag_c || !p->nrows || !p->npairs) PetscFunctionReturn(0); /* no pairs: C has no diagonals */
  PetscCall(DiagDeviceProductRecordsCreate(p));
  PetscCall(GpuMatsCUDAGetStream(&s));
  if (R == 4) PetscCall(DiagLaunchShuffle<4>(p, A, B, C, (cudaStream_t)s));
  else PetscCall(DiagLaunchShuffle<2>(p, A, B, C, (cudaStream_t)s));
  PetscFunctionReturn(0);
}
