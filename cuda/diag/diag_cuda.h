/* C interface to the DIAG device kernels (cuda/diag/): a DiagFormat (HM or CDM) on the
   device and its products. */
#pragma once
#include "../../src/diag/diag_format.h"
#include "../../src/diag/diag_product_plan.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _n_DiagDevice *DiagDevice;

/* Device copy of a DiagFormat built on the host (its offsets, starts and values).
   Device indices are 32-bit for the sizes and offsets, 64-bit for the value starts;
   allocation errors name the array and the sizes. */
PetscErrorCode DiagDeviceCreate(const DiagFormat *fmt, DiagDevice *dev);
/* New values, same diagonals. */
PetscErrorCode DiagDeviceCopyValues(DiagDevice dev, const DiagFormat *fmt);
PetscErrorCode DiagDeviceDestroy(DiagDevice *dev);
/* y = A x (+ y0) and y = A^T x (+ y0) (the transpose reads the same arrays: diagonal
   -d of A^T is diagonal d of A), device pointers, y0 NULL or equal y allowed.  One
   thread per entry of y, each walking the diagonals: the loads of a diagonal by
   consecutive threads are consecutive.  On GpuMatsCUDAGetStream(). */
PetscErrorCode DiagDeviceMult(DiagDevice dev, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* C = A B (+ C when add) for k dense columns: B (A's ncols x k) and C (A's nrows x k)
   column-major with leading dimensions ldb >= ncols and ldc >= nrows, device pointers; the
   rows of C between nrows and ldc are not touched.  k and nrows may be 0.  HM and CDM, the
   index rules of DiagDeviceMult (y = A x).  One thread per row of C, up to 8 columns in
   registers at a time (more columns: chunks of 8, the matrix re-read from cache);
   the diagonals' offsets and starts staged in shared memory a tile at a time, consecutive
   threads on consecutive rows (coalesced loads of A's diagonals, of B and stores of C).
   On GpuMatsCUDAGetStream(). */
PetscErrorCode DiagDeviceSpMM(DiagDevice A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* The values back into fmt->val (same diagonals). */
PetscErrorCode DiagDeviceGetValues(DiagDevice dev, DiagFormat *fmt);

/* C = A B on the device, whatever the schemes, from the plan of the symbolic phase
   (DiagProductPlanCreate, host: C's diagonals and per diagonal of C the pairs of entry
   diagonals meeting on it).  DiagDeviceProductCreate puts the plan on the device (O(pairs)
   integers, nothing n-long); the numeric phase, again whenever A's or B's values change,
   runs DiagDeviceProductNumeric: the banded kernel where it applies, else the staged pairs
   kernel (A on a tile of rows in shared memory, a warp per diagonal of C summing its pairs
   in registers) where A fits, else the pairs kernel; C written once, no atomics.  C's device copy may be made without values (DiagDeviceCreate of a
   format whose val is NULL): the numeric phase writes every one. */
typedef struct _n_DiagDeviceProduct *DiagDeviceProduct;
PetscErrorCode DiagDeviceProductCreate(const DiagProductPlan *plan, const DiagFormat *A, const DiagFormat *B, const DiagFormat *C, DiagDeviceProduct *prod);
PetscErrorCode DiagDeviceProductNumeric(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The same for a banded CDM A, B and C (each compact diagonal of A one super- or subdiagonal)
   with rows of A and B staged in shared memory, tiles of T rows: DiagDeviceProductBandedRows
   gives the T that fits (0: not banded, mixed schemes, or too wide; DiagDeviceProductNumeric
   then runs the pairs kernel).  DiagDeviceProductNumeric takes this one itself when it applies. */
PetscErrorCode DiagDeviceProductBandedRows(DiagDeviceProduct prod, int *T);
PetscErrorCode DiagDeviceProductNumericBanded(DiagDeviceProduct prod, int T, DiagDevice A, DiagDevice B, DiagDevice C);
/* The pairs kernel alone: a block per (diagonal of C, tile of 1024 rows), A and B read from L2 */
PetscErrorCode DiagDeviceProductNumericPairs(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The pairs kernel with A's diagonals staged in shared memory on tiles of 32 (or 16) rows, each warp
   walking diagonals of C: what DiagDeviceProductNumeric runs when the banded kernel does not apply
   and A's entry diagonals fit 200 KiB (or the device's shared memory a block) on 16 rows (at
   most 1600 diagonals on an H100/H200) while at least DIAG_STAGED_MIN_PAIRS pairs of diagonals
   meet on each diagonal of C on average, else the pairs kernel.  PETSC_ERR_SUP when they do
   not fit. */
#define DIAG_STAGED_MIN_PAIRS 16
PetscErrorCode DiagDeviceProductNumericStaged(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The rows of the staged kernel's tiles for this product: 32, 16, or 0 when A's diagonals do not fit */
PetscErrorCode DiagDeviceProductStagedRows(DiagDeviceProduct prod, int *T);
/* 2 x the multiply-adds of one numeric phase, and the pairs of diagonals */
PetscErrorCode DiagDeviceProductGetCounts(DiagDeviceProduct prod, PetscInt64 *flops, PetscInt64 *npairs);
/* The same product by the paper's Algorithm 2 (A, B, C all HM), the reference: one thread per
   stored entry of A, looping over B's diagonals, atomic updates of C (set to 0 first); the
   index of C's diagonals (m + n - 1 ints) made on the device at its first use. */
PetscErrorCode DiagDeviceProductNumericAtomic(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The same product by the paper's Algorithm 1 as we read it (CDM only, PETSC_ERR_SUP for
   HM), the reference for CDM: 16 x 16 thread blocks, each computing 16 rows of 16 of C's
   diagonals, A's diagonals taken 16 at a time with their values staged in shared memory
   (coalesced along the rows), B's partner diagonal (k_c - k_a) mod n found through an
   index of B's compact diagonals (n ints, made on the device at its first use) and B read
   from global memory.  Each entry of C written once, no atomics; the same sums in the
   same order as DiagDeviceProductNumeric. */
PetscErrorCode DiagDeviceProductNumericTiled(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
PetscErrorCode DiagDeviceProductDestroy(DiagDeviceProduct *prod);

#if defined(__cplusplus)
}
#endif
