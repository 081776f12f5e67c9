/* The device copy of a CIHybridFormat: allocation, upload, value refresh, release. */
#include <petscsys.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}

static PetscErrorCode CIHybridDeviceAllocate(CIHybridDevice d, void **ptr, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAMalloc(ptr, bytes, what));
  d->bytes += bytes;
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridDeviceCheckFormat(const CIHybridFormat *fmt)
{
  const PetscInt64 ell_slots = (PetscInt64)fmt->nrows * fmt->pitch;

  PetscFunctionBegin;
  PetscCheck(fmt->nrows >= 0 && fmt->ncols >= 0 && fmt->width >= 0 && fmt->pitch >= fmt->width && fmt->pitch % CIHYBRID_PITCH_ALIGN_NARROW == 0 && fmt->nnz_csr >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT,
             "CIHYBRID format with nrows %" PetscInt_FMT ", ncols %" PetscInt_FMT ", width %" PetscInt_FMT ", pitch %" PetscInt_FMT ", remainder nonzeros %" PetscInt64_FMT ": sizes must be >= 0 and pitch >= width a multiple of %d",
             fmt->nrows, fmt->ncols, fmt->width, fmt->pitch, fmt->nnz_csr, CIHYBRID_PITCH_ALIGN_NARROW);
  PetscCheck(fmt->nrows < INT32_MAX && ell_slots <= INT32_MAX && fmt->nnz_csr <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CIHYBRID format too large for int32 device indices: %" PetscInt64_FMT " ELL slots, %" PetscInt64_FMT " remainder nonzeros", ell_slots, fmt->nnz_csr);
  PetscCheck(!fmt->nrows || fmt->csr_start, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID format with %" PetscInt_FMT " rows has no csr_start", fmt->nrows);
  PetscCheck(!ell_slots || (fmt->ell_col && fmt->ell_val), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID format with %" PetscInt64_FMT " ELL slots has no ELL arrays", ell_slots);
  PetscCheck(!fmt->width || !fmt->nrows || fmt->ell_len, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID format of ELL width %" PetscInt_FMT " has no ell_len", fmt->width);
  PetscCheck(!fmt->nnz_csr || (fmt->csr_col && fmt->csr_val), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CIHYBRID format with %" PetscInt64_FMT " remainder nonzeros has no remainder arrays", fmt->nnz_csr);
  PetscFunctionReturn(0);
}

/* Allocates and fills every array of d; on error the caller releases what was allocated. */
static PetscErrorCode CIHybridDeviceUpload(CIHybridDevice d, const CIHybridFormat *fmt)
{
  const size_t nrows     = (size_t)fmt->nrows;
  const size_t ell_slots = nrows * (size_t)fmt->pitch;
  const size_t csr_slots = (size_t)fmt->nnz_csr;
  char         what[128];

  PetscFunctionBegin;
  d->nrows   = fmt->nrows;
  d->ncols   = fmt->ncols;
  d->width   = fmt->width;
  d->pitch   = fmt->pitch;
  d->nnz     = fmt->nnz_ell + fmt->nnz_csr;
  d->nnz_csr = fmt->nnz_csr;

  snprintf(what, sizeof(what), "CIHYBRID ELL columns (%zu rows x pitch %zu)", nrows, (size_t)fmt->pitch);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_col, ell_slots * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "CIHYBRID ELL values (%zu rows x pitch %zu)", nrows, (size_t)fmt->pitch);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_val, ell_slots * sizeof(PetscScalar), what));
  if (fmt->width) PetscCall(CIHybridDeviceAllocate(d, (void **)&d->ell_len, nrows * sizeof(int32_t), "CIHYBRID ELL row lengths"));
  if (nrows) PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_start, (nrows + 1) * sizeof(int32_t), "CIHYBRID remainder row starts"));
  snprintf(what, sizeof(what), "CIHYBRID remainder columns (%zu nonzeros)", (size_t)fmt->nnz_csr);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_col, csr_slots * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "CIHYBRID remainder values (%zu nonzeros)", (size_t)fmt->nnz_csr);
  PetscCall(CIHybridDeviceAllocate(d, (void **)&d->csr_val, csr_slots * sizeof(PetscScalar), what));

  PetscCall(GpuMatsCUDACopyToDevice(d->ell_col, fmt->ell_col, ell_slots * sizeof(int32_t)));
  PetscCall(GpuMatsCUDACopyToDevice(d->ell_val, fmt->ell_val, ell_slots * sizeof(PetscScalar)));
  if (d->ell_len) PetscCall(GpuMatsCUDACopyToDevice(d->ell_len, fmt->ell_len, nrows * sizeof(int32_t)));
  if (d->csr_start) PetscCall(GpuMatsCUDACopyToDevice(d->csr_start, fmt->csr_start, (nrows + 1) * sizeof(int32_t)));
  PetscCall(GpuMatsCUDACopyToDevice(d->csr_col, fmt->csr_col, (size_t)fmt->nnz_csr * sizeof(int32_t)));
  PetscCall(GpuMatsCUDACopyToDevice(d->csr_val, fmt->csr_val, (size_t)fmt->nnz_csr * sizeof(PetscScalar)));
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
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceCreate(const CIHybridFormat *fmt, CIHybridDevice *dev)
{
  CIHybridDevice d;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCall(CIHybridDeviceCheckFormat(fmt));
  PetscCall(PetscNew(&d));
  ierr = CIHybridDeviceUpload(d, fmt);
  if (ierr) { /* release what was allocated before the failure, then pass the error on */
    (void)CIHybridDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceCopyValues(CIHybridDevice dev, const CIHybridFormat *fmt)
{
  PetscFunctionBegin;
  PetscCheck(dev->nrows == fmt->nrows && dev->pitch == fmt->pitch && dev->nnz_csr == fmt->nnz_csr, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "CIHYBRID value refresh with a different structure: device has %" PetscInt_FMT " rows, pitch %" PetscInt_FMT ", %" PetscInt64_FMT " remainder nonzeros; format has %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt64_FMT " (rebuild instead)",
             dev->nrows, dev->pitch, dev->nnz_csr, fmt->nrows, fmt->pitch, fmt->nnz_csr);
  PetscCall(GpuMatsCUDACopyToDevice(dev->ell_val, fmt->ell_val, (size_t)fmt->nrows * (size_t)fmt->pitch * sizeof(PetscScalar)));
  PetscCall(GpuMatsCUDACopyToDevice(dev->csr_val, fmt->csr_val, (size_t)fmt->nnz_csr * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridDeviceBytes(CIHybridDevice dev, size_t *bytes)
{
  PetscFunctionBegin;
  *bytes = dev->bytes;
  PetscFunctionReturn(0);
}
