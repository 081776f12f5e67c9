static const char help[] = "Random operations on MATSEQDIAG / MATMPIDIAG and on their MATAIJ twins, compared.\n\
  -seed <7>       seed of the random matrices and operation orders\n\
  -tol <1e-12>    relative error allowed\n\
  -rounds <3>     how many times each shape is drawn\n\
Shapes from 0 x 0 to a few hundred, square and rectangular, schemes hm, cdm and auto, random\n\
diagonal sets (banded, scattered offsets, with holes, with a diagonal of explicit zeros, no entries).\n\
Each matrix goes through the operations PETSc's solvers call, in a random order: MatScale, MatShift,\n\
MatDiagonalScale, MatDiagonalSet (INSERT, ADD), MatAXPY (X diag of either scheme, X AIJ, every\n\
MatStructure), MatZeroRows and MatZeroRowsColumns (rows from any process, with x and b), MatSOR\n\
(every flag the solvers use), MatCreateSubMatrix, MatCreateSubMatrices (initial and reuse),\n\
MatIncreaseOverlap, MatGetDiagonal, MatNorm; after each: the four products on random vectors and\n\
the entries.  Then KSP with PCASM, PCGASM, PCBJACOBI (several blocks), PCFIELDSPLIT, PCSOR, PCEISENSTAT\n\
on a diag operator against the same on AIJ, twice (the second setup reuses the submatrices), and the\n\
refusals and their messages.\n";

#include <petscksp.h>
#include <string.h>
#include <gpumats.h>
#include "testdiag.h"

#define EXPECT_ERROR(call, must_contain, what) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(ExpectError(ierr_, must_contain, what)); \
  } while (0)

/* an integer in [lo, hi] from the per-process stream (values in [-1, 1)) */
static PetscErrorCode RandIntLocal(PetscRandom r, PetscInt lo, PetscInt hi, PetscInt *v)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *v = lo + (PetscInt)(0.5 * (u + 1.0) * (PetscReal)(hi - lo + 1));
  if (*v > hi) *v = hi;
  PetscFunctionReturn(0);
}

/* OffsetsCSR (testdiag.c) whose offset zero_off (if one of them) holds explicit zeros only (an
   "empty" diagonal) */
static PetscErrorCode DiagonalsCSR(PetscRandom r, PetscInt M, PetscInt N, PetscInt noff, const PetscInt *off, PetscReal keep, PetscInt zero_off, GlobalCSR *csr)
{
  PetscFunctionBeginUser;
  PetscCall(OffsetsCSR(r, M, N, noff, off, keep, csr));
  for (PetscInt i = 0; i < M; i++)
    for (PetscInt k = csr->rowptr[i]; k < csr->rowptr[i + 1]; k++)
      if (csr->cols[k] - i == zero_off) csr->vals[k] = 0;
  PetscFunctionReturn(0);
}

typedef enum {
  KIND_BANDED,
  KIND_SCATTERED,
  KIND_HOLES,
  KIND_ZERO_DIAGONAL,
  KIND_NO_ENTRIES,
  KIND_MAIN_ONLY,
  NKINDS
} Kind;
static const char *const KindNames[] = {"banded", "scattered offsets", "banded with holes", "with a diagonal of explicit zeros", "no entries", "main diagonal only"};

static PetscErrorCode RandomDiagonals(PetscRandom r, PetscInt M, PetscInt N, Kind kind, GlobalCSR *csr)
{
  PetscInt  off[64], noff = 0, zero_off = PETSC_MIN_INT, p, q, nd;
  PetscReal keep = 1;

  PetscFunctionBeginUser;
  switch (kind) {
  case KIND_BANDED:
  case KIND_HOLES:
  case KIND_ZERO_DIAGONAL:
    PetscCall(RandInt(r, 0, 6, &p));
    PetscCall(RandInt(r, 0, 6, &q));
    for (PetscInt d = -p; d <= q; d++) off[noff++] = d;
    if (kind == KIND_HOLES) keep = 0.6;
    if (kind == KIND_ZERO_DIAGONAL) PetscCall(RandInt(r, -p, q, &zero_off));
    break;
  case KIND_SCATTERED:
    PetscCall(RandInt(r, 1, 12, &nd));
    for (PetscInt k = 0; k < nd; k++) {
      PetscInt  d;
      PetscBool dup = PETSC_FALSE;

      PetscCall(RandInt(r, -(M > 0 ? M - 1 : 0), N > 0 ? N - 1 : 0, &d));
      for (PetscInt s = 0; s < noff; s++) dup = (PetscBool)(dup || off[s] == d);
      if (!dup) off[noff++] = d;
    }
    keep = 0.9;
    break;
  case KIND_MAIN_ONLY:
    off[noff++] = 0;
    break;
  default:
    break;
  }
  PetscCall(DiagonalsCSR(r, M, N, noff, off, keep, zero_off, csr));
  PetscFunctionReturn(0);
}

/* csr as MATDIAG (the scheme from the options, as a user would; no fill limit: a scattered random
   matrix may spread over many diagonals on one process, RefusalChecks sets one) and as MATAIJ; AIJ
   may get new nonzeros (MatShift, MatDiagonalSet of a missing diagonal) */
static PetscErrorCode CreatePairFill(TestCtx *t, const GlobalCSR *csr, const char *scheme, const char *max_fill, Mat *D, Mat *A)
{
  PetscInt m, n, start;

  PetscFunctionBeginUser;
  PetscCall(DefaultLayout(t->comm, csr->M, &m, &start));
  PetscCall(DefaultLayout(t->comm, csr->N, &n, &start));
  for (int k = 0; k < 2; k++) {
    Mat *B = k ? A : D;

    PetscCall(MatCreate(t->comm, B));
    PetscCall(MatSetSizes(*B, m, n, csr->M, csr->N));
    PetscCall(MatSetType(*B, k ? MATAIJ : MATDIAG));
    if (!k && scheme) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", scheme));
    if (!k) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", max_fill));
    PetscCall(MatSetFromOptions(*B));
    if (!k && scheme) PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scheme"));
    if (!k) PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_fill"));
    PetscCall(GlobalCSRAssemble(*B, csr));
  }
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreatePair(TestCtx *t, const GlobalCSR *csr, const char *scheme, Mat *D, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(CreatePairFill(t, csr, scheme, "0", D, A));
  PetscFunctionReturn(0);
}

/* the entries of D and A (any types, converted to AIJ) agree, relative to ||A||_F */
static PetscErrorCode CompareEntries(TestCtx *t, Mat D, Mat A, const char *desc)
{
  Mat       Cd, Ca;
  PetscReal na, nd, err;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &Cd));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Ca));
  PetscCall(MatNorm(Ca, NORM_FROBENIUS, &na));
  PetscCall(MatAXPY(Cd, -1.0, Ca, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Cd, NORM_FROBENIUS, &nd));
  err = na > 0 ? nd / na : nd;
  PetscCheck(err <= t->tol, PetscObjectComm((PetscObject)D), PETSC_ERR_PLIB, "MISMATCH %s: the entries differ, relative error %g", desc, (double)err);
  t->maxerr = PetscMax(t->maxerr, err);
  t->ncompared++;
  PetscCall(MatDestroy(&Cd));
  PetscCall(MatDestroy(&Ca));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(TestCtx *t, Mat D, Mat A, const char *desc)
{
  PetscFunctionBeginUser;
  PetscCall(CheckTypeOneOf(D, MATSEQDIAG, MATMPIDIAG, desc));
  PetscCall(CheckProducts(t, D, A, desc));
  PetscCall(CompareEntries(t, D, A, desc));
  PetscFunctionReturn(0);
}

/* a random vector of A's columns (right) or rows */
static PetscErrorCode RandomVec(TestCtx *t, Mat A, PetscBool right, Vec *v)
{
  PetscFunctionBeginUser;
  PetscCall(CreateTestVecs(A, right ? v : NULL, right ? NULL : v));
  PetscCall(VecSetRandom(*v, t->vrnd));
  PetscFunctionReturn(0);
}

typedef struct {
  TestCtx   *t;
  GlobalCSR *csr;
  Mat        D, A;
  PetscBool  square, congruent;
  char       desc[200];
} Case;

/* ---- the operations ------------------------------------------------------------ */

static PetscErrorCode OpScaleShift(Case *c)
{
  PetscScalar s;
  char        d[300];

  PetscFunctionBeginUser;
  PetscCall(RandValue(c->t->rnd, &s));
  PetscCall(MatScale(c->D, s));
  PetscCall(MatScale(c->A, s));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatScale", c->desc));
  PetscCall(Compare(c->t, c->D, c->A, d));
  if (!c->congruent) {
    EXPECT_ERROR(MatShift(c->D, s), "distributed alike", "MatShift of a rectangular mpidiag");
    PetscFunctionReturn(0);
  }
  PetscCall(MatShift(c->D, s));
  PetscCall(MatShift(c->A, s));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatShift", c->desc));
  PetscCall(Compare(c->t, c->D, c->A, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode OpDiagonal(Case *c)
{
  Vec  l, r, gd, ga;
  char d[300];

  PetscFunctionBeginUser;
  PetscCall(RandomVec(c->t, c->D, PETSC_FALSE, &l));
  PetscCall(RandomVec(c->t, c->D, PETSC_TRUE, &r));
  PetscCall(MatDiagonalScale(c->D, l, r));
  PetscCall(MatDiagonalScale(c->A, l, r));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatDiagonalScale(l, r)", c->desc));
  PetscCall(Compare(c->t, c->D, c->A, d));
  PetscCall(MatDiagonalScale(c->D, NULL, r));
  PetscCall(MatDiagonalScale(c->A, NULL, r));
  PetscCall(MatDiagonalScale(c->D, l, NULL));
  PetscCall(MatDiagonalScale(c->A, l, NULL));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatDiagonalScale(NULL, r), (l, NULL)", c->desc));
  PetscCall(Compare(c->t, c->D, c->A, d));
  if (c->square) {
    PetscCall(MatDiagonalSet(c->D, l, INSERT_VALUES));
    PetscCall(MatDiagonalSet(c->A, l, INSERT_VALUES));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatDiagonalSet INSERT", c->desc));
    PetscCall(Compare(c->t, c->D, c->A, d));
    PetscCall(MatDiagonalSet(c->D, l, ADD_VALUES));
    PetscCall(MatDiagonalSet(c->A, l, ADD_VALUES));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatDiagonalSet ADD", c->desc));
    PetscCall(Compare(c->t, c->D, c->A, d));
  }
  if (c->congruent) {
    PetscCall(VecDuplicate(l, &gd));
    PetscCall(VecDuplicate(l, &ga));
    PetscCall(MatGetDiagonal(c->D, gd));
    PetscCall(MatGetDiagonal(c->A, ga));
    PetscCall(CompareVecs(c->t, gd, ga, c->desc, "MatGetDiagonal"));
    PetscCall(VecDestroy(&gd));
    PetscCall(VecDestroy(&ga));
  }
  for (NormType nt = NORM_1; nt <= NORM_INFINITY; nt = (NormType)(nt + 1)) {
    PetscReal nd, na;

    if (nt == NORM_2) continue;
    PetscCall(MatNorm(c->D, nt, &nd));
    PetscCall(MatNorm(c->A, nt, &na));
    PetscCheck(PetscAbsReal(nd - na) <= c->t->tol * PetscMax(na, 1), c->t->comm, PETSC_ERR_PLIB, "MISMATCH %s: MatNorm %s %g, AIJ %g", c->desc, NormTypes[nt], (double)nd, (double)na);
  }
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* X of another diagonal set, X with the same pattern, X with a subset of it: diag of either
   scheme and AIJ, with the MatStructure each allows */
static PetscErrorCode OpAXPY(Case *c)
{
  TestCtx    *t = c->t;
  GlobalCSR   other, sub;
  PetscScalar a;
  Kind        kind;
  PetscInt    k;
  char        d[300];

  PetscFunctionBeginUser;
  PetscCall(RandInt(t->rnd, 0, NKINDS - 1, &k));
  kind = (Kind)k;
  PetscCall(RandomDiagonals(t->rnd, c->csr->M, c->csr->N, kind, &other));
  PetscCall(GlobalCSRSamePattern(t->rnd, c->csr, 0.7, &sub));
  for (PetscInt which = 0; which < 6; which++) {
    Mat          XD, XA;
    MatStructure str;
    const char  *scheme = which % 2 ? "hm" : (c->square ? "cdm" : "hm");
    PetscBool    aij    = (PetscBool)(which >= 4);

    PetscCall(RandValue(t->rnd, &a));
    if (which < 2) { /* same pattern: a duplicate */
      PetscCall(MatDuplicate(c->D, MAT_COPY_VALUES, &XD));
      PetscCall(MatDuplicate(c->A, MAT_COPY_VALUES, &XA));
      PetscCall(MatScale(XD, 0.5));
      PetscCall(MatScale(XA, 0.5));
      str = which ? SAME_NONZERO_PATTERN : UNKNOWN_NONZERO_PATTERN;
    } else if (which < 4) { /* other diagonals, either scheme */
      PetscCall(CreatePair(t, &other, scheme, &XD, &XA));
      str = which == 2 ? DIFFERENT_NONZERO_PATTERN : UNKNOWN_NONZERO_PATTERN;
    } else { /* an AIJ X: another pattern, and a subset of Y's */
      PetscCall(CreatePair(t, which == 4 ? &other : &sub, NULL, &XD, &XA));
      PetscCall(MatDestroy(&XD));
      PetscCall(MatDuplicate(XA, MAT_COPY_VALUES, &XD));
      str = which == 4 ? DIFFERENT_NONZERO_PATTERN : SUBSET_NONZERO_PATTERN;
    }
    PetscCall(MatAXPY(c->D, a, XD, str));
    PetscCall(MatAXPY(c->A, a, XA, DIFFERENT_NONZERO_PATTERN));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatAXPY with X %s%s (%s), %s", c->desc, aij ? "AIJ" : "diag ", aij ? "" : scheme, which < 2 ? "the same pattern" : which == 5 ? "a subset" : KindNames[kind], MatStructures[str]));
    PetscCall(Compare(t, c->D, c->A, d));
    PetscCall(MatDestroy(&XD));
    PetscCall(MatDestroy(&XA));
  }
  { /* the other way round: an AIJ Y, a diag X (AIJ reads X's rows) */
    Mat C1, C2;

    PetscCall(RandValue(t->rnd, &a));
    PetscCall(MatDuplicate(c->A, MAT_COPY_VALUES, &C1));
    PetscCall(MatDuplicate(c->A, MAT_COPY_VALUES, &C2));
    PetscCall(MatAXPY(C1, a, c->D, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(C2, a, c->A, DIFFERENT_NONZERO_PATTERN));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatAXPY of an AIJ Y with a diag X", c->desc));
    PetscCall(CompareEntries(t, C1, C2, d));
    PetscCall(MatDestroy(&C1));
    PetscCall(MatDestroy(&C2));
  }
  PetscCall(GlobalCSRDestroy(&other));
  PetscCall(GlobalCSRDestroy(&sub));
  PetscFunctionReturn(0);
}

/* rows chosen on each process, any of them (also other processes', and the same row on several) */
static PetscErrorCode RandomRows(TestCtx *t, PetscInt M, PetscInt *n, PetscInt **rows)
{
  PetscFunctionBeginUser;
  PetscCall(RandIntLocal(t->vrnd, 0, PetscMin(M, 12), n));
  PetscCall(PetscMalloc1(*n + 1, rows));
  for (PetscInt k = 0; k < *n; k++) PetscCall(RandIntLocal(t->vrnd, 0, M - 1, &(*rows)[k]));
  PetscCall(PetscSortRemoveDupsInt(n, *rows)); /* AIJ's MatZeroRows crashes on a row repeated in one list (3.18) */
  PetscFunctionReturn(0);
}

/* AIJ's (3.18) MatZeroRowsColumns wants the main diagonal stored when diag != 0, and its MatZeroRows
   misplaces the diagonal value of a row after an empty zeroed row (the empty one gets its entry by
   MatSetValues, the next one is then written at the old offsets): the AIJ twin gets explicit zeros
   on its main diagonal first */
static PetscErrorCode AddZeroDiagonal(Mat A)
{
  PetscInt    rstart, rend, N;
  PetscScalar zero = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, NULL, &N));
  for (PetscInt i = rstart; i < PetscMin(rend, N); i++) PetscCall(MatSetValues(A, 1, &i, 1, &i, &zero, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode OpZeroRows(Case *c)
{
  TestCtx    *t = c->t;
  PetscInt    n, *rows;
  PetscScalar diag;
  PetscBool   zero;
  Vec         x = NULL, bd = NULL, ba = NULL;
  char        d[300];

  PetscFunctionBeginUser;
  if (!c->csr->M) PetscFunctionReturn(0);
  for (PetscInt columns = 0; columns < 2; columns++) {
    if (columns && !c->square) break;
    PetscCall(RandomRows(t, c->csr->M, &n, &rows));
    PetscCall(RandValue(t->rnd, &diag));
    PetscCall(RandBool(t->rnd, 0.3, &zero));
    if (zero || !c->congruent) diag = 0; /* a rectangular mpidiag keeps no diagonal value: as asked */
    if (c->congruent || t->size == 1) {
      PetscCall(RandomVec(t, c->D, PETSC_TRUE, &x));
      PetscCall(RandomVec(t, c->D, PETSC_FALSE, &bd));
      PetscCall(VecDuplicate(bd, &ba));
      PetscCall(VecCopy(bd, ba));
    }
    if (diag != (PetscScalar)0) PetscCall(AddZeroDiagonal(c->A)); /* diag adds its main diagonal itself */
    if (columns) {
      PetscCall(MatZeroRowsColumns(c->D, n, rows, diag, x, bd));
      PetscCall(MatZeroRowsColumns(c->A, n, rows, diag, x, ba));
    } else {
      PetscCall(MatZeroRows(c->D, n, rows, diag, x, bd));
      PetscCall(MatZeroRows(c->A, n, rows, diag, x, ba));
    }
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: %s of %" PetscInt_FMT " rows on rank %d, diag %g%s", c->desc, columns ? "MatZeroRowsColumns" : "MatZeroRows", n, t->rank, (double)PetscRealPart(diag), x ? " with x, b" : ""));
    PetscCall(Compare(t, c->D, c->A, d));
    if (bd) PetscCall(CompareVecs(t, bd, ba, d, "the fixed right-hand side"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&bd));
    PetscCall(VecDestroy(&ba));
    PetscCall(PetscFree(rows));
  }
  PetscFunctionReturn(0);
}

/* x = (L + D/omega) b (local block, as MatSOR SOR_APPLY_LOWER) from AIJ's rows: AIJ refuses the flag */
static PetscErrorCode ApplyLowerReference(Mat A, Vec b, PetscReal omega, PetscReal fshift, Vec x)
{
  PetscInt           rstart, rend, cstart, cend;
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArray(x, &xa));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscScalar        aii = 0, sum;

    PetscCall(MatGetRow(A, i, &nz, &cols, &vals));
    for (PetscInt k = 0; k < nz; k++)
      if (cols[k] == i) aii = vals[k];
    sum = ba[i - rstart] * (fshift + aii) / omega;
    for (PetscInt k = 0; k < nz; k++)
      if (cols[k] < i && cols[k] >= cstart) sum += vals[k] * ba[cols[k] - cstart];
    xa[i - rstart] = sum;
    PetscCall(MatRestoreRow(A, i, &nz, &cols, &vals));
  }
  PetscCall(VecRestoreArray(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscFunctionReturn(0);
}

/* A's entries in an AIJ matrix without inodes: with rows of identical patterns (inodes) AIJ's
   MatSOR relaxes the inode blocks together (block Gauss-Seidel); its point SOR is the reference */
static PetscErrorCode PointSORTwin(Mat A, Mat *P)
{
  PetscInt rstart, rend, m, n, M, N;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, m, n, M, N));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSetUp(*P));
  PetscCall(MatSetOption(*P, MAT_USE_INODES, PETSC_FALSE)); /* after MatSetUp: MPIAIJ passes it to its blocks */
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(A, i, &nz, &cols, &vals));
    PetscCall(MatSetValues(*P, 1, &i, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, i, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode OpSOR(Case *c)
{
  TestCtx         *t          = c->t;
  const MatSORType seqflags[] = {SOR_FORWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_BACKWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, SOR_SYMMETRIC_SWEEP, SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP, SOR_EISENSTAT, SOR_APPLY_UPPER, SOR_APPLY_LOWER};
  const MatSORType mpiflags[] = {SOR_LOCAL_FORWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_BACKWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP, SOR_APPLY_UPPER, SOR_APPLY_LOWER};
  const PetscReal  omegas[] = {1.0, 0.8, 1.4}, shifts[] = {0.0, 0.3};
  const MatSORType *flags = t->size == 1 ? seqflags : mpiflags;
  const PetscInt    nflags = t->size == 1 ? (PetscInt)(sizeof(seqflags) / sizeof(seqflags[0])) : (PetscInt)(sizeof(mpiflags) / sizeof(mpiflags[0]));
  PetscReal         nrm;
  Vec               b, x0, xd, xa;
  Mat               P;
  char              d[300];

  PetscFunctionBeginUser;
  if (!c->square) PetscFunctionReturn(0); /* refused with a message: RefusalChecks */
  /* a nonzero diagonal, dominant enough for the sweeps to stay bounded */
  PetscCall(MatNorm(c->A, NORM_INFINITY, &nrm));
  PetscCall(MatShift(c->D, nrm + 1));
  PetscCall(MatShift(c->A, nrm + 1));
  PetscCall(PointSORTwin(c->A, &P));
  PetscCall(RandomVec(t, c->D, PETSC_FALSE, &b));
  PetscCall(RandomVec(t, c->D, PETSC_TRUE, &x0));
  PetscCall(VecDuplicate(x0, &xd));
  PetscCall(VecDuplicate(x0, &xa));
  for (PetscInt f = 0; f < nflags; f++) {
    PetscInt  o, s, its, lits;

    PetscCall(RandInt(t->rnd, 0, 2, &o));
    PetscCall(RandInt(t->rnd, 0, 1, &s));
    PetscCall(RandInt(t->rnd, 1, 3, &its));
    PetscCall(RandInt(t->rnd, 1, 2, &lits));
    PetscCall(VecCopy(x0, xd));
    PetscCall(VecCopy(x0, xa));
    PetscCall(MatSOR(c->D, b, omegas[o], flags[f], shifts[s], its, lits, xd));
    if (flags[f] == SOR_APPLY_LOWER) PetscCall(ApplyLowerReference(P, b, omegas[o], shifts[s], xa));
    else PetscCall(MatSOR(P, b, omegas[o], flags[f], shifts[s], its, lits, xa));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatSOR flag %d, omega %g, fshift %g, its %" PetscInt_FMT ", lits %" PetscInt_FMT, c->desc, (int)flags[f], (double)omegas[o], (double)shifts[s], its, lits));
    PetscCall(CompareVecs(t, xd, xa, d, "the iterate"));
  }
  if (t->size > 1) EXPECT_ERROR(MatSOR(c->D, b, 1.0, SOR_SYMMETRIC_SWEEP, 0.0, 1, 1, xd), "local sweeps", "MatSOR across processes");
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&xa));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(0);
}

/* a random sorted subset of [0, N) (the same on every process) */
static PetscErrorCode RandomSubset(PetscRandom r, PetscInt N, PetscReal p, PetscInt *n, PetscInt **idx)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(N + 1, idx));
  *n = 0;
  for (PetscInt i = 0; i < N; i++) {
    PetscBool take;

    PetscCall(RandBool(r, p, &take));
    if (take) (*idx)[(*n)++] = i;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode OpSubMatrices(Case *c)
{
  TestCtx *t = c->t;
  PetscInt rstart, rend, cstart, cend;
  char     d[300];

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(c->D, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(c->D, &cstart, &cend));
  for (PetscInt general = 0; general < 2; general++) { /* MatCreateSubMatrix: strided (every other row and column) and general index sets */
    IS  isr, isc;
    Mat SD, SA;

    if (!general) {
      PetscCall(ISCreateStride(t->comm, (rend - rstart + (rstart % 2 == 0)) / 2, rstart + rstart % 2, 2, &isr));
      PetscCall(ISCreateStride(t->comm, (cend - cstart + (cstart % 2 == 0)) / 2, cstart + cstart % 2, 2, &isc));
    } else { /* owned rows and columns kept at random */
      PetscInt *ri, *ci, nr = 0, nc = 0;

      PetscCall(PetscMalloc2(rend - rstart + 1, &ri, cend - cstart + 1, &ci));
      for (PetscInt i = rstart; i < rend; i++) {
        PetscInt keep;

        PetscCall(RandIntLocal(t->vrnd, 0, 3, &keep));
        if (keep) ri[nr++] = i;
      }
      for (PetscInt j = cstart; j < cend; j++) {
        PetscInt keep;

        PetscCall(RandIntLocal(t->vrnd, 0, 3, &keep));
        if (keep) ci[nc++] = j;
      }
      PetscCall(ISCreateGeneral(t->comm, nr, ri, PETSC_COPY_VALUES, &isr));
      PetscCall(ISCreateGeneral(t->comm, nc, ci, PETSC_COPY_VALUES, &isc));
      PetscCall(PetscFree2(ri, ci));
    }
    PetscCall(MatCreateSubMatrix(c->D, isr, isc, MAT_INITIAL_MATRIX, &SD));
    PetscCall(MatCreateSubMatrix(c->A, isr, isc, MAT_INITIAL_MATRIX, &SA));
    PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatCreateSubMatrix, %s index sets", c->desc, general ? "general" : "strided"));
    PetscCall(CheckProducts(t, SD, SA, d));
    PetscCall(CompareEntries(t, SD, SA, d));
    if (!general && t->size == 1 && c->csr->M == c->csr->N) PetscCall(CheckTypeOneOf(SD, MATSEQDIAG, MATMPIDIAG, "the submatrix of strided index sets of a square diag matrix"));
    PetscCall(MatScale(c->D, 2.0));
    PetscCall(MatScale(c->A, 2.0));
    PetscCall(MatCreateSubMatrix(c->D, isr, isc, MAT_REUSE_MATRIX, &SD));
    PetscCall(MatCreateSubMatrix(c->A, isr, isc, MAT_REUSE_MATRIX, &SA));
    PetscCall(PetscStrlcat(d, ", reused", sizeof(d)));
    PetscCall(CompareEntries(t, SD, SA, d));
    PetscCall(MatDestroy(&SD));
    PetscCall(MatDestroy(&SA));
    PetscCall(ISDestroy(&isr));
    PetscCall(ISDestroy(&isc));
  }
  { /* MatCreateSubMatrices: two blocks per process, rows and columns of any process */
    IS   isr[2], isc[2];
    Mat *SD, *SA;

    for (PetscInt k = 0; k < 2; k++) {
      PetscInt *ri, *ci, nr, nc;

      PetscCall(RandomSubset(t->rnd, c->csr->M, 0.3 + 0.1 * t->rank, &nr, &ri));
      PetscCall(RandomSubset(t->rnd, c->csr->N, 0.4, &nc, &ci));
      PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nr, ri, PETSC_OWN_POINTER, &isr[k]));
      PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nc, ci, PETSC_OWN_POINTER, &isc[k]));
    }
    PetscCall(MatCreateSubMatrices(c->D, 2, isr, isc, MAT_INITIAL_MATRIX, &SD));
    PetscCall(MatCreateSubMatrices(c->A, 2, isr, isc, MAT_INITIAL_MATRIX, &SA));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatCreateSubMatrices block %" PetscInt_FMT, c->desc, k));
      PetscCall(CompareEntries(t, SD[k], SA[k], d));
    }
    PetscCall(MatScale(c->D, -1.0));
    PetscCall(MatScale(c->A, -1.0));
    PetscCall(MatCreateSubMatrices(c->D, 2, isr, isc, MAT_REUSE_MATRIX, &SD));
    PetscCall(MatCreateSubMatrices(c->A, 2, isr, isc, MAT_REUSE_MATRIX, &SA));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatCreateSubMatrices block %" PetscInt_FMT " reused", c->desc, k));
      PetscCall(CompareEntries(t, SD[k], SA[k], d));
    }
    PetscCall(MatDestroySubMatrices(2, &SD));
    PetscCall(MatDestroySubMatrices(2, &SA));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(ISDestroy(&isr[k]));
      PetscCall(ISDestroy(&isc[k]));
    }
  }
  if (c->square) { /* MatIncreaseOverlap against AIJ with the same stored entries (diag keeps explicit zeros) */
    Mat       C;
    IS        isd, isa;
    PetscInt  ov;
    PetscBool same;

    PetscCall(MatConvert(c->D, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, (rend - rstart + 2) / 3, rstart, 3, &isd));
    PetscCall(ISDuplicate(isd, &isa));
    PetscCall(RandInt(t->rnd, 1, 3, &ov));
    PetscCall(MatIncreaseOverlap(c->D, 1, &isd, ov));
    PetscCall(MatIncreaseOverlap(C, 1, &isa, ov));
    PetscCall(ISSort(isd));
    PetscCall(ISSort(isa));
    PetscCall(ISEqual(isd, isa, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MISMATCH %s: MatIncreaseOverlap by %" PetscInt_FMT " gives other rows than AIJ's", c->desc, ov);
    PetscCall(ISDestroy(&isd));
    PetscCall(ISDestroy(&isa));
    PetscCall(MatDestroy(&C));
  }
  PetscFunctionReturn(0);
}

/* the copies and conversions on every shape (0 x 0 and empty too) */
static PetscErrorCode OpCopies(Case *c)
{
  Mat  Td, Ta, Dd;
  char d[300];

  PetscFunctionBeginUser;
  PetscCall(MatTranspose(c->D, MAT_INITIAL_MATRIX, &Td));
  PetscCall(MatTranspose(c->A, MAT_INITIAL_MATRIX, &Ta));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatTranspose", c->desc));
  PetscCall(Compare(c->t, Td, Ta, d));
  PetscCall(MatDuplicate(c->D, MAT_COPY_VALUES, &Dd));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatDuplicate", c->desc));
  PetscCall(Compare(c->t, Dd, c->A, d));
  PetscCall(MatZeroEntries(Dd));
  PetscCall(MatCopy(c->D, Dd, SAME_NONZERO_PATTERN));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s: MatCopy", c->desc));
  PetscCall(Compare(c->t, Dd, c->A, d));
  PetscCall(MatDestroy(&Dd));
  PetscCall(MatDestroy(&Td));
  PetscCall(MatDestroy(&Ta));
  PetscFunctionReturn(0);
}

typedef PetscErrorCode (*Op)(Case *);

static PetscErrorCode RandomOperations(TestCtx *t, PetscInt M, PetscInt N, const char *scheme, Kind kind, PetscInt *ncases)
{
  Op        ops[]  = {OpScaleShift, OpDiagonal, OpAXPY, OpZeroRows, OpSOR, OpSubMatrices, OpCopies};
  const int nops   = (int)(sizeof(ops) / sizeof(ops[0]));
  PetscInt  order[16];
  GlobalCSR csr;
  Case      c;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCall(RandomDiagonals(t->rnd, M, N, kind, &csr));
  c.t = t, c.csr = &csr;
  c.square    = (PetscBool)(M == N);
  c.congruent = (PetscBool)(M == N || t->size == 1);
  PetscCall(PetscSNPrintf(c.desc, sizeof(c.desc), "%" PetscInt_FMT " x %" PetscInt_FMT " %s, scheme %s", M, N, KindNames[kind], scheme));
  PetscCall(CreatePair(t, &csr, scheme, &c.D, &c.A));
  PetscCall(Compare(t, c.D, c.A, c.desc));
  for (int k = 0; k < nops; k++) order[k] = k;
  for (int k = nops - 1; k > 0; k--) { /* a random order of the operations */
    PetscInt j, tmp;

    PetscCall(RandInt(t->rnd, 0, k, &j));
    tmp = order[k], order[k] = order[j], order[j] = tmp;
  }
  for (int k = 0; k < nops; k++) {
    PetscCall(MatSetOption(c.A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* AIJ's MatAXPY makes a new matrix, with the check on */
    PetscCall((*ops[order[k]])(&c));
  }
  PetscCall(MatDestroy(&c.D));
  PetscCall(MatDestroy(&c.A));
  PetscCall(GlobalCSRDestroy(&csr));
  (*ncases)++;
  PetscFunctionReturn(0);
}

/* ---- the preconditioners that take submatrices or sweeps, on a diag operator -------- */
static PetscErrorCode SolverChecks(TestCtx *t)
{
  const char *pcs[] = {"asm", "gasm", "bjacobi", "fieldsplit", "sor", "eisenstat", "jacobi"};
  GlobalCSR   csr;
  const PetscInt off[] = {-7, -1, 0, 1, 2, 7};
  Mat         D, A0, A;

  PetscFunctionBeginUser;
  PetscCall(DiagonalsCSR(t->rnd, 240, 240, 6, off, 0.9, PETSC_MIN_INT, &csr));
  PetscCall(CreatePair(t, &csr, NULL, &D, &A0));
  PetscCall(MatShift(D, 4.0));
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &A)); /* the same stored entries: ASM's overlap follows them */
  for (size_t p = 0; p < sizeof(pcs) / sizeof(pcs[0]); p++) {
    PetscInt  its[2][2];
    PetscReal rnorm[2][2];
    Vec       b, x;

    if (t->size > 1 && !strcmp(pcs[p], "eisenstat")) continue; /* MPIAIJ's needs MatMultDiagonalBlock of its seqaij block (PETSc 3.18): nothing to compare with */
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    for (int k = 0; k < 2; k++) {
      KSP ksp;
      PC  pc;

      PetscCall(KSPCreate(t->comm, &ksp));
      PetscCall(KSPSetOperators(ksp, k ? A : D, k ? A : D));
      PetscCall(KSPSetType(ksp, KSPGMRES));
      PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, pcs[p]));
      if (!strcmp(pcs[p], "bjacobi")) PetscCall(PCBJacobiSetTotalBlocks(pc, 3 * t->size, NULL)); /* several blocks a process: MatCreateSubMatrices */
      if (!strcmp(pcs[p], "asm")) PetscCall(PCASMSetOverlap(pc, 2));
      if (!strcmp(pcs[p], "fieldsplit")) { /* even and odd unknowns */
        PetscInt rstart, rend;
        IS       is[2];

        PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
        for (PetscInt f = 0; f < 2; f++) {
          const PetscInt first = rstart + ((rstart + f) % 2);

          PetscCall(ISCreateStride(t->comm, first < rend ? (rend - first + 1) / 2 : 0, first, 2, &is[f]));
          PetscCall(PCFieldSplitSetIS(pc, f ? "odd" : "even", is[f]));
          PetscCall(ISDestroy(&is[f]));
        }
      }
      for (int solve = 0; solve < 2; solve++) { /* the second time the preconditioner reuses its submatrices (MAT_REUSE_MATRIX) */
        if (solve) PetscCall(MatScale(k ? A : D, 0.5));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its[solve][k]));
        PetscCall(KSPGetResidualNorm(ksp, &rnorm[solve][k]));
      }
      PetscCall(MatScale(k ? A : D, 2.0));
      PetscCall(KSPDestroy(&ksp));
    }
    for (int solve = 0; solve < 2; solve++) {
      PetscCheck(its[solve][0] == its[solve][1] && PetscAbsReal(rnorm[solve][0] - rnorm[solve][1]) <= 1e-6 * PetscMax(rnorm[solve][1], 1e-30) + 1e-14, t->comm, PETSC_ERR_PLIB, "MISMATCH GMRES + PC %s, solve %d: %" PetscInt_FMT " iterations to residual %g on diag, %" PetscInt_FMT " to %g on AIJ", pcs[p], solve, its[solve][0], (double)rnorm[solve][0], its[solve][1], (double)rnorm[solve][1]);
      t->ncompared++;
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A0));
  PetscCall(MatDestroy(&A));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* ---- refusals that say what to do ------------------------------------------------- */
static PetscErrorCode RefusalChecks(TestCtx *t)
{
  GlobalCSR band, scattered;
  Mat       D, A, XA;
  const PetscInt off[] = {-1, 0, 1};

  PetscFunctionBeginUser;
  PetscCall(DiagonalsCSR(t->rnd, 120, 120, 3, off, 1, PETSC_MIN_INT, &band));
  PetscCall(GenerateSquare(t->rnd, 120, 4, &scattered)); /* entries on nearly every diagonal */
  PetscCall(CreatePairFill(t, &band, "hm", "3", &D, &A));
  { /* X: AIJ only (diag refuses it) */
    PetscInt m, n, start;

    PetscCall(DefaultLayout(t->comm, 120, &m, &start));
    PetscCall(DefaultLayout(t->comm, 120, &n, &start));
    PetscCall(MatCreate(t->comm, &XA));
    PetscCall(MatSetSizes(XA, m, n, 120, 120));
    PetscCall(MatSetType(XA, MATAIJ));
    PetscCall(GlobalCSRAssemble(XA, &scattered));
  }
  EXPECT_ERROR(MatAXPY(D, 1.0, XA, DIFFERENT_NONZERO_PATTERN), "-mat_diag_max_fill", "MatAXPY with a scattered AIJ X");
  PetscCall(CheckProducts(t, D, A, "Y unchanged after a refused MatAXPY"));
  if (t->size == 1) {
    Mat       R, RA;
    Vec       b, x;
    GlobalCSR rect;

    PetscCall(DiagonalsCSR(t->rnd, 30, 20, 3, off, 1, PETSC_MIN_INT, &rect));
    PetscCall(CreatePair(t, &rect, "hm", &R, &RA));
    PetscCall(MatDestroy(&RA));
    PetscCall(MatCreateVecs(R, &x, &b));
    /* MatSOR's own size check wants b of the rows and x of the columns: both given, the format says why it cannot */
    EXPECT_ERROR(MatSOR(R, b, 1.0, SOR_FORWARD_SWEEP, 0.0, 1, 1, x), "square", "MatSOR of a rectangular matrix");
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&R));
    PetscCall(GlobalCSRDestroy(&rect));
  }
  { /* a zero diagonal: SOR divides by it */
    Vec b, x;

    PetscCall(MatZeroEntries(D));
    PetscCall(MatCreateVecs(D, &x, &b));
    PetscCall(VecSet(b, 1.0));
    EXPECT_ERROR(MatSOR(D, b, 1.0, SOR_LOCAL_SYMMETRIC_SWEEP, 0.0, 1, 1, x), "zero diagonal", "MatSOR with a zero diagonal");
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&XA));
  PetscCall(GlobalCSRDestroy(&band));
  PetscCall(GlobalCSRDestroy(&scattered));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx        t;
  PetscInt       seed = 7, rounds = 3, ncases = 0;
  const PetscInt shapes[][2] = {
    {0,   0  },
    {1,   1  },
    {0,   5  },
    {5,   0  },
    {1,   7  },
    {7,   1  },
    {2,   2  },
    {3,   5  },
    {17,  17 },
    {40,  23 },
    {23,  40 },
    {64,  64 },
    {150, 150},
    {257, 180},
    {300, 300}
  };
  const char *schemes[] = {"auto", "hm", "cdm"};

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_diag_random", 300));
  PetscOptionsBegin(t.comm, NULL, "test_diag_random options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random matrices and orders", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-rounds", "how many times each shape is drawn", NULL, rounds, &rounds, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative error allowed", NULL, t.tol, &t.tol, NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, seed));
  for (PetscInt round = 0; round < rounds; round++)
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
      for (int sc = 0; sc < 3; sc++) {
        PetscInt kind;

        if (sc == 2 && shapes[s][0] != shapes[s][1]) continue; /* CDM: square only */
        PetscCall(RandInt(t.rnd, 0, NKINDS - 1, &kind));
        PetscCall(RandomOperations(&t, shapes[s][0], shapes[s][1], schemes[sc], (Kind)kind, &ncases));
      }
  PetscCall(SolverChecks(&t));
  PetscCall(RefusalChecks(&t));
  PetscCall(PetscPrintf(t.comm, "test_diag_random on %d rank(s): all passed, %" PetscInt_FMT " random matrices, %" PetscInt_FMT " results compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, ncases, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
