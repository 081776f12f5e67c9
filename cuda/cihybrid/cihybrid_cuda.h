/* C interface to the CIHYBRID device kernels (cuda/cihybrid/). */
#pragma once
#include "../../src/cihybrid/cihybrid_format.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum {
  CIHYBRID_KERNEL_PAPER = 0, /* transcription of the paper's warp-per-row kernel */
  CIHYBRID_KERNEL_TUNED = 1  /* ours: see cihybrid_spmv.cu */
} CIHybridKernel;

typedef struct _n_CIHybridDevice *CIHybridDevice;

/* Allocate device arrays and copy structure and values; errors name sizes. */
PetscErrorCode CIHybridDeviceCreate(const CIHybridFormat *fmt, CIHybridDevice *dev);
/* Copy the values only (structure unchanged). */
PetscErrorCode CIHybridDeviceCopyValues(CIHybridDevice dev, const CIHybridFormat *fmt);
PetscErrorCode CIHybridDeviceDestroy(CIHybridDevice *dev);
PetscErrorCode CIHybridDeviceBytes(CIHybridDevice dev, size_t *bytes);
/* y = A x (+ y0), all pointers device memory; y0 may be NULL or equal y. Runs on GpuMatsCUDAStream(). */
PetscErrorCode CIHybridDeviceMult(CIHybridDevice dev, CIHybridKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0) */
PetscErrorCode CIHybridDeviceMultTranspose(CIHybridDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

#if defined(__cplusplus)
}
#endif
