/* The layout of the entries split (each row's first min(len, BOUNDARY) entries in ELLPACK, the
   rest in CSR) made on the device from the AIJ row pointers: the lengths checked, their
   histogram for the automatic BOUNDARY, each row's split and the remainder's offsets by a scan.
   The same layout as CIHybridLayoutFromCSR's, whose passes over the rows on the host were a
   large share of a first product.  The arrays are made in the device
   copy that the fill then completes: nothing comes down, and the row pointers go up once.  The
   host side makes its own layout arrays if it ever multiplies (CIHybridLayoutFromCSR: the same
   split from the same lengths). */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}

#define CIHYBRID_LAYOUT_THREADS 256
/* Lengths counted in shared memory below this, straight into global memory from it: a
   stencil's rows all share a few lengths, and 4M atomics on one global counter would wait */
#define CIHYBRID_LAYOUT_SHARED_BINS 4096

/* the split's sums */
typedef struct {
  long long          width;
  unsigned long long nnz_ell, rows_with_csr;
} CIHybridLayoutSums;

/* hist[len] over the rows (nbins = the longest + 1) */
__global__ void CIHybridHistogramKernel(PetscInt nrows, const PetscInt *ai, int nbins, unsigned long long *hist)
{
  __shared__ unsigned int local[CIHYBRID_LAYOUT_SHARED_BINS];
  const bool              shared = nbins <= CIHYBRID_LAYOUT_SHARED_BINS;

  if (shared) {
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += (long long)gridDim.x * blockDim.x) {
    const int len = (int)(ai[i + 1] - ai[i]);

    if (shared) atomicAdd(&local[len], 1u);
    else atomicAdd(&hist[len], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
      if (local[b]) atomicAdd(&hist[b], (unsigned long long)local[b]);
  }
}

/* Each row's split: ell_len[i] = min(len, boundary) (ell_len NULL when boundary is 0), rest[i] =
   the remainder's length (rest[nrows] = 0, for the exclusive scan that makes it csr_start); the
   sums. */
__global__ void CIHybridSplitKernel(PetscInt nrows, const PetscInt *ai, long long boundary, int32_t *ell_len, int32_t *rest, CIHybridLayoutSums *sums)
{
  long long          width = 0;
  unsigned long long nnz_ell = 0, rows_with_csr = 0;

  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i <= nrows; i += (long long)gridDim.x * blockDim.x) {
    if (i == nrows) {
      rest[i] = 0;
      continue;
    }
    const long long len = (long long)ai[i + 1] - ai[i], s = min(len, boundary);

    if (ell_len) ell_len[i] = (int32_t)s;
    rest[i] = (int32_t)(len - s);
    width      = max(width, s);
    nnz_ell += (unsigned long long)s;
    rows_with_csr += len > s ? 1 : 0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    width = max(width, __shfl_down_sync(0xffffffffu, width, o));
    nnz_ell += __shfl_down_sync(0xffffffffu, nnz_ell, o);
    rows_with_csr += __shfl_down_sync(0xffffffffu, rows_with_csr, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&sums->width, width);
    atomicAdd(&sums->nnz_ell, nnz_ell);
    atomicAdd(&sums->rows_with_csr, rows_with_csr);
  }
}

/* The exclusive scan of v[0, n) in place, in three launches of our own kernels: CUB's device-wide
   scan queries and caches the device's attributes at its first call, and a first call made with
   the device full kept failing after the memory came back. */
#define CIHYBRID_SCAN_ITEMS 8
#define CIHYBRID_SCAN_TILE  (CIHYBRID_LAYOUT_THREADS * CIHYBRID_SCAN_ITEMS)

__global__ void CIHybridScanTiles(int n, int32_t *v, int32_t *totals)
{
  typedef cub::BlockScan<int32_t, CIHYBRID_LAYOUT_THREADS> Scan;
  __shared__ typename Scan::TempStorage temp;
  const long long base = (long long)blockIdx.x * CIHYBRID_SCAN_TILE + (long long)threadIdx.x * CIHYBRID_SCAN_ITEMS;
  int32_t         items[CIHYBRID_SCAN_ITEMS], total;

  for (int k = 0; k < CIHYBRID_SCAN_ITEMS; k++) items[k] = base + k < n ? v[base + k] : 0;
  Scan(temp).ExclusiveSum(items, items, total);
  for (int k = 0; k < CIHYBRID_SCAN_ITEMS; k++)
    if (base + k < n) v[base + k] = items[k];
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

/* one block: the tiles' totals scanned in place, a tile of them at a time */
__global__ void CIHybridScanTotals(int ntiles, int32_t *totals)
{
  typedef cub::BlockScan<int32_t, CIHYBRID_LAYOUT_THREADS> Scan;
  __shared__ typename Scan::TempStorage temp;
  int32_t                               carry = 0;

  for (int t0 = 0; t0 < ntiles; t0 += CIHYBRID_LAYOUT_THREADS) {
    const int i    = t0 + threadIdx.x;
    int32_t   item = i < ntiles ? totals[i] : 0, sum;

    Scan(temp).ExclusiveSum(item, item, sum);
    if (i < ntiles) totals[i] = item + carry;
    carry += sum;
    __syncthreads(); /* temp is used again */
  }
}

__global__ void CIHybridScanAdd(int n, int32_t *v, const int32_t *totals)
{
  const int32_t add = totals[blockIdx.x];

  for (int k = threadIdx.x; k < CIHYBRID_SCAN_TILE; k += blockDim.x) {
    const long long i = (long long)blockIdx.x * CIHYBRID_SCAN_TILE + k;

    if (i < n) v[i] += add;
  }
}

static PetscErrorCode CIHybridExclusiveScan(int n, int32_t *v, cudaStream_t s)
{
  const int      ntiles = (n + CIHYBRID_SCAN_TILE - 1) / CIHYBRID_SCAN_TILE;
  int32_t       *totals = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAMalloc((void **)&totals, (size_t)ntiles * sizeof(int32_t), "CIHYBRID layout: the scan's tile totals"));
  CIHybridScanTiles<<<ntiles, CIHYBRID_LAYOUT_THREADS, 0, s>>>(n, v, totals);
  CIHybridScanTotals<<<1, CIHYBRID_LAYOUT_THREADS, 0, s>>>(ntiles, totals);
  CIHybridScanAdd<<<ntiles, CIHYBRID_LAYOUT_THREADS, 0, s>>>(n, v, totals);
  ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridScan<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  if (!ierr) ierr = GpuMatsCUDASynchronize(); /* totals is freed next */
  PetscCall(GpuMatsCUDAFree(totals));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceLayout(PetscInt nrows, PetscInt ncols, const PetscInt *ai, PetscInt boundary, CIHybridFormat *fmt, PetscInt *chosen, double *model_bytes, CIHybridDevice *dev)
{
  const unsigned      grid = (unsigned)PetscMax(1, PetscMin((nrows + CIHYBRID_LAYOUT_THREADS) / CIHYBRID_LAYOUT_THREADS, (PetscInt)2048));
  const PetscInt64    nnz  = nrows ? (PetscInt64)ai[nrows] - ai[0] : 0;
  CIHybridLayoutSums  h    = {0, 0, 0}, *sums = NULL;
  GpuMatsRowStats     rows = {nnz, 0, 0, 0, 0};
  CIHybridDevice      d    = NULL;
  unsigned long long *dhist = NULL;
  PetscInt64         *hist  = NULL;
  cudaStream_t        s;
  CIHybridStatus      status = CIHYBRID_OK;
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  memset(fmt, 0, sizeof(*fmt));
  *dev         = NULL;
  *model_bytes = -1;
  PetscCheck(nrows >= 0 && ncols >= 0 && nrows < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CIHYBRID layout on the device: %" PetscInt_FMT " x %" PetscInt_FMT " does not fit the int32 device indices", nrows, ncols);
  PetscCall(GpuMatsCUDAGetStream((void **)&s));
  PetscCall(PetscNew(&d));
  ierr = GpuMatsCUDAMalloc((void **)&sums, sizeof(h), "CIHYBRID layout: its sums");
  /* the row pointers stay with the device copy: its fill and value refreshes read them */
  if (!ierr) ierr = CIHybridDeviceAllocate(d, (void **)&d->aij_rowptr, ((size_t)nrows + 1) * sizeof(PetscInt), "CIHYBRID layout: the AIJ row pointers");
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(d->aij_rowptr, ai, ((size_t)nrows + 1) * sizeof(PetscInt));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(sums, &h, sizeof(h));
  if (!ierr) ierr = GpuMatsCUDARowPointers(nrows, d->aij_rowptr, 0, NULL, &rows);
  if (!ierr && rows.first_bad >= 0) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_ARG_CORRUPT, PETSC_ERROR_INITIAL, "cihybrid: the AIJ row pointers decrease at row %" PetscInt64_FMT, rows.first_bad);
  /* the automatic BOUNDARY from the histogram of the lengths, as CIHybridChooseBoundary */
  if (!ierr && boundary == MAT_CIHYBRID_BOUNDARY_AUTO) {
    const int nbins = (int)rows.max_len + 1;

    ierr = GpuMatsCUDAMalloc((void **)&dhist, (size_t)nbins * sizeof(*dhist), "CIHYBRID layout: the histogram of the row lengths");
    if (!ierr) ierr = GpuMatsCUDAMemset(dhist, 0, (size_t)nbins * sizeof(*dhist));
    if (!ierr && nrows) {
      CIHybridHistogramKernel<<<grid, CIHYBRID_LAYOUT_THREADS, 0, s>>>(nrows, d->aij_rowptr, nbins, dhist);
      ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridHistogramKernel<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
    }
    if (!ierr) ierr = PetscMalloc1(nbins, &hist);
    if (!ierr) ierr = GpuMatsCUDACopyToHost(hist, dhist, (size_t)nbins * sizeof(*hist));
    if (!ierr) boundary = CIHybridChooseBoundaryFromHistogram(hist, (PetscInt)rows.max_len, nrows, model_bytes);
  }
  /* the split straight into the copy's layout arrays: the ELLPACK width is min(BOUNDARY, longest row) */
  if (!ierr) boundary = PetscMin(boundary, (PetscInt)rows.max_len);
  if (!ierr && nrows && boundary) ierr = CIHybridDeviceAllocate(d, (void **)&d->ell_len, (size_t)nrows * sizeof(int32_t), "CIHYBRID ELL row lengths");
  if (!ierr && nrows) ierr = CIHybridDeviceAllocate(d, (void **)&d->csr_start, ((size_t)nrows + 1) * sizeof(int32_t), "CIHYBRID remainder row starts");
  if (!ierr && nrows) {
    CIHybridSplitKernel<<<grid, CIHYBRID_LAYOUT_THREADS, 0, s>>>(nrows, d->aij_rowptr, (long long)boundary, d->ell_len, d->csr_start, sums);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridSplitKernel<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&h, sums, sizeof(h));
  if (!ierr) status = CIHybridLayoutFromSums(nrows, ncols, boundary, nnz, h.width, (PetscInt64)h.nnz_ell, (PetscInt64)h.rows_with_csr, rows.max_len, fmt);
  /* csr_start: the exclusive scan of the remainders' lengths (their sum fits int32: checked above) */
  if (!ierr && status == CIHYBRID_OK && nrows) ierr = CIHybridExclusiveScan((int)nrows + 1, d->csr_start, s);
  if (!ierr && status == CIHYBRID_OK) ierr = CIHybridDeviceAllocateArrays(d, fmt);
  PetscCall(GpuMatsCUDAFree(dhist));
  PetscCall(GpuMatsCUDAFree(sums));
  PetscCall(PetscFree(hist));
  if (ierr || status != CIHYBRID_OK) PetscCall(CIHybridDeviceDestroy(&d));
  PetscCall(ierr);
  PetscCheck(status == CIHYBRID_OK, PETSC_COMM_SELF, status == CIHYBRID_ERR_MEMORY ? PETSC_ERR_MEM : PETSC_ERR_ARG_OUTOFRANGE, "CIHYBRID layout of %" PetscInt_FMT " rows with BOUNDARY %" PetscInt_FMT " (%lld entries in ELLPACK, width %lld): %s", nrows, boundary, (long long)h.nnz_ell, h.width, CIHybridStatusString(status));
  *chosen = boundary;
  *dev    = d;
  PetscFunctionReturn(0);
}
