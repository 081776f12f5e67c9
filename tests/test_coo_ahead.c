static char help[] = "pcsr, cihybrid and diag after MatSetValuesCOO from device memory, whose device copy runs ahead of\n"
                     "the host values: every operation against MATAIJ given the same values on the host.\n"
                     "  -mat_type <cihybrid|pcsr|diag>  the type under test (all when not given)  -n <grid side>\n\n";

/* A 5-point operator on an n x n grid given as COO (each diagonal entry in two parts, so
   duplicates are summed; each process gives its own rows), the values of step s diagonally
   dominant and different at every s.
   The matrix under test gets them from device memory, a MATAIJ from the host, and after each
   new set of values one operation of the kinds that read the host AIJ runs on both:
   - that the device copy really runs ahead (pcsr and cihybrid on one process):
     MatSeqAIJGetArrayRead (no op of the matrix) still shows the old values, and after an op
     (MatNorm) the new ones;
   - ops of the matrix: MatNorm, MatGetDiagonal, MatGetRow (MatConvert), MatSetOption (one that
     SeqAIJ answers by writing its table) + MatSetValues + assembly, MatScale, MatDuplicate,
     MatSetValuesCOO from the host and ADD_VALUES from the device, and MatZeroRows and
     MatDiagonalScale (an mpidiag edits its off-process block's host arrays);
   - products on the host (the backend switched) and on the device;
   - what reads the host AIJ later, without an op of the matrix: the numeric phase of a sparse
     product (MatProductNumeric after new values) and, on one process, of factorizations (KSP
     preonly with LU, and with ILU; the package chosen by PETSc, and named), refactored after new
     values.
   On several processes the MPI types take the values through their blocks' device copies
   (common/mpicoo.c): mpidiag's pcsr off-process block then runs ahead too.
   Without a CUDA PETSc and a device the test is skipped. */
#include <gpumats.h>
#include <petscksp.h>
#include <string.h>
#include "testmat.h"
#include "testexit.h"
#include "gpumats_config.h"
#if defined(PETSC_HAVE_CUDA) && GPUMATS_HAVE_CUDA
  #include "cuda/common/gpumats_cuda.h"
  #define TEST_DEVICE_ARRAYS 1
#endif

#if defined(TEST_DEVICE_ARRAYS)
#define NSTEPS 8

typedef struct {
  MPI_Comm     comm;
  PetscInt     n, N, nlocal, rstart, ncoo; /* this process's rows: rstart .. rstart + nlocal */
  PetscInt    *ci, *cj;
  PetscScalar *v[NSTEPS];  /* host values of each step */
  void        *dv[NSTEPS]; /* the same in device memory */
} Problem;

static PetscErrorCode ProblemCreate(MPI_Comm comm, PetscInt n, Problem *p)
{
  PetscInt k = 0;

  PetscFunctionBeginUser;
  p->comm   = comm;
  p->n      = n;
  p->N      = n * n;
  p->nlocal = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(comm, &p->nlocal, &p->N));
  PetscCallMPI(MPI_Scan(&p->nlocal, &p->rstart, 1, MPIU_INT, MPI_SUM, comm));
  p->rstart -= p->nlocal;
  p->ncoo = 6 * p->nlocal;
  PetscCall(PetscMalloc2(p->ncoo, &p->ci, p->ncoo, &p->cj));
  for (PetscInt s = 0; s < NSTEPS; s++) PetscCall(PetscMalloc1(p->ncoo, &p->v[s]));
  for (PetscInt row = p->rstart; row < p->rstart + p->nlocal; row++) {
    const PetscInt i = row / n, j = row % n, nb[4] = {i > 0 ? row - n : -1, j > 0 ? row - 1 : -1, j < n - 1 ? row + 1 : -1, i < n - 1 ? row + n : -1};

    for (int q = 0; q < 4; q++, k++) { /* a negative column: ignored, as PETSc specifies */
      p->ci[k] = row;
      p->cj[k] = nb[q];
    }
    p->ci[k] = p->ci[k + 1] = row;
    p->cj[k] = p->cj[k + 1] = row;
    k += 2;
  }
  for (PetscInt s = 0; s < NSTEPS; s++)
    for (PetscInt e = 0; e < p->ncoo; e++) {
      const PetscInt q = e % 6, g = 6 * p->rstart + e; /* the same values on any number of processes */

      p->v[s][e] = q < 4 ? -(1.0 + 0.01 * (PetscReal)((g / 6 + q) % 7)) * (1.0 + 0.1 * (PetscReal)s) : 3.0 + 0.25 * (PetscReal)s + 0.001 * (PetscReal)(g % 11);
    }
  for (PetscInt s = 0; s < NSTEPS; s++) {
    PetscCall(GpuMatsCUDAMalloc(&p->dv[s], (size_t)p->ncoo * sizeof(PetscScalar), "test_coo_ahead values"));
    PetscCall(GpuMatsCUDACopyToDevice(p->dv[s], p->v[s], (size_t)p->ncoo * sizeof(PetscScalar)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ProblemDestroy(Problem *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(p->ci, p->cj));
  for (PetscInt s = 0; s < NSTEPS; s++) {
    PetscCall(PetscFree(p->v[s]));
    PetscCall(GpuMatsCUDAFree(p->dv[s]));
  }
  PetscFunctionReturn(0);
}

/* A of 'type', B the reference of 'reftype' (MATAIJ, or MATAIJCUSPARSE), same COO pattern */
static PetscErrorCode CreatePair(const Problem *p, const char *type, MatType reftype, Mat *A, Mat *B)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(p->comm, A));
  PetscCall(MatSetSizes(*A, p->nlocal, p->nlocal, p->N, p->N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A)); /* -mat_gpumats_pinned_ghosts */
  PetscCall(MatSetPreallocationCOO(*A, p->ncoo, p->ci, p->cj));
  PetscCall(MatCreate(p->comm, B));
  PetscCall(MatSetSizes(*B, p->nlocal, p->nlocal, p->N, p->N));
  PetscCall(MatSetType(*B, reftype));
  PetscCall(MatSetPreallocationCOO(*B, p->ncoo, p->ci, p->cj));
  PetscFunctionReturn(0);
}

/* step s: the type from device memory, AIJ from the host */
static PetscErrorCode SetStep(const Problem *p, PetscInt s, InsertMode mode, Mat A, Mat B)
{
  PetscFunctionBeginUser;
  PetscCall(MatSetValuesCOO(A, (const PetscScalar *)p->dv[s], mode));
  PetscCall(MatSetValuesCOO(B, p->v[s], mode));
  PetscFunctionReturn(0);
}

/* the entries (MatConvert: through MatGetRow), relative Frobenius distance */
static PetscErrorCode CompareEntries(TestCtx *t, Mat A, Mat B, const char *what)
{
  Mat       C;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  PetscCall(MatDestroy(&C));
  PetscCheck(nd <= t->tol * nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MISMATCH %s: entries differ from MATAIJ's, ||A - A_aij||_F = %g (||A_aij||_F = %g)", what, (double)nd, (double)nb);
  t->maxerr = PetscMax(t->maxerr, nb > 0.0 ? nd / nb : nd);
  t->ncompared++;
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(TestCtx *t, Mat A, Mat B, const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(CheckProducts(t, A, B, what));
  PetscCall(CompareEntries(t, A, B, what));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareReal(TestCtx *t, PetscReal a, PetscReal b, const char *what)
{
  PetscFunctionBeginUser;
  PetscCheck(PetscAbsReal(a - b) <= t->tol * PetscAbsReal(b), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MISMATCH %s: %.17g, MATAIJ %.17g", what, (double)a, (double)b);
  t->ncompared++;
  PetscFunctionReturn(0);
}

/* max |a_type - a_aij| / max |a_aij| of the host value arrays (the same pattern: the same COO) */
static PetscErrorCode HostArrayDistance(Mat A, Mat B, PetscReal *dist)
{
  const PetscScalar *a, *b;
  PetscInt           nz;
  PetscReal          num = 0.0, den = 0.0;
  MatInfo            info;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
  nz = (PetscInt)info.nz_used;
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(MatSeqAIJGetArrayRead(B, &b));
  for (PetscInt k = 0; k < nz; k++) {
    num = PetscMax(num, PetscAbsScalar(a[k] - b[k]));
    den = PetscMax(den, PetscAbsScalar(b[k]));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(B, &b));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  *dist = den > 0.0 ? num / den : num;
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckOps(TestCtx *t, const Problem *p, const char *type)
{
  Mat       A, B, D;
  Vec       da, db;
  PetscReal na, nb, dist;
  PetscBool seq;
  char      what[128];

  PetscFunctionBeginUser;
  {
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(p->comm, &size));
    seq = (PetscBool)(size == 1 && strcmp(type, "diag")); /* an AIJ-hosted type on one process */
  }
  PetscCall(CreatePair(p, type, MATAIJ, &A, &B));
  PetscCall(SetStep(p, 0, INSERT_VALUES, A, B));
  PetscCall(Compare(t, A, B, "step 0"));

  /* the device copy runs ahead: the host array keeps step 0 until an op needs the host (one
     process: an MPI matrix has no host array of its own to look at) */
  PetscCall(SetStep(p, 1, INSERT_VALUES, A, B));
  if (seq) {
    PetscCall(HostArrayDistance(A, B, &dist));
    PetscCheck(dist > 1e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the host AIJ already holds the new values after MatSetValuesCOO from device memory (distance %g): the device copy does not run ahead", type, (double)dist);
  }
  PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  PetscCall(CompareReal(t, na, nb, "MatNorm after device values"));
  if (seq) {
    PetscCall(HostArrayDistance(A, B, &dist));
    PetscCheck(dist <= t->tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: after MatNorm the host AIJ does not hold the values of the device copy (distance %g)", type, (double)dist);
  }
  PetscCall(CheckProducts(t, A, B, "step 1, after the host caught up"));

  PetscCall(SetStep(p, 2, INSERT_VALUES, A, B));
  PetscCall(MatCreateVecs(A, NULL, &da));
  PetscCall(MatCreateVecs(B, NULL, &db));
  PetscCall(MatGetDiagonal(A, da));
  PetscCall(MatGetDiagonal(B, db));
  PetscCall(CompareVecs(t, da, db, "step 2", "MatGetDiagonal"));
  PetscCall(VecDestroy(&da));
  PetscCall(VecDestroy(&db));

  PetscCall(SetStep(p, 3, INSERT_VALUES, A, B));
  PetscCall(Compare(t, A, B, "step 3 (MatConvert: MatGetRow)"));

  /* one entry added on the host: the host must hold the device's values first.  MAT_SORTED_FULL
     before: SeqAIJ's MatSetOption chooses its MatSetValues by writing the table it runs in */
  PetscCall(SetStep(p, 4, INSERT_VALUES, A, B));
  for (PetscInt k = 0; k < 2; k++) {
    Mat            M   = k ? B : A;
    const PetscInt row = p->N / 2, col = row + 1;

    PetscCall(MatSetOption(M, MAT_SORTED_FULL, PETSC_FALSE));
    if (row >= p->rstart && row < p->rstart + p->nlocal) PetscCall(MatSetValue(M, row, col, 0.5, ADD_VALUES));
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Compare(t, A, B, "step 4 + MatSetValues"));

  PetscCall(SetStep(p, 5, INSERT_VALUES, A, B));
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(B, -2.0));
  PetscCall(Compare(t, A, B, "step 5, MatScale"));

  PetscCall(SetStep(p, 6, INSERT_VALUES, A, B));
  PetscCall(SetStep(p, 7, ADD_VALUES, A, B));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(PetscSNPrintf(what, sizeof(what), "steps 6 + 7 (ADD_VALUES), MatDuplicate"));
  PetscCall(Compare(t, D, B, what));
  PetscCall(MatDestroy(&D));
  PetscCall(Compare(t, A, B, "steps 6 + 7 (ADD_VALUES)"));

  /* host values after device values, then device values again */
  PetscCall(SetStep(p, 1, INSERT_VALUES, A, B));
  PetscCall(MatSetValuesCOO(A, p->v[2], INSERT_VALUES));
  PetscCall(MatSetValuesCOO(B, p->v[2], INSERT_VALUES));
  PetscCall(Compare(t, A, B, "step 2 from the host after step 1 from the device"));
  PetscCall(SetStep(p, 3, ADD_VALUES, A, B));
  PetscCall(Compare(t, A, B, "step 3 added from the device"));

  /* rows zeroed (their entries kept: AIJ would drop them, and its COO map with them), rows and
     columns scaled */
  PetscCall(SetStep(p, 6, INSERT_VALUES, A, B));
  for (PetscInt k = 0; k < 2; k++) {
    const PetscInt rows[] = {0, p->N / 2, p->N - 1};

    PetscCall(MatSetOption(k ? B : A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatZeroRows(k ? B : A, 3, rows, 2.0, NULL, NULL));
  }
  PetscCall(Compare(t, A, B, "step 6, MatZeroRows"));
  PetscCall(SetStep(p, 7, INSERT_VALUES, A, B));
  PetscCall(MatCreateVecs(B, &da, &db));
  PetscCall(VecSetRandom(da, t->vrnd));
  PetscCall(VecSetRandom(db, t->vrnd));
  for (PetscInt k = 0; k < 2; k++) PetscCall(MatDiagonalScale(k ? B : A, db, da));
  PetscCall(VecDestroy(&da));
  PetscCall(VecDestroy(&db));
  PetscCall(Compare(t, A, B, "step 7, MatDiagonalScale"));

  /* products on the host while the device copy is ahead */
  PetscCall(SetStep(p, 4, INSERT_VALUES, A, B));
  PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
  PetscCall(CheckProducts(t, A, B, "step 4, products on the host"));
  PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_AUTO));
  PetscCall(SetStep(p, 5, INSERT_VALUES, A, B));
  PetscCall(CheckProducts(t, A, B, "step 5, products on the device again"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* C1 = A A_aij and C2 = A A, then new device values: MAT_REUSE_MATRIX (the numeric phase, AIJ's
   code reading A's host arrays) must see them */
static PetscErrorCode CheckSparseProducts(TestCtx *t, const Problem *p, const char *type)
{
  Mat  A, B, C1, C2, R;
  char what[96];

  PetscFunctionBeginUser;
  PetscCall(CreatePair(p, type, MATAIJ, &A, &B));
  PetscCall(SetStep(p, 0, INSERT_VALUES, A, B));
  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C1));
  PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C2));
  PetscCall(MatMatMult(B, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &R));
  PetscCall(CompareEntries(t, C1, R, "A A_aij, step 0"));
  PetscCall(CompareEntries(t, C2, R, "A A, step 0"));
  for (PetscInt s = 1; s < 3; s++) {
    PetscCall(SetStep(p, s, INSERT_VALUES, A, B));
    PetscCall(MatMatMult(A, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C1));
    PetscCall(MatMatMult(A, A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C2));
    PetscCall(MatMatMult(B, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &R));
    PetscCall(PetscSNPrintf(what, sizeof(what), "A A_aij, MAT_REUSE_MATRIX after step %" PetscInt_FMT, s));
    PetscCall(CompareEntries(t, C1, R, what));
    PetscCall(PetscSNPrintf(what, sizeof(what), "A A, MAT_REUSE_MATRIX after step %" PetscInt_FMT, s));
    PetscCall(CompareEntries(t, C2, R, what));
  }
  PetscCall(MatDestroy(&C1));
  PetscCall(MatDestroy(&C2));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* x = F^-1 b by KSPPREONLY with 'pc' (LU or ILU) for both matrices, refactored after each new
   set of values; the package chosen by PETSc (solver NULL) or named (PETSc then finds AIJ's
   factorization by the prefix of the type's name).  With no package named, a matrix whose
   products run on the GPU is factored by cusparse, as aijcusparse is: compared with aijcusparse
   then (cusparse's ILU(0) rounds otherwise than PETSc's, and this matrix's ILU amplifies it). */
static PetscErrorCode CheckFactorization(TestCtx *t, const Problem *p, const char *type, PCType pctype, MatSolverType solver)
{
  Mat  A, B;
  KSP  ka, kb;
  Vec  b, xa, xb;
  char what[96];

  PetscFunctionBeginUser;
  PetscCall(CreatePair(p, type, solver ? MATAIJ : MATAIJCUSPARSE, &A, &B));
  PetscCall(MatCreateVecs(B, &xb, &b));
  PetscCall(VecDuplicate(xb, &xa));
  PetscCall(VecSetRandom(b, t->vrnd));
  for (PetscInt k = 0; k < 2; k++) {
    KSP *ksp = k ? &kb : &ka;
    PC   pc;

    PetscCall(KSPCreate(PETSC_COMM_SELF, ksp));
    PetscCall(KSPSetOperators(*ksp, k ? B : A, k ? B : A));
    PetscCall(KSPSetType(*ksp, KSPPREONLY));
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, pctype));
    if (solver) PetscCall(PCFactorSetMatSolverType(pc, solver));
  }
  for (PetscInt s = 0; s < 3; s++) {
    PetscCall(SetStep(p, s, INSERT_VALUES, A, B));
    PetscCall(KSPSolve(ka, b, xa));
    PetscCall(KSPSolve(kb, b, xb));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%s), step %" PetscInt_FMT, pctype, solver ? solver : "default package", s));
    PetscCall(CompareVecs(t, xa, xb, what, "KSPSolve (preonly)"));
  }
  PetscCall(KSPDestroy(&ka));
  PetscCall(KSPDestroy(&kb));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode Main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  {
#if defined(TEST_DEVICE_ARRAYS)
    TestCtx     t;
    Problem     p;
    PetscInt    n = 24;
    char        only[64] = "";
    const char *types[]  = {"pcsr", "cihybrid", "diag"};
    PetscMPIInt size;
    PetscBool   device;

    PetscCall(GpuMatsInitializePackage()); /* the types' names, as -dll_append would register them */
    PetscCall(GpuMatsCUDAInitialize(&device, NULL));
    if (!device) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "coo_ahead: no usable device, skipped\n"));
      PetscCall(PetscFinalize());
      return TEST_EXIT_SKIP;
    }
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", only, sizeof(only), NULL));
    PetscCall(TestCtxInit(&t, "coo_ahead", 0));
    PetscCall(TestCtxSeed(&t, 7));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(ProblemCreate(PETSC_COMM_WORLD, n, &p));
    for (int k = 0; k < 3; k++) {
      if (only[0] && strcmp(only, types[k])) continue;
      PetscCall(CheckOps(&t, &p, types[k]));
      PetscCall(CheckSparseProducts(&t, &p, types[k]));
      if (size == 1) { /* PETSc's own factorizations are sequential */
        for (int named = 0; named < 2; named++) {
          PetscCall(CheckFactorization(&t, &p, types[k], PCLU, named ? MATSOLVERPETSC : NULL));
          PetscCall(CheckFactorization(&t, &p, types[k], PCILU, named ? MATSOLVERPETSC : NULL));
        }
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coo_ahead %s: ok (%" PetscInt_FMT " comparisons, largest relative error %g)\n", types[k], t.ncompared, (double)t.maxerr));
    }
    PetscCall(ProblemDestroy(&p));
    PetscCall(TestCtxDestroy(&t));
#else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "coo_ahead: device arrays need a PETSc and a gpumats built with CUDA, skipped\n"));
    PetscCall(PetscFinalize());
    return TEST_EXIT_SKIP;
#endif
  }
  PetscCall(PetscFinalize());
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
