/* The symbolic phase of a DIAG product on the device: the host sets up the entry diagonals and
   the range of the sums (DiagProductPlanBegin, O(diagonals)) and makes C's diagonals from the
   counts (DiagProductPlanEnd, O(range of the sums)); the device counts the pairs meeting on each
   sum and writes each diagonal of C's list of pairs.  Nothing O(pairs) runs on the host, which on
   the DIAG paper's Table 2 (250,000-360,000 pairs) took most of the first product.

   A thread takes a sum dc (counting) or a diagonal of C (lists) and walks A's entry diagonals in
   ascending offset da through the window whose db = dc - da lies in B's range of offsets, B's
   entry diagonal of db found in a map over that range: on each diagonal of C the pairs come by
   ascending da, the order of the host's lists (DiagProductPlanPairs), so that both give the same
   sums in the same order. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
#include "../../src/diag/diag_product_plan.h"
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

__device__ static int DiagLowerBound(const int *v, int n, int x)
{
  int lo = 0, hi = n;

  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;

    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

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

/* a thread a sum: its pairs and their multiply-adds */
__global__ void DiagPlanCountKernel(DiagPlanDevice P, int nsum, int *count, unsigned long long *flops)
{
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  int       cnt = 0;
  long long fl = 0;

  if (s >= nsum) return;
  const int dc = P.sum_lo + s;
  for (int q = DiagLowerBound(P.a_off, P.nea, dc - (P.lo_b + P.nmap - 1)); q < P.nea && P.a_off[q] <= dc - P.lo_b; q++) {
    long long rows;

    if (DiagPairOn(P, q, dc, &rows) >= 0) cnt++, fl += 2 * rows;
  }
  count[s] = cnt;
  if (fl) atomicAdd(flops, (unsigned long long)fl);
}

/* a thread a diagonal of C: its pairs from pair_start[c], A's entry diagonals ascending and, for
   each, the lower of C's two sums first (a CDM diagonal holds the lower part k - n and the upper
   part k); *bad gets a diagonal whose pairs are not as many as counted */
__global__ void DiagPlanListKernel(DiagPlanDevice P, int ndiag_c, const int *c_sum, const int *pair_start, int *pair_a, int *pair_b, int *bad)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;

  if (c >= ndiag_c) return;
  const int s0 = c_sum[2 * c], s1 = c_sum[2 * c + 1];
  const int dlo = P.sum_lo + s0, dhi = P.sum_lo + (s1 >= 0 ? s1 : s0);
  int       pos = pair_start[c];

  for (int q = DiagLowerBound(P.a_off, P.nea, dlo - (P.lo_b + P.nmap - 1)); q < P.nea && P.a_off[q] <= dhi - P.lo_b; q++) {
    for (int t = 0; t < 2; t++) {
      const int s = t ? s1 : s0;
      long long rows;
      int       b;

      if (s < 0 || (b = DiagPairOn(P, q, P.sum_lo + s, &rows)) < 0) continue;
      if (pos < pair_start[c + 1]) pair_a[pos] = P.a_ent[q], pair_b[pos] = b;
      pos++;
    }
  }
  if (pos != pair_start[c + 1]) atomicMin(bad, c);
}

static inline unsigned DiagPlanBlocks(long long n)
{
  return (unsigned)((n + DIAG_PLAN_THREADS - 1) / DIAG_PLAN_THREADS);
}

/* The device scratch of the plan: A's entry diagonals in ascending offset (offsets, then
   indices) and B's offsets, in one allocation; B's map */
typedef struct {
  int *entries, *bmap;
} DiagPlanScratch;

static PetscErrorCode DiagPlanScratchDestroy(DiagPlanScratch *w)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAFree(w->entries));
  PetscCall(GpuMatsCUDAFree(w->bmap));
  w->entries = w->bmap = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode DiagPlanScratchCreate(const DiagProductPlan *p, DiagPlanDevice *P, DiagPlanScratch *w)
{
  int  *h = NULL, lo_b = 0, hi_b = -1;
  void *stream;
  char  what[128];

  PetscFunctionBegin;
  for (PetscInt b = 0; b < p->neb; b++) lo_b = b ? PetscMin(lo_b, (int)p->eb_d[b]) : (int)p->eb_d[b], hi_b = b ? PetscMax(hi_b, (int)p->eb_d[b]) : (int)p->eb_d[b];
  P->m = (int)p->nrows, P->k = (int)p->inner, P->n = (int)p->ncols, P->hm = p->scheme_c == DIAG_SCHEME_HM;
  P->nea = (int)p->nea, P->lo_b = lo_b, P->nmap = hi_b - lo_b + 1, P->sum_lo = (int)p->sum_lo;
  PetscCall(PetscMalloc1(2 * p->nea + p->neb + 1, &h));
  for (PetscInt q = 0; q < p->nea; q++) h[q] = (int)p->ea_d[p->a_order[q]], h[p->nea + q] = p->a_order[q];
  for (PetscInt b = 0; b < p->neb; b++) h[2 * p->nea + b] = (int)p->eb_d[b];
  snprintf(what, sizeof(what), "DIAG product plan on the device: %d x %d entry diagonals, B's map of %d offsets", (int)p->nea, (int)p->neb, P->nmap);
  {
    PetscErrorCode ierr = GpuMatsCUDAMalloc((void **)&w->entries, sizeof(int) * (size_t)(2 * p->nea + p->neb + 1), what);

    if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&w->bmap, sizeof(int) * (size_t)PetscMax(P->nmap, 1), what);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(w->entries, h, sizeof(int) * (size_t)(2 * p->nea + p->neb));
    if (!ierr) ierr = GpuMatsCUDAMemset(w->bmap, 0xff, sizeof(int) * (size_t)PetscMax(P->nmap, 1)); /* -1 */
    PetscCall(PetscFree(h));
    PetscCall(ierr);
  }
  P->a_off = w->entries, P->a_ent = w->entries + p->nea, P->bmap = w->bmap;
  if (p->neb) {
    PetscCall(GpuMatsCUDAGetStream(&stream));
    DiagPlanMapKernel<<<DiagPlanBlocks(p->neb), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>((int)p->neb, w->entries + 2 * p->nea, lo_b, w->bmap);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}

/* Counts into p->sum_slot and p->flops on the device (p from DiagProductPlanBegin) */
static PetscErrorCode DiagPlanCount(DiagProductPlan *p, const DiagPlanDevice *P)
{
  int                *count = NULL, *hcount = NULL;
  unsigned long long *flops = NULL, hflops = 0;
  void               *stream;
  char                what[128];
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  if (!p->nsum) PetscFunctionReturn(0);
  snprintf(what, sizeof(what), "DIAG product plan on the device: counts of %lld sums", (long long)p->nsum);
  PetscCall(GpuMatsCUDAMalloc((void **)&count, sizeof(int) * (size_t)(p->nsum + 1) + sizeof(unsigned long long), what));
  flops = (unsigned long long *)(count + p->nsum + (p->nsum & 1)); /* 8-byte aligned after the counts */
  ierr  = PetscMalloc1(p->nsum, &hcount);
  if (!ierr) ierr = GpuMatsCUDAMemset(flops, 0, sizeof(unsigned long long));
  if (!ierr) ierr = GpuMatsCUDAGetStream(&stream);
  if (!ierr) {
    DiagPlanCountKernel<<<DiagPlanBlocks(p->nsum), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>(*P, (int)p->nsum, count, flops);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "DiagPlanCountKernel", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(hcount, count, sizeof(int) * (size_t)p->nsum);
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hflops, flops, sizeof(hflops));
  if (!ierr) {
    for (PetscInt64 s = 0; s < p->nsum; s++) p->sum_slot[s] = hcount[s];
    p->flops = (PetscInt64)hflops;
  }
  PetscCall(PetscFree(hcount));
  PetscCall(GpuMatsCUDAFree(count));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* The lists into the device product's pair_a and pair_b (pair_start already there) */
static PetscErrorCode DiagPlanLists(const DiagProductPlan *p, const DiagPlanDevice *P, DiagDeviceProduct prod)
{
  int           *dc_sum = NULL, *hc_sum = NULL, *bad, hbad = INT32_MAX;
  void          *stream;
  char           what[128];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!p->ndiag_c) PetscFunctionReturn(0);
  snprintf(what, sizeof(what), "DIAG product plan on the device: the sums of %d diagonals of C", (int)p->ndiag_c);
  PetscCall(GpuMatsCUDAMalloc((void **)&dc_sum, sizeof(int) * (2 * (size_t)p->ndiag_c + 1), what));
  bad  = dc_sum + 2 * p->ndiag_c;
  ierr = PetscMalloc1(2 * p->ndiag_c + 1, &hc_sum);
  if (!ierr) {
    for (PetscInt c = 0; c < 2 * p->ndiag_c; c++) hc_sum[c] = (int)p->c_sum[c];
    hc_sum[2 * p->ndiag_c] = INT32_MAX;
    ierr = GpuMatsCUDACopyToDevice(dc_sum, hc_sum, sizeof(int) * (2 * (size_t)p->ndiag_c + 1));
  }
  if (!ierr) ierr = GpuMatsCUDAGetStream(&stream);
  if (!ierr) {
    DiagPlanListKernel<<<DiagPlanBlocks(p->ndiag_c), DIAG_PLAN_THREADS, 0, (cudaStream_t)stream>>>(*P, (int)p->ndiag_c, dc_sum, prod->pair_start, prod->pair_a, prod->pair_b, bad);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "DiagPlanListKernel", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hbad, bad, sizeof(int));
  PetscCall(PetscFree(hc_sum));
  PetscCall(GpuMatsCUDAFree(dc_sum));
  PetscCall(ierr);
  PetscCheck(hbad == INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIAG product plan on the device: diagonal %d of C has other pairs than were counted", hbad);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductPlan(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *plan, DiagFormat *C, DiagDeviceProduct *prod)
{
  DiagPlanDevice  P;
  DiagPlanScratch w   = {NULL, NULL};
  PetscErrorCode  ierr = 0;
  DiagStatus      st;

  PetscFunctionBegin;
  *prod = NULL;
  PetscCheck(DiagFitsDeviceIndices(A->nrows, A->ncols) && DiagFitsDeviceIndices(B->nrows, B->ncols), PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product of A (%" PetscInt_FMT " x %" PetscInt_FMT ") and B (%" PetscInt_FMT " x %" PetscInt_FMT ") on the device: rows + columns of each must be at most %lld for the int32 device indices; use more MPI processes", A->nrows, A->ncols, B->nrows, B->ncols, (long long)DIAG_MAX_DEVICE_ROWS_PLUS_COLS);
  st = DiagProductPlanBegin(A, B, plan, C);
  PetscCheck(st == DIAG_OK, PETSC_COMM_SELF, st == DIAG_ERR_MEMORY ? PETSC_ERR_MEM : PETSC_ERR_SUP, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: its plan could not be set up (%s)", A->ndiag, B->ndiag, st == DIAG_ERR_MEMORY ? "out of host memory" : "sizes too large");
  ierr = DiagPlanScratchCreate(plan, &P, &w);
  if (!ierr) ierr = DiagPlanCount(plan, &P);
  if (!ierr) {
    st = DiagProductPlanEnd(plan, C);
    if (st != DIAG_OK) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, st == DIAG_ERR_MEMORY ? PETSC_ERR_MEM : PETSC_ERR_SUP, PETSC_ERROR_INITIAL, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: %" PetscInt64_FMT " pairs of diagonals; %s", A->ndiag, B->ndiag, plan->npairs, st == DIAG_ERR_MEMORY ? "out of host memory" : "more than the 2^31-1 the lists hold: use more MPI processes");
  }
  if (!ierr) ierr = DiagDeviceProductCreate(plan, A, B, C, prod);
  if (!ierr) ierr = DiagPlanLists(plan, &P, *prod);
  PetscCall(DiagPlanScratchDestroy(&w));
  if (ierr) {
    (void)DiagDeviceProductDestroy(prod);
    DiagProductPlanFree(plan);
    DiagFormatFree(C);
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}
