/* A CIHYBRID device copy written by a row generator on the device (MatCIHybridAssembleOnDevice),
   and what a matrix that lives only there needs: its row lengths, a check of what the
   generator wrote, its diagonal, and a host copy of its arrays. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}
#include <gpumats.h>
#include "cihybrid_arrays.cuh"

#define CIHYBRID_GEN_BLOCK 256
#define CIHYBRID_FULL_WARP 0xffffffffu

PetscErrorCode CIHybridDeviceCountRows(PetscInt nrows, const MatCIHybridDeviceRows *rows, PetscInt *len)
{
  int           *dlen = NULL, *hlen = NULL;
  void          *stream;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!nrows) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(GpuMatsCUDAMalloc((void **)&dlen, (size_t)nrows * sizeof(int), "the row lengths of a device assembly"));
  ierr = GpuMatsCUDAMemset(dlen, 0xff, (size_t)nrows * sizeof(int)); /* -1: a row the generator left out */
  if (!ierr) ierr = (*rows->count)(rows->ctx, stream, dlen);
  if (!ierr) ierr = PetscMalloc1(nrows, &hlen);
  if (!ierr) ierr = GpuMatsCUDACopyToHost(hlen, dlen, (size_t)nrows * sizeof(int));
  (void)GpuMatsCUDAFree(dlen);
  if (ierr) (void)PetscFree(hlen);
  PetscCall(ierr);
  for (PetscInt i = 0; i < nrows; i++) len[i] = hlen[i];
  PetscCall(PetscFree(hlen));
  for (PetscInt i = 0; i < nrows; i++) PetscCheck(len[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cihybrid device assembly: the generator's count gave row %" PetscInt_FMT " no length, or a negative one", i);
  PetscFunctionReturn(0);
}

/* One warp per row: its entries, ELLPACK then remainder, must have columns in [0, ncols) and
   strictly ascending, and its padding must still be (-1, 0).  The first bad row goes to *bad. */
__global__ void CIHybridCheckRows(CIHybridArrays A, int ncols, int *bad)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= A.nrows) return;
  const int    s = A.ell_len ? A.ell_len[row] : 0, cs = A.csr_start[row], len = s + A.csr_start[row + 1] - cs;
  const size_t ell = (size_t)row * (size_t)A.pitch;
  int          carry = -1;

  for (int p0 = 0; p0 < len; p0 += 32) {
    const int p = p0 + lane;
    int       c = INT_MAX, prev;

    if (p < len) c = p < s ? A.ell_col[ell + p] : A.csr_col[cs + p - s];
    prev = __shfl_up_sync(CIHYBRID_FULL_WARP, c, 1);
    if (lane == 0) prev = carry;
    if (__any_sync(CIHYBRID_FULL_WARP, p < len && (c < 0 || c >= ncols || c <= prev))) {
      if (lane == 0) atomicMin(bad, (int)row);
      return;
    }
    carry = __shfl_sync(CIHYBRID_FULL_WARP, c, 31);
  }
  for (int p = s + lane; p < A.pitch; p += 32)
    if (A.ell_col[ell + p] != -1 || A.ell_val[ell + p] != 0.0) atomicMin(bad, (int)row);
}

PetscErrorCode CIHybridDeviceCreateFromRows(const CIHybridFormat *layout, const MatCIHybridDeviceRows *rows, CIHybridDevice *dev)
{
  CIHybridDevice          d;
  MatCIHybridDeviceArrays arrays;
  void                   *stream;
  int                    *bad = NULL, hbad = INT_MAX;
  PetscErrorCode          ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(PetscNew(&d));
  ierr = CIHybridDeviceAllocateArrays(d, layout);
  if (!ierr) ierr = CIHybridDeviceUploadLayout(d, layout);
  /* the padding: column -1 (all bits set), value 0; the remainder's columns -1 too, so that an
     entry the generator leaves out fails the check */
  if (!ierr) ierr = GpuMatsCUDAMemset(d->ell_col, 0xff, (size_t)d->nrows * d->pitch * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDAMemset(d->csr_col, 0xff, (size_t)d->nnz_csr * sizeof(int32_t));
  if (!ierr) ierr = GpuMatsCUDAMemset(d->ell_val, 0, (size_t)d->nrows * d->pitch * sizeof(PetscScalar));
  if (!ierr) ierr = CIHybridDeviceGetArrays(d, &arrays);
  if (!ierr) ierr = (*rows->fill)(rows->ctx, stream, &arrays);
  if (!ierr && d->nrows) {
    ierr = GpuMatsCUDAMalloc((void **)&bad, sizeof(int), "cihybrid device assembly: error flag");
    if (!ierr) ierr = GpuMatsCUDACopyToDevice(bad, &hbad, sizeof(int));
    if (!ierr) {
      CIHybridCheckRows<<<CIHybridRowWarpGrid(d->nrows, CIHYBRID_GEN_BLOCK), CIHYBRID_GEN_BLOCK, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(d), (int)d->ncols, bad);
      ierr = CIHybridLaunched("CIHybridCheckRows<<<>>>");
    }
    if (!ierr) ierr = GpuMatsCUDACopyToHost(&hbad, bad, sizeof(int));
    (void)GpuMatsCUDAFree(bad);
  }
  if (!ierr && hbad != INT_MAX) ierr = PETSC_ERR_ARG_WRONG;
  d->filled = ierr ? PETSC_FALSE : PETSC_TRUE;
  if (ierr) {
    (void)CIHybridDeviceDestroy(&d);
    PetscCheck(hbad == INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cihybrid device assembly: row %d as the generator wrote it has a column outside 0..%" PetscInt_FMT ", columns not ascending, or entries in its padding (slots beyond its length)", hbad, layout->ncols - 1);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

/* One warp per row: the value in column 'row' (0 when there is none). */
__global__ void CIHybridDiagonal(CIHybridArrays A, int n, double *diag)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= n) return;
  const int    s = A.ell_len ? A.ell_len[row] : 0, cs = A.csr_start[row], len = s + A.csr_start[row + 1] - cs;
  const size_t ell = (size_t)row * (size_t)A.pitch;
  double       v   = 0.0;

  for (int p = lane; p < len; p += 32) {
    const bool in_ell = p < s;
    const int  c      = in_ell ? A.ell_col[ell + p] : A.csr_col[cs + p - s];
    if (c == row) v = in_ell ? A.ell_val[ell + p] : A.csr_val[cs + p - s];
  }
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(CIHYBRID_FULL_WARP, v, offset);
  if (lane == 0) diag[row] = v;
}

PetscErrorCode CIHybridDeviceGetDiagonal(CIHybridDevice dev, PetscScalar *diag)
{
  const PetscInt n = PetscMin(dev->nrows, dev->ncols);
  void          *stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  CIHybridDiagonal<<<CIHybridRowWarpGrid(n, CIHYBRID_GEN_BLOCK), CIHYBRID_GEN_BLOCK, 0, (cudaStream_t)stream>>>(CIHybridArraysOf(dev), (int)n, diag);
  PetscCall(CIHybridLaunched("CIHybridDiagonal<<<>>>"));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceDownload(CIHybridDevice dev, CIHybridFormat *fmt)
{
  const size_t slots = (size_t)dev->nrows * (size_t)dev->pitch, nnz_csr = (size_t)dev->nnz_csr;

  PetscFunctionBegin;
  PetscCheck(fmt->nrows == dev->nrows && fmt->pitch == dev->pitch && fmt->nnz_csr == dev->nnz_csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: the host layout (%" PetscInt_FMT " rows, pitch %" PetscInt_FMT ", %" PetscInt64_FMT " remainder nonzeros) is not the device's", fmt->nrows, fmt->pitch, fmt->nnz_csr);
  CIHybridFormatFreeArrays(fmt);
  fmt->ell_col = (int32_t *)malloc(slots ? slots * sizeof(int32_t) : 1);
  fmt->ell_val = (PetscScalar *)malloc(slots ? slots * sizeof(PetscScalar) : 1);
  fmt->csr_col = (int32_t *)malloc(nnz_csr ? nnz_csr * sizeof(int32_t) : 1);
  fmt->csr_val = (PetscScalar *)malloc(nnz_csr ? nnz_csr * sizeof(PetscScalar) : 1);
  if (!fmt->ell_col || !fmt->ell_val || !fmt->csr_col || !fmt->csr_val) {
    CIHybridFormatFreeArrays(fmt);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "cihybrid: out of host memory for the host copy of a device-built matrix (%zu ELLPACK slots, %zu remainder nonzeros: %.1f MB)", slots, nnz_csr,
            (double)(slots + nnz_csr) * (sizeof(int32_t) + sizeof(PetscScalar)) / 1e6);
  }
  PetscCall(GpuMatsCUDACopyToHost(fmt->ell_col, dev->ell_col, slots * sizeof(int32_t)));
  PetscCall(GpuMatsCUDACopyToHost(fmt->ell_val, dev->ell_val, slots * sizeof(PetscScalar)));
  PetscCall(GpuMatsCUDACopyToHost(fmt->csr_col, dev->csr_col, nnz_csr * sizeof(int32_t)));
  PetscCall(GpuMatsCUDACopyToHost(fmt->csr_val, dev->csr_val, nnz_csr * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
