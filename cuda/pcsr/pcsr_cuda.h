/* C interface to the PCSR device kernels (cuda/pcsr/): plain CSR on the device,
   SpMV by the two-kernel scheme of He and Gao (2016) and by our variants. */
#pragma once
#include <gpumats.h> /* MatPCSRKernel, MatPCSRTranspose: the device layer takes the public values */
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _n_PCSRDevice *PCSRDevice;

/* Device copy of the CSR matrix ai, aj, aa (host memory, ai[0] need not be 0: the rows'
   entries start at aj + ai[0]).  Device indices are int32: nrows, ncols and the number
   of nonzeros must each be below 2^31 (a PETSc error naming them otherwise).  A column
   out of [0, ncols) is an error.  Allocation errors name the array and the sizes. */
PetscErrorCode PCSRDeviceCreateFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PCSRDevice *dev);
/* The values only (same structure); a transposed copy is refreshed on its next use. */
PetscErrorCode PCSRDeviceCopyValues(PCSRDevice dev, const PetscInt *ai, const PetscScalar *aa);
PetscErrorCode PCSRDeviceDestroy(PCSRDevice *dev);
/* Device memory held: the CSR arrays, the middle array v (once the paper's kernel ran),
   the adaptive kernel's row blocks and the transposed copy (once built). */
PetscErrorCode PCSRDeviceBytes(PCSRDevice dev, size_t *bytes);

/* y = A x (+ y0), device pointers; y0 may be NULL or equal y.  On GpuMatsCUDAGetStream().
   kernel: MAT_PCSR_KERNEL_PAPER, FUSED, VECTOR or ADAPTIVE; MAT_PCSR_KERNEL_AUTO is resolved
   on the host (PCSRResolveKernel, src/pcsr/pcsr_format.h) and is an error here. */
PetscErrorCode PCSRDeviceMult(PCSRDevice dev, MatPCSRKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0): MAT_PCSR_TRANSPOSE_ATOMIC (atomic updates of y) or MAT_PCSR_TRANSPOSE_COPY
   (a transposed CSR copy built on first use) */
PetscErrorCode PCSRDeviceMultTranspose(PCSRDevice dev, MatPCSRTranspose mode, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C(:, 0:k) = A B (+ C when add): B (ncols x k, leading dimension ldb), C (nrows x k,
   leading dimension ldc), column-major, device memory; the matrix read once for all columns. */
PetscErrorCode PCSRDeviceSpMM(PCSRDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

#if defined(__cplusplus)
}
#endif
