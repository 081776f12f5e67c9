/* C interface to the CIHYBRID SpMM kernel (cihybrid_spmm.cu): C = A B (+ C)
   for a block of k dense columns, the matrix read once for all of them, and
   the staging of host column-major blocks for it. */
#pragma once
#include "cihybrid_cuda.h"
#include "../common/gpumats_cuda.h"

/* C(:, 0:k) = A B (+ C when add).  B (ncols x k, leading dimension ldb) and
   C (nrows x k, leading dimension ldc) are column-major, in device memory.
   Runs on GpuMatsCUDAGetStream(). */
PetscErrorCode CIHybridDeviceSpMM(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* A host column-major block (m x k, leading dimension lda) on the device
   through a stage, with leading dimension m there.  Upload copies it and
   returns the device pointer; Reserve only sizes the stage (for a block the
   kernel will overwrite); Download copies the device block back into the
   host block, leaving the rows between m and lda untouched. */
PetscErrorCode CIHybridStageDenseUpload(GpuMatsStage *stage, const PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda, PetscScalar **dev);
PetscErrorCode CIHybridStageDenseReserve(GpuMatsStage *stage, PetscInt m, PetscInt k, PetscScalar **dev);
PetscErrorCode CIHybridStageDenseDownload(GpuMatsStage *stage, PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda);
