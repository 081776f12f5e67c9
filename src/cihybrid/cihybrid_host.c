/* Host kernels on the CIHYBRID arrays: the portable path, and the reference
   the CUDA kernels are tested against. */
#include <gpumats_cihybrid_format.h>
#include <string.h>

void CIHybridMultHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscInt i, p;

  for (i = 0; i < fmt->nrows; i++) {
    const int32_t     *ecol = fmt->ell_col + (size_t)i * fmt->pitch;
    const PetscScalar *eval = fmt->ell_val + (size_t)i * fmt->pitch;
    PetscScalar        sum  = y0 ? y0[i] : 0;

    /* same summation order as AIJ (which starts from y0): ELL prefix, then the remainder */
    for (p = 0; p < fmt->ell_len[i]; p++) sum += eval[p] * x[ecol[p]];
    for (p = fmt->csr_start[i]; p < fmt->csr_start[i + 1]; p++) sum += fmt->csr_val[p] * x[fmt->csr_col[p]];
    y[i] = sum;
  }
}

void CIHybridMultTransposeHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscInt i, p;

  /* no memcpy/memset of 0 bytes: the arrays of an empty vector may be NULL, which the C
     library functions do not accept even for a length of 0 (UBSan: nonnull-attribute) */
  if (fmt->ncols > 0) {
    if (y0 && y0 != y) memcpy(y, y0, (size_t)fmt->ncols * sizeof(PetscScalar));
    else if (!y0) memset(y, 0, (size_t)fmt->ncols * sizeof(PetscScalar));
  }
  for (i = 0; i < fmt->nrows; i++) {
    const int32_t     *ecol = fmt->ell_col + (size_t)i * fmt->pitch;
    const PetscScalar *eval = fmt->ell_val + (size_t)i * fmt->pitch;
    const PetscScalar  xi   = x[i];

    for (p = 0; p < fmt->ell_len[i]; p++) y[ecol[p]] += eval[p] * xi;
    for (p = fmt->csr_start[i]; p < fmt->csr_start[i + 1]; p++) y[fmt->csr_col[p]] += fmt->csr_val[p] * xi;
  }
}
