/* The kernel interface of the pcsr format, for programs that measure its kernels without a
   Mat (benchmarks/src/bench_pcsr.cu).  A Mat of type pcsr needs none of this.

   PCSR keeps CSR intact: the host side is the row statistics and the automatic choice of
   the kernel (plain C, any build); the device side (defined only in a libgpumats built with
   CUDA) is a device copy of the CSR arrays and its products, the two-kernel scheme of He and
   Gao (2016) and our variants (MatPCSRKernel in gpumats.h).  Device pointers are device
   memory; every launcher queues its work on GpuMatsCUDAGetStream() (<gpumats_cuda_context.h>)
   and returns without waiting.  The library's private headers (src/pcsr/pcsr_format.h,
   cuda/pcsr/pcsr_cuda.h) include this one and declare nothing of it again. */
#pragma once
#include <gpumats.h> /* MatPCSRKernel, MatPCSRTranspose: the kernel interface takes the public values */
#include <gpumats_cuda_context.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* Row-length statistics of a CSR matrix, what MAT_PCSR_KERNEL_AUTO decides from */
typedef struct {
  PetscInt   nrows, ncols;
  PetscInt64 nnz, max_row_len, empty_rows;
  double     mean_row_len, stddev_row_len;
} PCSRRowStats;

/* The statistics of the CSR row pointers ai (nrows + 1 entries, ai[0] may be nonzero). */
PETSC_EXTERN void PCSRRowStatsFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *ai, PCSRRowStats *stats);
/* The kernel MAT_PCSR_KERNEL_AUTO takes for a matrix with these statistics
   (MAT_PCSR_KERNEL_VECTOR or MAT_PCSR_KERNEL_ADAPTIVE), and in *why a sentence saying why. */
PETSC_EXTERN MatPCSRKernel PCSRChooseKernel(const PCSRRowStats *stats, const char **why);

/* ------------------------------------------------------------------------ */
/* The device copy and its launchers (CUDA builds only) */
typedef struct _n_PCSRDevice *PCSRDevice;

/* Device copy of the CSR matrix ai, aj, aa (host memory, ai[0] need not be 0: the rows'
   entries start at aj + ai[0]).  Device indices are int32: nrows, ncols and the number
   of nonzeros must each be below 2^31 (a PETSc error naming them otherwise).  A column
   out of [0, ncols) is an error.  Allocation errors name the array and the sizes. */
PETSC_EXTERN PetscErrorCode PCSRDeviceCreateFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PCSRDevice *dev);
PETSC_EXTERN PetscErrorCode PCSRDeviceDestroy(PCSRDevice *dev);
/* The rows' statistics, made on the device with the copy (as PCSRRowStatsFromCSR makes them). */
PETSC_EXTERN PetscErrorCode PCSRDeviceGetRowStats(PCSRDevice dev, PCSRRowStats *stats);
/* Device memory held: the CSR arrays, the middle array v (once the paper's kernel ran),
   the adaptive kernel's row blocks and the transposed copy (once built). */
PETSC_EXTERN PetscErrorCode PCSRDeviceBytes(PCSRDevice dev, size_t *bytes);
/* y = A x (+ y0); y0 may be NULL or equal y.  kernel: MAT_PCSR_KERNEL_PAPER, FUSED, VECTOR or
   ADAPTIVE; MAT_PCSR_KERNEL_AUTO is an error here (PCSRChooseKernel resolves it on the host). */
PETSC_EXTERN PetscErrorCode PCSRDeviceMult(PCSRDevice dev, MatPCSRKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0): MAT_PCSR_TRANSPOSE_ATOMIC (atomic updates of y) or MAT_PCSR_TRANSPOSE_COPY
   (a transposed CSR copy built on first use) */
PETSC_EXTERN PetscErrorCode PCSRDeviceMultTranspose(PCSRDevice dev, MatPCSRTranspose mode, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C(:, 0:k) = A B (+ C when add): B (ncols x k, leading dimension ldb), C (nrows x k,
   leading dimension ldc), column-major; the matrix read once for all columns. */
PETSC_EXTERN PetscErrorCode PCSRDeviceSpMM(PCSRDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

#if defined(__cplusplus)
}
#endif
