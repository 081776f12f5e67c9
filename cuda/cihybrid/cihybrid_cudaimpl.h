/* Private to cuda/cihybrid/: the device copy of a CIHYBRID matrix.  Plain C. */
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

/* The tuned kernel's variants (CIHybridTunedVariant, CIHybridDeviceMultTuned, ...) and
   CIHybridDeviceSpMMLayout are exported for benchmarks/src/bench_cihybrid:
   <gpumats_cihybrid_format.h>. */
