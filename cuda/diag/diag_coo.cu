/* COO values straight into a DIAG device copy (diag/diag_coo.c on one process).  The map, made once
   at MatSetPreallocationCOO, is by stored value: which COO entries each slot sums.  A warp takes 32
   rows and writes their slots on a diagonal, 32 consecutive values; its loads of v stay among the
   32 rows' entries (a DMDA's or an assembler's COO entries come row by row).  Where the rows have
   many diagonals the block's warps share them (lanes), so that fewer rows are in flight and their
   entries stay in L2: with every diagonal in one thread, a 27-point operator's v was read
   nearly twice over; with 8 lanes on 7 diagonals the blocks' setup cost more than it saved.  Every slot is
   written, the absent ones with zero, so INSERT_VALUES needs no clearing pass first.  The map it
   replaces (a COO entry's slot and place, an atomic add each after clearing all values) was
   slower than aijcusparse's MatSetValuesCOO on stencils. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}
#include "../common/gpumats_coo_values.cuh"

#define DIAG_COO_THREADS  256
#define DIAG_COO_ONE_LANE 8   /* diagonals that one lane (a thread a row) takes at most */
#define DIAG_COO_LANES    8   /* lanes sharing the diagonals beyond that: 32 rows a block */
#define DIAG_COO_TILE     256 /* diagonals staged in shared memory at a time */

struct _n_DiagDeviceCOO {
  long long nval; /* the stored values the map is for */
  int32_t  *jmap; /* nval + 1, or NULL: at most one entry a slot */
  int32_t  *from; /* the entries' places among the values: by slot (jmap), or one a slot (GPUMATS_COO_NO_PLACE: none) */
};

PetscErrorCode DiagDeviceCOOCreate(long long nval, const int32_t *jmap, int32_t nfrom, const int32_t *from, DiagDeviceCOO *coo)
{
  DiagDeviceCOO  c;
  PetscErrorCode ierr = 0;
  char           what[128];

  PetscFunctionBegin;
  *coo = NULL;
  PetscCall(PetscNew(&c));
  c->nval = nval;
  snprintf(what, sizeof(what), "DIAG COO map of %lld stored values, %d entries", nval, (int)nfrom);
  if (jmap) ierr = GpuMatsCUDAMalloc((void **)&c->jmap, ((size_t)nval + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->from, ((size_t)nfrom + 1) * sizeof(int32_t), what);
  if (!ierr && jmap) ierr = GpuMatsCUDACopyToDevice(c->jmap, jmap, ((size_t)nval + 1) * sizeof(int32_t));
  if (!ierr && nfrom) ierr = GpuMatsCUDACopyToDevice(c->from, from, (size_t)nfrom * sizeof(int32_t));
  if (ierr) {
    (void)DiagDeviceCOODestroy(&c);
    PetscCall(ierr);
  }
  *coo = c;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceCOODestroy(DiagDeviceCOO *coo)
{
  PetscFunctionBegin;
  if (!*coo) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->from));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

/* A block of DIAG_COO_THREADS threads takes DIAG_COO_THREADS / LANES rows; lane y (whole warps)
   the diagonals t = y mod LANES: row i's slot on each (HM: where the diagonal crosses row i; CDM:
   always) gets its sum, or the old value plus it.  LANES a constant: with it an argument the
   kernel was measured slower */
template <int LANES, bool HM, bool SEVERAL>
__global__ void __launch_bounds__(DIAG_COO_THREADS) DiagCOOGather(int nrows, int ncols, int ndiag, const int *__restrict__ offset, const long long *__restrict__ start, const int32_t *__restrict__ jmap, const int32_t *__restrict__ from, const double *__restrict__ v, const double *__restrict__ recv, int add, double *val)
{
  __shared__ int       s_off[DIAG_COO_TILE];
  __shared__ long long s_start[DIAG_COO_TILE];
  const int            rows = DIAG_COO_THREADS / LANES, lane = threadIdx.x / rows;
  const int            i    = blockIdx.x * rows + threadIdx.x % rows;

  for (int t0 = 0; t0 < ndiag; t0 += DIAG_COO_TILE) {
    const int nt = min(DIAG_COO_TILE, ndiag - t0);

    __syncthreads(); /* the previous tile is no longer read */
    for (int t = threadIdx.x; t < nt; t += DIAG_COO_THREADS) {
      s_off[t]   = offset[t0 + t];
      s_start[t] = start[t0 + t];
    }
    __syncthreads();
    if (i >= nrows) continue;
    for (int t = lane; t < nt; t += LANES) {
      long long s   = s_start[t] + i;
      double    sum = 0.0;

      if (HM) {
        const int d = s_off[t], j = i + d;

        if (j < 0 || j >= ncols) continue;
        if (d < 0) s += d; /* HM: diagonal d starts at row -d */
      }
      if (SEVERAL) {
        for (int32_t q = jmap[s]; q < jmap[s + 1]; q++) sum += GpuMatsCOOValue(v, recv, from[q]);
      } else {
        const int32_t k = from[s];

        if (k != GPUMATS_COO_NO_PLACE) sum = GpuMatsCOOValue(v, recv, k);
      }
      val[s] = add ? val[s] + sum : sum;
    }
  }
}

template <int LANES>
static void DiagCOOGatherLaunch(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, int add, cudaStream_t stream)
{
  const unsigned blocks = (unsigned)((dev->nrows + DIAG_COO_THREADS / LANES - 1) / (DIAG_COO_THREADS / LANES));
  const bool     hm = dev->scheme == DIAG_SCHEME_HM, several = coo->jmap != NULL;

#define DIAG_COO_GATHER(H, S) DiagCOOGather<LANES, H, S><<<blocks, DIAG_COO_THREADS, 0, stream>>>(dev->nrows, dev->ncols, dev->ndiag, dev->offset, dev->start, coo->jmap, coo->from, v, recv, add, dev->val)
  if (hm && several) DIAG_COO_GATHER(true, true);
  else if (hm) DIAG_COO_GATHER(true, false);
  else if (several) DIAG_COO_GATHER(false, true);
  else DIAG_COO_GATHER(false, false);
#undef DIAG_COO_GATHER
}

PetscErrorCode DiagDeviceCOOSetValues(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add)
{
  void *stream;

  PetscFunctionBegin;
  PetscCheck(coo->nval == dev->nval, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIAG COO map of %lld stored values for a device copy of %lld", coo->nval, dev->nval);
  if (!dev->nrows || !dev->ndiag) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  if (dev->ndiag <= DIAG_COO_ONE_LANE) DiagCOOGatherLaunch<1>(dev, coo, v, recv, add ? 1 : 0, (cudaStream_t)stream);
  else DiagCOOGatherLaunch<DIAG_COO_LANES>(dev, coo, v, recv, add ? 1 : 0, (cudaStream_t)stream);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
