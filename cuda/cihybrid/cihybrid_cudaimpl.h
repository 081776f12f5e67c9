/* Private to cuda/cihybrid/: the device copy of a CIHYBRID matrix.  Plain C. */
#pragma once
#include "cihybrid_cuda.h"

struct _n_CIHybridDevice {
  PetscInt     nrows, ncols, width, pitch;
  PetscInt64   nnz, nnz_csr;
  unsigned long long layout; /* this layout's number, new for each one made (what a COO map's slots are for) */
  int32_t     *ell_col;   /* nrows*pitch, NULL when pitch == 0 */
  PetscScalar *ell_val;   /* nrows*pitch */
  int32_t     *ell_len;   /* nrows, NULL when width == 0 (every s_i is 0) */
  int32_t     *csr_start; /* nrows+1 */
  int32_t     *csr_col;   /* nnz_csr */
  PetscScalar *csr_val;   /* nnz_csr */
  PetscInt    *aij_rowptr; /* nrows+1: the AIJ row pointers, uploaded by the first fill (or the device
                             layout) and kept for the value refreshes; NULL until then */
  PetscBool    filled;    /* the columns are in place: a refresh may copy values alone */
  size_t       bytes;     /* device memory held by the arrays above */
  int32_t     *diag_pos;  /* min(nrows, ncols): position in its row of each diagonal entry, -1 if none */
  PetscBool    diag_known; /* diag_pos and diag_missing are set (found once per pattern) */
  PetscInt     diag_missing;
  PetscScalar *spmm_work; /* B row-major for the SpMM, spmm_work_bytes long (not in 'bytes') */
  size_t       spmm_work_bytes;
};

/* Allocates d's arrays for the layout fmt (sizes checked), its ell_len and csr_start only where
   the device layout has not made them; on error the caller destroys d.  UploadLayout: fmt's
   ell_len and csr_start (host) into d's.  Allocate: one array, counted in d->bytes (an error if
   *ptr is set already). */
PetscErrorCode CIHybridDeviceAllocateArrays(CIHybridDevice d, const CIHybridFormat *fmt);
PetscErrorCode CIHybridDeviceUploadLayout(CIHybridDevice d, const CIHybridFormat *fmt);
PetscErrorCode CIHybridDeviceAllocate(CIHybridDevice d, void **ptr, size_t bytes, const char *what);

/* The tuned kernel's variants (CIHybridTunedVariant, CIHybridDeviceMultTuned, ...) and
   CIHybridDeviceSpMMLayout are exported for benchmarks/src/bench_cihybrid:
   <gpumats_cihybrid_format.h>. */
