/* Private to cuda/cihybrid/ and the benchmark: the device copy of a
   CIHYBRID matrix and the variants of the tuned kernel.  Plain C. */
#pragma once
#include "cihybrid_cuda.h"

struct _n_CIHybridDevice {
  PetscInt     nrows, ncols, width, pitch;
  PetscInt64   nnz, nnz_csr;
  int32_t     *ell_col;   /* nrows*pitch, NULL when pitch == 0 */
  PetscScalar *ell_val;   /* nrows*pitch */
  int32_t     *ell_len;   /* nrows, NULL when width == 0 (every s_i is 0) */
  int32_t     *csr_start; /* nrows+1 */
  int32_t     *csr_col;   /* nnz_csr */
  PetscScalar *csr_val;   /* nnz_csr */
  size_t       bytes;     /* device memory held by the arrays above */
  int32_t     *diag_pos;  /* min(nrows, ncols): position in its row of each diagonal entry, -1 if none */
  PetscBool    diag_known; /* diag_pos and diag_missing are set (found once per pattern) */
  PetscInt     diag_missing;
  PetscScalar *spmm_work; /* B row-major for the SpMM, spmm_work_bytes long (not in 'bytes') */
  size_t       spmm_work_bytes;
};

/* Allocates d's arrays for the layout fmt (sizes checked) and copies ell_len and csr_start
   there; on error the caller destroys d. */
PetscErrorCode CIHybridDeviceAllocateArrays(CIHybridDevice d, const CIHybridFormat *fmt);

/* Variants of CIHYBRID_KERNEL_TUNED, timed against each other by
   benchmarks/src/bench_cihybrid; CIHYBRID_TUNED_DEFAULT is what CIHYBRID_KERNEL_TUNED runs. */
typedef enum {
  CIHYBRID_TUNED_SCALAR = 0, /* L1::no_allocate loads, 4 in flight per lane; the others measured are in BENCHMARKS.md */
  CIHYBRID_TUNED_NUM_VARIANTS
} CIHybridTunedVariant;
#define CIHYBRID_TUNED_DEFAULT CIHYBRID_TUNED_SCALAR

extern const char *const CIHybridTunedVariantNames[];

/* CIHybridDeviceSpMM with the choice of reading B as it is (rowmajor_copy false) or,
   from CIHYBRID_SPMM_ROWMAJOR_MIN_K columns on, through a row-major copy (what
   CIHybridDeviceSpMM does), for the benchmark. */
PetscErrorCode CIHybridDeviceSpMMLayout(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool rowmajor_copy, PetscBool add, PetscScalar *C, PetscInt ldc);

/* Lanes per row (4, 8, 16 or 32) the variant uses on this matrix when not forced. */
PetscErrorCode CIHybridDeviceTunedLanesPerRow(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt *lanes);
/* y = A x (+ y0) with one variant; lanes_per_row 0 chooses from the average row length. */
PetscErrorCode CIHybridDeviceMultTuned(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt lanes_per_row, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
