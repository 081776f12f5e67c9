/* DIAG product C = A B on the device: the product object (the plan's pairs on the device,
   the banded kernel's pairs of stored diagonals when A is a banded CDM matrix), the choice of
   kernel, and the paper's Algorithm 2 (atomic, HM), the reference for HM.

   Our kernels: diag_product_pairs.cu (any schemes: a thread block per (diagonal of C, tile of
   rows) summing the pairs of entry diagonals that meet there, from registers, writing C once),
   diag_product_staged.cu (the same with A staged in shared memory: the staged kernel where many
   pairs meet on each diagonal of C, the shuffle kernel where a few do), diag_product_blocks.cu
   (A and B staged, for banded operands the staged kernel does not take),
   diag_product_banded.cu (A banded, all CDM, n from 32k: rows of A and B staged in shared
   memory) and diag_product_sweep.cu (both operands bands that fit a block's shared memory: no
   pair lists, 16 diagonals of C a warp in registers).
   The paper's Algorithm 1 (CDM) is in diag_product_tiled.cu. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_PRODUCT_THREADS 256

/* struct _n_DiagDeviceProduct is in diag_cudaimpl.h (the tiled product, diag_product_tiled.cu, reads it too) */

/* what the kernel reads of a DiagDevice, passed by value */
struct DiagArrays {
  const int       *offset;
  const long long *start;
  double          *val;
};

static DiagArrays DiagArraysOf(DiagDevice d)
{
  DiagArrays a;

  a.offset = d->offset;
  a.start  = d->start;
  a.val    = d->val;
  return a;
}

/* copies of host arrays to the device (int or long long), allocation errors naming 'what' */
/* The banded kernel's pairs of stored diagonals when A is a banded CDM matrix (each compact
   diagonal one super- or subdiagonal) and A, B, C are CDM: a_signed, band_p, band_q and the
   lists, each (s, t) with (k_s + k_t) mod n a diagonal of C once.  A has few diagonals here:
   the pairs found by bisection of C's offsets. */
static PetscErrorCode DiagBandedPairs(DiagDeviceProduct p, const DiagFormat *A, const DiagFormat *B, const DiagFormat *C)
{
  int      *sd, *ps = NULL, *pa = NULL, *pb = NULL, npairs = 0;
  PetscBool banded = PETSC_TRUE;
  char      what[128];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(A->ndiag, 1), &sd));
  for (PetscInt s = 0; s < A->ndiag && banded; s++) {
    const PetscInt k = A->offset[s];

    if (k == 0 || A->part[s] == DIAG_PART_UPPER) sd[s] = (int)k;
    else if (A->part[s] == DIAG_PART_LOWER) sd[s] = (int)(k - A->ncols);
    else banded = PETSC_FALSE; /* both parts: a periodic band, or scattered offsets */
    if (banded) p->band_p = PetscMax(p->band_p, -sd[s]), p->band_q = PetscMax(p->band_q, sd[s]);
  }
  if (banded && p->band_p + p->band_q < A->ncols) { /* and a tile of rows fits: else no lists to make */
    int T;

    PetscCall(DiagDeviceProductBandedTile(p, &T));
    banded = (PetscBool)(T > 0);
  }
  if (!banded || p->band_p + p->band_q >= A->ncols) {
    PetscCall(PetscFree(sd));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc1(C->ndiag + 1, &ps));
  for (int pass = 0; pass < 2; pass++) { /* count, then list */
    int *fill = NULL;

    if (pass) {
      for (PetscInt c = 0; c < C->ndiag; c++) ps[c + 1] += ps[c];
      PetscCall(PetscMalloc2(PetscMax(npairs, 1), &pa, PetscMax(npairs, 1), &pb));
      PetscCall(PetscMalloc1(C->ndiag + 1, &fill));
      PetscCall(PetscArraycpy(fill, ps, C->ndiag + 1));
    }
    for (PetscInt s = 0; s < A->ndiag; s++)
      for (PetscInt t = 0; t < B->ndiag; t++) {
        const PetscInt c = DiagFind(C, (A->offset[s] + B->offset[t]) % B->ncols);

        if (c < 0) continue;
        if (!pass) ps[c + 1]++, npairs++;
        else pa[fill[c]] = (int)s, pb[fill[c]++] = (int)t;
      }
    if (pass) PetscCall(PetscFree(fill));
  }
  snprintf(what, sizeof(what), "DIAG banded product: pairs of stored diagonals (%d)", npairs);
  {
    PetscErrorCode ierr;

    ierr = GpuMatsCUDAMalloc((void **)&p->a_signed, (size_t)PetscMax(A->ndiag, 1) * sizeof(int), what);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->a_signed, sd, (size_t)A->ndiag * sizeof(int));
    if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&p->band_pair_start, (size_t)(C->ndiag + 1) * sizeof(int), what);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->band_pair_start, ps, (size_t)(C->ndiag + 1) * sizeof(int));
    if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&p->band_pair_a, (size_t)PetscMax(npairs, 1) * sizeof(int), what);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->band_pair_a, pa, (size_t)npairs * sizeof(int));
    if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&p->band_pair_b, (size_t)PetscMax(npairs, 1) * sizeof(int), what);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->band_pair_b, pb, (size_t)npairs * sizeof(int));
    PetscCall(PetscFree(sd));
    PetscCall(PetscFree(ps));
    PetscCall(PetscFree2(pa, pb));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

/* The staged kernel where A's diagonals fit its shared memory and enough pairs meet on each
   diagonal of C to repay the staging (the DIAG paper's tables: the pairs kernel faster up to about
   10 pairs a diagonal of C, the staged one from 25, and on bands of 51-401 diagonals, where it is
   faster than the blocks kernel too) */
static PetscErrorCode DiagStagedPreferred(DiagDeviceProduct p, PetscBool *staged)
{
  int T;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductStagedRows(p, &T));
  *staged = (PetscBool)(T && p->npairs && p->npairs >= DIAG_STAGED_MIN_PAIRS * (PetscInt64)p->ndiag_c);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductCreate(const DiagProductPlan *plan, const DiagFormat *A, const DiagFormat *B, const DiagFormat *C, DiagDeviceProduct *prod)
{
  DiagDeviceProduct p;
  PetscErrorCode    ierr   = 0;
  PetscBool         staged = PETSC_FALSE;
  char              what[128];

  PetscFunctionBegin;
  *prod = NULL;
  PetscCheck(A->ncols == B->nrows && C->nrows == A->nrows && C->ncols == B->ncols && plan->ndiag_c == C->ndiag && plan->nrows == C->nrows && plan->ncols == C->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "DIAG product: C (%" PetscInt_FMT " x %" PetscInt_FMT ") = A (%" PetscInt_FMT " x %" PetscInt_FMT ") B (%" PetscInt_FMT " x %" PetscInt_FMT "), its plan made for %" PetscInt_FMT " x %" PetscInt_FMT, C->nrows, C->ncols, A->nrows, A->ncols, B->nrows, B->ncols, plan->nrows, plan->ncols);
  PetscCheck(DiagFitsDeviceIndices(A->nrows, A->ncols) && DiagFitsDeviceIndices(B->nrows, B->ncols) && DiagFitsDeviceIndices(C->nrows, C->ncols), PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product C (%" PetscInt_FMT " x %" PetscInt_FMT ") = A (%" PetscInt_FMT " x %" PetscInt_FMT ") B (%" PetscInt_FMT " x %" PetscInt_FMT "): rows + columns of each must be at most %lld for the int32 device indices; use more MPI processes", C->nrows, C->ncols, A->nrows, A->ncols, B->nrows, B->ncols, (long long)DIAG_MAX_DEVICE_ROWS_PLUS_COLS);
  PetscCheck(plan->npairs <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: %" PetscInt64_FMT " pairs of diagonals meet on C's %" PetscInt_FMT ", more than the 2^31-1 the device lists hold; use more MPI processes, or -mat_gpumats_backend host", A->ndiag, B->ndiag, plan->npairs, C->ndiag);
  PetscCall(PetscNew(&p));
  p->one_scheme = (PetscBool)(A->scheme == B->scheme && B->scheme == C->scheme);
  p->scheme     = C->scheme;
  p->nrows      = (int)A->nrows;
  p->inner      = (int)A->ncols;
  p->ncols      = (int)B->ncols;
  p->ndiag_c    = (int)C->ndiag;
  p->ndiag_a    = (int)A->ndiag;
  p->ndiag_b    = (int)B->ndiag;
  p->npairs     = plan->npairs;
  p->nea        = (int)plan->nea;
  p->neb        = (int)plan->neb;
  p->flops      = plan->flops;
  for (PetscInt c = 0; c < C->ndiag; c++) p->max_len = PetscMax(p->max_len, (int)(C->start[c + 1] - C->start[c]));
  /* the plan: O(pairs + diagonals) integers, nothing n-long, in one block (one allocation and one
     copy: seven of each cost more than the copy itself at the tables' sizes) */
  snprintf(what, sizeof(what), "DIAG product: the plan, %lld pairs of diagonals", (long long)plan->npairs);
  {
    const size_t nlong = (size_t)plan->nea + (size_t)plan->neb, nint = (size_t)C->ndiag + 1 + 2 * (size_t)plan->npairs + (size_t)plan->nea + (size_t)plan->neb;
    const size_t bytes = nlong * sizeof(long long) + nint * sizeof(int);
    char        *h     = NULL;

    ierr = PetscMalloc1(bytes, &h);
    if (!ierr) ierr = GpuMatsCUDAMalloc(&p->plan_block, bytes, what);
    if (!ierr) {
      long long *hl = (long long *)h, *dl = (long long *)p->plan_block;
      int       *hi = (int *)(hl + nlong), *di = (int *)(dl + nlong);

      p->ea_base = dl, p->eb_base = dl + plan->nea;
      for (PetscInt e = 0; e < plan->nea; e++) hl[e] = plan->ea_base[e];
      for (PetscInt e = 0; e < plan->neb; e++) hl[plan->nea + e] = plan->eb_base[e];
      p->pair_start = di;
      for (PetscInt c = 0; c <= C->ndiag; c++) hi[c] = (int)plan->pair_start[c];
      di += C->ndiag + 1, hi += C->ndiag + 1;
      p->pair_a = di, p->pair_b = di + plan->npairs;
      if (plan->pair_a) memcpy(hi, plan->pair_a, (size_t)plan->npairs * sizeof(int));
      if (plan->pair_b) memcpy(hi + plan->npairs, plan->pair_b, (size_t)plan->npairs * sizeof(int));
      di += 2 * plan->npairs, hi += 2 * plan->npairs;
      p->ea_d = di, p->eb_d = di + plan->nea;
      for (PetscInt e = 0; e < plan->nea; e++) hi[e] = (int)plan->ea_d[e];
      for (PetscInt e = 0; e < plan->neb; e++) hi[plan->nea + e] = (int)plan->eb_d[e];
      if (plan->pair_a) ierr = GpuMatsCUDACopyToDevice(p->plan_block, h, bytes);
      else { /* the lists are made on the device (DiagDeviceProductPlan): the rest around them */
        const size_t head = (size_t)((char *)p->pair_a - (char *)p->plan_block), tail = (size_t)((char *)p->ea_d - (char *)p->plan_block);

        ierr = GpuMatsCUDACopyToDevice(p->plan_block, h, head);
        if (!ierr) ierr = GpuMatsCUDACopyToDevice((char *)p->plan_block + tail, h + tail, bytes - tail);
      }
    }
    (void)PetscFree(h);
  }
  if (!ierr) ierr = DiagDeviceProductSweepCreate(p, plan, C);
  if (!ierr && p->one_scheme && C->scheme == DIAG_SCHEME_CDM) ierr = DiagBandedPairs(p, A, B, C);
  if (!ierr) ierr = DiagStagedPreferred(p, &staged);
  if (!ierr && !staged && DiagBlocksPreferred(plan)) {
    ierr = DiagDeviceProductBlocksCreate(p, plan, C);
    p->blocks_preferred = (PetscBool)(p->blocks != NULL);
  }
  if (ierr) {
    (void)DiagDeviceProductDestroy(&p);
    PetscCall(ierr);
  }
  *prod = p;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductCheckOperands(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C, const char *kernel)
{
  PetscFunctionBegin;
  PetscCheck(p && A && B && C, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The DIAG %s product needs the product object and the device copies of A, B and C (one of them is NULL)", kernel);
  PetscCheck(A->nrows == p->nrows && A->ncols == p->inner && B->nrows == p->inner && B->ncols == p->ncols && C->nrows == p->nrows && C->ncols == p->ncols && C->ndiag == p->ndiag_c && C->scheme == p->scheme, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "The DIAG %s product was made for C (%d x %d, %d diagonals) = A (%d x %d) B (%d x %d); got C %d x %d with %d diagonals, A %d x %d, B %d x %d (make the product again)", kernel, p->nrows, p->ncols, p->ndiag_c, p->nrows, p->inner, p->inner, p->ncols, C->nrows, C->ncols, C->ndiag, A->nrows, A->ncols, B->nrows, B->ncols);
  PetscFunctionReturn(0);
}

typedef enum {
  DIAG_KERNEL_SWEEP,
  DIAG_KERNEL_BANDED,
  DIAG_KERNEL_STAGED,
  DIAG_KERNEL_BLOCKS,
  DIAG_KERNEL_SHUFFLE,
  DIAG_KERNEL_PAIRS
} DiagProductKernel;
static const char *const DiagProductKernelNames[] = {"sweep", "banded", "staged", "blocks", "shuffle", "pairs"};

/* the kernel for this product, and the banded kernel's rows a tile */
static PetscErrorCode DiagDeviceProductChooseKernel(DiagDeviceProduct p, DiagProductKernel *kernel, int *T)
{
  PetscBool staged;
  int       R; /* the shuffle kernel's rows a lane */

  PetscFunctionBegin;
  *T = 0;
  if (p->sweep_base) {
    *kernel = DIAG_KERNEL_SWEEP;
    PetscFunctionReturn(0);
  }
  if (p->a_signed) PetscCall(DiagDeviceProductBandedRows(p, T));
  if (*T) *kernel = DIAG_KERNEL_BANDED;
  else {
    PetscCall(DiagStagedPreferred(p, &staged));
    if (staged) *kernel = DIAG_KERNEL_STAGED;
    else if (p->blocks && p->blocks_preferred) *kernel = DIAG_KERNEL_BLOCKS;
    else {
      PetscCall(DiagDeviceProductShuffleRows(p, &R));
      *kernel = R && p->npairs >= DIAG_SHUFFLE_MIN_PAIRS * (PetscInt64)p->ndiag_c ? DIAG_KERNEL_SHUFFLE : DIAG_KERNEL_PAIRS;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductKernelName(DiagDeviceProduct p, const char **name)
{
  DiagProductKernel kernel;
  int               T;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductChooseKernel(p, &kernel, &T));
  *name = DiagProductKernelNames[kernel];
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumeric(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  DiagProductKernel kernel;
  int               T;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductChooseKernel(p, &kernel, &T));
  switch (kernel) {
  case DIAG_KERNEL_SWEEP:
    PetscCall(DiagDeviceProductNumericSweep(p, A, B, C));
    break;
  case DIAG_KERNEL_BANDED:
    PetscCall(DiagDeviceProductNumericBanded(p, T, A, B, C));
    break;
  case DIAG_KERNEL_STAGED:
    PetscCall(DiagDeviceProductNumericStaged(p, A, B, C));
    break;
  case DIAG_KERNEL_BLOCKS:
    PetscCall(DiagDeviceProductNumericBlocks(p, A, B, C));
    break;
  case DIAG_KERNEL_SHUFFLE:
    PetscCall(DiagDeviceProductNumericShuffle(p, A, B, C));
    break;
  default:
    PetscCall(DiagDeviceProductNumericPairs(p, A, B, C));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductGetCounts(DiagDeviceProduct p, PetscInt64 *flops, PetscInt64 *npairs)
{
  PetscFunctionBegin;
  if (flops) *flops = p->flops;
  if (npairs) *npairs = p->npairs;
  PetscFunctionReturn(0);
}

__global__ void DiagIndexKernel(int ndiag, const int *__restrict__ offset, int shift, int *__restrict__ index)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;

  if (t < ndiag) index[offset[t] + shift] = t;
}

PetscErrorCode DiagDeviceIndexOffsets(int ndiag, const int *offset, int shift, int range, int **index)
{
  char  what[128];
  void *s;

  PetscFunctionBegin;
  snprintf(what, sizeof(what), "DIAG product: index of %d diagonals by offset (%d entries)", ndiag, range);
  PetscCall(GpuMatsCUDAMalloc((void **)index, (size_t)PetscMax(range, 1) * sizeof(int), what));
  PetscCall(GpuMatsCUDAMemset(*index, 0xff, (size_t)PetscMax(range, 1) * sizeof(int))); /* -1 */
  if (!ndiag) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagIndexKernel<<<(unsigned)((ndiag + 255) / 256), 256, 0, (cudaStream_t)s>>>(ndiag, offset, shift, *index);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* The paper's Algorithm 2: thread q takes stored entry q of A, a(i, k) on diagonal s (found
   by bisection of A's starts), and adds a(i, k) b(k, k + d_b) into c(i, k + d_b) for every
   diagonal of B.  A's padding-free HM layout makes q run over A's nonzeros exactly. */
__global__ void __launch_bounds__(DIAG_PRODUCT_THREADS) DiagProductAtomicKernel(long long nval_a, int ndiag_a, int ndiag_b, int m, int inner, int n, const int *__restrict__ c_index, DiagArrays A, DiagArrays B, DiagArrays C)
{
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int             lo = 0, hi = ndiag_a;

  if (q >= nval_a) return;
  while (hi - lo > 1) { /* the diagonal s with start[s] <= q < start[s + 1] */
    const int mid = (lo + hi) / 2;

    if (A.start[mid] <= q) lo = mid;
    else hi = mid;
  }
  {
    const int    da = A.offset[lo], i = (int)(q - A.start[lo]) + (da < 0 ? -da : 0), k = i + da;
    const double a  = A.val[q];

    for (int t = 0; t < ndiag_b; t++) {
      const int db = B.offset[t], j = k + db;

      if (k >= (db < 0 ? -db : 0) && k < inner && j >= 0 && j < n) {
        const int c = c_index[da + db + m - 1]; /* present: (i, j) lies in C's shape */

        if (c >= 0) atomicAdd(&C.val[C.start[c] + i - (da + db < 0 ? -(da + db) : 0)], a * B.val[B.start[t] + k - (db < 0 ? -db : 0)]);
      }
    }
  }
}

PetscErrorCode DiagDeviceProductNumericAtomic(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  const DiagArrays a = DiagArraysOf(A), b = DiagArraysOf(B), c = DiagArraysOf(C);
  void            *s;

  PetscFunctionBegin;
  PetscCheck(p->one_scheme && p->scheme == DIAG_SCHEME_HM, PETSC_COMM_SELF, PETSC_ERR_SUP, "The atomic DIAG product (the paper's Algorithm 2) is for HM matrices (A, B and C); use DiagDeviceProductNumeric for CDM or mixed schemes");
  if (!p->c_index) PetscCall(DiagDeviceIndexOffsets(C->ndiag, C->offset, C->nrows - 1, C->nrows + C->ncols - 1, &p->c_index));
  PetscCall(GpuMatsCUDAMemset(C->val, 0, (size_t)C->nval * sizeof(double)));
  if (!A->nval || !B->ndiag) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagProductAtomicKernel<<<(unsigned)((A->nval + DIAG_PRODUCT_THREADS - 1) / DIAG_PRODUCT_THREADS), DIAG_PRODUCT_THREADS, 0, (cudaStream_t)s>>>(A->nval, A->ndiag, B->ndiag, p->nrows, p->inner, p->ncols, p->c_index, a, b, c);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductDestroy(DiagDeviceProduct *prod)
{
  PetscFunctionBegin;
  if (!*prod) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*prod)->plan_scratch));
  PetscCall(GpuMatsCUDAFree((*prod)->c_index));
  PetscCall(GpuMatsCUDAFree((*prod)->b_index));
  PetscCall(GpuMatsCUDAFree((*prod)->a_signed));
  PetscCall(GpuMatsCUDAFree((*prod)->sweep_base));
  PetscCall(GpuMatsCUDAFree((*prod)->plan_block));
  PetscCall(GpuMatsCUDAFree((*prod)->blocks));
  PetscCall(GpuMatsCUDAFree((*prod)->rec_b)); /* and rec_lo, rec_hi */
  PetscCall(GpuMatsCUDAFree((*prod)->band_pair_start));
  PetscCall(GpuMatsCUDAFree((*prod)->band_pair_a));
  PetscCall(GpuMatsCUDAFree((*prod)->band_pair_b));
  PetscCall(PetscFree(*prod));
  PetscFunctionReturn(0);
}
