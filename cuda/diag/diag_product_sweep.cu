/* DIAG product C = A B on the device for banded operands, any schemes: the sweep kernel.

   In a band every offset between the lowest and the highest is (nearly) there, so the pairs
   need no lists: C's diagonal dc at row i is the sum over A's offsets da of
     a(i, i + da) b(i + da, i + dc),  db = dc - da in B's band.
   The kernels with lists read a value of A and one of B for each multiply-add (from L2, or A from
   shared memory), and on the bands of 51-101 diagonals at n = 10^4 they wait on their lists'
   loads more than they compute.  Here a thread block takes 32 consecutive rows (a lane a row) and
   stages A's band on them and B's band on the rows they reach (32 + span of A - 1), with zeros
   where an operand has no value (a missing offset, a row off the matrix), once.  Each warp then
   holds CC consecutive diagonals of C in registers and sweeps A's offsets that meet them: one
   read of A's value serves CC multiply-adds, each with one read of B, all from shared memory
   (about 8 bytes a multiply-add there, none from L2), and no index arithmetic but the address.
   The zeros make each row a fixed-length sum: a term where an operand has no value is an exact
   0 that leaves the sum as it was (unless the other value is infinite or NaN: then C gets NaN in
   that row where AIJ's product would skip the term).  The terms come by ascending da, the order
   of the plan's pairs: C is the pairs kernel's bit for bit.  Every slot of C is written once (a
   CDM diagonal of C holds one sum here: the sums span less than n), no atomics. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <limits.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_SWEEP_ROWS    32 /* rows a block, a lane a row */
#define DIAG_SWEEP_CC      16 /* diagonals of C a warp holds in registers */
#define DIAG_SWEEP_WARPS   32 /* most warps a block; more diagonals of C take more blocks a tile */
#define DIAG_SWEEP_NONE    LLONG_MIN /* no diagonal at this offset */
#define DIAG_SWEEP_GRID_Y  65535

/* B's staged row pitch: odd, so that the 32 lanes' rows fall in different banks */
__host__ __device__ static inline int DiagSweepPitch(int sb)
{
  return sb | 1;
}

static size_t DiagSweepBytes(int sa, int sb)
{
  return sizeof(double) * ((size_t)DIAG_SWEEP_ROWS * sa + (size_t)(DIAG_SWEEP_ROWS - 1 + sa) * DiagSweepPitch(sb)) + sizeof(long long) * ((size_t)sa + sb);
}

/* base[0, sa): A's value index of row i at offset a_lo + x (base + i), base[sa, sa + sb): B's at
   b_lo + y, base[sa + sb, sa + sb + sc): C's at a_lo + b_lo + s; DIAG_SWEEP_NONE where none */
__global__ void __launch_bounds__(DIAG_SWEEP_WARPS * 32) DiagProductSweepKernel(int m, int inner, int ncols, int c_hm, int a_lo, int sa, int b_lo, int sb, int sc, const long long *__restrict__ base, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  extern __shared__ double smem[];
  const int  pitch = DiagSweepPitch(sb), nb = DIAG_SWEEP_ROWS - 1 + sa;
  double    *s_a   = smem;                                    /* [x][lane]: a(i0 + lane, i0 + lane + a_lo + x) */
  double    *s_b   = s_a + DIAG_SWEEP_ROWS * sa;              /* [r][y]: b(k, k + b_lo + y), k = i0 + a_lo + r */
  long long *s_ab  = (long long *)(s_b + (size_t)nb * pitch); /* A's and B's bases */
  const int  i0 = blockIdx.x * DIAG_SWEEP_ROWS, lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;

  for (int t = threadIdx.x; t < sa + sb; t += blockDim.x) s_ab[t] = base[t];
  __syncthreads();
  /* a warp a diagonal, a lane a row; copies straight to shared memory, zeros by the copy's fill,
     all of them in flight at once (loaded through registers, a warp waited on each of its ~40
     loads in turn: staging then took most of the kernel's time) */
  for (int x = warp; x < sa; x += nwarps) {
    const int       i = i0 + lane, da = a_lo + x;
    const long long ab = s_ab[x];
    const bool      ok = ab != DIAG_SWEEP_NONE && i < m && i >= -da && i < inner - da;

    __pipeline_memcpy_async(s_a + x * DIAG_SWEEP_ROWS + lane, ok ? a_val + ab + i : a_val, sizeof(double), ok ? 0 : sizeof(double));
  }
  for (int y = warp; y < sb; y += nwarps) {
    const int       db = b_lo + y;
    const long long bb = s_ab[sa + y];

    for (int r = lane; r < nb; r += 32) {
      const int  k  = i0 + a_lo + r;
      const bool ok = bb != DIAG_SWEEP_NONE && k >= 0 && k < inner && k >= -db && k < ncols - db;

      __pipeline_memcpy_async(s_b + r * pitch + y, ok ? b_val + bb + k : b_val, sizeof(double), ok ? 0 : sizeof(double));
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  for (int w = blockIdx.y * nwarps + warp; w * DIAG_SWEEP_CC < sc; w += gridDim.y * nwarps) {
    const int s0 = w * DIAG_SWEEP_CC;                     /* the warp's first sum, less a_lo + b_lo */
    const int x0 = max(0, s0 - (sb - 1)), x1 = min(sa - 1, s0 + DIAG_SWEEP_CC - 1); /* A's offsets meeting them */
    const int i  = i0 + lane;
    double    sum[DIAG_SWEEP_CC];

#pragma unroll
    for (int c = 0; c < DIAG_SWEEP_CC; c++) sum[c] = 0.0;
    for (int x = x0; x <= x1; x++) {
      const double  av = s_a[x * DIAG_SWEEP_ROWS + lane];
      const double *bv = s_b + (lane + x) * pitch + s0 - x; /* b(i + da, i + dc) for dc = a_lo + b_lo + s0 + c */

#pragma unroll
      for (int c = 0; c < DIAG_SWEEP_CC; c++)
        if ((unsigned)(s0 + c - x) < (unsigned)sb) sum[c] = fma(av, bv[c], sum[c]); /* uniform: da and dc are the warp's */
    }
#pragma unroll
    for (int c = 0; c < DIAG_SWEEP_CC; c++) {
      const int       dc = a_lo + b_lo + s0 + c;
      const long long cb = s0 + c < sc ? base[sa + sb + s0 + c] : DIAG_SWEEP_NONE;

      if (cb != DIAG_SWEEP_NONE && i < m && (!c_hm || (i >= -dc && i < ncols - dc))) c_val[cb + i] = sum[c];
    }
  }
}

/* Where the kernel applies: A's and B's entry diagonals each fill at least half of the span of
   their offsets, the two bands fit the shared memory of a block, and a CDM C holds one sum a
   diagonal; then the bases, one allocation and one copy */
PetscErrorCode DiagDeviceProductSweepCreate(DiagDeviceProduct p, const DiagProductPlan *plan, const DiagFormat *C)
{
  PetscInt   a_lo, a_hi, b_lo, b_hi;
  long long *h;
  int        optin;
  size_t     n;
  char       what[128];

  PetscFunctionBegin;
  if (!C->ndiag || !DiagPlanBanded(plan)) PetscFunctionReturn(0);
  DiagPlanSpans(plan, &a_lo, &a_hi, &b_lo, &b_hi);
  if (a_hi - a_lo + 1 > 1024 || b_hi - b_lo + 1 > 1024) PetscFunctionReturn(0); /* far beyond any that fits (and no overflow below) */
  PetscCall(GpuMatsCUDADeviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin));
  if (DiagSweepBytes((int)(a_hi - a_lo + 1), (int)(b_hi - b_lo + 1)) > (size_t)optin) PetscFunctionReturn(0);
  if (C->scheme == DIAG_SCHEME_CDM && (a_hi + b_hi) - (a_lo + b_lo) + 1 > C->ncols) PetscFunctionReturn(0);
  p->sweep_a_lo = (int)a_lo, p->sweep_sa = (int)(a_hi - a_lo + 1);
  p->sweep_b_lo = (int)b_lo, p->sweep_sb = (int)(b_hi - b_lo + 1);
  p->sweep_sc   = p->sweep_sa + p->sweep_sb - 1;
  n             = (size_t)p->sweep_sa + p->sweep_sb + p->sweep_sc;
  PetscCall(PetscMalloc1(n, &h));
  for (size_t t = 0; t < n; t++) h[t] = DIAG_SWEEP_NONE;
  for (PetscInt e = 0; e < plan->nea; e++) h[plan->ea_d[e] - a_lo] = plan->ea_base[e];
  for (PetscInt e = 0; e < plan->neb; e++) h[p->sweep_sa + plan->eb_d[e] - b_lo] = plan->eb_base[e];
  for (PetscInt c = 0; c < C->ndiag; c++) { /* C's diagonals by their sums: one each, the sums spanning less than n */
    const PetscInt dc = plan->sum_lo + (PetscInt)plan->c_sum[2 * c];

    PetscCheck(plan->c_sum[2 * c] >= 0 && plan->c_sum[2 * c + 1] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIAG sweep product: C's diagonal %" PetscInt_FMT " holds no sum or two", C->offset[c]);
    h[p->sweep_sa + p->sweep_sb + dc - (a_lo + b_lo)] = C->start[c] - (C->scheme == DIAG_SCHEME_HM && dc < 0 ? -dc : 0);
  }
  snprintf(what, sizeof(what), "DIAG sweep product: the bases of %d + %d + %d offsets", p->sweep_sa, p->sweep_sb, p->sweep_sc);
  {
    PetscErrorCode ierr = GpuMatsCUDAMalloc((void **)&p->sweep_base, n * sizeof(long long), what);

    if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->sweep_base, h, n * sizeof(long long));
    PetscCall(PetscFree(h));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductSweepApplies(DiagDeviceProduct p, PetscBool *applies)
{
  PetscFunctionBegin;
  *applies = (PetscBool)(p->sweep_base != NULL);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericSweep(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  const int    nw    = (p->sweep_sc + DIAG_SWEEP_CC - 1) / DIAG_SWEEP_CC, warps = PetscMin(nw, DIAG_SWEEP_WARPS);
  const size_t bytes = DiagSweepBytes(p->sweep_sa, p->sweep_sb);
  void        *s;
  dim3         grid;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "sweep"));
  PetscCheck(p->sweep_base, PETSC_COMM_SELF, PETSC_ERR_SUP, "The DIAG sweep product is for banded operands (each with entry diagonals on at least half of its offsets' span) whose bands fit a block's shared memory; use DiagDeviceProductNumeric");
  if (!p->nrows) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  grid = dim3((unsigned)((p->nrows + DIAG_SWEEP_ROWS - 1) / DIAG_SWEEP_ROWS), (unsigned)PetscMin((nw + warps - 1) / warps, DIAG_SWEEP_GRID_Y));
  if (bytes > 48 * 1024) GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductSweepKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  DiagProductSweepKernel<<<grid, 32 * warps, bytes, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->scheme == DIAG_SCHEME_HM, p->sweep_a_lo, p->sweep_sa, p->sweep_b_lo, p->sweep_sb, p->sweep_sc, p->sweep_base, A->val, B->val, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
