/* The DIAG builder and host kernels (src/diag/diag_builder.c and diag_host.c) against the definitions:
   the 4x4 example's compact diagonals and HM order worked by hand, then random banded
   and structured-sparse matrices (square and rectangular) whose products are compared
   with dense or CSR references computed here, and the refusals.  Plain C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "diag/diag_format.h"

#include "testcheck.h"

static unsigned long long rng = 88172645463325252ULL;
static double Uniform(void) /* [-1, 1) */
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}
static PetscInt RandInt(PetscInt lo, PetscInt hi) /* [lo, hi] */
{
  return lo + (PetscInt)((Uniform() + 1.0) * 0.5 * (double)(hi - lo + 1)) % (hi - lo + 1);
}

/* A dense m x n matrix to CSR (entries that are exactly 0 are not in the pattern) */
static void DenseToCSR(PetscInt m, PetscInt n, const double *a, PetscInt **ai, PetscInt **aj, double **aa)
{
  PetscInt nnz = 0;

  for (PetscInt k = 0; k < m * n; k++) nnz += a[k] != 0.0;
  *ai = malloc(sizeof(PetscInt) * (m + 1));
  *aj = malloc(sizeof(PetscInt) * (nnz + 1));
  *aa = malloc(sizeof(double) * (nnz + 1));
  nnz = 0;
  for (PetscInt i = 0; i < m; i++) {
    (*ai)[i] = nnz;
    for (PetscInt j = n - 1; j >= 0; j--) /* columns descending: the builder must not need sorted rows */
      if (a[i * n + j] != 0.0) (*aj)[nnz] = j, (*aa)[nnz++] = a[i * n + j];
  }
  (*ai)[m] = nnz;
}

static double RelErr(PetscInt n, const double *y, const double *ref)
{
  double num = 0, den = 0;

  for (PetscInt i = 0; i < n; i++) num += (y[i] - ref[i]) * (y[i] - ref[i]), den += ref[i] * ref[i];
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void WorkedExample(void)
{
  /* a(i,j) = 10 (i+1) + (j+1) on the pattern below (0 elsewhere) */
  const int pattern[4][4] = {{1, 1, 0, 0}, {1, 1, 1, 0}, {0, 1, 1, 1}, {1, 0, 1, 1}};
  double    a[16];
  PetscInt *ai, *aj;
  double   *aa;
  DiagFormat f;

  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) a[i * 4 + j] = pattern[i][j] ? 10.0 * (i + 1) + (j + 1) : 0.0;
  DenseToCSR(4, 4, a, &ai, &aj, &aa);

  /* CDM: compact diagonal 2 holds a02, a13, a20, a31, all zero: not stored */
  CHECK(DiagFromCSR(DIAG_SCHEME_CDM, 4, 4, ai, aj, aa, 0, NULL, &f) == DIAG_OK, "CDM of the 4x4 example");
  CHECK(f.ndiag == 3 && f.offset[0] == 0 && f.offset[1] == 1 && f.offset[2] == 3, "CDM: compact diagonals 0, 1, 3 expected");
  {
    const double expect[3][4] = {{11, 22, 33, 44}, {12, 23, 34, 41}, {0, 21, 32, 43}}; /* a(i, (i+k) mod 4) */

    for (int t = 0; t < 3; t++)
      for (int i = 0; i < 4; i++) CHECK(f.val[f.start[t] + i] == expect[t][i], "CDM diagonal %d entry %d: %g, expected %g", (int)f.offset[t], i, f.val[f.start[t] + i], expect[t][i]);
  }
  DiagFormatFree(&f);

  /* HM: main, superdiagonal 1, then subdiagonals -1 and -3; no padding */
  CHECK(DiagFromCSR(DIAG_SCHEME_HM, 4, 4, ai, aj, aa, 0, NULL, &f) == DIAG_OK, "HM of the 4x4 example");
  CHECK(f.ndiag == 4 && f.offset[0] == 0 && f.offset[1] == 1 && f.offset[2] == -1 && f.offset[3] == -3, "HM order: 0, 1, -1, -3 expected");
  {
    const double     expect[] = {11, 22, 33, 44, 12, 23, 34, 21, 32, 43, 41};
    const PetscInt64 starts[] = {0, 4, 7, 10, 11};

    for (int t = 0; t <= 4; t++) CHECK(f.start[t] == starts[t], "HM start of diagonal %d: %lld, expected %lld", t, (long long)f.start[t], (long long)starts[t]);
    for (int k = 0; k < 11; k++) CHECK(f.val[k] == expect[k], "HM value %d: %g, expected %g", k, f.val[k], expect[k]);
    CHECK(DiagFind(&f, -3) == 3 && DiagFind(&f, 2) == -1, "DiagFind");
  }
  DiagFormatFree(&f);
  free(ai), free(aj), free(aa);
}

/* random m x n matrix on the given offsets (HM offsets d = j - i), entries kept with probability keep */
static void RandomOnOffsets(PetscInt m, PetscInt n, PetscInt noff, const PetscInt *off, double keep, double *a)
{
  memset(a, 0, sizeof(double) * m * n);
  for (PetscInt t = 0; t < noff; t++)
    for (PetscInt i = 0; i < m; i++) {
      const PetscInt j = i + off[t];

      if (j >= 0 && j < n && (Uniform() + 1.0) * 0.5 < keep) a[i * n + j] = Uniform() + (Uniform() < 0 ? -1.5 : 1.5);
    }
}

static void DenseMult(PetscInt m, PetscInt n, const double *a, int transpose, const double *x, const double *y0, double *y)
{
  const PetscInt ny = transpose ? n : m;

  for (PetscInt i = 0; i < ny; i++) y[i] = y0 ? y0[i] : 0;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < n; j++)
      if (transpose) y[j] += a[i * n + j] * x[i];
      else y[i] += a[i * n + j] * x[j];
}

/* the products of one matrix in one scheme against the dense reference */
static void CheckProducts(DiagScheme scheme, PetscInt m, PetscInt n, const double *a, const char *what)
{
  PetscInt  *ai, *aj;
  double    *aa, *x = malloc(sizeof(double) * (m + n + 1)), *y0 = malloc(sizeof(double) * (m + n + 1));
  double    *y = malloc(sizeof(double) * (m + n + 1)), *ref = malloc(sizeof(double) * (m + n + 1));
  DiagFormat f;

  DenseToCSR(m, n, a, &ai, &aj, &aa);
  CHECK(DiagFromCSR(scheme, m, n, ai, aj, aa, 0, NULL, &f) == DIAG_OK, "%s: build", what);
  for (PetscInt k = 0; k < m + n; k++) x[k] = Uniform(), y0[k] = Uniform();
  for (int transpose = 0; transpose < 2; transpose++) {
    const PetscInt ny = transpose ? n : m;

    for (int add = 0; add < 3; add++) { /* y0 NULL, y0 distinct, y0 == y */
      DenseMult(m, n, a, transpose, x, add ? y0 : NULL, ref);
      if (add == 2) memcpy(y, y0, sizeof(double) * ny);
      else
        for (PetscInt i = 0; i < ny; i++) y[i] = NAN;
      if (transpose) DiagMultTransposeHost(&f, x, add == 0 ? NULL : add == 1 ? y0 : y, y);
      else DiagMultHost(&f, x, add == 0 ? NULL : add == 1 ? y0 : y, y);
      CHECK(RelErr(ny, y, ref) <= 1e-13, "%s: %s (y0 %s): relative error %g", what, transpose ? "A^T x" : "A x", add == 0 ? "NULL" : add == 1 ? "distinct" : "== y", RelErr(ny, y, ref));
    }
  }
  DiagFormatFree(&f);
  free(ai), free(aj), free(aa), free(x), free(y0), free(y), free(ref);
}

/* C = A B in diagonal form (the plan and its host numeric phase, diag_product_plan.c; A in scheme
   sa, B in sb) against the dense product, twice: the second time after new values of A */
static void CheckProductMixed(DiagScheme sa, DiagScheme sb, PetscInt m, PetscInt k, PetscInt n, const double *a, const double *b, const char *what)
{
  PetscInt       *ai, *aj, *bi, *bj;
  double         *aa, *ba, *c = calloc((size_t)(m * n + 1), sizeof(double)), *cd = calloc((size_t)(m * n + 1), sizeof(double));
  DiagFormat      A, B, C;
  DiagProductPlan plan;

  DenseToCSR(m, k, a, &ai, &aj, &aa);
  DenseToCSR(k, n, b, &bi, &bj, &ba);
  CHECK(DiagFromCSR(sa, m, k, ai, aj, aa, 0, NULL, &A) == DIAG_OK && DiagFromCSR(sb, k, n, bi, bj, ba, 0, NULL, &B) == DIAG_OK, "%s: build", what);
  CHECK(DiagProductPlanCreate(&A, &B, &plan, &C) == DIAG_OK, "%s: the plan", what);
  CHECK(C.scheme == (sa == DIAG_SCHEME_CDM && sb == DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM) && !C.val, "%s: C's scheme, and no values yet", what);
  C.val = calloc((size_t)C.start[C.ndiag] + 1, sizeof(double));
  for (int pass = 0; pass < 2; pass++) { /* numeric twice: the second after new values of A */
    double err = 0, nrm = 0;

    if (pass) {
      for (PetscInt64 q = 0; q < A.start[A.ndiag]; q++) A.val[q] *= -0.5;
      for (PetscInt q = 0; q < m * k; q++) ((double *)a)[q] *= -0.5;
    }
    for (PetscInt64 q = 0; q < C.start[C.ndiag]; q++) C.val[q] = NAN; /* every stored value must be written */
    DiagProductPlanNumericHost(&plan, &A, &B, &C);
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < n; j++) {
        double s = 0;

        for (PetscInt l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
        c[i * n + j] = s;
      }
    memset(cd, 0, sizeof(double) * (m * n + 1));
    for (PetscInt t = 0; t < C.ndiag; t++) /* C back to dense, by the scheme's definition (CDM padding must be 0) */
      for (PetscInt64 p = 0; p < C.start[t + 1] - C.start[t]; p++) {
        const PetscInt i = C.scheme == DIAG_SCHEME_HM ? DiagHMFirstRow(C.offset[t]) + (PetscInt)p : (PetscInt)p;
        const PetscInt j = C.scheme == DIAG_SCHEME_HM ? i + C.offset[t] : (PetscInt)((i + C.offset[t]) % n);

        cd[i * n + j] += C.val[C.start[t] + p];
      }
    for (PetscInt q = 0; q < m * n; q++) err += (cd[q] - c[q]) * (cd[q] - c[q]), nrm += c[q] * c[q];
    CHECK(sqrt(err) <= 1e-13 * (sqrt(nrm) + 1e-300), "%s: C = A B relative error %g (pass %d)", what, nrm > 0 ? sqrt(err / nrm) : sqrt(err), pass);
  }
  /* flops: 2 x the multiply-adds, counted against the pairs' rows one by one */
  {
    PetscInt64 fl = 0;

    for (PetscInt a_ = 0; a_ < plan.nea; a_++)
      for (PetscInt b_ = 0; b_ < plan.neb; b_++) {
        PetscInt i0, i1, cs;

        DiagPairSegment(m, k, n, C.scheme == DIAG_SCHEME_HM, plan.ea_d[a_], plan.eb_d[b_], &i0, &i1, &cs);
        fl += 2 * (i1 - i0);
      }
    CHECK(fl == plan.flops, "%s: flops %lld, counted %lld", what, (long long)plan.flops, (long long)fl);
  }
  DiagProductPlanFree(&plan);
  DiagFormatFree(&A), DiagFormatFree(&B), DiagFormatFree(&C);
  free(ai), free(aj), free(aa), free(bi), free(bj), free(ba), free(c), free(cd);
}

static void CheckProduct(DiagScheme scheme, PetscInt m, PetscInt k, PetscInt n, const double *a, const double *b, const char *what)
{
  CheckProductMixed(scheme, scheme, m, k, n, a, b, what);
  if (m == k && k == n) { /* the same product across the schemes: A in the other one, then B */
    char mixed[300];
    const DiagScheme other = scheme == DIAG_SCHEME_HM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM;

    snprintf(mixed, sizeof(mixed), "%s, A %s", what, other == DIAG_SCHEME_HM ? "HM" : "CDM");
    CheckProductMixed(other, scheme, m, k, n, a, b, mixed);
    snprintf(mixed, sizeof(mixed), "%s, B %s", what, other == DIAG_SCHEME_HM ? "HM" : "CDM");
    CheckProductMixed(scheme, other, m, k, n, a, b, mixed);
  }
}

static void RandomChecks(void)
{
  const PetscInt sizes[] = {1, 2, 7, 64, 211};
  char           what[256];

  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    const PetscInt n = sizes[s];
    double        *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    PetscInt       off[300];

    for (PetscInt w = 1; w <= 50; w = w < 5 ? w + 2 : w * 3) { /* banded, bandwidth w on each side, non-symmetric */
      PetscInt noff = 0;

      for (PetscInt d = -w; d <= w + 1; d++) off[noff++] = d;
      RandomOnOffsets(n, n, noff, off, 0.9, a);
      RandomOnOffsets(n, n, noff, off, 0.9, b);
      for (int scheme = 0; scheme < 2; scheme++) {
        snprintf(what, sizeof(what), "%s banded n %d w %d", scheme ? "CDM" : "HM", (int)n, (int)w);
        CheckProducts((DiagScheme)scheme, n, n, a, what);
        CheckProduct((DiagScheme)scheme, n, n, n, a, b, what);
      }
    }
    for (PetscInt nd = 5; nd <= 300; nd *= 4) { /* structured sparse: nd random offsets */
      PetscInt noff = 0;

      for (PetscInt t = 0; t < nd && n > 1; t++) off[noff++] = RandInt(-(n - 1), n - 1);
      RandomOnOffsets(n, n, noff, off, 1.0, a);
      RandomOnOffsets(n, n, noff, off, 1.0, b);
      for (int scheme = 0; scheme < 2; scheme++) {
        snprintf(what, sizeof(what), "%s structured n %d, %d offsets", scheme ? "CDM" : "HM", (int)n, (int)nd);
        CheckProducts((DiagScheme)scheme, n, n, a, what);
        CheckProduct((DiagScheme)scheme, n, n, n, a, b, what);
      }
    }
    free(a), free(b);
  }
  { /* HM on rectangular shapes, and their product */
    const PetscInt m = 37, k = 61, n = 23, off[] = {-30, -4, 0, 1, 2, 9, 40};
    double        *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n), *at = malloc(sizeof(double) * k * m);

    RandomOnOffsets(m, k, 7, off, 0.8, a);
    RandomOnOffsets(k, n, 7, off, 0.8, b);
    CheckProducts(DIAG_SCHEME_HM, m, k, a, "HM 37x61");
    CheckProducts(DIAG_SCHEME_HM, k, n, b, "HM 61x23");
    CheckProduct(DIAG_SCHEME_HM, m, k, n, a, b, "HM 37x61 times 61x23");
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < k; j++) at[j * m + i] = a[i * k + j];
    CheckProducts(DIAG_SCHEME_HM, k, m, at, "HM 61x37");
    free(a), free(b), free(at);
  }
  { /* n = 1e5, bandwidth 50: products against a CSR reference */
    const PetscInt n = 100000, w = 50;
    PetscInt      *ai = malloc(sizeof(PetscInt) * (n + 1)), *aj = malloc(sizeof(PetscInt) * n * (2 * w + 1)), nnz = 0;
    double        *aa = malloc(sizeof(double) * n * (2 * w + 1)), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    DiagFormat     f;

    for (PetscInt i = 0; i < n; i++) {
      ai[i] = nnz;
      for (PetscInt j = PetscMax(0, i - w); j <= PetscMin(n - 1, i + w); j++) aj[nnz] = j, aa[nnz++] = Uniform() + 2.0;
      x[i] = Uniform();
    }
    ai[n] = nnz;
    for (int scheme = 0; scheme < 2; scheme++) {
      CHECK(DiagFromCSR((DiagScheme)scheme, n, n, ai, aj, aa, 3.0, NULL, &f) == DIAG_OK, "n 1e5 band 50: build");
      DiagMultHost(&f, x, NULL, y);
      for (PetscInt i = 0; i < n; i++) {
        ref[i] = 0;
        for (PetscInt p = ai[i]; p < ai[i + 1]; p++) ref[i] += aa[p] * x[aj[p]];
      }
      CHECK(RelErr(n, y, ref) <= 1e-13, "%s n 1e5 band 50: A x relative error %g", scheme ? "CDM" : "HM", RelErr(n, y, ref));
      DiagFormatFree(&f);
    }
    free(ai), free(aj), free(aa), free(x), free(y), free(ref);
  }
}

static void RefusalChecks(void)
{
  const PetscInt n = 200;
  PetscInt      *ai = malloc(sizeof(PetscInt) * (n + 1)), *aj = malloc(sizeof(PetscInt) * 2 * n);
  double        *aa = malloc(sizeof(double) * 2 * n);
  PetscInt64     stored;
  DiagFormat     f;

  for (PetscInt i = 0; i < n; i++) { /* the diagonal and one entry on a different diagonal in every row */
    ai[i]         = 2 * i;
    aj[2 * i]     = i;
    aj[2 * i + 1] = (i * 7 + 3 * i * i) % n == i ? (i + 1) % n : (i * 7 + 3 * i * i) % n;
    aa[2 * i] = aa[2 * i + 1] = 1.0;
  }
  ai[n] = 2 * n;
  CHECK(DiagFromCSR(DIAG_SCHEME_CDM, n, n, ai, aj, aa, 3.0, &stored, &f) == DIAG_ERR_TOO_SPREAD && stored > 3 * 2 * n, "a matrix over many diagonals must be refused at 3x (stored %lld)", (long long)stored);
  CHECK(DiagFromCSR(DIAG_SCHEME_HM, n, n, ai, aj, aa, 0, &stored, &f) == DIAG_OK, "accepted without a limit");
  DiagFormatFree(&f);
  CHECK(DiagFromCSR(DIAG_SCHEME_CDM, n, n - 1, ai, aj, aa, 0, NULL, &f) == DIAG_ERR_ARGUMENT, "CDM of a rectangular matrix must be refused");
  aj[5] = n;
  CHECK(DiagFromCSR(DIAG_SCHEME_HM, n, n, ai, aj, aa, 0, NULL, &f) == DIAG_ERR_ARGUMENT, "a column out of range must be refused");
  CHECK(DiagFromCSR(DIAG_SCHEME_HM, -1, n, ai, aj, aa, 0, NULL, &f) == DIAG_ERR_ARGUMENT, "negative sizes must be refused");
  {
    DiagFormat A, B, C;
    PetscInt   zi[4] = {0, 0, 0, 0};

    CHECK(DiagFromCSR(DIAG_SCHEME_HM, 3, 2, zi, NULL, NULL, 0, NULL, &A) == DIAG_OK && A.ndiag == 0, "an empty 3x2 matrix has no diagonal");
    CHECK(DiagFromCSR(DIAG_SCHEME_HM, 3, 3, zi, NULL, NULL, 0, NULL, &B) == DIAG_OK, "empty 3x3");
    {
      DiagProductPlan plan;

      CHECK(DiagProductPlanCreate(&A, &B, &plan, &C) == DIAG_ERR_INCOMPATIBLE, "a 3x2 times a 3x3 must be refused");
    }
    CHECK(DiagFromCSR(DIAG_SCHEME_HM, 0, 0, zi, NULL, NULL, 0, NULL, &C) == DIAG_OK && C.ndiag == 0, "0x0");
    DiagFormatFree(&A), DiagFormatFree(&B), DiagFormatFree(&C);
  }
  free(ai), free(aj), free(aa);
}

int main(void)
{
  WorkedExample();
  RandomChecks();
  RefusalChecks();
  if (failures) printf("test_diag_format: %d check(s) FAILED\n", failures);
  else printf("test_diag_format: all checks passed\n");
  return failures ? 1 : 0;
}
