/* The symbolic phase of a DIAG product on the device: the host sets up the entry diagonals and
   the range of the sums (DiagProductPlanBegin, O(diagonals)) and makes C's diagonals from the
   counts (DiagProductPlanEnd, O(range of the sums)); the device counts the pairs meeting on each
   sum and writes each diagonal of C's list of pairs.  Nothing O(pairs) runs on the host, which on
   the DIAG paper's Table 2 (250,000-360,000 pairs) took most of the first product.

   A warp takes a sum dc (counting) or a diagonal of C (lists) and walks A's entry diagonals in
   ascending offset da through the window whose db = dc - da lies in B's range of offsets, B's
   entry diagonal of db found in a map over that range: on each diagonal of C the pairs come by
   ascending da, the order of the host's lists (DiagProductPlanPairs), so that both give the same
   sums in the same order. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_PLAN_THREADS 128

typedef struct {
  int        m, k, n, hm;
  int        nea;
  const int *a_off, *a_ent; /* A's entry diagonals in ascending offset: offset, index */
  int        lo_b, nmap;    /* B's offsets lie in lo_b .. lo_b + nmap - 1 */
  const int *bmap;          /* nmap: B's entry diagonal of offset lo_b + i, or -1 */
  int        sum_lo;
} DiagPlanDevice;

/* B's entry diagonal meeting A's q-th (ascending) on the sum dc with at least one row, or -1;
   *rows: how many */
__device__ static int DiagPairOn(const DiagPlanDevice &P, int q, int dc, long long *rows)
{
  const int da = P.a_off[q], i = dc - da - P.lo_b;
  PetscInt  i0, i1, cs;
  int       b;

  if (i < 0 || i >= P.nmap || (b = P.bmap[i]) < 0) return -1;
  DiagPairSegment(P.m, P.k, P.n, P.hm, da, dc - da, &i0, &i1, &cs);
  *rows = (long long)(i1 - i0);
  return i1 > i0 ? b : -1;
}

__global__ void DiagPlanMapKernel(int neb, const int *eb_d, int lo_b, int *bmap)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;

  if (b < neb) bmap[eb_d[b] - lo_b] = b;
}

/* A's entry diagonals (ascending) whose db = dc - da lies in B's range of offsets: [*q0, *q1) */
__device__ static void DiagPlanWindow(const DiagPlanDevice &P, int dlo, int dhi, int *q0, int *q1)
{
  *q0 = DiagLowerBound(P.a_off, P.nea, (long long)dlo - (P.lo_b + P.nmap - 1));
  *q1 = DiagLowerBound(P.a_off, P.nea, (long long)dhi - P.lo_b + 1);
}

/* a warp a sum: its pairs and their multiply-adds, the lanes over A's entry diagonals */
__global__ void DiagPlanCountKernel(DiagPlanDevice P, int nsum, int *count, unsigned long long *flops)
{
  const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;
  int             cnt = 0, q0, q1;
  long long       fl = 0;

  if (w >= nsum) return; /* the whole warp */
  const int dc = P.sum_lo + (int)w;
  DiagPlanWindow(P, dc, dc, &q0, &q1);
  for (int q = q0 + lane; q < q1; q += 32) {
    long long rows;

    if (DiagPairOn(P, q, dc, &rows) >= 0) cnt++, fl += 2 * rows;
  }
  for (int o = 16; o; o /= 2) cnt += __shfl_down_sync(0xffffffffu, cnt, o), fl += __shfl_down_sync(0xffffffffu, fl, o);
  if (!lane) {
    count[w] = cnt;
    if (fl) atomicAdd(flops, (unsigned long long)fl);
  }
}

/* a warp a diagonal of C: its pairs from pair_start[c], A's entry diagonals ascending (32 at a
   time, each lane's place from the ballots of the lanes before it) and, for each, the lower of
   C's two sums first (a CDM diagonal holds the lower part k - n and the upper part k); *bad gets
   a diagonal whose pairs are not as many as counted */
__global__ void DiagPlanListKernel(DiagPlanDevice P, int ndiag_c, const int *c_sum, const int *pair_start, int *pair_a, int *pair_b, int *bad)
{
  const long long    w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int          lane = threadIdx.x % 32;
  const unsigned int below = (1u << lane) - 1;
  int                q0, q1;

  if (w >= ndiag_c) return; /* the whole warp */
  const int s0 = c_sum[2 * w], s1 = c_sum[2 * w + 1], end = pair_start[w + 1];
  int       pos = pair_start[w];

  DiagPlanWindow(P, P.sum_lo + s0, P.sum_lo + (s1 >= 0 ? s1 : s0), &q0, &q1);
  for (int base = q0; base < q1; base += 32) {
    const int    q = base + lane;
    long long    rows;
    int          b0 = -1, b1 = -1, at;
    unsigned int m0, m1;

    if (q < q1) {
      b0 = DiagPairOn(P, q, P.sum_lo + s0, &rows);
      if (s1 >= 0) b1 = DiagPairOn(P, q, P.sum_lo + s1, &rows);
    }
    m0 = __ballot_sync(0xffffffffu, b0 >= 0);
    m1 = __ballot_sync(0xffffffffu, b1 >= 0);
    at = pos + __popc(m0 & below) + __popc(m1 & below);
    if (b0 >= 0 && at < end) pair_a[at] = P.a_ent[q], pair_b[at] = b0;
    at += b0 >= 0;
    if (b1 >= 0 && at < end) pair_a[at] = P.a_ent[q], pair_b[at] = b1;
    pos += __popc(m0) + __popc(m1);
  }
  if (!lane && pos != end) atomicMin(bad, (int)w);
}

static inline unsigned DiagPlanBlocks(long long n, int per_thread)
{
  return (unsigned)((n * per_thread + DIAG_PLAN_THREADS - 1) / DIAG_PLAN_THREADS);
}

/* The device scratch of the plan, one allocation (sums: nsum; entries: nea + nea + neb):
   flops (8 B) | bad | - | the counts of the sums | A's entry diagonals in ascending offset
   (offsets, indices) and B's offsets | C's sums (2 a diagonal, at most 2 nsum) | B's map */
typedef struct {
  int                *block;
  unsigned long long *flops;
  int                *bad, *count, *entries, *c_sum, *bmap;
} DiagPlanScratch;

static PetscErrorCode DiagPlanScratchCreate(const DiagProductPlan *p, DiagPlanDevice *P, DiagPlanScratch *w)
{
  const size_t nent = 2 * (size_t)p->nea + (size_t)p->neb;
  int          lo_b = 0, hi_b = -1, *h = NULL, head[4] = {0, 0, INT32_MAX, 0};
  size_t       nint;
  void        *stream;
  char         what[160];

  PetscFunctionBegin;
  if (p->neb) lo_b = (int)p->eb_d[p->b_order[0]], hi_b = (int)p->eb_d[p->b_order[p->neb - 1]]; /* b_order ascends */
  P->m = (int)p->nrows, P->k = (int)p->inner, P->n = (int)p->ncols, P->hm = p->scheme_c == DIAG_SCHEME_HM;
  P->nea = (int)p->nea, P->lo_b = lo_b, P->nmap = hi_b - lo_b + 1, P->sum_lo = (int)p->sum_lo;
  nint = 4 + (size_t)p->nsum + nent + 2 * (size_t)p->nsum + (size_t)PetscMax(P->nmap, 1);
  snprintf(what, sizeof(what), "DIAG product plan on the device: %d x %d entry diagonals, %lld sums, B's map of %d offsets", (int)p->nea, (int)p->neb, (long long)p->nsum, P->nmap);
  PetscCall(GpuMatsCUDAMalloc((void **)&w->block, sizeof(int) * nint, what));
  w->flops = (unsigned long long *)w->block, w->bad = w->block + 2, w->count = w->block + 4;
  w->entries = w->count + p->nsum, w->c_sum = w->entries + nent, w->bmap = w->c_sum + 2 * p->nsum;
  P->a_off = w->entries, P->a_ent = w->entries + p->nea, P->bmap = w->bmap;
  PetscCall(PetscMalloc1(nent + 1, &h));
  for (PetscInt q = 0; q < p->nea; q++) h[q] = (int)p->ea_d[p->a_order[q]], h[p->nea + q] = p->a_order[q];
  for (PetscInt b = 0; b < p->neb; b++) h[2 * p->nea + b] = (int)p->eb_d[b];
  {
    PetscErrorCode ierr = GpuMatsCUDACopyToDevice(w->block, head, sizeof(head));

    if (!ierr) ierr = GpuMatsCUDACopyToDevice(w->entries, h, sizeof(int) * nent);
    if (!ierr) ierr = GpuMatsCUDAMemset(w->bmap, 0xff, sizeof(int) * (size_t)PetscMax(P->nmap, 1)); /* -1 */
    PetscCall(PetscFree(h));
    PetscCall(ierr);
  }
  if (p->neb) {
    PetscCall(GpuMatsCUDAGetStream(&stream));
    DiagPlanMapKernel<<<DiagPlanBlocks(p->neb, 1), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>((int)p->neb, w->entries + 2 * p->nea, lo_b, w->bmap);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}

/* Counts into p->sum_slot and p->flops on the device (p from DiagProductPlanBegin) */
static PetscErrorCode DiagPlanCount(DiagProductPlan *p, const DiagPlanDevice *P, DiagPlanScratch *w)
{
  int  *h = NULL;
  void *stream;

  PetscFunctionBegin;
  if (!p->nsum) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  DiagPlanCountKernel<<<DiagPlanBlocks(p->nsum, 32), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>(*P, (int)p->nsum, w->count, w->flops);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscCall(PetscMalloc1(4 + p->nsum, &h));
  { /* flops and the counts in one copy */
    PetscErrorCode ierr = GpuMatsCUDACopyToHost(h, w->block, sizeof(int) * (size_t)(4 + p->nsum));

    if (!ierr) {
      unsigned long long flops;

      memcpy(&flops, h, sizeof(flops));
      p->flops = (PetscInt64)flops;
      for (PetscInt64 s = 0; s < p->nsum; s++) p->sum_slot[s] = h[4 + s];
    }
    PetscCall(PetscFree(h));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

/* The lists into the device product's pair_a and pair_b (pair_start already there) */
static PetscErrorCode DiagPlanLists(const DiagProductPlan *p, const DiagPlanDevice *P, DiagPlanScratch *w, DiagDeviceProduct prod)
{
  int           *h = NULL, bad = INT32_MAX;
  void          *stream;
  PetscLogDouble t[4];

  PetscFunctionBegin;
  if (!p->ndiag_c) PetscFunctionReturn(0);
  (void)PetscTime(&t[0]);
  PetscCall(PetscMalloc1(2 * p->ndiag_c, &h));
  for (PetscInt c = 0; c < 2 * p->ndiag_c; c++) h[c] = (int)p->c_sum[c];
  {
    PetscErrorCode ierr = GpuMatsCUDACopyToDevice(w->c_sum, h, sizeof(int) * 2 * (size_t)p->ndiag_c);

    PetscCall(PetscFree(h));
    PetscCall(ierr);
  }
  PetscCall(GpuMatsCUDAGetStream(&stream));
  (void)PetscTime(&t[1]);
  DiagPlanListKernel<<<DiagPlanBlocks(p->ndiag_c, 32), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>(*P, (int)p->ndiag_c, w->c_sum, prod->pair_start, prod->pair_a, prod->pair_b, w->bad);
  GpuMatsCallCUDA(cudaGetLastError());
  GpuMatsCallCUDA(cudaStreamSynchronize((cudaStream_t)stream));
  (void)PetscTime(&t[2]);
  PetscCall(GpuMatsCUDACopyToHost(&bad, w->bad, sizeof(int)));
  (void)PetscTime(&t[3]);
  PetscCall(PetscInfo(NULL, "DIAG product plan on the device: C's sums uploaded in %.3g ms, the lists kernel of %" PetscInt_FMT " diagonals took %.3g ms, the check after it %.3g ms\n", (t[1] - t[0]) * 1e3, p->ndiag_c, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3));
  PetscCheck(bad == INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIAG product plan on the device: diagonal %d of C has other pairs than were counted", bad);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductPlan(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *plan, DiagFormat *C, DiagDeviceProduct *prod)
{
  DiagPlanDevice  P;
  DiagPlanScratch w    = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  PetscErrorCode  ierr = 0;
  DiagStatus      st;
  PetscLogDouble  t[5];

  PetscFunctionBegin;
  *prod = NULL;
  PetscCheck(DiagFitsDeviceIndices(A->nrows, A->ncols) && DiagFitsDeviceIndices(B->nrows, B->ncols), PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product of A (%" PetscInt_FMT " x %" PetscInt_FMT ") and B (%" PetscInt_FMT " x %" PetscInt_FMT ") on the device: rows + columns of each must be at most %lld for the int32 device indices; use more MPI processes", A->nrows, A->ncols, B->nrows, B->ncols, (long long)DIAG_MAX_DEVICE_ROWS_PLUS_COLS);
  st = DiagProductPlanBegin(A, B, plan, C);
  PetscCheck(st == DIAG_OK, PETSC_COMM_SELF, st == DIAG_ERR_MEMORY ? PETSC_ERR_MEM : PETSC_ERR_SUP, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: its plan could not be set up (%s)", A->ndiag, B->ndiag, st == DIAG_ERR_MEMORY ? "out of host memory" : "sizes too large");
  (void)PetscTime(&t[0]);
  ierr = DiagPlanScratchCreate(plan, &P, &w);
  if (!ierr) ierr = DiagPlanCount(plan, &P, &w);
  (void)PetscTime(&t[1]);
  if (!ierr) {
    st = DiagProductPlanEnd(plan, C);
    if (st != DIAG_OK) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, st == DIAG_ERR_MEMORY ? PETSC_ERR_MEM : PETSC_ERR_SUP, PETSC_ERROR_INITIAL, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: %" PetscInt64_FMT " pairs of diagonals; %s", A->ndiag, B->ndiag, plan->npairs, st == DIAG_ERR_MEMORY ? "out of host memory" : "more than the 2^31-1 the lists hold: use more MPI processes");
  }
  (void)PetscTime(&t[2]);
  if (!ierr) ierr = DiagDeviceProductCreate(plan, A, B, C, prod);
  (void)PetscTime(&t[3]);
  if (!ierr) ierr = DiagPlanLists(plan, &P, &w, *prod);
  if (!ierr) (*prod)->plan_scratch = w.block; /* freed with the product */
  else PetscCall(GpuMatsCUDAFree(w.block));
  (void)PetscTime(&t[4]);
  if (!ierr) PetscCall(PetscInfo(NULL, "DIAG product plan on the device: %lld sums counted in %.3g ms, C's %" PetscInt_FMT " diagonals from the counts in %.3g ms, the device product set up in %.3g ms, the lists of %" PetscInt64_FMT " pairs in %.3g ms\n", (long long)plan->nsum, (t[1] - t[0]) * 1e3, C->ndiag, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3, plan->npairs, (t[4] - t[3]) * 1e3));
  if (ierr) {
    (void)DiagDeviceProductDestroy(prod);
    DiagProductPlanFree(plan);
    DiagFormatFree(C);
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}
