/* C interface to the CIHYBRID SpMM kernel (cihybrid_spmm.cu): C = A B (+ C)
   for a block of k dense columns, the matrix read once for all of them. */
#pragma once
#include "cihybrid_cuda.h"
#include "../common/gpumats_cuda.h"

/* C(:, 0:k) = A B (+ C when add).  B (ncols x k, leading dimension ldb) and
   C (nrows x k, leading dimension ldc) are column-major, in device memory.
   Runs on GpuMatsCUDAGetStream(). */
PetscErrorCode CIHybridDeviceSpMM(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);
