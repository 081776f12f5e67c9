/* Host SpMM on the CIHYBRID arrays: C = A B (+ C) for k dense columns, the
   portable path of MatProduct AB and the reference of the CUDA kernel. */
#include "cihybrid/cihybrid_impl.h"

/* Partial sums of this many columns stay in registers while a row's entries
   are swept; the row is read from memory once and from L1 for later tiles. */
#define CIHYBRID_SPMM_HOST_TILE 8

void CIHybridSpMMHost(const CIHybridFormat *fmt, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscInt i, p, j0, t;

  for (i = 0; i < fmt->nrows; i++) {
    const int32_t     *ecol = fmt->ell_col + (size_t)i * fmt->pitch;
    const PetscScalar *eval = fmt->ell_val + (size_t)i * fmt->pitch;

    for (j0 = 0; j0 < k; j0 += CIHYBRID_SPMM_HOST_TILE) {
      const PetscInt     nt = PetscMin(CIHYBRID_SPMM_HOST_TILE, k - j0);
      const PetscScalar *b  = B + (size_t)j0 * ldb;
      PetscScalar       *c  = C + (size_t)j0 * ldc + i;
      PetscScalar        sum[CIHYBRID_SPMM_HOST_TILE] = {0};

      /* same summation order as MatMult: ELL prefix, then the remainder */
      for (p = 0; p < fmt->ell_len[i]; p++)
        for (t = 0; t < nt; t++) sum[t] += eval[p] * b[(size_t)t * ldb + ecol[p]];
      for (p = fmt->csr_start[i]; p < fmt->csr_start[i + 1]; p++)
        for (t = 0; t < nt; t++) sum[t] += fmt->csr_val[p] * b[(size_t)t * ldb + fmt->csr_col[p]];
      for (t = 0; t < nt; t++) c[(size_t)t * ldc] = add ? c[(size_t)t * ldc] + sum[t] : sum[t];
    }
  }
}
