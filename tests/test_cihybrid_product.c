static const char help[] = "Checks MatProduct AB (MatMatMult) of MATCIHYBRID with a dense B against MATAIJ.\n\
For every shape, BOUNDARY/split and k in {1,2,3,7,8,16,17,33,64,130}:\n\
  - MatMatMult(A, B, MAT_INITIAL_MATRIX) with B of odd leading dimension (NaN in its padding rows),\n\
  - MatProductCreateWithMat, and MAT_REUSE_MATRIX without a product, into an existing C of odd\n\
    leading dimension (its padding rows must stay as they were),\n\
  - MAT_REUSE_MATRIX / MatProductNumeric after new values, after new nonzeros (lazy rebuild),\n\
    and with a B of another leading dimension,\n\
and checks that none of these called MatMult (no fallback to one MatMult per column).\n\
Also MatTransposeMatMult (PETSc's AIJ code for the other product types). Sequential or MPI (MPIDENSE).\n\
Options:\n\
  -seed <s>       seed of the random matrices\n\
  -dense_cuda     B and C of type MATDENSECUDA (PETSc with CUDA)\n\
  -verbose        one line per check\n\
Other matrix options (-mat_gpumats_backend, ...) reach the cihybrid matrices through MatSetFromOptions.\n";

#include <petscmat.h>
#include <gpumats.h>
#include "testexit.h"

typedef struct {
  MPI_Comm      comm;
  PetscMPIInt   size;
  PetscRandom   rnd; /* PETSC_COMM_SELF, same seed on every rank: every rank knows the whole matrix */
  PetscReal     tol;
  PetscInt      nchecks, nfailed;
  PetscBool     verbose, dense_cuda;
  PetscLogEvent ev_mult, ev_matmultnum;
} TestCtx;

typedef struct {
  PetscInt         M, N;
  PetscInt         boundary;
  MatCIHybridSplit split;
} TestCase;

static PetscErrorCode RandInt(PetscRandom r, PetscInt lo, PetscInt hi, PetscInt *v)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *v = PetscMin(hi, lo + (PetscInt)(u * (PetscReal)(hi - lo + 1)));
  PetscFunctionReturn(0);
}

/* value in [-0.75, 1), one in eight an explicit zero */
static PetscErrorCode RandValue(PetscRandom r, PetscScalar *v)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *v = u < 0.125 ? 0.0 : 2.0 * u - 1.0;
  PetscFunctionReturn(0);
}

/* The same random rows into both matrices (owned rows only): 10% empty, 20% long, the rest 1 to 8
   entries.  With 'extra', a few new entries per row instead (new nonzeros after assembly). */
static PetscErrorCode SetRandomRows(TestCtx *t, Mat Aaij, Mat Aci, PetscBool extra)
{
  PetscInt     M, N, rstart, rend, i, j, len, kind, cols[512];
  PetscScalar  vals[512];

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(Aaij, &M, &N));
  PetscCall(MatGetOwnershipRange(Aaij, &rstart, &rend));
  for (i = 0; i < M; i++) {
    PetscCall(RandInt(t->rnd, 0, 9, &kind));
    if (extra) len = kind < 5 ? 1 : 0;
    else if (kind == 0) len = 0;
    else if (kind < 3) PetscCall(RandInt(t->rnd, 1, PetscMin(N, 512), &len));
    else PetscCall(RandInt(t->rnd, 1, PetscMin(N, 8), &len));
    for (j = 0; j < len; j++) {
      PetscCall(RandInt(t->rnd, 0, N - 1, &cols[j]));
      PetscCall(RandValue(t->rnd, &vals[j]));
    }
    if (i < rstart || i >= rend || !len) continue;
    PetscCall(MatSetValues(Aaij, 1, &i, len, cols, vals, INSERT_VALUES));
    PetscCall(MatSetValues(Aci, 1, &i, len, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(Aaij, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aci, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aaij, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aci, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateMatrix(TestCtx *t, const TestCase *tc, MatType type, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(t->comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, tc->M, tc->N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, tc->N, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, tc->N, NULL, tc->N, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* A dense matrix on the user's array with an odd leading dimension larger than its local rows;
   the padding rows hold 'pad', the entries random values. */
static PetscErrorCode CreateDense(TestCtx *t, PetscInt mlocal, PetscInt M, PetscInt k, PetscBool odd_lda, PetscScalar pad, PetscScalar **array, Mat *D)
{
  const PetscInt lda = odd_lda ? mlocal + 1 + mlocal % 2 : mlocal;
  PetscInt       i, j;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(1, lda * k), array));
  for (j = 0; j < k; j++)
    for (i = 0; i < lda; i++) {
      if (i < mlocal) PetscCall(RandValue(t->rnd, &(*array)[j * lda + i]));
      else (*array)[j * lda + i] = pad;
    }
  PetscCall(MatCreateDense(t->comm, mlocal, PETSC_DECIDE, M, k, *array, D));
  PetscCall(MatDenseSetLDA(*D, PetscMax(1, lda)));
#if defined(PETSC_HAVE_CUDA)
  if (t->dense_cuda) PetscCall(MatConvert(*D, MATDENSECUDA, MAT_INPLACE_MATRIX, D));
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode EventCount(PetscLogEvent event, PetscInt *count)
{
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

/* max |C - Cref| / max |Cref| <= tol, and (pad_check) C's padding rows still hold 'pad' */
static PetscErrorCode Compare(TestCtx *t, const TestCase *tc, PetscInt k, const char *what, Mat C, Mat Cref, PetscBool pad_check, PetscScalar pad)
{
  const PetscScalar *c, *r;
  PetscInt           m, ldc, ldr, i, j;
  PetscReal          local[3] = {0, 0, 0}, global[3]; /* max |diff|, max |ref|, padding touched */

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(C, &m, NULL));
  PetscCall(MatDenseGetLDA(C, &ldc));
  PetscCall(MatDenseGetLDA(Cref, &ldr));
  PetscCall(MatDenseGetArrayRead(C, &c));
  PetscCall(MatDenseGetArrayRead(Cref, &r));
  for (j = 0; j < k; j++) {
    for (i = 0; i < m; i++) {
      const PetscReal d = PetscAbsScalar(c[j * ldc + i] - r[j * ldr + i]);

      local[0] = PetscMax(local[0], PetscIsNanReal(d) ? PETSC_MAX_REAL : d);
      local[1] = PetscMax(local[1], PetscAbsScalar(r[j * ldr + i]));
    }
    if (pad_check)
      for (i = m; i < ldc; i++)
        if (c[j * ldc + i] != pad) local[2] = 1;
  }
  PetscCall(MatDenseRestoreArrayRead(Cref, &r));
  PetscCall(MatDenseRestoreArrayRead(C, &c));
  PetscCall(MPIU_Allreduce(local, global, 3, MPIU_REAL, MPIU_MAX, t->comm));
  {
    const PetscReal rel = global[0] / (global[1] > 0 ? global[1] : 1.0);
    const PetscBool bad = (PetscBool)(rel > t->tol || global[2] != 0);

    t->nchecks++;
    if (bad) t->nfailed++;
    if (bad || t->verbose)
      PetscCall(PetscPrintf(t->comm, "%s %" PetscInt_FMT "x%" PetscInt_FMT " boundary %" PetscInt_FMT " %s k=%" PetscInt_FMT " %s: relative error %g%s\n", bad ? "FAIL" : "ok  ", tc->M, tc->N, tc->boundary, tc->split == MAT_CIHYBRID_SPLIT_ENTRIES ? "entries" : "columns", k, what, (double)rel, global[2] != 0 ? ", C's padding rows were written" : ""));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckNoMatMult(TestCtx *t, const TestCase *tc, PetscInt k, PetscInt mults0, PetscInt nums0, PetscInt nums_expected)
{
  PetscInt mults, nums;

  PetscFunctionBeginUser;
  PetscCall(EventCount(t->ev_mult, &mults));
  PetscCall(EventCount(t->ev_matmultnum, &nums));
  t->nchecks++;
  if (mults != mults0 || nums - nums0 != nums_expected) {
    t->nfailed++;
    PetscCall(PetscPrintf(t->comm, "FAIL %" PetscInt_FMT "x%" PetscInt_FMT " k=%" PetscInt_FMT ": %" PetscInt_FMT " MatMult and %" PetscInt_FMT " MatMatMultNum during the cihybrid products, expected 0 and %" PetscInt_FMT "\n", tc->M, tc->N, k, mults - mults0, nums - nums0, nums_expected));
  }
  PetscFunctionReturn(0);
}

/* C = A B with PETSc's AIJ code, computed afresh: PETSc's MPIAIJ product cannot be reused
   after new nonzeros or with a B of another leading dimension */
static PetscErrorCode Reference(Mat Aaij, Mat B, Mat *Cref)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(Cref));
  PetscCall(MatMatMult(Aaij, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, Cref));
  PetscFunctionReturn(0);
}

/* After a change to A (made to both Aaij and Aci): C1 from MatMatMult and C2 from
   MatProductCreateWithMat (padded with 'pad' past its rows) are recomputed by reuse, with
   no MatMult, and must equal Aaij B. */
static PetscErrorCode CheckReuseAfterChange(TestCtx *t, const TestCase *tc, PetscInt k, Mat Aaij, Mat Aci, Mat B, Mat C1, Mat C2, PetscScalar pad, const char *change)
{
  PetscInt mults0 = 0, nums0 = 0; /* set by EventCount; the initialisers quiet gcc -O3 */
  Mat      Cref   = NULL;
  char     what[64];

  PetscFunctionBeginUser;
  PetscCall(Reference(Aaij, B, &Cref));
  PetscCall(EventCount(t->ev_mult, &mults0));
  PetscCall(EventCount(t->ev_matmultnum, &nums0));
  PetscCall(MatMatMult(Aci, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C1));
  PetscCall(MatProductNumeric(C2));
  PetscCall(CheckNoMatMult(t, tc, k, mults0, nums0, 2));
  PetscCall(PetscSNPrintf(what, sizeof(what), "reuse after %s", change));
  PetscCall(Compare(t, tc, k, what, C1, Cref, PETSC_FALSE, 0));
  PetscCall(PetscSNPrintf(what, sizeof(what), "existing C after %s", change));
  PetscCall(Compare(t, tc, k, what, C2, Cref, (PetscBool)!t->dense_cuda, pad));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunK(TestCtx *t, const TestCase *tc, Mat Aaij, Mat Aci, PetscInt k)
{
  const PetscScalar pad = 12345.0;
  PetscInt          m, n, mults0 = 0, nums0 = 0; /* set by EventCount; the initialisers quiet gcc -O3 */
  PetscScalar      *barray, *b2array, *carray, *c3array;
  Mat               B, B2, C1, C2, C3, Cref = NULL;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(Aaij, &m, &n));
  PetscCall(CreateDense(t, n, tc->N, k, PETSC_TRUE, NAN, &barray, &B));
  PetscCall(CreateDense(t, m, tc->M, k, PETSC_TRUE, pad, &carray, &C2));
  PetscCall(CreateDense(t, m, tc->M, k, PETSC_TRUE, pad, &c3array, &C3));
  PetscCall(Reference(Aaij, B, &Cref));

  PetscCall(EventCount(t->ev_mult, &mults0));
  PetscCall(EventCount(t->ev_matmultnum, &nums0));
  PetscCall(MatMatMult(Aci, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C1));
  PetscCall(MatProductCreateWithMat(Aci, B, NULL, C2));
  PetscCall(MatProductSetType(C2, MATPRODUCT_AB));
  PetscCall(MatProductSetFromOptions(C2));
  PetscCall(MatProductSymbolic(C2));
  PetscCall(MatProductNumeric(C2));
  PetscCall(MatMatMult(Aci, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C3)); /* a dense C that has no product yet */
  PetscCall(CheckNoMatMult(t, tc, k, mults0, nums0, 3));
  PetscCall(Compare(t, tc, k, "MatMatMult initial", C1, Cref, PETSC_FALSE, 0));
  PetscCall(Compare(t, tc, k, "into existing C", C2, Cref, (PetscBool)!t->dense_cuda, pad));
  PetscCall(Compare(t, tc, k, "reuse of a plain dense C", C3, Cref, (PetscBool)!t->dense_cuda, pad));

  /* new values: the shadow refreshes its values */
  PetscCall(MatScale(Aaij, -0.75));
  PetscCall(MatScale(Aci, -0.75));
  PetscCall(CheckReuseAfterChange(t, tc, k, Aaij, Aci, B, C1, C2, pad, "new values"));

  /* new nonzeros: the shadow rebuilds, the MPI product its ghost rows */
  PetscCall(SetRandomRows(t, Aaij, Aci, PETSC_TRUE));
  PetscCall(CheckReuseAfterChange(t, tc, k, Aaij, Aci, B, C1, C2, pad, "new nonzeros"));

  /* another B, leading dimension = local rows */
  PetscCall(CreateDense(t, n, tc->N, k, PETSC_FALSE, 0, &b2array, &B2));
  PetscCall(Reference(Aaij, B2, &Cref));
  PetscCall(EventCount(t->ev_mult, &mults0));
  PetscCall(EventCount(t->ev_matmultnum, &nums0));
  PetscCall(MatMatMult(Aci, B2, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C1));
  PetscCall(CheckNoMatMult(t, tc, k, mults0, nums0, 1));
  PetscCall(Compare(t, tc, k, "reuse with another B", C1, Cref, PETSC_FALSE, 0));

  PetscCall(MatDestroy(&C1));
  PetscCall(MatDestroy(&C2));
  PetscCall(MatDestroy(&C3));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&B2));
  PetscCall(PetscFree(barray));
  PetscCall(PetscFree(b2array));
  PetscCall(PetscFree(carray));
  PetscCall(PetscFree(c3array));
  PetscFunctionReturn(0);
}

/* The other product types go to PETSc's AIJ x dense code: it must still be reached. */
static PetscErrorCode RunTransposeProduct(TestCtx *t, const TestCase *tc, Mat Aaij, Mat Aci)
{
  const PetscInt k = 3;
  PetscInt       m;
  PetscScalar   *barray;
  Mat            B, C, Cref;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(Aaij, &m, NULL));
  PetscCall(CreateDense(t, m, tc->M, k, PETSC_TRUE, NAN, &barray, &B));
  PetscCall(MatTransposeMatMult(Aaij, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(MatTransposeMatMult(Aci, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(Compare(t, tc, k, "MatTransposeMatMult", C, Cref, PETSC_FALSE, 0));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree(barray));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCase(TestCtx *t, const TestCase *tc)
{
  const PetscInt ks[] = {1, 2, 3, 7, 8, 16, 17, 33, 64, 130};
  Mat            Aaij, Aci;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(t, tc, MATAIJ, &Aaij));
  PetscCall(CreateMatrix(t, tc, MATCIHYBRID, &Aci));
  PetscCall(MatCIHybridSetBoundary(Aci, tc->boundary));
  PetscCall(MatCIHybridSetSplit(Aci, tc->split));
  PetscCall(SetRandomRows(t, Aaij, Aci, PETSC_FALSE));
  for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) PetscCall(RunK(t, tc, Aaij, Aci, ks[i]));
  PetscCall(RunTransposeProduct(t, tc, Aaij, Aci));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(MatDestroy(&Aci));
  PetscFunctionReturn(0);
}

static int Main(int argc, char **argv)
{
  const TestCase cases[] = {
    {157, 131, MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_ENTRIES},
    {157, 131, 0, MAT_CIHYBRID_SPLIT_ENTRIES},    /* all in the CSR region */
    {157, 131, 3, MAT_CIHYBRID_SPLIT_ENTRIES},    /* both regions, padding */
    {157, 131, 10000, MAT_CIHYBRID_SPLIT_ENTRIES}, /* all in ELLPACK */
    {96, 200, 60, MAT_CIHYBRID_SPLIT_COLUMNS},
    {200, 96, MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_ENTRIES},
    {2, 5, 1, MAT_CIHYBRID_SPLIT_ENTRIES}, /* ranks without rows */
  };
  TestCtx  t;
  PetscInt seed = 20180345;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  t.comm       = PETSC_COMM_WORLD;
  t.tol        = 1e-12;
  t.nchecks    = 0;
  t.nfailed    = 0;
  t.verbose    = PETSC_FALSE;
  t.dense_cuda = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(t.comm, &t.size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &t.verbose, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dense_cuda", &t.dense_cuda, NULL));
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!t.dense_cuda, t.comm, PETSC_ERR_SUP, "-dense_cuda needs a PETSc built with CUDA");
#endif
  PetscCall(PetscLogEventGetId("MatMult", &t.ev_mult));
  PetscCall(PetscLogEventGetId("MatMatMultNum", &t.ev_matmultnum));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &t.rnd));
  PetscCall(PetscRandomSetSeed(t.rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(t.rnd));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(RunCase(&t, &cases[i]));
  PetscCall(PetscRandomDestroy(&t.rnd));
  PetscCall(PetscPrintf(t.comm, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " checks failed on %d rank(s)\n", t.nfailed ? "FAIL" : "PASS", t.nfailed, t.nchecks, (int)t.size));
  PetscCall(PetscFinalize());
  return t.nfailed ? 1 : 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
