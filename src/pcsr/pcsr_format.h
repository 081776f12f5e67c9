/* The host side of PCSR, plain C with no PETSc calls beyond its types: row-length
   statistics and the automatic choice of the CUDA kernel (exported in
   <gpumats_pcsr_format.h>, the format's kernel interface), the kernels' names, and the host
   products on the CSR arrays themselves (PCSR keeps CSR intact: the host path needs no copy). */
#pragma once
#include <gpumats_pcsr_format.h> /* PCSRRowStats, PCSRRowStatsFromCSR, PCSRChooseKernel: exported */

/* The names of MatPCSRKernel and MatPCSRTranspose values, PetscOptionsEnum()'s way */
PETSC_INTERN const char *const MatPCSRKernels[];
PETSC_INTERN const char *const MatPCSRTransposes[];

/* The kernel the device runs: 'kernel' itself, or auto's choice for these statistics
   (never MAT_PCSR_KERNEL_AUTO). */
MatPCSRKernel PCSRResolveKernel(MatPCSRKernel kernel, const PCSRRowStats *stats);

/* y = A x (+ y0), y = A^T x (+ y0); y0 may be NULL or equal y.  ai[0] may be nonzero. */
void PCSRMultHost(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
void PCSRMultTransposeHost(PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C(:, 0:k) = A B (+ C when add), column-major with leading dimensions ldb, ldc */
void PCSRSpMMHost(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* The largest device copy: rows and columns below 2^31 - 1, nonzeros at most
   PCSR_MAX_DEVICE_NNZ = 2^31 - 2^20 (the kernels step int32 offsets past the end of a
   row by up to a few thousand without overflowing).  The device layer
   (cuda/pcsr/pcsr_cudaimpl.h) uses the same limit. */
#define PCSR_MAX_DEVICE_NNZ ((PetscInt64)2147483647 - ((PetscInt64)1 << 20))
/* Do the sizes fit the 32-bit indices of the device copy? */
PetscBool PCSRFitsDeviceIndices(const PCSRRowStats *stats);
/* The same as a PETSc error (PETSC_ERR_SUP) that gives the sizes and says to use more MPI
   processes; in the PETSc glue (pcsr_ops.c), not in this plain-C part. */
PetscErrorCode PCSRCheckDeviceSize(const PCSRRowStats *stats);
