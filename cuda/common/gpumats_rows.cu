/* AIJ row pointers on the device, checked, with their statistics: one pass over them, for every
   format whose device copy is made from them (pcsr's copy keeps them as int32 from zero;
   cihybrid's layout reads them as they are). */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <climits>
#include <math.h>
#include <stdint.h>
extern "C" {
#include "gpumats_cuda.h"
}

#define GPUMATS_ROWS_THREADS 256

/* the sums as they are made on the device: first_bad LLONG_MAX while none is found */
typedef struct {
  long long          first_bad, max_len;
  unsigned long long empty;
  double             sum2;
} RowSums;

__global__ void GpuMatsRowPointersKernel(long long nrows, const PetscInt *__restrict__ ai, PetscInt base, int32_t *out, double mean, RowSums *sums)
{
  long long          first_bad = LLONG_MAX, max_len = 0;
  unsigned long long empty     = 0;
  double             sum2      = 0;

  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += (long long)gridDim.x * blockDim.x) {
    const PetscInt  a = ai[i], b = ai[i + 1];
    const long long len = (long long)b - a;
    const double    d   = (double)len - mean;

    if (len < 0 && i < first_bad) first_bad = i;
    max_len = max(max_len, len);
    if (!len) empty++;
    sum2 += d * d;
    if (out && (const void *)out != (const void *)ai) {
      out[i] = (int32_t)(a - base);
      if (i == nrows - 1) out[nrows] = (int32_t)(b - base);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    first_bad = min(first_bad, __shfl_down_sync(0xffffffffu, first_bad, o));
    max_len   = max(max_len, __shfl_down_sync(0xffffffffu, max_len, o));
    empty += __shfl_down_sync(0xffffffffu, empty, o);
    sum2 += __shfl_down_sync(0xffffffffu, sum2, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (first_bad != LLONG_MAX) atomicMin(&sums->first_bad, first_bad);
    atomicMax(&sums->max_len, max_len);
    atomicAdd(&sums->empty, empty);
    atomicAdd(&sums->sum2, sum2);
  }
}

PetscErrorCode GpuMatsCUDARowPointers(PetscInt nrows, const PetscInt *ai, PetscInt base, int32_t *out, GpuMatsRowStats *stats)
{
  const double   mean = nrows ? (double)stats->nnz / (double)nrows : 0.0;
  const unsigned grid = (unsigned)PetscMax(1, PetscMin((nrows + GPUMATS_ROWS_THREADS - 1) / GPUMATS_ROWS_THREADS, (PetscInt)2048));
  RowSums        h    = {LLONG_MAX, 0, 0, 0}, *sums = NULL;
  cudaStream_t   s;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream((void **)&s));
  PetscCall(GpuMatsCUDAMalloc((void **)&sums, sizeof(h), "the statistics of the row pointers"));
  ierr = GpuMatsCUDACopyToDevice(sums, &h, sizeof(h));
  if (!ierr && nrows) {
    GpuMatsRowPointersKernel<<<grid, GPUMATS_ROWS_THREADS, 0, s>>>((long long)nrows, ai, base, out, mean, sums);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "GpuMatsRowPointersKernel<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr && !nrows && out) ierr = GpuMatsCUDAMemset(out, 0, sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&h, sums, sizeof(h));
  PetscCall(GpuMatsCUDAFree(sums));
  PetscCall(ierr);
  stats->first_bad      = h.first_bad == LLONG_MAX ? -1 : (PetscInt64)h.first_bad;
  stats->max_len        = (PetscInt64)h.max_len;
  stats->empty          = (PetscInt64)h.empty;
  stats->stddev_row_len = nrows ? sqrt(h.sum2 / (double)nrows) : 0.0;
  PetscFunctionReturn(0);
}
