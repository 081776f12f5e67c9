/* C interface to the CIHYBRID device kernels (cuda/cihybrid/). */
#pragma once
#include <gpumats_cihybrid_format.h>
#include <gpumats.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum {
  CIHYBRID_KERNEL_PAPER = 0, /* transcription of the paper's warp-per-row kernel */
  CIHYBRID_KERNEL_TUNED = 1  /* ours: see cihybrid_spmv.cu */
} CIHybridKernel;

typedef struct _n_CIHybridDevice *CIHybridDevice;

/* Allocates the device arrays of the format whose layout is 'layout' (CIHybridLayoutFromCSR:
   its host arrays need not exist) and fills them on the device from the CSR arrays ai, aj,
   aa (host memory), uploaded a chunk at a time; columns out of range or not ascending are
   an error.  Allocation errors name the array and the sizes. */
PetscErrorCode CIHybridDeviceCreateFromCSR(const CIHybridFormat *layout, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, CIHybridDevice *dev);
/* The values only, from aa (structure unchanged). */
PetscErrorCode CIHybridDeviceCopyValuesFromCSR(CIHybridDevice dev, const CIHybridFormat *layout, const PetscInt *ai, const PetscScalar *aa);
PetscErrorCode CIHybridDeviceDestroy(CIHybridDevice *dev);
/* Device assembly (cihybrid_generate.cu).  CountRows: rows->count's lengths into the host
   array len.  CreateFromRows: the arrays of 'layout' allocated, padding preset, written by
   rows->fill and checked row by row.  Download: the four arrays into the host format fmt
   (allocated with malloc, as the builder's).  GetDiagonal: min(rows, cols) entries into the
   device array diag. */
PetscErrorCode CIHybridDeviceCountRows(PetscInt nrows, const MatCIHybridDeviceRows *rows, PetscInt *len);
PetscErrorCode CIHybridDeviceCreateFromRows(const CIHybridFormat *layout, const MatCIHybridDeviceRows *rows, CIHybridDevice *dev);
PetscErrorCode CIHybridDeviceDownload(CIHybridDevice dev, CIHybridFormat *fmt);
PetscErrorCode CIHybridDeviceGetDiagonal(CIHybridDevice dev, PetscScalar *diag);
PetscErrorCode CIHybridDeviceBytes(CIHybridDevice dev, size_t *bytes);
/* What solvers do to an operator, on the device copy alone (cihybrid_algebra.cu).  AXPY and
   CopyValues need two copies of one pattern (SamePattern); the diagonal updates need every
   diagonal entry stored (MissingDiagonal gives 0); d is device memory. */
PetscErrorCode CIHybridDeviceScale(CIHybridDevice dev, PetscScalar a);
PetscErrorCode CIHybridDeviceAXPY(CIHybridDevice y, PetscScalar a, CIHybridDevice x);
PetscErrorCode CIHybridDeviceCopyValues(CIHybridDevice dst, CIHybridDevice src);
PetscErrorCode CIHybridDeviceZeroValues(CIHybridDevice dev);
PetscErrorCode CIHybridDeviceDuplicate(CIHybridDevice src, const CIHybridFormat *layout, PetscBool copy_values, CIHybridDevice *dup);
PetscErrorCode CIHybridDeviceSamePattern(CIHybridDevice a, CIHybridDevice b, PetscBool *same);
PetscErrorCode CIHybridDeviceMissingDiagonal(CIHybridDevice dev, PetscInt *missing);
PetscErrorCode CIHybridDeviceShiftDiagonal(CIHybridDevice dev, PetscScalar a);
PetscErrorCode CIHybridDeviceSetDiagonal(CIHybridDevice dev, const PetscScalar *d, PetscBool add);
PetscErrorCode CIHybridDeviceNorm(CIHybridDevice dev, NormType type, PetscReal *nrm);
/* n entries (host arrays, sorted, no two alike) inserted or added into their stored slots; when
   *missing of them have none, nothing is written. */
PetscErrorCode CIHybridDeviceSetValues(CIHybridDevice dev, PetscInt n, const int32_t *rows, const int32_t *cols, const PetscScalar *vals, PetscBool add, PetscInt *missing);
/* y = A x (+ y0), all pointers device memory; y0 may be NULL or equal y. Runs on GpuMatsCUDAStream(). */
PetscErrorCode CIHybridDeviceMult(CIHybridDevice dev, CIHybridKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0) */
PetscErrorCode CIHybridDeviceMultTranspose(CIHybridDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

#if defined(__cplusplus)
}
#endif
