/* Host SpMM on the CIHYBRID arrays: C = A B (+ C) for k dense columns, the
   portable path of MatProduct AB and the reference of the CUDA kernel. */
#include "cihybrid/cihybrid_impl.h"

/* Row i times nt <= 8 columns of B (b: the first, leading dimension ldb) into c[t ldc].
   The partial sums are scalars and the tests on nt fold away where it is a constant
   (the calls below): a loop over an array of sums is neither unrolled nor kept in
   registers at -O2, which made this slower than AIJ's product. */
static inline void CIHybridSpMMHostRow(const CIHybridFormat *fmt, PetscInt i, const PetscScalar *b, size_t ldb, int nt, PetscBool add, PetscScalar *c, size_t ldc)
{
  const int32_t     *ecol = fmt->ell_col + (size_t)i * fmt->pitch;
  const PetscScalar *eval = fmt->ell_val + (size_t)i * fmt->pitch;
  PetscScalar        s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  PetscInt           p;

#define CIHYBRID_SPMM_HOST_ACC(v, col) \
  do { \
    const PetscScalar  a_  = (v); \
    const PetscScalar *bc_ = b + (col); \
    s0 += a_ * bc_[0]; \
    if (nt > 1) s1 += a_ * bc_[ldb]; \
    if (nt > 2) s2 += a_ * bc_[2 * ldb]; \
    if (nt > 3) s3 += a_ * bc_[3 * ldb]; \
    if (nt > 4) s4 += a_ * bc_[4 * ldb]; \
    if (nt > 5) s5 += a_ * bc_[5 * ldb]; \
    if (nt > 6) s6 += a_ * bc_[6 * ldb]; \
    if (nt > 7) s7 += a_ * bc_[7 * ldb]; \
  } while (0)
  /* same summation order as MatMult: ELL prefix, then the remainder */
  for (p = 0; p < fmt->ell_len[i]; p++) CIHYBRID_SPMM_HOST_ACC(eval[p], ecol[p]);
  for (p = fmt->csr_start[i]; p < fmt->csr_start[i + 1]; p++) CIHYBRID_SPMM_HOST_ACC(fmt->csr_val[p], fmt->csr_col[p]);
#undef CIHYBRID_SPMM_HOST_ACC
  {
    const PetscScalar s[8] = {s0, s1, s2, s3, s4, s5, s6, s7};
    for (int t = 0; t < nt; t++) c[t * ldc] = add ? c[t * ldc] + s[t] : s[t];
  }
}

/* The column tiles go outermost: the rows are swept once per tile of 8 columns, so the
   part of B a sweep gathers from is 8 columns, not k. */
void CIHybridSpMMHost(const CIHybridFormat *fmt, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  for (PetscInt j0 = 0; j0 < k; j0 += 8) {
    const PetscScalar *b  = B + (size_t)j0 * ldb;
    PetscScalar       *c  = C + (size_t)j0 * ldc;
    const int          nt = (int)PetscMin(8, k - j0);

    for (PetscInt i = 0; i < fmt->nrows; i++) {
      switch (nt) {
      case 8: CIHybridSpMMHostRow(fmt, i, b, ldb, 8, add, c + i, ldc); break;
      case 7: CIHybridSpMMHostRow(fmt, i, b, ldb, 7, add, c + i, ldc); break;
      case 6: CIHybridSpMMHostRow(fmt, i, b, ldb, 6, add, c + i, ldc); break;
      case 5: CIHybridSpMMHostRow(fmt, i, b, ldb, 5, add, c + i, ldc); break;
      case 4: CIHybridSpMMHostRow(fmt, i, b, ldb, 4, add, c + i, ldc); break;
      case 3: CIHybridSpMMHostRow(fmt, i, b, ldb, 3, add, c + i, ldc); break;
      case 2: CIHybridSpMMHostRow(fmt, i, b, ldb, 2, add, c + i, ldc); break;
      default: CIHybridSpMMHostRow(fmt, i, b, ldb, 1, add, c + i, ldc); break;
      }
    }
  }
}
