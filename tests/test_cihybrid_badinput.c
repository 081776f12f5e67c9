static const char help[] = "Bad input to the cihybrid matrices: each case must end in a PETSc error with a\n\
clear message or in a correct result (compared with MATAIJ), never in a crash.\n\
Prints one line per case: '<case>: ok' or '<case>: expected error: <first line of the message>'.\n\
Options:\n\
  -vec_type <t>             type of the test vectors (default: what the cihybrid matrix asks for)\n\
  -limit_address_space <b>  run the int32-overflow cases under an address-space limit, so that an\n\
                            attempt to allocate the absurd format fails visibly (default true, Linux)\n";

#include <petscmat.h>
#include <gpumats.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "testmat.h"

/* ------------------------------------------------------------------ */
/* the case machinery                                                  */
/* ------------------------------------------------------------------ */
typedef enum {
  EXPECT_ERROR,
  EXPECT_OK,
  EXPECT_ERROR_OR_OK
} Expect;
static const char *const ExpectNames[] = {"an error", "a correct result", "an error or a correct result"};

/* What a case made (destroyed by the runner, whatever happened) and what it found. */
typedef struct {
  Mat         A, R, B;
  Vec         x, y, z, w;
  const char *stage;         /* the call being made when an error came */
  const char *error_stage;   /* if set: the error must come from this call */
  const char *must_contain;  /* if set: words the message must contain, alternatives separated by '|' */
  const char *option[2];     /* options the case put in the database, cleared afterwards */
  Expect      expect;        /* the case may change what it expects (e.g. a device is present) */
  PetscBool   wrong;         /* a result was compared and found wrong: always a failure */
  char        note[256];     /* printed after 'ok' */
  char        stage_buf[256]; /* for a stage name made up by the case */
} CaseObjects;

typedef PetscErrorCode (*CaseFunction)(CaseObjects *);

typedef struct {
  PetscInt  ncases, nfailed;
  PetscBool limit_as;
} Runner;
static Runner runner;

/* case-insensitive: does text contain one of the '|'-separated words? */
static PetscBool ContainsOneOf(const char *text, const char *words)
{
  char        word[64];
  const char *w = words;

  while (*w) {
    size_t n = 0, i, j;

    while (w[n] && w[n] != '|' && n < sizeof(word) - 1) {
      word[n] = (char)tolower((unsigned char)w[n]);
      n++;
    }
    word[n] = 0;
    for (i = 0; text[i]; i++) {
      for (j = 0; j < n && text[i + j] && tolower((unsigned char)text[i + j]) == word[j]; j++) { }
      if (j == n && n > 0) return PETSC_TRUE;
    }
    w += n;
    if (*w == '|') w++;
  }
  return PETSC_FALSE;
}

static PetscErrorCode RunCase(const char *name, Expect expect, CaseFunction fn)
{
  CaseObjects    o;
  PetscErrorCode ierr;
  const char    *text     = NULL;
  const char    *specific = NULL;
  char           first[512] = "";
  PetscBool      failed   = PETSC_FALSE;
  char           why[768] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&o, sizeof(o)));
  o.expect = expect;
  o.stage  = "setting up";
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = (*fn)(&o);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    size_t k;

    PetscCall(GpuMatsErrorMessage(ierr, &text, &specific));
    PetscCall(PetscStrncpy(first, specific && specific[0] ? specific : (text ? text : "(no message)"), sizeof(first)));
    for (k = 0; first[k]; k++)
      if (first[k] == '\n') first[k] = 0;
  }
  if (o.wrong) {
    failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "wrong result at %s: %s", o.stage, first));
  } else if (ierr && o.expect == EXPECT_OK) {
    failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "expected a correct result, got an error at %s: %s", o.stage, first));
  } else if (!ierr && o.expect == EXPECT_ERROR) {
    failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "expected an error, there was none"));
  } else if (ierr && o.error_stage && strcmp(o.error_stage, o.stage)) {
    failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "the error should come from %s, it came from %s: %s", o.error_stage, o.stage, first));
  } else if (ierr && o.must_contain && !ContainsOneOf(specific ? specific : "", o.must_contain)) {
    failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "the message does not say '%s' (error at %s): %s", o.must_contain, o.stage, first));
  }
  runner.ncases++;
  if (failed) {
    runner.nfailed++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: FAILED (expected %s): %s\n", name, ExpectNames[o.expect], why));
  } else if (ierr) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: expected error: %s\n", name, first));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: ok%s%s\n", name, o.note[0] ? ", " : "", o.note));

  /* clean up whatever the case left, with errors caught: a failed case must not stop the others */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatDestroy(&o.A);
  if (!ierr) ierr = MatDestroy(&o.R);
  if (!ierr) ierr = MatDestroy(&o.B);
  if (!ierr) ierr = VecDestroy(&o.x);
  if (!ierr) ierr = VecDestroy(&o.y);
  if (!ierr) ierr = VecDestroy(&o.z);
  if (!ierr) ierr = VecDestroy(&o.w);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    runner.nfailed++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: FAILED: destroying the objects after the case gave error %d\n", name, (int)ierr));
  }
  if (o.option[0]) PetscCall(PetscOptionsClearValue(NULL, o.option[0]));
  if (o.option[1]) PetscCall(PetscOptionsClearValue(NULL, o.option[1]));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* matrices, vectors, comparisons                                      */
/* ------------------------------------------------------------------ */
/* Entry (i, j) is present when row i is a 'full' row (i % row_stride == 0; row_stride 0: no
   full rows) and (3 i + 7 j) % mod == 0; every 11th entry is an explicit zero. The value is
   a function of (i, j) only, so any two matrices made by this are equal. */
static PetscErrorCode CreatePatterned(MatType type, PetscInt M, PetscInt N, PetscInt mod, PetscInt row_stride, Mat *A)
{
  PetscInt *nnz, i, j, *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(M + 1, &nnz));
  PetscCall(PetscMalloc2(N + 1, &cols, N + 1, &vals));
  for (i = 0; i < M; i++)
    if (row_stride && i % row_stride == 0)
      for (j = 0; j < N; j++) nnz[i] += (3 * i + 7 * j) % mod == 0;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, M, N, M, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, nnz));
  for (i = 0; i < M; i++) {
    PetscInt n = 0;

    if (!nnz[i]) continue;
    for (j = 0; j < N; j++) {
      if ((3 * i + 7 * j) % mod) continue;
      cols[n] = j;
      vals[n] = (i + j) % 11 == 0 ? 0.0 : 1.0 + (PetscReal)((i * 31 + j * 17) % 13) / 8.0;
      n++;
    }
    PetscCall(MatSetValues(*A, 1, &i, n, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(nnz));
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateTestVec(Mat A, PetscBool right, Vec *v)
{
  PetscInt m, n;
  VecType  vtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetVecType(A, &vtype));
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, right ? n : m, right ? n : m));
  PetscCall(VecSetType(*v, vtype));
  PetscCall(VecSetFromOptions(*v));
  PetscFunctionReturn(0);
}

static PetscErrorCode FillRandom(Vec v, unsigned long seed)
{
  PetscRandom r;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetType(r, PETSCRANDER48));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(r, seed));
  PetscCall(PetscRandomSeed(r));
  PetscCall(VecSetRandom(v, r));
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(0);
}

/* Entry-wise: both finite and close (relative to the vector norm), or both Inf/NaN. */
static PetscErrorCode CompareEntries(CaseObjects *o, Vec yc, Vec ya, const char *op)
{
  const PetscScalar *c, *a;
  PetscInt           n, i, bad = -1;
  PetscReal          scale = 0.0, err = 0.0, cbad = 0.0, abad = 0.0;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(ya, &n));
  PetscCall(VecGetArrayRead(yc, &c));
  PetscCall(VecGetArrayRead(ya, &a));
  for (i = 0; i < n; i++)
    if (!PetscIsInfOrNanScalar(a[i])) scale += PetscRealPart(a[i] * PetscConj(a[i]));
  scale = PetscSqrtReal(scale);
  for (i = 0; i < n && bad < 0; i++) {
    PetscBool finite_c = (PetscBool)!PetscIsInfOrNanScalar(c[i]), finite_a = (PetscBool)!PetscIsInfOrNanScalar(a[i]);

    if (finite_c != finite_a) {
      bad     = i;
      cbad    = PetscRealPart(c[i]);
      abad    = PetscRealPart(a[i]);
    } else if (finite_a) err = PetscMax(err, PetscAbsScalar(c[i] - a[i]));
  }
  PetscCall(VecRestoreArrayRead(yc, &c));
  PetscCall(VecRestoreArrayRead(ya, &a));
  if (bad >= 0) {
    o->wrong = PETSC_TRUE;
    o->stage = op;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry %" PetscInt_FMT " is %g with cihybrid, %g with MATAIJ", op, bad, (double)cbad, (double)abad);
  }
  if (err > 1e-12 * (scale > 0 ? scale : 1.0)) {
    o->wrong = PETSC_TRUE;
    o->stage = op;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: largest difference from MATAIJ %g, ||y_aij|| %g", op, (double)err, (double)scale);
  }
  PetscFunctionReturn(0);
}

/* the four products of A against the reference R, on random vectors */
static PetscErrorCode CompareProducts(CaseObjects *o, Mat A, Mat R)
{
  Vec x, y0, yc, ya, xt, yt0, ytc, yta;

  PetscFunctionBeginUser;
  PetscCall(CreateTestVec(A, PETSC_TRUE, &x));
  PetscCall(CreateTestVec(A, PETSC_FALSE, &yc));
  PetscCall(CreateTestVec(A, PETSC_FALSE, &xt));
  PetscCall(CreateTestVec(A, PETSC_TRUE, &ytc));
  PetscCall(VecDuplicate(yc, &ya));
  PetscCall(VecDuplicate(yc, &y0));
  PetscCall(VecDuplicate(ytc, &yta));
  PetscCall(VecDuplicate(ytc, &yt0));
  PetscCall(FillRandom(x, 11));
  PetscCall(FillRandom(y0, 12));
  PetscCall(FillRandom(xt, 13));
  PetscCall(FillRandom(yt0, 14));
  PetscCall(FillRandom(yc, 15));
  PetscCall(FillRandom(ytc, 16));
  o->stage = "MatMult";
  PetscCall(MatMult(A, x, yc));
  PetscCall(MatMult(R, x, ya));
  PetscCall(CompareEntries(o, yc, ya, "MatMult"));
  o->stage = "MatMultAdd";
  PetscCall(MatMultAdd(A, x, y0, yc));
  PetscCall(MatMultAdd(R, x, y0, ya));
  PetscCall(CompareEntries(o, yc, ya, "MatMultAdd"));
  o->stage = "MatMultTranspose";
  PetscCall(MatMultTranspose(A, xt, ytc));
  PetscCall(MatMultTranspose(R, xt, yta));
  PetscCall(CompareEntries(o, ytc, yta, "MatMultTranspose"));
  o->stage = "MatMultTransposeAdd";
  PetscCall(MatMultTransposeAdd(A, xt, yt0, ytc));
  PetscCall(MatMultTransposeAdd(R, xt, yt0, yta));
  PetscCall(CompareEntries(o, ytc, yta, "MatMultTransposeAdd"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&yc));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt0));
  PetscCall(VecDestroy(&ytc));
  PetscCall(VecDestroy(&yta));
  PetscFunctionReturn(0);
}

/* A small cihybrid matrix and its AIJ twin in o->A, o->R. */
static PetscErrorCode SmallPair(CaseObjects *o, PetscInt M, PetscInt N, PetscInt mod, PetscInt row_stride, PetscInt boundary, MatCIHybridSplit split)
{
  PetscFunctionBeginUser;
  PetscCall(CreatePatterned(MATSEQAIJCIHYBRID, M, N, mod, row_stride, &o->A));
  PetscCall(CreatePatterned(MATSEQAIJ, M, N, mod, row_stride, &o->R));
  PetscCall(MatCIHybridSetSplit(o->A, split));
  PetscCall(MatCIHybridSetBoundary(o->A, boundary));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* the cases                                                           */
/* ------------------------------------------------------------------ */
static PetscErrorCode NegativeBoundary(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 30, 20, 4, 1, 3, MAT_CIHYBRID_SPLIT_ENTRIES));
  o->must_contain = "boundary";
  o->stage        = "MatCIHybridSetBoundary(A, -5)";
  PetscCall(MatCIHybridSetBoundary(o->A, -5));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

/* 200000 x 20000, row 0 dense, every other row one entry: a wide ELLPACK needs
   200000 * 20000 = 4e9 slots, more than int32 indices address. */
static PetscErrorCode OverflowMatrix(CaseObjects *o, MatType type, Mat *A)
{
  const PetscInt M = 200000, N = 20000;
  PetscInt      *nnz, *cols, i;
  PetscScalar   *vals;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(M, &nnz, N, &cols, N, &vals));
  for (i = 0; i < M; i++) nnz[i] = i ? 1 : N;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, M, N, M, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, nnz));
  for (i = 0; i < N; i++) {
    cols[i] = i;
    vals[i] = 1.0 / (1.0 + i);
  }
  PetscCall(MatSetValues(*A, 1, &cols[0], N, cols, vals, INSERT_VALUES)); /* row 0 */
  for (i = 1; i < M; i++) {
    PetscInt    j = (i * 7) % N;
    PetscScalar v = 1.0 + (PetscReal)(i % 5);

    PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(nnz, cols, vals));
  PetscFunctionReturn(0);
}

/* Limit the address space to what the process uses now plus 1 GiB, so that building a
   48 GB format fails with 'out of memory' instead of succeeding lazily; restored after. */
static struct rlimit saved_as;
static PetscBool     as_limited = PETSC_FALSE;

static PetscErrorCode LimitAddressSpace(void)
{
  PetscFunctionBeginUser;
  if (runner.limit_as) PetscCall(TestLimitAddressSpace(&saved_as, &as_limited));
  PetscFunctionReturn(0);
}

static PetscErrorCode RestoreAddressSpace(void)
{
  PetscFunctionBeginUser;
  PetscCall(TestRestoreAddressSpace(&saved_as, &as_limited));
  PetscFunctionReturn(0);
}

static PetscErrorCode Int32Overflow(CaseObjects *o, MatCIHybridSplit split)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(OverflowMatrix(o, MATSEQAIJCIHYBRID, &o->A));
  PetscCall(MatCIHybridSetSplit(o->A, split));
  PetscCall(MatCIHybridSetBoundary(o->A, 20000));
  PetscCall(MatCreateVecs(o->A, &o->x, &o->y));
  PetscCall(VecSet(o->x, 1.0));
  o->must_contain = "32-bit";
  o->stage        = "MatMult (building the format)";
  PetscCall(LimitAddressSpace());
  ierr = MatMult(o->A, o->x, o->y);
  PetscCall(RestoreAddressSpace());
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode Int32OverflowEntries(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(Int32Overflow(o, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscFunctionReturn(0);
}

static PetscErrorCode Int32OverflowColumns(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(Int32Overflow(o, MAT_CIHYBRID_SPLIT_COLUMNS));
  PetscFunctionReturn(0);
}

/* the same matrix with the automatic boundary: either it fits (correct result) or a clear error */
static PetscErrorCode Int32OverflowAuto(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(OverflowMatrix(o, MATSEQAIJCIHYBRID, &o->A));
  PetscCall(OverflowMatrix(o, MATSEQAIJ, &o->R));
  PetscCall(MatCIHybridSetBoundary(o->A, MAT_CIHYBRID_BOUNDARY_AUTO));
  o->must_contain = "32-bit";
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode BoundaryBeyondLongestRow(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 40, 30, 3, 1, 1000, MAT_CIHYBRID_SPLIT_ENTRIES)); /* rows of at most 10 entries */
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscCall(MatCIHybridSetSplit(o->A, MAT_CIHYBRID_SPLIT_COLUMNS)); /* and a column boundary past the last column */
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode BoundaryMaxInt(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 40, 30, 3, 1, PETSC_MAX_INT, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscCall(MatCIHybridSetSplit(o->A, MAT_CIHYBRID_SPLIT_COLUMNS));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode MultNotAssembled(CaseObjects *o)
{
  PetscInt    i = 0, j = 0;
  PetscScalar v = 1.0;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, &o->A));
  PetscCall(MatSetSizes(o->A, 5, 5, 5, 5));
  PetscCall(MatSetType(o->A, MATSEQAIJCIHYBRID));
  PetscCall(MatSeqAIJSetPreallocation(o->A, 2, NULL));
  PetscCall(MatSetValues(o->A, 1, &i, 1, &j, &v, INSERT_VALUES));
  PetscCall(CreateTestVec(o->A, PETSC_TRUE, &o->x));
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->y));
  PetscCall(VecSet(o->x, 1.0));
  o->stage        = "MatMult";
  o->error_stage  = "MatMult";
  o->must_contain = "assembled";
  PetscCall(MatMult(o->A, o->x, o->y));
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroByZero(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 0, 0, 1, 1, 4, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscCall(MatCIHybridSetBoundary(o->A, MAT_CIHYBRID_BOUNDARY_AUTO));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode AllRowsEmpty(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 50, 40, 1, 0, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscCall(MatCIHybridSetBoundary(o->A, MAT_CIHYBRID_BOUNDARY_AUTO));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode MostRowsEmpty(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 97, 60, 2, 13, 3, MAT_CIHYBRID_SPLIT_ENTRIES)); /* every 13th row has 30 entries */
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscCall(MatCIHybridSetSplit(o->A, MAT_CIHYBRID_SPLIT_COLUMNS));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode WrongSizeMult(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 12, 9, 2, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->x)); /* 12 entries where 9 are needed */
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->y));
  PetscCall(VecSet(o->x, 1.0));
  o->stage       = "MatMult";
  o->error_stage = "MatMult";
  PetscCall(MatMult(o->A, o->x, o->y));
  PetscFunctionReturn(0);
}

static PetscErrorCode WrongSizeMultTransposeAdd(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 12, 9, 2, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->x)); /* right: 12 */
  PetscCall(CreateTestVec(o->A, PETSC_TRUE, &o->y));  /* right: 9 */
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->z)); /* wrong: 12 where the result has 9 */
  PetscCall(VecSet(o->x, 1.0));
  PetscCall(VecSet(o->y, 1.0));
  o->stage       = "MatMultTransposeAdd";
  o->error_stage = "MatMultTransposeAdd";
  PetscCall(MatMultTransposeAdd(o->A, o->x, o->y, o->z));
  PetscFunctionReturn(0);
}

/* An option value in the database, read by MatSetFromOptions (or at the latest by the first multiply). */
static PetscErrorCode BadOption(CaseObjects *o, const char *option, const char *value, const char *must_contain)
{
  PetscFunctionBeginUser;
  PetscCall(CreatePatterned(MATSEQAIJCIHYBRID, 20, 20, 3, 1, &o->A));
  PetscCall(CreatePatterned(MATSEQAIJ, 20, 20, 3, 1, &o->R));
  PetscCall(MatSetOptionsPrefix(o->A, "bad_"));
  o->option[0] = option;
  PetscCall(PetscOptionsSetValue(NULL, option, value));
  o->must_contain = must_contain;
  o->stage        = "MatSetFromOptions";
  PetscCall(MatSetFromOptions(o->A));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode OptionBoundaryGarbage(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(BadOption(o, "-bad_mat_cihybrid_boundary", "garbage", "boundary"));
  PetscFunctionReturn(0);
}

static PetscErrorCode OptionBoundaryNegative(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(BadOption(o, "-bad_mat_cihybrid_boundary", "-7", "boundary"));
  PetscFunctionReturn(0);
}

static PetscErrorCode OptionSplitGarbage(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(BadOption(o, "-bad_mat_cihybrid_split", "diagonal", "split"));
  PetscFunctionReturn(0);
}

static PetscErrorCode OptionBackendGarbage(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(BadOption(o, "-bad_mat_gpumats_backend", "gpu2", "backend"));
  PetscFunctionReturn(0);
}

/* PetscTryMethod semantics: the setters do nothing on other types */
static PetscErrorCode SettersOnAIJ(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(CreatePatterned(MATSEQAIJ, 25, 25, 3, 1, &o->A));
  PetscCall(CreatePatterned(MATSEQAIJ, 25, 25, 3, 1, &o->R));
  o->stage = "MatCIHybridSetBoundary on MATSEQAIJ";
  PetscCall(MatCIHybridSetBoundary(o->A, 5));
  o->stage = "MatCIHybridSetSplit on MATSEQAIJ";
  PetscCall(MatCIHybridSetSplit(o->A, MAT_CIHYBRID_SPLIT_COLUMNS));
  o->stage = "MatCIHybridSetKernel on MATSEQAIJ";
  PetscCall(MatCIHybridSetKernel(o->A, MAT_CIHYBRID_KERNEL_PAPER));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

/* PetscUseMethod semantics: a getter cannot answer for another type */
static PetscErrorCode GetterOnAIJ(CaseObjects *o)
{
  PetscInt b;

  PetscFunctionBeginUser;
  PetscCall(CreatePatterned(MATSEQAIJ, 25, 25, 3, 1, &o->A));
  o->stage       = "MatCIHybridGetBoundary on MATSEQAIJ";
  o->error_stage = o->stage;
  PetscCall(MatCIHybridGetBoundary(o->A, &b));
  PetscFunctionReturn(0);
}

/* CUDA asked for where none can be used: an error at the next multiply that says so. */
static PetscErrorCode BackendCUDAWithoutDevice(CaseObjects *o)
{
  PetscBool uses;

  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 30, 30, 3, 1, 4, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(MatBindToCPU(o->A, PETSC_FALSE)); /* so that only the device decides */
  PetscCall(MatGpuMatsSetBackend(o->A, GPUMATS_BACKEND_AUTO));
  PetscCall(MatGpuMatsUsesDevice(o->A, &uses));
  o->stage = "MatGpuMatsSetBackend(A, GPUMATS_BACKEND_CUDA)";
  PetscCall(MatGpuMatsSetBackend(o->A, GPUMATS_BACKEND_CUDA));
  if (uses) { /* a device is here: then CUDA must simply work */
    o->expect = EXPECT_OK;
    PetscCall(PetscSNPrintf(o->note, sizeof(o->note), "a device is present, the CUDA backend gave correct products"));
    PetscCall(CompareProducts(o, o->A, o->R));
  } else {
    o->expect       = EXPECT_ERROR;
    o->error_stage  = "MatMult";
    o->must_contain = "device|cuda";
    PetscCall(CreateTestVec(o->A, PETSC_TRUE, &o->x));
    PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->y));
    PetscCall(VecSet(o->x, 1.0));
    o->stage = "MatMult";
    PetscCall(MatMult(o->A, o->x, o->y));
  }
  PetscFunctionReturn(0);
}

/* Padding slots must never touch x: an Inf or NaN in x shows only in rows that use its column. */
static PetscErrorCode NonFiniteInX(CaseObjects *o)
{
  PetscInt    boundaries[] = {0, 2, 5, 1000}, columns[] = {0, 9, 39}, k, split, c;
  PetscScalar inf          = (PetscReal)INFINITY, nan = (PetscReal)NAN; /* PETSC_INFINITY is finite (PETSC_MAX_REAL/4) */
  char       *stage        = o->stage_buf;

  PetscFunctionBeginUser;
  /* every 3rd row has 20 entries (some explicit zeros), the others are empty: padding everywhere.
     Column 0 is used by the even full rows only, columns 9 and 39 by the odd ones: a kernel
     that pads with column 0 or the last column, or reads x at a padding slot, shows. */
  PetscCall(SmallPair(o, 60, 40, 2, 3, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CreateTestVec(o->A, PETSC_TRUE, &o->x));
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->y));
  PetscCall(CreateTestVec(o->A, PETSC_FALSE, &o->z));
  for (split = 0; split < 2; split++) {
    for (k = 0; k < (PetscInt)(sizeof(boundaries) / sizeof(boundaries[0])); k++) {
      for (c = 0; c < (PetscInt)(sizeof(columns) / sizeof(columns[0])); c++) {
        PetscCall(MatCIHybridSetSplit(o->A, (MatCIHybridSplit)split));
        PetscCall(MatCIHybridSetBoundary(o->A, boundaries[k]));
        PetscCall(FillRandom(o->x, 21));
        PetscCall(VecSetValues(o->x, 1, &columns[c], (k + c) % 2 ? &nan : &inf, INSERT_VALUES));
        PetscCall(VecAssemblyBegin(o->x));
        PetscCall(VecAssemblyEnd(o->x));
        PetscCall(PetscSNPrintf(stage, sizeof(o->stage_buf), "MatMult with %s at x[%" PetscInt_FMT "], boundary %" PetscInt_FMT ", split %s", (k + c) % 2 ? "NaN" : "Inf", columns[c], boundaries[k], split ? "columns" : "entries"));
        o->stage = stage;
        PetscCall(MatMult(o->A, o->x, o->y));
        PetscCall(MatMult(o->R, o->x, o->z));
        PetscCall(CompareEntries(o, o->y, o->z, stage));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* A NaN entry of the matrix poisons its row only. */
static PetscErrorCode NaNInMatrix(CaseObjects *o)
{
  PetscInt    i = 4, j;
  PetscScalar nan = (PetscReal)NAN;

  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 30, 30, 3, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  for (j = 0; j < 30; j++)
    if ((3 * i + 7 * j) % 3 == 0) break; /* an existing entry of row 4 */
  PetscCall(MatSetValues(o->A, 1, &i, 1, &j, &nan, INSERT_VALUES));
  PetscCall(MatSetValues(o->R, 1, &i, 1, &j, &nan, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(o->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(o->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(o->R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(o->R, MAT_FINAL_ASSEMBLY));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode InvalidSplitEnum(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 30, 30, 3, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  o->stage        = "MatCIHybridSetSplit(A, 7)";
  o->must_contain = "split";
  PetscCall(MatCIHybridSetSplit(o->A, (MatCIHybridSplit)7));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode InvalidBackendEnum(CaseObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SmallPair(o, 30, 30, 3, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  o->stage        = "MatGpuMatsSetBackend(A, 9)";
  o->must_contain = "backend";
  PetscCall(MatGpuMatsSetBackend(o->A, (GpuMatsBackend)9));
  PetscCall(CompareProducts(o, o->A, o->R));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateNegativeSize(CaseObjects *o)
{
  PetscFunctionBeginUser;
  o->stage       = "MatCreateSeqAIJCIHybrid(-3 rows)";
  o->error_stage = o->stage;
  o->must_contain = "-3|negative";
  PetscCall(MatCreateSeqAIJCIHybrid(PETSC_COMM_SELF, -3, 4, 2, NULL, &o->A));
  PetscFunctionReturn(0);
}

/* One correct multiply before the cases, so the device (if any) is initialised outside the
   address-space limit of the overflow cases. */
static PetscErrorCode WarmUp(void)
{
  CaseObjects o;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&o, sizeof(o)));
  PetscCall(SmallPair(&o, 10, 10, 2, 1, 2, MAT_CIHYBRID_SPLIT_ENTRIES));
  PetscCall(CompareProducts(&o, o.A, o.R));
  PetscCall(MatDestroy(&o.A));
  PetscCall(MatDestroy(&o.R));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_WRONG_MPI_SIZE, "test_cihybrid_badinput runs on one rank");
  runner.limit_as = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-limit_address_space", &runner.limit_as, NULL));

  PetscCall(WarmUp());
  PetscCall(RunCase("MatCIHybridSetBoundary(A, -5)", EXPECT_ERROR, NegativeBoundary));
  PetscCall(RunCase("200000 x 20000 with a dense row, boundary 20000, split entries (int32 overflow)", EXPECT_ERROR, Int32OverflowEntries));
  PetscCall(RunCase("200000 x 20000 with a dense row, boundary 20000, split columns (int32 overflow)", EXPECT_ERROR, Int32OverflowColumns));
  PetscCall(RunCase("200000 x 20000 with a dense row, boundary auto", EXPECT_ERROR_OR_OK, Int32OverflowAuto));
  PetscCall(RunCase("boundary 1000 > longest row (10), both splits", EXPECT_OK, BoundaryBeyondLongestRow));
  PetscCall(RunCase("boundary PETSC_MAX_INT, both splits", EXPECT_OK, BoundaryMaxInt));
  PetscCall(RunCase("MatMult on a matrix that was never assembled", EXPECT_ERROR, MultNotAssembled));
  PetscCall(RunCase("0 x 0 matrix", EXPECT_OK, ZeroByZero));
  PetscCall(RunCase("50 x 40, every row empty", EXPECT_OK, AllRowsEmpty));
  PetscCall(RunCase("97 x 60, 90 of 97 rows empty", EXPECT_OK, MostRowsEmpty));
  PetscCall(RunCase("MatMult with x of the wrong size", EXPECT_ERROR, WrongSizeMult));
  PetscCall(RunCase("MatMultTransposeAdd with z of the wrong size", EXPECT_ERROR, WrongSizeMultTransposeAdd));
  PetscCall(RunCase("-mat_cihybrid_boundary garbage", EXPECT_ERROR, OptionBoundaryGarbage));
  PetscCall(RunCase("-mat_cihybrid_boundary -7", EXPECT_ERROR, OptionBoundaryNegative));
  PetscCall(RunCase("-mat_cihybrid_split diagonal", EXPECT_ERROR, OptionSplitGarbage));
  PetscCall(RunCase("-mat_gpumats_backend gpu2", EXPECT_ERROR, OptionBackendGarbage));
  PetscCall(RunCase("MatCIHybridSetBoundary/SetSplit on MATSEQAIJ (ignored)", EXPECT_OK, SettersOnAIJ));
  PetscCall(RunCase("MatCIHybridGetBoundary on MATSEQAIJ", EXPECT_ERROR, GetterOnAIJ));
  PetscCall(RunCase("MatGpuMatsSetBackend(A, GPUMATS_BACKEND_CUDA) without a usable device", EXPECT_ERROR, BackendCUDAWithoutDevice));
  PetscCall(RunCase("Inf/NaN in x (padding must not read x)", EXPECT_OK, NonFiniteInX));
  PetscCall(RunCase("NaN entry in the matrix", EXPECT_OK, NaNInMatrix));
  PetscCall(RunCase("MatCIHybridSetSplit(A, 7)", EXPECT_ERROR_OR_OK, InvalidSplitEnum));
  PetscCall(RunCase("MatGpuMatsSetBackend(A, 9)", EXPECT_ERROR_OR_OK, InvalidBackendEnum));
  PetscCall(RunCase("MatCreateSeqAIJCIHybrid with -3 rows", EXPECT_ERROR, CreateNegativeSize));

  PetscCheck(!runner.nfailed, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "test_cihybrid_badinput: %" PetscInt_FMT " of %" PetscInt_FMT " cases FAILED (see above)", runner.nfailed, runner.ncases);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_cihybrid_badinput: all %" PetscInt_FMT " cases behaved\n", runner.ncases));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
