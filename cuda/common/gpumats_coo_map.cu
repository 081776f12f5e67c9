/* The COO map of an AIJ subclass (pcsr, cihybrid) made on the device: the stored entry (AIJ's
   order) of each COO entry found by a thread an entry (a binary search in its row of AIJ's
   columns), the entries then grouped by stored entry with a stable radix sort, and each stored
   entry's first place in the sorted list found by a thread a stored entry.  Where every stored
   entry has one COO entry (no duplicates, as a DMDA's or most assemblers' patterns) jmap is not
   kept, and where that entry is moreover the stored entry's own place (a CSR given as COO, in AIJ's
   order) neither is perm: the values are then read in place.  On one host core the
   same map of a large operator took as long as AIJ's own COO preallocation.  An MPI matrix's block gives each entry's place among the values (its
   process's own or those received, common/mpicoo.c): perm then holds the places, not the entries'
   numbers. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <stdio.h>
extern "C" {
#include "gpumats_cuda.h"
}

#define COO_MAP_THREADS 256

/* The entries' stored places as sort keys (nnz: ignored, sorted last) and, unless 'placed' (entry
   holds the places of their values already), their numbers as the values; *bad gets the first
   entry whose (i, j) is not in AIJ's pattern */
__global__ void COOMapPlaces(long long n, const PetscInt *__restrict__ ci, const PetscInt *__restrict__ cj, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, uint32_t nnz, int placed, uint32_t *key, int32_t *entry, unsigned long long *bad)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    const PetscInt i = ci[k], j = cj[k];
    uint32_t       place = nnz;

    if (i >= 0 && j >= 0) {
      PetscInt lo = ai[i], hi = ai[i + 1];

      while (lo < hi) { /* the first column >= j */
        const PetscInt mid = lo + (hi - lo) / 2;

        if (aj[mid] < j) lo = mid + 1;
        else hi = mid;
      }
      if (lo < ai[i + 1] && aj[lo] == j) place = (uint32_t)lo;
      else atomicMin(bad, (unsigned long long)k);
    }
    key[k] = place;
    if (!placed) entry[k] = (int32_t)k;
  }
}

/* jmap[p]: the first place of stored entry p in the sorted keys (p = nnz: the entries kept) */
__global__ void COOMapStarts(long long n, const uint32_t *__restrict__ key, uint32_t nnz, int32_t *jmap)
{
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p <= (long long)nnz; p += (long long)gridDim.x * blockDim.x) {
    long long lo = 0, hi = n;

    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;

      if (key[mid] < (uint32_t)p) lo = mid + 1;
      else hi = mid;
    }
    jmap[p] = (int32_t)lo;
  }
}

/* The map's shape, or-ed into *shape: COO_MAP_SEVERAL where some stored entry has not exactly one
   COO entry (jmap is not p -> p), COO_MAP_MOVED where some stored entry p < min(nnz, n) is not
   the p-th COO entry (perm is not p -> p there) */
#define COO_MAP_SEVERAL 1ull
#define COO_MAP_MOVED   2ull
__global__ void COOMapShape(uint32_t nnz, long long n, const int32_t *__restrict__ jmap, const int32_t *__restrict__ perm, unsigned long long *shape)
{
  unsigned long long mine = 0;

  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p <= (long long)nnz; p += (long long)gridDim.x * blockDim.x) {
    if (jmap[p] != (int32_t)p) mine |= COO_MAP_SEVERAL;
    if (p < (long long)nnz && p < n && perm[p] != (int32_t)p) mine |= COO_MAP_MOVED;
  }
  for (int o = 16; o > 0; o >>= 1) mine |= __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine) atomicOr(shape, mine);
}

/* The device scratch: AIJ's arrays and the COO indices uploaded, the sort's keys and values
   (double buffered) and its temporary storage */
typedef struct {
  PetscInt           *ai, *aj, *ci, *cj;
  uint32_t           *key[2];
  int32_t            *entry[2];
  void               *temp;
  unsigned long long *bad;
} COOMapScratch;

static PetscErrorCode COOMapScratchFree(COOMapScratch *w)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAFree(w->ai));
  PetscCall(GpuMatsCUDAFree(w->aj));
  PetscCall(GpuMatsCUDAFree(w->ci));
  PetscCall(GpuMatsCUDAFree(w->cj));
  PetscCall(GpuMatsCUDAFree(w->key[0]));
  PetscCall(GpuMatsCUDAFree(w->key[1]));
  PetscCall(GpuMatsCUDAFree(w->entry[0]));
  PetscCall(GpuMatsCUDAFree(w->entry[1]));
  PetscCall(GpuMatsCUDAFree(w->temp));
  PetscCall(GpuMatsCUDAFree(w->bad));
  PetscCall(PetscMemzero(w, sizeof(*w)));
  PetscFunctionReturn(0);
}

/* *ok false (nothing allocated, no error) when the device lacks the memory */
static PetscErrorCode COOMapAlloc(void **ptr, size_t bytes, PetscBool *ok)
{
  PetscFunctionBegin;
  *ptr = NULL;
  if (*ok) PetscCall(GpuMatsCUDATryMalloc(ptr, bytes ? bytes : 1, ok));
  PetscFunctionReturn(0);
}

/* CUB's sort asks the device's PTX version once and keeps the answer, an error included: a first
   sort set up with the device full (test_cihybrid_oom) left every later COO map on the host.  So it
   is asked here, when the context is made, from this file (whose CUB is the one that sorts). */
PetscErrorCode GpuMatsCUDACOOMapSetUp(void)
{
  int         ptx = 0;
  cudaError_t cerr;

  PetscFunctionBegin;
  cerr = cub::PtxVersion(ptx);
  if (cerr != cudaSuccess) {
    (void)cudaGetLastError();
    PetscCall(PetscInfo(NULL, "CUB could not read the device's PTX version (%s): COO maps will be made on the host\n", cudaGetErrorString(cerr)));
  }
  PetscFunctionReturn(0);
}

/* Whether CUB's sort could run.  If not, the error is cleared and no map is made (the values go
   through the host). */
static bool COOMapSortUsable(cudaError_t cerr)
{
  if (cerr == cudaSuccess) return true;
  (void)cudaGetLastError();
  (void)PetscInfo(NULL, "COO map: CUB's radix sort failed (%s): no map on the device\n", cudaGetErrorString(cerr));
  return false;
}

PetscErrorCode GpuMatsCUDACOOStoredMap(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, PetscCount n, const PetscInt *ci, const PetscInt *cj, const int32_t *place, int32_t **jmap, int32_t **perm, PetscBool *mapped, PetscCount *bad)
{
  const uint32_t            nnz = (uint32_t)ai[nrows];
  COOMapScratch             w;
  PetscBool                 ok = PETSC_TRUE;
  cudaStream_t              s;
  void                     *stream;
  size_t                    temp_bytes = 0;
  int                       end_bit    = 1;
  unsigned long long        first_bad  = ULLONG_MAX;
  bool                      sorted     = true;
  cub::DoubleBuffer<uint32_t> keys;
  cub::DoubleBuffer<int32_t>  entries;

  PetscFunctionBegin;
  *jmap = *perm = NULL;
  *mapped       = PETSC_FALSE;
  *bad          = -1;
  PetscCheck(n <= INT32_MAX && (PetscInt64)ai[nrows] < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "COO map on the device: %" PetscCount_FMT " entries and %" PetscInt_FMT " stored ones, more than its 32-bit indices hold", n, ai[nrows]);
  PetscCall(PetscMemzero(&w, sizeof(w)));
  while (end_bit < 32 && (nnz >> end_bit)) end_bit++; /* the keys are 0..nnz */
  PetscCall(GpuMatsCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  if (!COOMapSortUsable(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, keys, entries, (long long)n, 0, end_bit, s))) PetscFunctionReturn(0);
  PetscCall(COOMapAlloc((void **)&w.ai, ((size_t)nrows + 1) * sizeof(PetscInt), &ok));
  PetscCall(COOMapAlloc((void **)&w.aj, (size_t)nnz * sizeof(PetscInt), &ok));
  PetscCall(COOMapAlloc((void **)&w.ci, (size_t)n * sizeof(PetscInt), &ok));
  PetscCall(COOMapAlloc((void **)&w.cj, (size_t)n * sizeof(PetscInt), &ok));
  PetscCall(COOMapAlloc((void **)&w.key[0], (size_t)n * sizeof(uint32_t), &ok));
  PetscCall(COOMapAlloc((void **)&w.key[1], (size_t)n * sizeof(uint32_t), &ok));
  PetscCall(COOMapAlloc((void **)&w.entry[0], (size_t)n * sizeof(int32_t), &ok));
  PetscCall(COOMapAlloc((void **)&w.entry[1], (size_t)n * sizeof(int32_t), &ok));
  PetscCall(COOMapAlloc((void **)&w.temp, temp_bytes, &ok));
  PetscCall(COOMapAlloc((void **)&w.bad, sizeof(unsigned long long), &ok));
  PetscCall(COOMapAlloc((void **)jmap, ((size_t)nnz + 1) * sizeof(int32_t), &ok));
  if (!ok) {
    PetscCall(COOMapScratchFree(&w));
    PetscCall(GpuMatsCUDAFree(*jmap));
    *jmap = NULL;
    PetscFunctionReturn(0);
  }
  {
    PetscErrorCode ierr = GpuMatsCUDACopyToDevice(w.ai, ai, ((size_t)nrows + 1) * sizeof(PetscInt));

    if (!ierr) ierr = GpuMatsCUDACopyToDevice(w.aj, aj, (size_t)nnz * sizeof(PetscInt));
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(w.ci, ci, (size_t)n * sizeof(PetscInt));
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(w.cj, cj, (size_t)n * sizeof(PetscInt));
    if (!ierr && place) ierr = GpuMatsCUDACopyToDevice(w.entry[0], place, (size_t)n * sizeof(int32_t));
    if (!ierr) ierr = GpuMatsCUDAMemset(w.bad, 0xff, sizeof(*w.bad)); /* ULLONG_MAX: no bad entry */
    if (!ierr && n) {
      COOMapPlaces<<<GpuMatsCUDAGridBlocks(n, COO_MAP_THREADS), COO_MAP_THREADS, 0, s>>>((long long)n, w.ci, w.cj, w.ai, w.aj, nnz, place ? 1 : 0, w.key[0], w.entry[0], w.bad);
      ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "COOMapPlaces", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
    }
    if (!ierr && n) {
      keys    = cub::DoubleBuffer<uint32_t>(w.key[0], w.key[1]);
      entries = cub::DoubleBuffer<int32_t>(w.entry[0], w.entry[1]);
      sorted  = COOMapSortUsable(cub::DeviceRadixSort::SortPairs(w.temp, temp_bytes, keys, entries, (long long)n, 0, end_bit, s));
    }
    if (!ierr && !sorted) { /* no map: the values go through the host */
      PetscCall(COOMapScratchFree(&w));
      PetscCall(GpuMatsCUDAFree(*jmap));
      *jmap = NULL;
      PetscFunctionReturn(0);
    }
    if (!ierr) {
      COOMapStarts<<<GpuMatsCUDAGridBlocks((long long)nnz + 1, COO_MAP_THREADS), COO_MAP_THREADS, 0, s>>>((long long)n, n ? keys.Current() : w.key[0], nnz, *jmap);
      ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "COOMapStarts", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
    }
    if (!ierr) ierr = GpuMatsCUDACopyToHost(&first_bad, w.bad, sizeof(first_bad));
    if (!ierr && first_bad == ULLONG_MAX) { /* the sorted entries are the map's perm: kept, the rest freed */
      unsigned long long shape = 0;

      *perm = n ? entries.Current() : w.entry[0];
      if (*perm == w.entry[0]) w.entry[0] = NULL;
      else w.entry[1] = NULL;
      ierr = GpuMatsCUDAMemset(w.bad, 0, sizeof(*w.bad));
      if (!ierr) {
        COOMapShape<<<GpuMatsCUDAGridBlocks((long long)nnz + 1, COO_MAP_THREADS), COO_MAP_THREADS, 0, s>>>(nnz, (long long)n, *jmap, *perm, w.bad);
        ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "COOMapShape", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
      }
      if (!ierr) ierr = GpuMatsCUDACopyToHost(&shape, w.bad, sizeof(shape));
      if (!ierr && !(shape & COO_MAP_SEVERAL)) { /* one COO entry a stored entry: perm alone says which */
        PetscCall(GpuMatsCUDAFree(*jmap));
        *jmap = NULL;
        if (!(shape & COO_MAP_MOVED)) { /* and it is the stored entry's own place */
          PetscCall(GpuMatsCUDAFree(*perm));
          *perm = NULL;
        }
      }
      if (!ierr) *mapped = PETSC_TRUE;
    }
    PetscCall(COOMapScratchFree(&w));
    if (ierr || first_bad != ULLONG_MAX) {
      PetscCall(GpuMatsCUDAFree(*jmap));
      PetscCall(GpuMatsCUDAFree(*perm));
      *jmap = *perm = NULL;
      PetscCall(ierr);
      *bad = (PetscCount)first_bad;
    }
  }
  PetscFunctionReturn(0);
}
