/* C interface to the DIAG device kernels (cuda/diag/): a DiagFormat (HM or CDM) on the
   device and its products.  DiagDevice, DiagDeviceProduct and the launchers the benchmarks
   call (creation, y = A x, the product's numeric phase and each of its kernels) are the
   format's exported kernel interface, <gpumats_diag_format.h>; here only what the library's
   glue calls beside them. */
#pragma once
#include <gpumats_diag_format.h>
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

/* DiagDeviceProductNumeric runs the staged pairs kernel (DiagDeviceProductNumericStaged) when
   neither the sweep nor the banded kernel applies and A's entry diagonals on 32 rows, with the
   warps' records, fit 200 KiB (or the device's shared memory a block: at most 736 diagonals)
   while at least DIAG_STAGED_MIN_PAIRS pairs of diagonals meet on each diagonal of C on average. */
#define DIAG_STAGED_MIN_PAIRS 16
/* Else the blocks kernel (DiagDeviceProductNumericBlocks) where A and B each have at least
   DIAG_BLOCKS_MIN_DIAGONALS entry diagonals filling at least half of the span of their offsets
   (banded), else the pairs kernel.  On bands of 51-401 diagonals the blocks kernel beat the staged
   kernel of before, and the staged kernel that reads its pairs 32 at a time beats it there; it is
   slower on scattered offsets. */
#define DIAG_BLOCKS_MIN_DIAGONALS 48
/* Else the shuffle kernel (DiagDeviceProductNumericShuffle) where A's entry diagonals fit it and
   at least DIAG_SHUFFLE_MIN_PAIRS pairs meet on each diagonal of C on average: faster than the
   pairs kernel with 4.6-9.5 pairs (the paper's Table 2), slower with 1.3-1.8 (its Table 1);
   between them, not measured. */
#define DIAG_SHUFFLE_MIN_PAIRS 3
/* 2 x the multiply-adds of one numeric phase, and the pairs of diagonals */
PetscErrorCode DiagDeviceProductGetCounts(DiagDeviceProduct prod, PetscInt64 *flops, PetscInt64 *npairs);

/* MatSetValuesCOO with values in device memory on one process (diag_coo.cu): a map by stored
   value, uploaded once.  Slot s of the nval stored values sums the values at the places from[q],
   jmap[s] <= q < jmap[s + 1]; with jmap NULL (no slot has two entries) it takes the value at
   from[s], or zero where that is GPUMATS_COO_NO_PLACE.  A place is in v, or for an mpidiag's
   block among the values received, recv (cuda/common/gpumats_coo_values.cuh).  SetValues writes
   every slot once, a thread a row (the sum, or the old value plus the sum with 'add'): no
   clearing first, no atomics.  On GpuMatsCUDAGetStream(). */
typedef struct _n_DiagDeviceCOO *DiagDeviceCOO;
PetscErrorCode DiagDeviceCOOCreate(long long nval, const int32_t *jmap, int32_t nfrom, const int32_t *from, DiagDeviceCOO *coo);
PetscErrorCode DiagDeviceCOODestroy(DiagDeviceCOO *coo);
PetscErrorCode DiagDeviceCOOSetValues(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add);

/* The device values alone (diag_values.cu): v *= a; v[start, start + n) += a (one diagonal's
   slots); v[start, start + n) = d or += d (add; d on the device); Y's values += a X's (the same
   diagonals).  On GpuMatsCUDAGetStream(). */
PetscErrorCode DiagDeviceScaleValues(DiagDevice A, PetscScalar a);
PetscErrorCode DiagDeviceShiftValues(DiagDevice A, PetscInt64 start, PetscInt n, PetscScalar a);
PetscErrorCode DiagDeviceSetValues(DiagDevice A, PetscInt64 start, PetscInt n, const PetscScalar *d, PetscBool add);
PetscErrorCode DiagDeviceAXPYValues(DiagDevice Y, PetscScalar a, DiagDevice X);

/* MatSOR on the device (diag_sor.cu): the rows in levels made on the host (DiagSORScheduleCreate),
   the entries left (lo) and right (up) of the main diagonal as lists of A's stored diagonals by
   ascending column, and the work vectors.  Check: does every nonzero of A's device values couple
   rows of different levels, the later row in the later level (values set since the levels were
   made)?  SetDiagonal: A's diagonal and what the sweeps multiply by (1 / a(i,i) when omega is 1
   and fshift <= 0, else omega / (fshift + a(i,i))) from diagonal 0's value start start0 (-1: no
   diagonal 0), *zero_row the first zero a(i,i) in the first case (-1: none).  Sweep: one sweep
   of MatSOR_SeqDiag's, every level in order (forward) or in reverse (backward), on
   GpuMatsCUDAGetStream(). */
typedef struct _n_DiagDeviceSOR *DiagDeviceSOR;
typedef enum {
  DIAG_SOR_FORWARD_ZERO,           /* x = (b - L x) idiag from x = 0, keeping t = b - L x */
  DIAG_SOR_BACKWARD_ZERO,          /* x = (b - U x) idiag from x = 0 */
  DIAG_SOR_BACKWARD_AFTER_FORWARD, /* x = (1 - omega) x + (t - U x) idiag */
  DIAG_SOR_FORWARD,                /* x = (1 - omega) x + (b - L x - U x) idiag, keeping t = b - L x */
  DIAG_SOR_BACKWARD                /* the same from the last row to the first */
} DiagSORSweep;
PetscErrorCode DiagDeviceSORCreate(const DiagFormat *f, PetscInt nlo, const PetscInt lo[], PetscInt nup, const PetscInt up[], PetscInt nlevels, const PetscInt level_start[], const PetscInt rows[], const PetscInt level[], DiagDeviceSOR *sor);
PetscErrorCode DiagDeviceSORDestroy(DiagDeviceSOR *sor);
PetscErrorCode DiagDeviceSORCheck(DiagDeviceSOR sor, DiagDevice A, PetscBool *valid);
PetscErrorCode DiagDeviceSORSetDiagonal(DiagDeviceSOR sor, DiagDevice A, PetscInt64 start0, PetscReal omega, PetscReal fshift, PetscInt *zero_row);
PetscErrorCode DiagDeviceSORSweep(DiagDeviceSOR sor, DiagDevice A, DiagSORSweep sweep, PetscReal omega, const PetscScalar *b, PetscScalar *x);

#if defined(__cplusplus)
}
#endif
