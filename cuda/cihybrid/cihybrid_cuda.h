/* C interface to the CIHYBRID device kernels (cuda/cihybrid/): what the library's glue calls
   beside the exported kernel interface (CIHybridDevice, its creation, products and the tuned
   variants: <gpumats_cihybrid_format.h>, declared there only). */
#pragma once
#include <gpumats_cihybrid_format.h>
#include <gpumats.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* The layout of the entries split made on the device from the AIJ row pointers ai (host),
   BOUNDARY given or MAT_CIHYBRID_BOUNDARY_AUTO (*chosen: the one taken, *model_bytes its byte
   model, -1 when given): fmt gets the sizes and statistics, not ell_len and csr_start, which stay
   on the device in *dev, a device copy with every array allocated, the row pointers uploaded, and
   nothing filled (cihybrid_layout.cu).  FillFromCSR: the columns and values of such a copy from
   the AIJ arrays, or the values alone when its columns are in place. */
PetscErrorCode CIHybridDeviceLayout(PetscInt nrows, PetscInt ncols, const PetscInt *ai, PetscInt boundary, CIHybridFormat *fmt, PetscInt *chosen, double *model_bytes, CIHybridDevice *dev);
PetscErrorCode CIHybridDeviceFillFromCSR(CIHybridDevice dev, const CIHybridFormat *layout, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa);

/* Device assembly (cihybrid_generate.cu).  CountRows: rows->count's lengths into the host
   array len.  CreateFromRows: the arrays of 'layout' allocated, padding preset, written by
   rows->fill and checked row by row.  Download: the four arrays into the host format fmt
   (allocated with malloc, as the builder's).  GetDiagonal: min(rows, cols) entries into the
   device array diag. */
PetscErrorCode CIHybridDeviceCountRows(PetscInt nrows, const MatCIHybridDeviceRows *rows, PetscInt *len);
PetscErrorCode CIHybridDeviceCreateFromRows(const CIHybridFormat *layout, const MatCIHybridDeviceRows *rows, CIHybridDevice *dev);
PetscErrorCode CIHybridDeviceDownload(CIHybridDevice dev, CIHybridFormat *fmt);
PetscErrorCode CIHybridDeviceGetDiagonal(CIHybridDevice dev, PetscScalar *diag);
/* The rows of one process of an MPI matrix made on the device (cihybrid_split.cu): the
   generator's rows (m local rows, global columns 0..N-1) made once and checked; garray the
   columns outside cstart..cend-1 that they hold, ascending (host memory of the split); each
   block's generator (GetBlockRows: the diagonal block's, numbered from cstart, or the
   off-process block's, numbered by place in garray) gives its part of the rows to
   MatCIHybridAssembleOnDevice on that block, one block at a time. */
typedef struct _n_CIHybridProcessRows *CIHybridProcessRows;
PetscErrorCode CIHybridProcessRowsCreate(PetscInt m, PetscInt N, PetscInt cstart, PetscInt cend, const MatCIHybridDeviceRows *rows, CIHybridProcessRows *split);
PetscErrorCode CIHybridProcessRowsGetGarray(CIHybridProcessRows split, PetscInt *n, const PetscInt **garray);
PetscErrorCode CIHybridProcessRowsGetBlockRows(CIHybridProcessRows split, PetscBool offdiagonal, MatCIHybridDeviceRows *rows);
PetscErrorCode CIHybridProcessRowsDestroy(CIHybridProcessRows *split);
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
/* MatSetValuesCOO with values in device memory on one process (cihybrid_coo.cu): the map of
   GpuMatsCOOStoredMap (jmap, perm: device arrays, jmap NULL where each stored entry q has one COO
   entry, perm[q], perm NULL too where that is q; owned by the map from Create on, freed by it
   also when Create fails) for the nnz stored entries of nrows rows; each stored entry's slot is
   found on the device (from the copy's AIJ row starts) once for each layout; SlotsFit says whether
   the layout's slots fit 32-bit indices (and makes them), as SetValues needs; SetValues sums the
   values at the map's places (v, and recv for an MPI matrix's block: gpumats_coo_values.cuh)
   into the device copy's slots (added to the old values when 'add'); DownloadValues copies the
   slots' values into host_values (the AIJ master) in AIJ's order.  On GpuMatsCUDAGetStream(). */
typedef struct _n_CIHybridDeviceCOO *CIHybridDeviceCOO;
PetscErrorCode CIHybridDeviceCOOCreate(int32_t nrows, int32_t nnz, int32_t *jmap, int32_t *perm, CIHybridDeviceCOO *coo);
PetscErrorCode CIHybridDeviceCOODestroy(CIHybridDeviceCOO *coo);
PetscErrorCode CIHybridDeviceCOOSlotsFit(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscBool *fit);
PetscErrorCode CIHybridDeviceCOOSetValues(CIHybridDevice dev, CIHybridDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add);
PetscErrorCode CIHybridDeviceCOODownloadValues(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscScalar *host_values);

#if defined(__cplusplus)
}
#endif
