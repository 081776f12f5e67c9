/* The row pointers of a PCSR device copy, worked on the device: rebased to 0 as int32, checked to
   be nondecreasing and their statistics made (the automatic kernel's choice, MatView) by the
   common pass (gpumats_rows.cu), and the row blocks of the adaptive kernel.  On the host these
   were four passes over the row pointers, a large share of a first product; here they take the
   upload of the row pointers, four small kernels and two small downloads. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}

#define PCSR_ROWS_THREADS 256
/* A thread packs the rows of a segment into row blocks, greedily as the host did, hopping from
   block to block; a block never spans two segments.  Segments of about this many blocks (the
   rows a block holds estimated from the mean row length): few threads hop long, and the extra
   blocks at the segments' ends are a fraction of a percent */
#define PCSR_BLOCKS_PER_SEGMENT 256

/* ai (host, nrows + 1) into d->ptr rebased to 0, checked; the statistics into d->stats. */
PetscErrorCode PCSRDeviceRowPointers(PCSRDevice d, const PetscInt *ai)
{
  const int       nrows = d->nrows;
  GpuMatsRowStats st    = {0, 0, 0, 0, 0};
  PetscInt       *tmp   = NULL;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  st.nnz = d->nnz;
  if (sizeof(PetscInt) == sizeof(int32_t) && ai[0] == 0) { /* the host pointers are the device's: checked in place */
    ierr = GpuMatsCUDACopyToDevice(d->ptr, ai, ((size_t)nrows + 1) * sizeof(int32_t));
    if (!ierr) ierr = GpuMatsCUDARowPointers(nrows, (const PetscInt *)d->ptr, 0, d->ptr, &st);
  } else {
    ierr = GpuMatsCUDAMalloc((void **)&tmp, ((size_t)nrows + 1) * sizeof(PetscInt), "PCSR row pointers before their rebasing");
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(tmp, ai, ((size_t)nrows + 1) * sizeof(PetscInt));
    if (!ierr) ierr = GpuMatsCUDARowPointers(nrows, tmp, ai[0], d->ptr, &st);
  }
  PetscCall(GpuMatsCUDAFree(tmp));
  PetscCall(ierr);
  PetscCheck(st.first_bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "PCSR: row pointers decrease at row %" PetscInt64_FMT " (ai[%" PetscInt64_FMT "] = %" PetscInt_FMT " > ai[%" PetscInt64_FMT "] = %" PetscInt_FMT "): they must be nondecreasing", st.first_bad, st.first_bad, ai[st.first_bad], st.first_bad + 1, ai[st.first_bad + 1]);
  d->stats.nrows          = nrows;
  d->stats.ncols          = d->ncols;
  d->stats.nnz            = d->nnz;
  d->stats.max_row_len    = (PetscInt)st.max_len;
  d->stats.empty_rows     = st.empty;
  d->stats.mean_row_len   = nrows ? (double)d->nnz / nrows : 0.0;
  d->stats.stddev_row_len = st.stddev_row_len;
  PetscFunctionReturn(0);
}

/* ---- row blocks of MAT_PCSR_KERNEL_ADAPTIVE ------------------------------------------------ */

/* end[r]: where a block of short rows starting at row r ends (exclusive): the rows go into it
   while its nonzeros fit the window and it has at most PCSR_ADAPTIVE_MAX_ROWS rows.  A row longer
   than the window gets blocks of its own (end[r] = r + 1). */
__global__ void PCSRBlockEndsKernel(int nrows, const int32_t *ptr, int32_t *end)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += gridDim.x * blockDim.x) {
    const int32_t start = ptr[r];
    int           lo = r + 1, hi = (int)min((long long)nrows, (long long)r + PCSR_ADAPTIVE_MAX_ROWS); /* the end is in [lo, hi] */

    if (ptr[lo] - start <= PCSR_ADAPTIVE_WINDOW)
      while (lo < hi) { /* the largest e in [lo, hi] with ptr[e] - start <= the window */
        const int mid = lo + (hi - lo + 1) / 2;

        if (ptr[mid] - start <= PCSR_ADAPTIVE_WINDOW) lo = mid;
        else hi = mid - 1;
      }
    end[r] = lo;
  }
}

/* Rows r0..r1-1 packed into blocks, counted (row NULL) or written from row[0], chunk[0]; see
   struct _n_PCSRDevice.  A row longer than the window gets one block per
   PCSR_ADAPTIVE_LONG_CHUNK nonzeros; a block that ends with a single row is reduced by the whole
   thread block (chunk 0) rather than by one warp of the short-row path. */
__device__ static int PCSRPackRows(int r0, int r1, const int32_t *ptr, const int32_t *end, int32_t *row, int32_t *chunk, int *chunked)
{
  int nb = 0, r = r0;

  while (r < r1) {
    const int32_t len = ptr[r + 1] - ptr[r];

    if (len > PCSR_ADAPTIVE_WINDOW) {
      const int32_t nchunks = (int32_t)(((int64_t)len + PCSR_ADAPTIVE_LONG_CHUNK - 1) / PCSR_ADAPTIVE_LONG_CHUNK);

      for (int32_t j = 0; j < nchunks; j++, nb++)
        if (row) row[nb] = r, chunk[nb] = j;
      if (nchunks > 1) *chunked = 1;
      r++;
    } else {
      const int e = min(end[r], r1);

      if (row) row[nb] = r, chunk[nb] = e - r == 1 ? 0 : -1;
      nb++;
      r = e;
    }
  }
  return nb;
}

/* A thread a segment of 'seglen' rows: its blocks counted (first == NULL) or written from
   first[segment] on. */
__global__ void PCSRRowBlocksKernel(int nrows, int seglen, int nseg, const int32_t *ptr, const int32_t *end, int *count, int *chunked, const long long *first, int32_t *row, int32_t *chunk)
{
  const int seg = blockIdx.x * blockDim.x + threadIdx.x;
  int       any = 0;

  if (seg >= nseg) return;
  const int r0 = seg * seglen, r1 = (int)min((long long)nrows, (long long)r0 + seglen);

  if (!first) {
    count[seg] = PCSRPackRows(r0, r1, ptr, end, NULL, NULL, &any);
    if (any) atomicOr(chunked, 1);
  } else (void)PCSRPackRows(r0, r1, ptr, end, row + first[seg], chunk + first[seg], &any);
}

PetscErrorCode PCSRRowBlocksCreate(PCSRDevice d, int32_t nrows, const int32_t *ptr, PCSRRowBlocks *rb)
{
  const double   rows_per_block = PetscMax(1.0, PetscMin((double)PCSR_ADAPTIVE_MAX_ROWS, PCSR_ADAPTIVE_WINDOW / PetscMax(1.0, nrows ? (double)d->nnz / nrows : 1.0)));
  const int      seglen = (int)PetscMin(PetscMax(PCSR_BLOCKS_PER_SEGMENT * rows_per_block, 1024.0), (double)(1 << 24));
  const int      nseg   = (int)(((long long)nrows + seglen - 1) / seglen);
  const unsigned grid   = (unsigned)PetscMax(1, (nseg + PCSR_ROWS_THREADS - 1) / PCSR_ROWS_THREADS);
  const unsigned rgrid  = (unsigned)PetscMax(1, PetscMin((nrows + PCSR_ROWS_THREADS - 1) / PCSR_ROWS_THREADS, 4096));
  int           *dcount = NULL, *hcount = NULL, chunked = 0;
  int32_t       *end = NULL;
  long long     *dfirst = NULL, *hfirst = NULL, nb = 0;
  cudaStream_t   s;
  char           what[128];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream((void **)&s));
  PetscCall(PetscMalloc2(nseg + 1, &hcount, nseg + 1, &hfirst));
  ierr = GpuMatsCUDAMalloc((void **)&dcount, (size_t)(nseg + 1) * sizeof(int), "PCSR row blocks: the count of each segment");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&dfirst, (size_t)(nseg + 1) * sizeof(long long), "PCSR row blocks: the first block of each segment");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&end, (size_t)nrows * sizeof(int32_t), "PCSR row blocks: where a block from each row ends");
  if (!ierr) ierr = GpuMatsCUDAMemset(dcount + nseg, 0, sizeof(int)); /* the 'chunked' flag */
  if (!ierr && nseg) {
    PCSRBlockEndsKernel<<<rgrid, PCSR_ROWS_THREADS, 0, s>>>(nrows, ptr, end);
    PCSRRowBlocksKernel<<<grid, PCSR_ROWS_THREADS, 0, s>>>(nrows, seglen, nseg, ptr, end, dcount, dcount + nseg, NULL, NULL, NULL);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "PCSRRowBlocksKernel<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(hcount, dcount, (size_t)(nseg + 1) * sizeof(int));
  if (!ierr) {
    for (int g = 0; g < nseg; g++) hfirst[g] = nb, nb += hcount[g];
    chunked = hcount[nseg];
    if (nb >= INT32_MAX) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERROR_INITIAL, "PCSR adaptive kernel: %lld row blocks for %d rows, more than 2^31-1: use more MPI processes", nb, (int)nrows);
  }
  rb->nblocks = (int32_t)nb;
  if (!ierr) {
    snprintf(what, sizeof(what), "PCSR adaptive row blocks (%lld blocks)", nb);
    ierr = PCSRDeviceAllocate(d, (void **)&rb->row, (size_t)(nb + 1) * sizeof(int32_t), what);
  }
  if (!ierr) ierr = PCSRDeviceAllocate(d, (void **)&rb->chunk, (size_t)nb * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(rb->row + nb, &nrows, sizeof(int32_t));
  if (!ierr && nseg) ierr = GpuMatsCUDACopyToDevice(dfirst, hfirst, (size_t)nseg * sizeof(long long));
  if (!ierr && nseg) {
    PCSRRowBlocksKernel<<<grid, PCSR_ROWS_THREADS, 0, s>>>(nrows, seglen, nseg, ptr, end, NULL, NULL, dfirst, rb->row, rb->chunk);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "PCSRRowBlocksKernel<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr && chunked) {
    snprintf(what, sizeof(what), "PCSR adaptive long-row partial sums (%lld blocks)", nb);
    ierr = PCSRDeviceAllocate(d, (void **)&rb->partial, (size_t)nb * sizeof(double), what);
    if (!ierr) ierr = PCSRDeviceAllocate(d, (void **)&rb->arrived, (size_t)nb * sizeof(int32_t), what);
    if (!ierr) ierr = GpuMatsCUDAMemset(rb->arrived, 0, (size_t)nb * sizeof(int32_t));
  }
  if (!ierr) ierr = GpuMatsCUDASynchronize(); /* dfirst and end are freed next */
  PetscCall(GpuMatsCUDAFree(end));
  PetscCall(GpuMatsCUDAFree(dcount));
  PetscCall(GpuMatsCUDAFree(dfirst));
  PetscCall(PetscFree2(hcount, hfirst));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRRowBlocksDestroy(PCSRDevice d, PCSRRowBlocks *rb)
{
  const size_t nb = (size_t)rb->nblocks;

  PetscFunctionBegin;
  PetscCall(PCSRDeviceRelease(d, (void **)&rb->row, (nb + 1) * sizeof(int32_t)));
  PetscCall(PCSRDeviceRelease(d, (void **)&rb->chunk, nb * sizeof(int32_t)));
  PetscCall(PCSRDeviceRelease(d, (void **)&rb->partial, nb * sizeof(double)));
  PetscCall(PCSRDeviceRelease(d, (void **)&rb->arrived, nb * sizeof(int32_t)));
  rb->nblocks = 0;
  PetscFunctionReturn(0);
}
