/* The device copy of a CIHybridFormat, made on the device from the AIJ arrays and the
   format's layout: allocation, fill, value refresh, release. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}

PetscErrorCode CIHybridDeviceAllocate(CIHybridDevice d, void **ptr, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(!*ptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID device copy: %s allocated twice", what);
  PetscCall(GpuMatsCUDAMalloc(ptr, bytes, what));
  d->bytes += bytes;
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridDeviceCheckLayout(const CIHybridFormat *fmt)
{
  const PetscInt64 ell_slots = (PetscInt64)fmt->nrows * fmt->pitch;

  PetscFunctionBegin;
  PetscCheck(fmt->nrows >= 0 && fmt->ncols >= 0 && fmt->width >= 0 && fmt->pitch >= fmt->width && fmt->pitch % CIHYBRID_PITCH_ALIGN_NARROW == 0 && fmt->nnz_csr >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT,
             "CIHYBRID format with nrows %" PetscInt_FMT ", ncols %" PetscInt_FMT ", width %" PetscInt_FMT ", pitch %" PetscInt_FMT ", remainder nonzeros %" PetscInt64_FMT ": sizes must be >= 0 and pitch >= width a multiple of %d",
             fmt->nrows, fmt->ncols, fmt->width, fmt->pitch, fmt->nnz_csr, CIHYBRID_PITCH_ALIGN_NARROW);
  PetscCheck(fmt->nrows < INT32_MAX && ell_slots <= INT32_MAX && fmt->nnz_csr <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CIHYBRID format too large for int32 device indices: %" PetscInt64_FMT " ELL slots, %" PetscInt64_FMT " remainder nonzeros", ell_slots, fmt->nnz_csr);
  PetscFunctionReturn(0);
}

/* ---- filling the arrays on the device from the AIJ (CSR) arrays ---------------------- */

/* Entries of the AIJ arrays uploaded at once (PetscInt + PetscScalar each): the
   temporary device memory of a fill, 384 MB with 32-bit PetscInt. */
#define CIHYBRID_FILL_CHUNK ((PetscInt64)1 << 25)
#define CIHYBRID_FILL_BLOCK 256

/* One warp per row r of rows [r0, r1): its s_r leading entries into the ELL row (the
   slots after them are padding: column -1, value 0), the others into the remainder.
   cols/vals hold the chunk's entries, row r's starting at rowptr[r] - base; cols NULL:
   values only.  Sets *bad when a column is out of range or not ascending, or when the
   row's length does not match the layout (the AIJ structure changed unseen). */
__global__ void CIHybridFillRows(int r0, int r1, const PetscInt *rowptr, PetscInt base, const PetscInt *cols, const PetscScalar *vals, int ncols, int pitch, const int32_t *ell_len, const int32_t *csr_start, int32_t *ell_col, PetscScalar *ell_val, int32_t *csr_col, PetscScalar *csr_val, int *bad)
{
  const long long row  = r0 + ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= r1) return;
  const PetscInt64 start = rowptr[row] - base;
  const int        len = (int)(rowptr[row + 1] - rowptr[row]), s = ell_len ? ell_len[row] : 0, cs = csr_start[row];
  const size_t     ell = (size_t)row * (size_t)pitch;
  const int        end = len > pitch ? len : pitch;

  if (lane == 0 && len - s != csr_start[row + 1] - cs) *bad = 1;
  for (int p = lane; p < end; p += 32) {
    const bool        entry = p < len;
    const PetscScalar v     = entry ? vals[start + p] : 0.0;
    if (cols) {
      const PetscInt c = entry ? cols[start + p] : -1;
      if (entry && (c < 0 || c >= ncols || (p > 0 && cols[start + p - 1] >= c))) *bad = 1;
      if (p < pitch) ell_col[ell + p] = p < s ? (int32_t)c : -1;
      if (entry && p >= s) csr_col[cs + p - s] = (int32_t)c;
    }
    if (p < s) ell_val[ell + p] = v;
    else if (p < pitch && cols) ell_val[ell + p] = 0.0; /* padding: set once, with the columns */
    if (entry && p >= s) csr_val[cs + p - s] = v;
  }
}

/* The temporary buffers of a fill for 'chunk' entries (values, and columns when cols).
   Unless 'last', *ok false and nothing allocated when the device has no room for them;
   the last try is an error naming the sizes. */
static PetscErrorCode CIHybridFillBuffers(PetscInt64 chunk, PetscBool cols, PetscBool last, PetscScalar **tvals, PetscInt **tcols, PetscBool *ok)
{
  const size_t   vbytes = (size_t)chunk * sizeof(PetscScalar), cbytes = cols ? (size_t)chunk * sizeof(PetscInt) : 0;
  PetscErrorCode ierr;
  char           what[128];

  PetscFunctionBegin;
  *tcols = NULL;
  *ok    = PETSC_TRUE;
  if (!last) {
    PetscCall(GpuMatsCUDATryMalloc((void **)tvals, vbytes, ok));
    if (*ok) PetscCall(GpuMatsCUDATryMalloc((void **)tcols, cbytes, ok));
    if (!*ok) {
      PetscCall(GpuMatsCUDAFree(*tvals));
      *tvals = NULL;
    }
    PetscFunctionReturn(0);
  }
  snprintf(what, sizeof(what), "CIHYBRID fill: a chunk of %lld AIJ values", (long long)chunk);
  PetscCall(GpuMatsCUDAMalloc((void **)tvals, vbytes, what));
  snprintf(what, sizeof(what), "CIHYBRID fill: a chunk of %lld AIJ columns", (long long)chunk);
  ierr = GpuMatsCUDAMalloc((void **)tcols, cbytes, what);
  if (ierr) {
    PetscCall(GpuMatsCUDAFree(*tvals));
    *tvals = NULL;
  }
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Fills d's arrays from the AIJ arrays: the values, and the columns too until they are in
   place (d->filled; aj may be NULL only for a matrix without entries).  ai goes to the device
   whole at the first fill and stays there (d->aij_rowptr), aj and aa a chunk of rows at a time
   through temporary device buffers.  A chunk holds 2^25 entries, or half as many as often as
   needed to fit the free device memory, but never fewer than the longest row (maxlen) or 2^16. */
static PetscErrorCode CIHybridDeviceFill(CIHybridDevice d, PetscInt64 maxlen, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  const PetscInt64 total    = d->nrows ? (PetscInt64)ai[d->nrows] - ai[0] : 0;
  const PetscInt  *cols     = d->filled ? NULL : aj;
  const PetscInt64 smallest = PetscMin(total, PetscMax(maxlen, (PetscInt64)1 << 16));
  PetscInt64       chunk    = PetscMin(total, PetscMax(CIHYBRID_FILL_CHUNK, maxlen));
  PetscBool        ok       = PETSC_FALSE;
  PetscInt        *tcols = NULL;
  PetscScalar     *tvals = NULL;
  int             *bad   = NULL, hbad = 0, nchunks = 0;
  cudaStream_t     stream;
  PetscLogDouble   t[4] = {0, 0, 0, 0}, uploads = 0;
  PetscErrorCode   ierr = 0;

  PetscFunctionBegin;
  PetscCheck(d->filled || aj || !total, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID fill: the columns of the %lld entries were never filled, and no AIJ columns were given", (long long)total);
  if (!total) { /* no entry: no padding either (the ELLPACK width is 0) */
    d->filled = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(GpuMatsCUDAGetStream((void **)&stream));
  PetscCall(PetscTime(&t[0]));
  if (!d->aij_rowptr) {
    const size_t bytes = (size_t)(d->nrows + 1) * sizeof(PetscInt);

    PetscCall(CIHybridDeviceAllocate(d, (void **)&d->aij_rowptr, bytes, "CIHYBRID fill: the AIJ row starts"));
    ierr = GpuMatsCUDACopyToDevice(d->aij_rowptr, ai, bytes);
    if (ierr) { /* not kept: the next fill uploads them again */
      PetscCall(GpuMatsCUDAFree(d->aij_rowptr));
      d->aij_rowptr = NULL;
      d->bytes -= bytes;
    }
  }
  for (; !ierr; chunk = PetscMax(chunk / 2, smallest)) {
    ierr = CIHybridFillBuffers(chunk, cols ? PETSC_TRUE : PETSC_FALSE, chunk == smallest ? PETSC_TRUE : PETSC_FALSE, &tvals, &tcols, &ok);
    if (ok) break;
  }
  if (!ierr && chunk < PetscMin(total, PetscMax(CIHYBRID_FILL_CHUNK, maxlen))) ierr = PetscInfo(NULL, "CIHYBRID fill in chunks of %lld entries (device memory is short)\n", (long long)chunk);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&bad, sizeof(int), "CIHYBRID fill: error flag");
  if (!ierr) ierr = GpuMatsCUDAMemset(bad, 0, sizeof(int));
  if (!ierr) ierr = PetscTime(&t[1]);
  for (PetscInt r0 = 0, r1; !ierr && r0 < d->nrows; r0 = r1, nchunks++) {
    const PetscInt64 base = ai[r0];
    PetscInt         hi   = d->nrows;
    PetscLogDouble   u0, u1;
    unsigned         grid;

    /* the chunk ends at the last row end within 'chunk' entries: a binary search (a pass over
       4M row pointers costs milliseconds); a row is never longer than a chunk */
    for (r1 = r0 + 1; r1 < hi;) {
      const PetscInt mid = r1 + (hi - r1 + 1) / 2;

      if ((PetscInt64)ai[mid] - base <= chunk) r1 = mid;
      else hi = mid - 1;
    }
    ierr = PetscTime(&u0);
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(tvals, aa + base, (size_t)(ai[r1] - base) * sizeof(PetscScalar));
    if (!ierr && cols) ierr = GpuMatsCUDACopyToDevice(tcols, cols + base, (size_t)(ai[r1] - base) * sizeof(PetscInt));
    if (!ierr) ierr = PetscTime(&u1);
    if (ierr) break;
    uploads += u1 - u0;
    grid = (unsigned)(((size_t)(r1 - r0) * 32 + CIHYBRID_FILL_BLOCK - 1) / CIHYBRID_FILL_BLOCK);
    CIHybridFillRows<<<grid, CIHYBRID_FILL_BLOCK, 0, stream>>>((int)r0, (int)r1, d->aij_rowptr, (PetscInt)base, cols ? tcols : NULL, tvals, (int)d->ncols, (int)d->pitch, d->ell_len, d->csr_start, d->ell_col, d->ell_val, d->csr_col, d->csr_val, bad);
    ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridFillRows<<<>>>", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
  }
  if (!ierr) ierr = GpuMatsCUDACopyToHost(&hbad, bad, sizeof(int));
  if (!ierr) ierr = PetscTime(&t[2]);
  PetscCall(GpuMatsCUDAFree(tvals));
  PetscCall(GpuMatsCUDAFree(tcols));
  PetscCall(GpuMatsCUDAFree(bad));
  PetscCall(ierr);
  PetscCheck(!hbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: the AIJ arrays are not a valid sorted CSR matrix of %" PetscInt_FMT " columns, or its structure changed unseen", d->ncols);
  PetscCall(PetscTime(&t[3]));
  PetscCall(PetscInfo(NULL, "CIHYBRID fill of %lld %s in %d chunk(s): row pointers and buffers %.3g ms, uploads %.3g ms, fill kernels %.3g ms, buffers freed %.3g ms\n", (long long)total, cols ? "entries" : "values", nchunks, (t[1] - t[0]) * 1e3, uploads * 1e3, (t[2] - t[1] - uploads) * 1e3, (t[3] - t[2]) * 1e3));
  d->filled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceAllocateArrays(CIHybridDevice d, const CIHybridFormat *fmt)
{
  static unsigned long long layouts = 0; /* every device copy's layout is made here, once */
  const size_t nrows     = (size_t)fmt->nrows;
  const size_t ell_slots = nrows * (size_t)fmt->pitch;
  const size_t csr_slots = (size_t)fmt->nnz_csr;
  char         what[128];

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceCheckLayout(fmt));
  d->nrows   = fmt->nrows;
  d->ncols   = fmt->ncols;
  d->width   = fmt->width;
  d->pitch   = fmt->pitch;
  d->nnz     = fmt->nnz_ell + fmt->nnz_csr;
  d->nnz_csr = fmt->nnz_csr;
  d->layout  = ++layouts;

  snprintf(what, sizeof(what), "CIHYBRID ELL columns (%zu rows x pitch %zu)", nrows, (size_t)fmt->pitch);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_col, ell_slots * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "CIHYBRID ELL values (%zu rows x pitch %zu)", nrows, (size_t)fmt->pitch);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_val, ell_slots * sizeof(PetscScalar), what));
  /* the layout's own arrays, unless the device layout made them (cihybrid_layout.cu) */
  if (fmt->width && !d->ell_len) PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_len, nrows * sizeof(int32_t), "CIHYBRID ELL row lengths"));
  if (nrows && !d->csr_start) PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_start, (nrows + 1) * sizeof(int32_t), "CIHYBRID remainder row starts"));
  snprintf(what, sizeof(what), "CIHYBRID remainder columns (%zu nonzeros)", csr_slots);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_col, csr_slots * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "CIHYBRID remainder values (%zu nonzeros)", csr_slots);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_val, csr_slots * sizeof(PetscScalar), what));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceUploadLayout(CIHybridDevice d, const CIHybridFormat *fmt)
{
  const size_t nrows = (size_t)fmt->nrows;

  PetscFunctionBegin;
  PetscCheck(!nrows || (fmt->csr_start && fmt->ell_len), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID format with %zu rows has no layout on the host (csr_start, ell_len)", nrows);
  if (d->ell_len) PetscCall(GpuMatsCUDACopyToDevice(d->ell_len, fmt->ell_len, nrows * sizeof(int32_t)));
  if (d->csr_start) PetscCall(GpuMatsCUDACopyToDevice(d->csr_start, fmt->csr_start, (nrows + 1) * sizeof(int32_t)));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceDestroy(CIHybridDevice *dev)
{
  CIHybridDevice d = *dev;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree(d->ell_col));
  PetscCall(GpuMatsCUDAFree(d->ell_val));
  PetscCall(GpuMatsCUDAFree(d->ell_len));
  PetscCall(GpuMatsCUDAFree(d->csr_start));
  PetscCall(GpuMatsCUDAFree(d->csr_col));
  PetscCall(GpuMatsCUDAFree(d->csr_val));
  PetscCall(GpuMatsCUDAFree(d->spmm_work));
  PetscCall(GpuMatsCUDAFree(d->diag_pos));
  PetscCall(GpuMatsCUDAFree(d->aij_rowptr));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceCreateFromCSR(const CIHybridFormat *layout, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, CIHybridDevice *dev)
{
  CIHybridDevice d;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCall(PetscNew(&d));
  ierr = CIHybridDeviceAllocateArrays(d, layout);
  if (!ierr) ierr = CIHybridDeviceUploadLayout(d, layout);
  if (!ierr) ierr = CIHybridDeviceFill(d, layout->max_row_len, ai, aj, aa);
  if (ierr) { /* release what was allocated before the failure, then pass the error on */
    (void)CIHybridDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceFillFromCSR(CIHybridDevice dev, const CIHybridFormat *layout, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  PetscFunctionBegin;
  PetscCheck(dev->nrows == layout->nrows && dev->pitch == layout->pitch && dev->nnz_csr == layout->nnz_csr, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "CIHYBRID fill with a different structure: device has %" PetscInt_FMT " rows, pitch %" PetscInt_FMT ", %" PetscInt64_FMT " remainder nonzeros; format has %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt64_FMT " (rebuild instead)",
             dev->nrows, dev->pitch, dev->nnz_csr, layout->nrows, layout->pitch, layout->nnz_csr);
  PetscCall(CIHybridDeviceFill(dev, layout->max_row_len, ai, aj, aa));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceCopyValuesFromCSR(CIHybridDevice dev, const CIHybridFormat *layout, const PetscInt *ai, const PetscScalar *aa)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceFillFromCSR(dev, layout, ai, NULL, aa));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceBytes(CIHybridDevice dev, size_t *bytes)
{
  PetscFunctionBegin;
  *bytes = dev->bytes;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceGetArrays(CIHybridDevice dev, MatCIHybridDeviceArrays *arrays)
{
  PetscFunctionBegin;
  arrays->nrows     = dev->nrows;
  arrays->ncols     = dev->ncols;
  arrays->pitch     = dev->pitch;
  arrays->ell_len   = dev->ell_len;
  arrays->csr_start = dev->csr_start;
  arrays->ell_col   = dev->ell_col;
  arrays->ell_val   = dev->ell_val;
  arrays->csr_col   = dev->csr_col;
  arrays->csr_val   = dev->csr_val;
  PetscFunctionReturn(0);
}
