/* C interface to the PCSR device kernels (cuda/pcsr/): plain CSR on the device,
   SpMV by the two-kernel scheme of He and Gao (2016) and by our variants. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* The SpMV kernels; PCSR_KERNEL_AUTO is resolved on the host (PCSRChooseKernel in
   src/pcsr/pcsr_builder.c) and never reaches the device layer. */
typedef enum {
  PCSR_KERNEL_PAPER    = 0, /* He & Gao: v[k] = val[k] x[col[k]], then the block-staged segmented sum of v */
  PCSR_KERNEL_FUSED    = 1, /* the paper's kernel 2 staging val[k] x[col[k]] itself: no middle array */
  PCSR_KERNEL_VECTOR   = 2, /* a group of 2..32 lanes per row, from the mean row length */
  PCSR_KERNEL_ADAPTIVE = 3, /* blocks of rows of bounded nonzeros; long rows by the whole block */
  PCSR_KERNEL_AUTO     = 4
} PCSRKernel;
#define PCSR_NUM_KERNELS 4 /* the concrete ones */

/* MatMultTranspose: atomic updates of y, or a transposed CSR copy built on first use */
typedef enum {
  PCSR_TRANSPOSE_ATOMIC = 0,
  PCSR_TRANSPOSE_COPY   = 1
} PCSRTransposeMode;

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

/* y = A x (+ y0), device pointers; y0 may be NULL or equal y.  On GpuMatsCUDAGetStream(). */
PetscErrorCode PCSRDeviceMult(PCSRDevice dev, PCSRKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0) */
PetscErrorCode PCSRDeviceMultTranspose(PCSRDevice dev, PCSRTransposeMode mode, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C(:, 0:k) = A B (+ C when add): B (ncols x k, leading dimension ldb), C (nrows x k,
   leading dimension ldc), column-major, device memory; the matrix read once for all columns. */
PetscErrorCode PCSRDeviceSpMM(PCSRDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

#if defined(__cplusplus)
}
#endif
