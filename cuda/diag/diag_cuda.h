/* C interface to the DIAG device kernels (cuda/diag/): a DiagFormat (HM or CDM) on the
   device and its products.  DiagDevice, DiagDeviceProduct and the launchers the benchmarks
   call (creation, y = A x, the product's numeric phase and each of its kernels) are the
   format's exported kernel interface, <gpumats_diag_format.h>; here only what the library's
   glue calls beside them. */
#pragma once
#include "../../src/diag/diag_format.h"
#include "../../src/diag/diag_product_plan.h"
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* C = A B (+ C when add) for k dense columns: B (A's ncols x k) and C (A's nrows x k)
   column-major with leading dimensions ldb >= ncols and ldc >= nrows, device pointers; the
   rows of C between nrows and ldc are not touched.  k and nrows may be 0.  HM and CDM, the
   index rules of DiagDeviceMult (y = A x).  One thread per row of C, up to 8 columns in
   registers at a time (more columns: chunks of 8, the matrix re-read from cache);
   the diagonals' offsets and starts staged in shared memory a tile at a time, consecutive
   threads on consecutive rows (coalesced loads of A's diagonals, of B and stores of C).
   On GpuMatsCUDAGetStream(). */
PetscErrorCode DiagDeviceSpMM(DiagDevice A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* The banded kernel of DiagDeviceProductNumeric alone, for a banded CDM A, B and C (each
   compact diagonal of A one super- or subdiagonal), rows of A and B staged in shared memory on
   tiles of T rows (DiagDeviceProductBandedRows gives the T that fits).  DiagDeviceProductNumeric
   takes this one itself when it applies. */
PetscErrorCode DiagDeviceProductNumericBanded(DiagDeviceProduct prod, int T, DiagDevice A, DiagDevice B, DiagDevice C);
/* DiagDeviceProductNumeric runs the staged pairs kernel (DiagDeviceProductNumericStaged) when
   the banded kernel does not apply and A's entry diagonals fit 200 KiB (or the device's shared
   memory a block) on 16 rows (at most 1600 diagonals on an H100/H200) while at least
   DIAG_STAGED_MIN_PAIRS pairs of diagonals meet on each diagonal of C on average, else the
   pairs kernel. */
#define DIAG_STAGED_MIN_PAIRS 16
/* 2 x the multiply-adds of one numeric phase, and the pairs of diagonals */
PetscErrorCode DiagDeviceProductGetCounts(DiagDeviceProduct prod, PetscInt64 *flops, PetscInt64 *npairs);

/* MatSetValuesCOO with values in device memory on one process (diag_coo.cu): the value slot of each
   of n entries and its place in the value array, uploaded once; SetValues adds v[k[t]] into
   slot[t] of the device values, zeroed first unless 'add'.  On GpuMatsCUDAGetStream(). */
typedef struct _n_DiagDeviceCOO *DiagDeviceCOO;
PetscErrorCode DiagDeviceCOOCreate(int32_t n, const int32_t *slot, const int32_t *k, DiagDeviceCOO *coo);
PetscErrorCode DiagDeviceCOODestroy(DiagDeviceCOO *coo);
PetscErrorCode DiagDeviceCOOSetValues(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, PetscBool add);

#if defined(__cplusplus)
}
#endif
