/* The rows of one process of an MPI cihybrid matrix made on the device (MatCIHybridAssembleOnDevice
   on an mpiaijcihybrid): the generator writes them once, with global columns, into a CSR of the
   process; one pass checks them, counts each row's entries inside the process's columns and
   marks the columns outside; the marked columns, in ascending order, are the off-process block's
   columns (MPIAIJ's garray); then each block takes its part of the rows through a generator of
   its own (MatCIHybridAssembleOnDevice on the block): the diagonal block's columns numbered from
   cstart, the off-process block's by their place in garray. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cuda.h"
}
#include <gpumats_cihybrid_device.h>
#include "cihybrid_arrays.cuh"

#define CIHYBRID_SPLIT_BLOCK 256
#define CIHYBRID_SPLIT_WARP  0xffffffffu

struct _n_CIHybridProcessRows {
  PetscInt   m, N, cstart, cend;
  PetscInt64 nnz;
  int       *rowptr;        /* m + 1, device */
  int       *col;           /* nnz, device: global columns */
  double    *val;           /* nnz, device */
  int       *dlen, *olen;   /* m, device: entries of each row inside and outside cstart..cend-1 */
  int       *colmap;        /* N, device: an off-process column's place in garray (-1: none) */
  PetscInt   ngarray;
  PetscInt  *garray;        /* ngarray, host */
  PetscBool  offdiagonal;   /* which block the generator of CIHybridProcessRowsGetBlockRows fills */
};

/* One warp per row: columns in [0, N) and strictly ascending (else the first bad row goes to
   *bad), the entries inside [cstart, cend) counted, the columns outside marked. */
__global__ void CIHybridSplitScan(int m, int N, int cstart, int cend, const int *rowptr, const int *col, int *dlen, int *olen, unsigned char *mark, int *bad)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= m) return;
  const int start = rowptr[row], len = rowptr[row + 1] - start;
  int       carry = -1, inside = 0;

  for (int p0 = 0; p0 < len; p0 += 32) {
    const int p = p0 + lane;
    int       c = INT_MAX, prev;

    if (p < len) c = col[start + p];
    prev = __shfl_up_sync(CIHYBRID_SPLIT_WARP, c, 1);
    if (lane == 0) prev = carry;
    if (__any_sync(CIHYBRID_SPLIT_WARP, p < len && (c < 0 || c >= N || c <= prev))) {
      if (lane == 0) atomicMin(bad, (int)row);
      return;
    }
    inside += __popc(__ballot_sync(CIHYBRID_SPLIT_WARP, p < len && c >= cstart && c < cend));
    if (p < len && (c < cstart || c >= cend)) mark[c] = 1;
    carry = __shfl_sync(CIHYBRID_SPLIT_WARP, c, 31);
  }
  if (lane == 0) {
    dlen[row] = inside;
    olen[row] = len - inside;
  }
}

/* One warp per row: the row's entries of one block, in order, into that block's arrays */
__global__ void CIHybridSplitFill(int m, int cstart, int cend, bool offdiagonal, const int *rowptr, const int *col, const double *val, const int *colmap, MatCIHybridDeviceArrays A)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= m) return;
  const int start = rowptr[row], len = rowptr[row + 1] - start;
  int       count = 0;

  for (int p0 = 0; p0 < len; p0 += 32) {
    const int      p    = p0 + lane;
    const int      c    = p < len ? col[start + p] : 0;
    const bool     mine = p < len && ((c >= cstart && c < cend) != offdiagonal);
    const unsigned mask = __ballot_sync(CIHYBRID_SPLIT_WARP, mine);

    if (mine) MatCIHybridDeviceSetEntry(A, row, count + __popc(mask & ((1u << lane) - 1)), offdiagonal ? colmap[c] : c - cstart, val[start + p]);
    count += __popc(mask);
  }
}

static PetscErrorCode CIHybridSplitBlockCount(void *ctx, void *stream, int *len)
{
  CIHybridProcessRows s = (CIHybridProcessRows)ctx;

  PetscFunctionBegin;
  if (s->m) PetscCall(GpuMatsCUDACheck((int)cudaMemcpyAsync(len, s->offdiagonal ? s->olen : s->dlen, (size_t)s->m * sizeof(int), cudaMemcpyDeviceToDevice, (cudaStream_t)stream), "cudaMemcpyAsync", PETSC_FUNCTION_NAME, __FILE__, __LINE__));
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridSplitBlockFill(void *ctx, void *stream, const MatCIHybridDeviceArrays *A)
{
  CIHybridProcessRows s = (CIHybridProcessRows)ctx;

  PetscFunctionBegin;
  if (!s->m) PetscFunctionReturn(0);
  CIHybridSplitFill<<<CIHybridRowWarpGrid(s->m, CIHYBRID_SPLIT_BLOCK), CIHYBRID_SPLIT_BLOCK, 0, (cudaStream_t)stream>>>((int)s->m, (int)s->cstart, (int)s->cend, s->offdiagonal, s->rowptr, s->col, s->val, s->colmap, *A);
  PetscCall(CIHybridLaunched("CIHybridSplitFill<<<>>>"));
  PetscFunctionReturn(0);
}

/* The rows into the process's CSR, and the row starts of it (host and device) */
static PetscErrorCode CIHybridSplitMakeRows(CIHybridProcessRows s, const MatCIHybridDeviceRows *rows, void *stream)
{
  PetscInt               *len;
  int                    *rowptr;
  MatCIHybridDeviceArrays arrays;
  PetscErrorCode          ierr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(s->m, &len, s->m + 1, &rowptr));
  ierr      = CIHybridDeviceCountRows(s->m, rows, len);
  rowptr[0] = 0;
  for (PetscInt i = 0; !ierr && i < s->m && s->nnz <= INT_MAX; i++) {
    s->nnz += len[i];
    rowptr[i + 1] = (int)s->nnz; /* used only when no row start overflows */
  }
  if (!ierr && s->nnz <= INT_MAX) ierr = GpuMatsCUDAMalloc((void **)&s->rowptr, (size_t)(s->m + 1) * sizeof(int), "the row starts of the rows of an MPI device assembly");
  if (!ierr && s->nnz <= INT_MAX) ierr = GpuMatsCUDACopyToDevice(s->rowptr, rowptr, (size_t)(s->m + 1) * sizeof(int));
  PetscCall(PetscFree2(len, rowptr));
  PetscCall(ierr);
  PetscCheck(s->nnz <= INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid MPI device assembly: the %" PetscInt_FMT " rows of this process have more than %d entries, beyond the 32-bit device indices: use more processes", s->m, INT_MAX);
  PetscCall(GpuMatsCUDAMalloc((void **)&s->col, (size_t)PetscMax(s->nnz, 1) * sizeof(int), "the columns of the rows of an MPI device assembly"));
  PetscCall(GpuMatsCUDAMalloc((void **)&s->val, (size_t)PetscMax(s->nnz, 1) * sizeof(double), "the values of the rows of an MPI device assembly"));
  PetscCall(GpuMatsCUDAMemset(s->col, 0xff, (size_t)s->nnz * sizeof(int))); /* -1: an entry the generator left out fails the check */
  PetscCall(PetscMemzero(&arrays, sizeof(arrays)));
  arrays.nrows     = s->m;
  arrays.ncols     = s->N;
  arrays.csr_start = s->rowptr;
  arrays.csr_col   = s->col;
  arrays.csr_val   = s->val;
  PetscCall((*rows->fill)(rows->ctx, stream, &arrays));
  PetscFunctionReturn(0);
}

/* The rows checked and counted, and garray with the map to it from the marked columns */
static PetscErrorCode CIHybridSplitMakeColumns(CIHybridProcessRows s, void *stream)
{
  unsigned char *mark = NULL, *hmark = NULL;
  int           *bad = NULL, hbad = INT_MAX, *hmap = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAMalloc((void **)&s->dlen, (size_t)PetscMax(s->m, 1) * sizeof(int), "the row lengths of the diagonal block"));
  PetscCall(GpuMatsCUDAMalloc((void **)&s->olen, (size_t)PetscMax(s->m, 1) * sizeof(int), "the row lengths of the off-process block"));
  PetscCall(GpuMatsCUDAMalloc((void **)&mark, (size_t)PetscMax(s->N, 1), "the marks of the off-process columns"));
  ierr = GpuMatsCUDAMalloc((void **)&bad, sizeof(int), "cihybrid MPI device assembly: error flag");
  if (!ierr) ierr = GpuMatsCUDAMemset(mark, 0, (size_t)s->N);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(bad, &hbad, sizeof(int));
  if (!ierr && s->m) {
    CIHybridSplitScan<<<CIHybridRowWarpGrid(s->m, CIHYBRID_SPLIT_BLOCK), CIHYBRID_SPLIT_BLOCK, 0, (cudaStream_t)stream>>>((int)s->m, (int)s->N, (int)s->cstart, (int)s->cend, s->rowptr, s->col, s->dlen, s->olen, mark, bad);
    ierr = CIHybridLaunched("CIHybridSplitScan<<<>>>");
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hbad, bad, sizeof(int));
  if (!ierr && hbad == INT_MAX) ierr = PetscMalloc2(s->N, &hmark, s->N, &hmap);
  if (!ierr && hbad == INT_MAX) ierr = GpuMatsCUDACopyToHost(hmark, mark, (size_t)s->N);
  (void)GpuMatsCUDAFree(bad);
  (void)GpuMatsCUDAFree(mark);
  if (ierr) (void)PetscFree2(hmark, hmap);
  PetscCall(ierr);
  PetscCheck(hbad == INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cihybrid MPI device assembly: local row %d as the generator wrote it has a column outside 0..%" PetscInt_FMT ", or columns not ascending", hbad, s->N - 1);
  /* ascending order: MPIAIJ's garray, and each marked column's place in it */
  for (PetscInt c = 0; c < s->N; c++) hmap[c] = hmark[c] ? (int)s->ngarray++ : -1;
  ierr = PetscMalloc1(s->ngarray, &s->garray);
  for (PetscInt c = 0; !ierr && c < s->N; c++)
    if (hmap[c] >= 0) s->garray[hmap[c]] = c;
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->colmap, (size_t)PetscMax(s->N, 1) * sizeof(int), "the map of the off-process columns");
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(s->colmap, hmap, (size_t)s->N * sizeof(int));
  PetscCall(PetscFree2(hmark, hmap));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridProcessRowsCreate(PetscInt m, PetscInt N, PetscInt cstart, PetscInt cend, const MatCIHybridDeviceRows *rows, CIHybridProcessRows *split)
{
  CIHybridProcessRows  s;
  void          *stream;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *split = NULL;
  PetscCheck(N < INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid MPI device assembly: %" PetscInt_FMT " columns do not fit the 32-bit device indices", N);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(PetscNew(&s));
  s->m      = m;
  s->N      = N;
  s->cstart = cstart;
  s->cend   = cend;
  ierr      = CIHybridSplitMakeRows(s, rows, stream);
  if (!ierr) ierr = CIHybridSplitMakeColumns(s, stream);
  if (ierr) {
    (void)CIHybridProcessRowsDestroy(&s);
    PetscCall(ierr);
  }
  *split = s;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridProcessRowsGetGarray(CIHybridProcessRows s, PetscInt *n, const PetscInt **garray)
{
  PetscFunctionBegin;
  *n      = s->ngarray;
  *garray = s->garray;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridProcessRowsGetBlockRows(CIHybridProcessRows s, PetscBool offdiagonal, MatCIHybridDeviceRows *rows)
{
  PetscFunctionBegin;
  s->offdiagonal = offdiagonal;
  rows->count    = CIHybridSplitBlockCount;
  rows->fill     = CIHybridSplitBlockFill;
  rows->ctx      = s;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridProcessRowsDestroy(CIHybridProcessRows *split)
{
  CIHybridProcessRows s = *split;

  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree(s->rowptr));
  PetscCall(GpuMatsCUDAFree(s->col));
  PetscCall(GpuMatsCUDAFree(s->val));
  PetscCall(GpuMatsCUDAFree(s->dlen));
  PetscCall(GpuMatsCUDAFree(s->olen));
  PetscCall(GpuMatsCUDAFree(s->colmap));
  PetscCall(PetscFree(s->garray));
  PetscCall(PetscFree(*split));
  PetscFunctionReturn(0);
}
