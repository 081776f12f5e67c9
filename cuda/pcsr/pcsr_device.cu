/* The device copy of a PCSR matrix: plain CSR with int32 indices made from the host
   AIJ arrays (row pointers, their statistics and the adaptive kernel's row blocks made on the
   device: pcsr_rows.cu; columns checked on the device), value refresh, release, bytes held. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The PCSR CUDA kernels are written for real double-precision PetscScalar"
#endif

#define PCSR_CHECK_THREADS 256
/* Columns converted at once when PetscInt is not 32-bit: the temporary device buffer */
#define PCSR_CONVERT_CHUNK ((PetscInt64)1 << 24)

PetscErrorCode PCSRDeviceAllocate(PCSRDevice dev, void **ptr, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAMalloc(ptr, bytes, what));
  if (*ptr) dev->bytes += bytes;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceRelease(PCSRDevice dev, void **ptr, size_t bytes)
{
  PetscFunctionBegin;
  if (*ptr) {
    PetscCall(GpuMatsCUDAFree(*ptr));
    dev->bytes -= bytes;
  }
  *ptr = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceGetCSR(PCSRDevice dev, PetscBool transposed, PCSRDeviceCSR *A)
{
  PetscFunctionBegin;
  A->nnz = dev->nnz;
  if (!transposed) {
    A->nrows = dev->nrows;
    A->ncols = dev->ncols;
    A->ptr   = dev->ptr;
    A->col   = dev->col;
    A->val   = dev->val;
  } else {
    PetscCheck(dev->t_built && !dev->t_stale, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PCSR transposed copy used before it was built or refreshed");
    A->nrows = dev->ncols;
    A->ncols = dev->nrows;
    A->ptr   = dev->t_ptr;
    A->col   = dev->t_col;
    A->val   = dev->t_val;
  }
  PetscFunctionReturn(0);
}

/* ---- columns: checked on the device -------------------------------------------------- */

/* Columns in[0, n) must lie in [0, ncols); *first_bad gets the smallest position
   (offset + i) of one that does not.  out NULL: check only (in is already the int32
   column array); else out[i] = in[i] as int32. */
template <typename T>
__global__ void PCSRCheckColumns(const T *in, long long n, long long offset, int ncols, int32_t *out, int *first_bad)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const T c = in[i];

    if (c < 0 || c >= (T)ncols) atomicMin(first_bad, (int)(offset + i));
    if (out) out[i] = (int32_t)c;
  }
}

template <typename T>
static PetscErrorCode PCSRCheckColumnsLaunch(const T *in, long long n, long long offset, int ncols, int32_t *out, int *first_bad)
{
  void          *stream;
  const unsigned blocks = GpuMatsCUDAGridBlocks(n, PCSR_CHECK_THREADS);

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PCSRCheckColumns<T><<<blocks, PCSR_CHECK_THREADS, 0, (cudaStream_t)stream>>>(in, n, offset, ncols, out, first_bad);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* The columns aj[0, nnz) of the rows (host) into d->col, converted to int32 and checked;
   *first_bad (host) is INT32_MAX or the position of the first column out of range. */
static PetscErrorCode PCSRDeviceUploadColumns(PCSRDevice d, const PetscInt *aj, int *first_bad)
{
  const PetscInt64 nnz  = d->nnz;
  int             *bad  = NULL;
  PetscInt        *tmp  = NULL;
  PetscErrorCode   ierr = 0;
  const int        none = INT32_MAX;

  PetscFunctionBegin;
  *first_bad = none;
  if (!nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAMalloc((void **)&bad, sizeof(int), "PCSR column check flag"));
  ierr = GpuMatsCUDACopyToDevice(bad, &none, sizeof(int));
  if (!ierr && sizeof(PetscInt) == sizeof(int32_t)) { /* the host columns are already int32: copy, then check in place */
    ierr = GpuMatsCUDACopyToDevice(d->col, aj, (size_t)nnz * sizeof(int32_t));
    if (!ierr) ierr = PCSRCheckColumnsLaunch<int32_t>(d->col, nnz, 0, (int)d->ncols, NULL, bad);
  } else if (!ierr) { /* wider PetscInt: through a temporary device buffer, a chunk at a time */
    PetscInt64 chunk = PetscMin(nnz, PCSR_CONVERT_CHUNK);
    char       what[128];

    snprintf(what, sizeof(what), "PCSR column conversion buffer (%lld PetscInt)", (long long)chunk);
    ierr = GpuMatsCUDAMalloc((void **)&tmp, (size_t)chunk * sizeof(PetscInt), what);
    for (PetscInt64 k0 = 0; !ierr && k0 < nnz; k0 += chunk) {
      const PetscInt64 n = PetscMin(chunk, nnz - k0);

      ierr = GpuMatsCUDACopyToDevice(tmp, aj + k0, (size_t)n * sizeof(PetscInt));
      if (!ierr) ierr = PCSRCheckColumnsLaunch<PetscInt>(tmp, n, k0, (int)d->ncols, d->col + k0, bad);
    }
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(first_bad, bad, sizeof(int)); /* synchronises: tmp is free to go */
  PetscCall(GpuMatsCUDAFree(tmp));
  PetscCall(GpuMatsCUDAFree(bad));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* ---- values --------------------------------------------------------------------------- */

static PetscErrorCode PCSRDeviceUploadValues(PCSRDevice d, const PetscScalar *aa)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDACopyToDevice(d->val, aa, (size_t)d->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

/* ---- creation ------------------------------------------------------------------------- */

/* Row of entry k (host row pointers, from ai[0]): for the error message. */
static PetscInt PCSRHostRowOf(const PetscInt *ai, PetscInt nrows, PetscInt64 k)
{
  PetscInt lo = 0, hi = nrows; /* ai[lo] - ai[0] <= k < ai[hi] - ai[0] */

  while (hi - lo > 1) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if ((PetscInt64)ai[mid] - ai[0] <= k) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Allocates and fills every array of d; on error the caller releases what was allocated. */
static PetscErrorCode PCSRDeviceUpload(PCSRDevice d, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  const size_t   nnz = (size_t)d->nnz;
  int            first_bad;
  char           what[128];
  PetscLogDouble t[5];

  PetscFunctionBegin;
  (void)PetscTime(&t[0]);
  snprintf(what, sizeof(what), "PCSR row pointers (%d rows)", (int)d->nrows);
  PetscCall(PCSRDeviceAllocate(d, (void **)&d->ptr, ((size_t)d->nrows + 1) * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "PCSR columns (%zu nonzeros)", nnz);
  PetscCall(PCSRDeviceAllocate(d, (void **)&d->col, nnz * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "PCSR values (%zu nonzeros)", nnz);
  PetscCall(PCSRDeviceAllocate(d, (void **)&d->val, nnz * sizeof(double), what));
  PetscCall(PCSRDeviceRowPointers(d, ai));
  (void)PetscTime(&t[1]);
  PetscCall(PCSRDeviceUploadColumns(d, nnz ? aj + ai[0] : NULL, &first_bad));
  (void)PetscTime(&t[2]);
  if (first_bad != INT32_MAX) {
    const PetscInt row = PCSRHostRowOf(ai, d->nrows, first_bad);

    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR: entry %d (row %" PetscInt_FMT ") has column %" PetscInt_FMT ", outside [0, %d): columns must lie in [0, ncols)", first_bad, row, aj[ai[0] + first_bad], (int)d->ncols);
  }
  PetscCall(PCSRDeviceUploadValues(d, nnz ? aa + ai[0] : NULL));
  (void)PetscTime(&t[3]);
  PetscCall(PCSRRowBlocksCreate(d, d->nrows, d->ptr, &d->blocks));
  (void)PetscTime(&t[4]);
  PetscCall(PetscInfo(NULL, "PCSR device copy of %d rows, %zu nonzeros: allocation, row pointers and their statistics %.3g ms, columns %.3g ms, values %.3g ms, row blocks (%d) %.3g ms\n", (int)d->nrows, nnz, (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3, (int)d->blocks.nblocks, (t[4] - t[3]) * 1e3));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceCreateFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PCSRDevice *dev)
{
  PCSRDevice     d;
  PetscInt64     nnz;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCheck(nrows >= 0 && ncols >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR matrix of %" PetscInt_FMT " x %" PetscInt_FMT ": sizes must be >= 0", nrows, ncols);
  PetscCheck(ai, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR: the row pointers ai are NULL; a matrix of %" PetscInt_FMT " rows needs %" PetscInt_FMT " of them", nrows, nrows + 1);
  nnz = (PetscInt64)ai[nrows] - ai[0];
  PetscCheck((PetscInt64)nrows < INT32_MAX && (PetscInt64)ncols < INT32_MAX && nnz >= 0 && nnz <= PCSR_MAX_NNZ, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "PCSR matrix of %" PetscInt_FMT " rows, %" PetscInt_FMT " columns, %" PetscInt64_FMT " nonzeros: the device copy has int32 indices, so rows and columns must be below 2^31-1 and nonzeros at most %lld; use more MPI processes", nrows, ncols, nnz, (long long)PCSR_MAX_NNZ);
  PetscCheck(!nnz || (aj && aa), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR: %" PetscInt64_FMT " nonzeros but the column or value array is NULL", nnz);

  PetscCall(PetscNew(&d));
  d->nrows = (int32_t)nrows;
  d->ncols = (int32_t)ncols;
  d->nnz   = (int32_t)nnz;
  ierr     = PCSRDeviceUpload(d, ai, aj, aa);
  if (ierr) { /* release what was allocated before the failure, then pass the error on */
    (void)PCSRDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceGetRowStats(PCSRDevice dev, PCSRRowStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR device copy is NULL: create it with PCSRDeviceCreateFromCSR first");
  *stats = dev->stats;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceCopyValues(PCSRDevice dev, const PetscInt *ai, const PetscScalar *aa)
{
  PetscInt64 nnz;

  PetscFunctionBegin;
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR device copy is NULL: create it with PCSRDeviceCreateFromCSR first");
  nnz = (PetscInt64)ai[dev->nrows] - ai[0];
  PetscCheck(nnz == dev->nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "PCSR value refresh with %" PetscInt64_FMT " nonzeros, the device copy has %d: the structure changed, rebuild instead", nnz, (int)dev->nnz);
  if (!nnz) PetscFunctionReturn(0);
  PetscCall(PCSRDeviceUploadValues(dev, aa + ai[0]));
  if (dev->t_built) dev->t_stale = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceDestroy(PCSRDevice *dev)
{
  PCSRDevice d;

  PetscFunctionBegin;
  if (!dev || !*dev) PetscFunctionReturn(0);
  d = *dev;
  PetscCall(PCSRDeviceTransposeDestroy(d));
  PetscCall(GpuMatsCUDAFree(d->ptr));
  PetscCall(GpuMatsCUDAFree(d->col));
  PetscCall(GpuMatsCUDAFree(d->val));
  PetscCall(GpuMatsCUDAFree(d->v));
  PetscCall(PCSRRowBlocksDestroy(d, &d->blocks));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceBytes(PCSRDevice dev, size_t *bytes)
{
  PetscFunctionBegin;
  *bytes = dev ? dev->bytes : 0;
  PetscFunctionReturn(0);
}
