/* PCSR on the host: row statistics, the kernels' names and the automatic choice, the host
   products. */
#include "pcsr_format.h"
#include <math.h>

const char *const MatPCSRKernels[]    = {"auto", "paper", "fused", "vector", "adaptive", "MatPCSRKernel", "MAT_PCSR_KERNEL_", NULL};
const char *const MatPCSRTransposes[] = {"atomic", "copy", "MatPCSRTranspose", "MAT_PCSR_TRANSPOSE_", NULL};

void PCSRRowStatsFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *ai, PCSRRowStats *stats)
{
  double sum2 = 0;

  stats->nrows       = nrows;
  stats->ncols       = ncols;
  stats->nnz         = nrows ? (PetscInt64)ai[nrows] - ai[0] : 0;
  stats->max_row_len = 0;
  stats->empty_rows  = 0;
  stats->mean_row_len = nrows ? (double)stats->nnz / (double)nrows : 0.0;
  for (PetscInt i = 0; i < nrows; i++) {
    const PetscInt64 len = (PetscInt64)ai[i + 1] - ai[i];
    const double     d   = (double)len - stats->mean_row_len;

    if (len > stats->max_row_len) stats->max_row_len = len;
    if (!len) stats->empty_rows++;
    sum2 += d * d;
  }
  stats->stddev_row_len = nrows ? sqrt(sum2 / (double)nrows) : 0.0;
}

/* The automatic choice, from bench_pcsr's measurements (BENCHMARKS.md, "pcsr: SpMV on a set
   like the paper's"):
   - the adaptive kernel (row blocks of bounded nonzeros, long rows by whole thread
     blocks) was the fastest or within 6% of it on every generated matrix: stencils,
     elasticity, the ex19 pattern, R-MAT graphs and circuits, and the only one that
     stays fast where a few rows are far longer than the rest;
   - rows of hundreds of entries of similar lengths (CI Hamiltonians, 650 a row) keep a
     group of 32 lanes per row busy with long coalesced runs: the vector kernel was 1.4x
     faster there than adaptive, whose blocks then hold one or two rows.
   The fused kernel, the paper's kernel 2 without its middle array, is never faster than
   both and is not chosen. */
#define PCSR_AUTO_LONG_ROW_FACTOR 8.0
#define PCSR_AUTO_VECTOR_MEAN     128.0

MatPCSRKernel PCSRChooseKernel(const PCSRRowStats *s, const char **why)
{
  if ((double)s->max_row_len > PCSR_AUTO_LONG_ROW_FACTOR * s->mean_row_len && s->max_row_len > 32) {
    *why = "some rows are more than 8 times longer than the mean";
    return MAT_PCSR_KERNEL_ADAPTIVE;
  }
  if (s->mean_row_len >= PCSR_AUTO_VECTOR_MEAN) {
    *why = "rows of 128 or more entries on average, of similar lengths";
    return MAT_PCSR_KERNEL_VECTOR;
  }
  *why = "rows of fewer than 128 entries on average, without rows far longer than the mean";
  return MAT_PCSR_KERNEL_ADAPTIVE;
}

MatPCSRKernel PCSRResolveKernel(MatPCSRKernel kernel, const PCSRRowStats *s)
{
  const char *why;

  return kernel == MAT_PCSR_KERNEL_AUTO ? PCSRChooseKernel(s, &why) : kernel;
}

void PCSRMultHost(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  for (PetscInt i = 0; i < nrows; i++) {
    PetscScalar sum = y0 ? y0[i] : 0; /* AIJ's order: from y0, then the row */

    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) sum += aa[p] * x[aj[p]];
    y[i] = sum;
  }
}

void PCSRMultTransposeHost(PetscInt nrows, PetscInt ncols, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  if (y0 != y) {
    for (PetscInt j = 0; j < ncols; j++) y[j] = y0 ? y0[j] : 0;
  }
  for (PetscInt i = 0; i < nrows; i++) {
    const PetscScalar xi = x[i];

    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) y[aj[p]] += aa[p] * xi;
  }
}

/* Columns of B in tiles of 4 so that each entry of A is read once per tile and the
   four sums stay in registers. */
void PCSRSpMMHost(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  for (PetscInt j0 = 0; j0 < k; j0 += 4) {
    const int          nt = (int)PetscMin(4, k - j0);
    const PetscScalar *b  = B + (size_t)j0 * ldb;
    PetscScalar       *c  = C + (size_t)j0 * ldc;

    for (PetscInt i = 0; i < nrows; i++) {
      PetscScalar s[4] = {0, 0, 0, 0};

      for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
        const PetscScalar a   = aa[p];
        const size_t      col = (size_t)aj[p]; /* col + ldb may pass 2^31 */

        s[0] += a * b[col];
        if (nt > 1) s[1] += a * b[col + (size_t)ldb];
        if (nt > 2) s[2] += a * b[col + 2 * (size_t)ldb];
        if (nt > 3) s[3] += a * b[col + 3 * (size_t)ldb];
      }
      for (int t = 0; t < nt; t++) c[i + (size_t)t * ldc] = add ? c[i + (size_t)t * ldc] + s[t] : s[t];
    }
  }
}

PetscBool PCSRFitsDeviceIndices(const PCSRRowStats *s)
{
  const PetscInt64 max = 2147483647;

  return (PetscInt64)s->nrows < max && (PetscInt64)s->ncols < max && s->nnz >= 0 && s->nnz <= PCSR_MAX_DEVICE_NNZ ? PETSC_TRUE : PETSC_FALSE;
}
