/* Unit test of the CIHYBRID builder and host kernels, with no PETSc objects:
   - a 6x5 matrix worked by hand in the style of the paper's sections 3-4
     (empty row, a row all in CSR, a row longer than BOUNDARY), both splits;
   - random CSR matrices: every entry lands in exactly one place, products
     match a plain CSR product, a value refresh tracks new values;
   - the 32-bit index guard fails before allocating;
   - the automatic BOUNDARY on uniform rows. */
#include <gpumats_cihybrid_format.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "testcheck.h"

/* the 6x5 example:
     row 0: 1 2 . 3 .
     row 1: . . 4 . .
     row 2: . . . . .
     row 3: 5 6 7 8 9
     row 4: . . . . 10
     row 5: . 11 . . 12   */
static const PetscInt    ex_rowptr[] = {0, 3, 4, 4, 9, 10, 12};
static const PetscInt    ex_col[]    = {0, 1, 3, 2, 0, 1, 2, 3, 4, 4, 1, 4};
static const PetscScalar ex_val[]    = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static void CheckEll(const CIHybridFormat *f, const int32_t (*col)[2], const PetscScalar (*val)[2], const char *what)
{
  for (PetscInt i = 0; i < 6; i++) {
    for (PetscInt p = 0; p < f->pitch; p++) {
      int32_t     c = f->ell_col[i * f->pitch + p];
      PetscScalar v = f->ell_val[i * f->pitch + p];
      int32_t     ec = p < 2 ? col[i][p] : -1;
      PetscScalar ev = p < 2 ? val[i][p] : 0;
      CHECK(c == ec && v == ev, "%s: ELL slot (%d,%d) holds (%d,%g), expected (%d,%g)", what, (int)i, (int)p, c, (double)v, ec, (double)ev);
    }
  }
}

static void CheckCsr(const CIHybridFormat *f, const int32_t *start, const int32_t *col, const PetscScalar *val, int nnz, const char *what)
{
  for (int i = 0; i <= 6; i++) CHECK(f->csr_start[i] == start[i], "%s: csr_start[%d] = %d, expected %d", what, i, f->csr_start[i], start[i]);
  CHECK(f->nnz_csr == nnz, "%s: %lld CSR nonzeros, expected %d", what, (long long)f->nnz_csr, nnz);
  for (int k = 0; k < nnz && k < f->nnz_csr; k++) CHECK(f->csr_col[k] == col[k] && f->csr_val[k] == val[k], "%s: CSR entry %d is (%d,%g), expected (%d,%g)", what, k, f->csr_col[k], (double)f->csr_val[k], col[k], (double)val[k]);
}

static void CheckProducts(const CIHybridFormat *f, const char *what)
{
  /* worked by hand: A [1 2 3 4 5]^T and A^T [1 1 1 1 1 1]^T */
  const PetscScalar x[5] = {1, 2, 3, 4, 5}, ones[6] = {1, 1, 1, 1, 1, 1};
  const PetscScalar ax[6] = {17, 12, 0, 115, 50, 82}, atx[5] = {6, 19, 11, 11, 31};
  PetscScalar       y[6], yt[5];

  CIHybridMultHost(f, x, NULL, y);
  for (int i = 0; i < 6; i++) CHECK(y[i] == ax[i], "%s: (A x)[%d] = %g, expected %g", what, i, (double)y[i], (double)ax[i]);
  CIHybridMultHost(f, x, ones, y);
  for (int i = 0; i < 6; i++) CHECK(y[i] == ax[i] + 1, "%s: (A x + 1)[%d] = %g, expected %g", what, i, (double)y[i], (double)(ax[i] + 1));
  CIHybridMultTransposeHost(f, ones, NULL, yt);
  for (int j = 0; j < 5; j++) CHECK(yt[j] == atx[j], "%s: (A^T 1)[%d] = %g, expected %g", what, j, (double)yt[j], (double)atx[j]);
}

static void TestPaperExample(void)
{
  CIHybridFormat f;

  /* BOUNDARY 2, entries split: the first two nonzeros of each row in ELLPACK */
  {
    const int32_t     col[6][2] = {{0, 1}, {2, -1}, {-1, -1}, {0, 1}, {4, -1}, {1, 4}};
    const PetscScalar val[6][2] = {{1, 2}, {4, 0}, {0, 0}, {5, 6}, {10, 0}, {11, 12}};
    const int32_t     start[7]  = {0, 1, 1, 1, 4, 4, 4}, ccol[4] = {3, 2, 3, 4};
    const PetscScalar cval[4]   = {3, 7, 8, 9};

    CHECK(CIHybridBuildFromCSR(6, 5, ex_rowptr, ex_col, ex_val, CIHYBRID_SPLIT_ENTRIES, 2, &f) == CIHYBRID_OK, "build (entries)");
    CHECK(f.width == 2 && f.pitch == 8, "entries: width %d pitch %d, expected 2 and 8", (int)f.width, (int)f.pitch);
    CHECK(f.nnz == 12 && f.nnz_ell == 8 && f.nnz_csr == 4 && f.padding == 4 && f.rows_with_csr == 2, "entries: statistics nnz %lld ell %lld csr %lld padding %lld rows_with_csr %lld", (long long)f.nnz, (long long)f.nnz_ell, (long long)f.nnz_csr, (long long)f.padding, (long long)f.rows_with_csr);
    CheckEll(&f, col, val, "entries");
    CheckCsr(&f, start, ccol, cval, 4, "entries");
    CheckProducts(&f, "entries");
    CIHybridFormatFree(&f);
  }
  /* column boundary 2: nonzeros in columns 0 and 1 in ELLPACK */
  {
    const int32_t     col[6][2] = {{0, 1}, {-1, -1}, {-1, -1}, {0, 1}, {-1, -1}, {1, -1}};
    const PetscScalar val[6][2] = {{1, 2}, {0, 0}, {0, 0}, {5, 6}, {0, 0}, {11, 0}};
    const int32_t     start[7]  = {0, 1, 2, 2, 5, 6, 7}, ccol[7] = {3, 2, 2, 3, 4, 4, 4};
    const PetscScalar cval[7]   = {3, 4, 7, 8, 9, 10, 12};

    CHECK(CIHybridBuildFromCSR(6, 5, ex_rowptr, ex_col, ex_val, CIHYBRID_SPLIT_COLUMNS, 2, &f) == CIHYBRID_OK, "build (columns)");
    CHECK(f.width == 2 && f.nnz_ell == 5 && f.nnz_csr == 7, "columns: width %d ell %lld csr %lld", (int)f.width, (long long)f.nnz_ell, (long long)f.nnz_csr);
    CheckEll(&f, col, val, "columns");
    CheckCsr(&f, start, ccol, cval, 7, "columns");
    CheckProducts(&f, "columns");
    CIHybridFormatFree(&f);
  }
  /* BOUNDARY 0 (all CSR) and one past the longest row (all ELLPACK) give the same products */
  CHECK(CIHybridBuildFromCSR(6, 5, ex_rowptr, ex_col, ex_val, CIHYBRID_SPLIT_ENTRIES, 0, &f) == CIHYBRID_OK && f.width == 0 && f.nnz_csr == 12, "all CSR");
  CheckProducts(&f, "all CSR");
  CIHybridFormatFree(&f);
  CHECK(CIHybridBuildFromCSR(6, 5, ex_rowptr, ex_col, ex_val, CIHYBRID_SPLIT_ENTRIES, 6, &f) == CIHYBRID_OK && f.width == 5 && f.nnz_csr == 0, "all ELLPACK");
  CheckProducts(&f, "all ELLPACK");
  CIHybridFormatFree(&f);
}

static unsigned long long rng_state = 12345;
static double             Uniform(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* random CSR, sorted rows, some empty and some long */
static void RandomCSR(PetscInt m, PetscInt n, double density, PetscInt **rowptr, PetscInt **col, PetscScalar **val)
{
  PetscInt nnz = 0, cap = m * n + 1;

  *rowptr = malloc(sizeof(PetscInt) * (m + 1));
  *col    = malloc(sizeof(PetscInt) * cap);
  *val    = malloc(sizeof(PetscScalar) * cap);
  (*rowptr)[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    double d = Uniform() < 0.1 ? 0.0 : (Uniform() < 0.1 ? 1.0 : density);
    for (PetscInt j = 0; j < n; j++)
      if (Uniform() < d) {
        (*col)[nnz]   = j;
        (*val)[nnz++] = Uniform() < 0.05 ? 0.0 : 2 * Uniform() - 1; /* explicit zeros too */
      }
    (*rowptr)[i + 1] = nnz;
  }
}

static void TestRandom(void)
{
  for (int trial = 0; trial < 300; trial++) {
    PetscInt       m = (PetscInt)(Uniform() * 70), n = 1 + (PetscInt)(Uniform() * 70), *rowptr, *col;
    PetscScalar   *val, *x = malloc(sizeof(PetscScalar) * (n + m + 1)), *y = malloc(sizeof(PetscScalar) * (m + 1)), *yref = malloc(sizeof(PetscScalar) * (m + 1));
    PetscScalar   *xt = malloc(sizeof(PetscScalar) * (m + 1)), *yt = malloc(sizeof(PetscScalar) * (n + 1)), *ytref = malloc(sizeof(PetscScalar) * (n + 1));
    CIHybridSplit  split    = Uniform() < 0.5 ? CIHYBRID_SPLIT_ENTRIES : CIHYBRID_SPLIT_COLUMNS;
    PetscInt       boundary = (PetscInt)(Uniform() * (split == CIHYBRID_SPLIT_ENTRIES ? 40 : n + 2));
    CIHybridFormat f;

    RandomCSR(m, n, Uniform() * 0.5, &rowptr, &col, &val);
    CHECK(CIHybridBuildFromCSR(m, n, rowptr, col, val, split, boundary, &f) == CIHYBRID_OK, "random build %d", trial);
    CHECK(f.nnz_ell + f.nnz_csr == rowptr[m] && f.pitch % CIHYBRID_PITCH_ALIGN_NARROW == 0 && (f.width < CIHYBRID_PITCH_ALIGN || f.pitch % CIHYBRID_PITCH_ALIGN == 0) && f.pitch >= f.width && f.pitch - f.width < CIHYBRID_PITCH_ALIGN, "random %d: counts", trial);
    /* every entry in exactly one place, in order: reassemble row i */
    for (PetscInt i = 0; i < m; i++) {
      PetscInt k = rowptr[i], s = f.ell_len[i];
      for (PetscInt p = 0; p < s; p++, k++) CHECK(f.ell_col[i * f.pitch + p] == col[k] && f.ell_val[i * f.pitch + p] == val[k], "random %d row %d ELL %d", trial, (int)i, (int)p);
      for (PetscInt p = s; p < f.pitch; p++) CHECK(f.ell_col[i * f.pitch + p] == -1 && f.ell_val[i * f.pitch + p] == 0, "random %d row %d padding", trial, (int)i);
      for (PetscInt q = f.csr_start[i]; q < f.csr_start[i + 1]; q++, k++) CHECK(f.csr_col[q] == col[k] && f.csr_val[q] == val[k], "random %d row %d CSR", trial, (int)i);
      CHECK(k == rowptr[i + 1], "random %d row %d: %d entries placed of %d", trial, (int)i, (int)(k - rowptr[i]), (int)(rowptr[i + 1] - rowptr[i]));
      if (split == CIHYBRID_SPLIT_ENTRIES) CHECK(s == PetscMin(boundary, rowptr[i + 1] - rowptr[i]), "random %d row %d split", trial, (int)i);
      else
        for (PetscInt p = 0; p < rowptr[i + 1] - rowptr[i]; p++) CHECK((p < s) == (col[rowptr[i] + p] < boundary), "random %d row %d column split", trial, (int)i);
    }
    /* products against plain CSR, then against new values after a refresh */
    for (int pass = 0; pass < 2; pass++) {
      for (PetscInt j = 0; j < n; j++) x[j] = 2 * Uniform() - 1;
      for (PetscInt i = 0; i < m; i++) xt[i] = 2 * Uniform() - 1;
      for (PetscInt j = 0; j < n; j++) ytref[j] = 0;
      for (PetscInt i = 0; i < m; i++) {
        yref[i] = 0;
        for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
          yref[i] += val[k] * x[col[k]];
          ytref[col[k]] += val[k] * xt[i];
        }
      }
      CIHybridMultHost(&f, x, NULL, y);
      CIHybridMultTransposeHost(&f, xt, NULL, yt);
      for (PetscInt i = 0; i < m; i++) CHECK(y[i] == yref[i], "random %d pass %d: y[%d] %g vs %g", trial, pass, (int)i, (double)y[i], (double)yref[i]);
      for (PetscInt j = 0; j < n; j++) CHECK(fabs(yt[j] - ytref[j]) <= 1e-13 * (1 + fabs(ytref[j])), "random %d pass %d: (A^T x)[%d] %g vs %g", trial, pass, (int)j, (double)yt[j], (double)ytref[j]);
      for (PetscInt k = 0; k < rowptr[m]; k++) val[k] = 2 * Uniform() - 1;
      CHECK(CIHybridRefreshValues(rowptr, val, &f) == CIHYBRID_OK, "refresh %d", trial);
    }
    /* the two steps the Mat type uses: a layout alone equals the build's, with no arrays;
       a fill after it, and a fill again after the arrays were dropped, equal a fresh build */
    {
      CIHybridFormat l, b;

      CHECK(CIHybridLayoutFromCSR(m, n, rowptr, col, split, boundary, &l) == CIHYBRID_OK, "random %d: layout", trial);
      CHECK(!l.ell_col && !l.ell_val && !l.csr_col && !l.csr_val, "random %d: the layout has arrays", trial);
      CHECK(l.width == f.width && l.pitch == f.pitch && l.nnz_ell == f.nnz_ell && l.nnz_csr == f.nnz_csr && l.padding == f.padding && l.rows_with_csr == f.rows_with_csr && l.max_row_len == f.max_row_len, "random %d: layout statistics", trial);
      CHECK(!memcmp(l.ell_len, f.ell_len, (size_t)m * sizeof(int32_t)) && !memcmp(l.csr_start, f.csr_start, (size_t)(m + 1) * sizeof(int32_t)), "random %d: layout rows", trial);
      for (int again = 0; again < 2; again++) {
        CHECK(CIHybridFillFromCSR(rowptr, col, val, &l) == CIHYBRID_OK, "random %d: fill %d", trial, again);
        CHECK(CIHybridBuildFromCSR(m, n, rowptr, col, val, split, boundary, &b) == CIHYBRID_OK, "random %d: rebuild", trial);
        CHECK(!memcmp(l.ell_col, b.ell_col, (size_t)m * l.pitch * sizeof(int32_t)) && !memcmp(l.ell_val, b.ell_val, (size_t)m * l.pitch * sizeof(PetscScalar)) && !memcmp(l.csr_col, b.csr_col, (size_t)l.nnz_csr * sizeof(int32_t)) && !memcmp(l.csr_val, b.csr_val, (size_t)l.nnz_csr * sizeof(PetscScalar)), "random %d: fill %d differs from a build", trial, again);
        CIHybridFormatFree(&b);
        CIHybridFormatFreeArrays(&l);
      }
      CIHybridFormatFree(&l);
    }
    CIHybridFormatFree(&f);
    free(rowptr), free(col), free(val), free(x), free(y), free(yref), free(xt), free(yt), free(ytref);
  }
}

static void TestGuards(void)
{
  /* 300000 rows, one of 8000 nonzeros, BOUNDARY 8000: 2.4e9 ELLPACK slots > INT_MAX.
     Must be refused before any allocation (which would be ~29 GB). */
  const PetscInt m = 300000, len = 8000;
  PetscInt      *rowptr = malloc(sizeof(PetscInt) * (m + 1)), *col = malloc(sizeof(PetscInt) * len);
  PetscScalar   *val    = calloc(len, sizeof(PetscScalar));
  CIHybridFormat f;

  for (PetscInt i = 0; i <= m; i++) rowptr[i] = i == 0 ? 0 : len;
  for (PetscInt k = 0; k < len; k++) col[k] = k;
  CHECK(CIHybridBuildFromCSR(m, len, rowptr, col, val, CIHYBRID_SPLIT_ENTRIES, len, &f) == CIHYBRID_ERR_INDEX_OVERFLOW, "overflow not detected");
  CHECK(f.ell_col == NULL && f.ell_val == NULL, "overflow: arrays were allocated");
  CHECK(CIHybridBuildFromCSR(m, len, rowptr, col, val, CIHYBRID_SPLIT_ENTRIES, 64, &f) == CIHYBRID_OK, "a small BOUNDARY must work on the same matrix");
  CIHybridFormatFree(&f);
  free(rowptr), free(col), free(val);

  /* invalid input */
  {
    const PetscInt rp[] = {0, 2}, unsorted[] = {1, 0}, outside[] = {0, 7};
    const PetscScalar v[] = {1, 1};
    CHECK(CIHybridBuildFromCSR(1, 2, rp, unsorted, v, CIHYBRID_SPLIT_ENTRIES, 1, &f) == CIHYBRID_ERR_ARGUMENT, "unsorted row accepted");
    CHECK(CIHybridBuildFromCSR(1, 2, rp, outside, v, CIHYBRID_SPLIT_ENTRIES, 1, &f) == CIHYBRID_ERR_ARGUMENT, "column out of range accepted");
    CHECK(CIHybridBuildFromCSR(1, 2, rp, outside, v, CIHYBRID_SPLIT_ENTRIES, -1, &f) == CIHYBRID_ERR_ARGUMENT, "negative boundary accepted");
  }
  /* 0 x 0 */
  CHECK(CIHybridBuildFromCSR(0, 0, ex_rowptr, ex_col, ex_val, CIHYBRID_SPLIT_ENTRIES, 3, &f) == CIHYBRID_OK && f.nnz == 0 && f.width == 0, "0x0");
  CIHybridFormatFree(&f);
}

static void TestAutoBoundary(void)
{
  /* rows of 64 nonzeros: all-ELLPACK moves 12 bytes a nonzero with no padding
     and no partial sectors, so the model must pick 64. */
  const PetscInt m = 100, L = 64;
  PetscInt       rowptr[101];
  double         bytes;

  for (PetscInt i = 0; i <= m; i++) rowptr[i] = i * L;
  CHECK(CIHybridChooseBoundary(m, rowptr, &bytes) == L, "uniform rows of 64: auto BOUNDARY %d", (int)CIHybridChooseBoundary(m, rowptr, NULL));
  CHECK(bytes == (double)m * L * 12, "uniform rows: model bytes %g, expected %g", bytes, (double)m * L * 12);
  /* one long row among short ones: padding every row to it costs more than CSR */
  for (PetscInt i = 0; i <= m; i++) rowptr[i] = i * 8 + (i == m ? 4000 : 0);
  CHECK(CIHybridChooseBoundary(m, rowptr, NULL) == 8, "99 rows of 8 + one of 4008: auto BOUNDARY %d, expected 8", (int)CIHybridChooseBoundary(m, rowptr, NULL));
}

int main(void)
{
  TestPaperExample();
  TestRandom();
  TestGuards();
  TestAutoBoundary();
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
