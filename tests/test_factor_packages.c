static const char help[] = "pcsr and cihybrid factored by every package this PETSc has for AIJ, named as a user names\n\
it (-pc_factor_mat_solver_type): KSPPREONLY + LU (and PETSc's ILU) against MATAIJ factored by the\n\
same package, then refactored after new values.  PETSc finds a named package for these types by the\n\
prefix of their names; gpumats' MatGetFactor in its place (common/aij_factors.c) must hand the\n\
package a host AIJ that is current, and the factor it makes.\n\
  -n <40>   grid side (n^2 rows)\n";

#include <gpumats.h>
#include <petscksp.h>
#include "testmat.h"

/* A 5-point operator on an n x n grid, not symmetric, diagonally dominant; values from 'seed' */
static PetscErrorCode MakeMatrix(MPI_Comm comm, MatType type, PetscInt n, PetscInt seed, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n;
    const PetscInt cols[5] = {i > 0 ? r - n : -1, j > 0 ? r - 1 : -1, r, j < n - 1 ? r + 1 : -1, i < n - 1 ? r + n : -1};

    for (PetscInt k = 0; k < 5; k++) {
      const PetscScalar v = k == 2 ? 6.0 + (PetscScalar)((r * 7 + seed) % 5) : -1.0 + 0.1 * (PetscScalar)((r * (k + 3) + seed) % 7);

      if (cols[k] >= 0) PetscCall(MatSetValue(*A, r, cols[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* x = F^-1 b for A (the type under test) and Aa (MATAIJ), both factored by 'package', then again
   after new values (refactored) */
static PetscErrorCode CheckPackage(TestCtx *t, MatType type, PetscInt n, MatSolverType package, PCType pctype)
{
  Mat  A, Aa;
  KSP  ksp[2];
  Vec  b, x[2];
  char what[128];

  PetscFunctionBeginUser;
  PetscCall(MakeMatrix(t->comm, type, n, 1, &A));
  PetscCall(MakeMatrix(t->comm, MATAIJ, n, 1, &Aa));
  PetscCall(MatCreateVecs(Aa, &x[1], &b));
  PetscCall(MatCreateVecs(A, &x[0], NULL));
  PetscCall(VecSetRandom(b, t->vrnd));
  for (int k = 0; k < 2; k++) {
    PC pc;

    PetscCall(KSPCreate(t->comm, &ksp[k]));
    PetscCall(KSPSetOperators(ksp[k], k ? Aa : A, k ? Aa : A));
    PetscCall(KSPSetType(ksp[k], KSPPREONLY));
    PetscCall(KSPGetPC(ksp[k], &pc));
    PetscCall(PCSetType(pc, pctype));
    PetscCall(PCFactorSetMatSolverType(pc, package));
  }
  for (PetscInt s = 0; s < 2; s++) {
    if (s) { /* new values on the same pattern: each package refactors */
      PetscCall(MatScale(A, 2.0));
      PetscCall(MatScale(Aa, 2.0));
      PetscCall(MatShift(A, 1.5));
      PetscCall(MatShift(Aa, 1.5));
    }
    for (int k = 0; k < 2; k++) PetscCall(KSPSolve(ksp[k], b, x[k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s by %s, values %" PetscInt_FMT, pctype, package, s));
    PetscCall(CompareVecs(t, x[0], x[1], what, "KSPSolve (preonly)"));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(KSPDestroy(&ksp[k]));
    PetscCall(VecDestroy(&x[k]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  /* not superlu_dist: Debian's PETSc 3.18 with it crashes at a second factorization on a
     communicator, or frees a communicator twice, MATAIJ alone too */
  const MatSolverType packages[] = {MATSOLVERPETSC, "mumps", "superlu", "umfpack", "klu", "strumpack", "mkl_pardiso", "mkl_cpardiso", "pastix"};
  const MatType       types[]    = {MATPCSR, MATCIHYBRID};
  TestCtx             t;
  PetscInt            n = 40, nfactored = 0;
  char                used[256] = "";

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_factor_packages", 0));
  PetscOptionsBegin(t.comm, NULL, "test_factor_packages options", NULL);
  PetscCall(PetscOptionsInt("-n", "grid side", NULL, n, &n, NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, 11));
  for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(packages); p++) {
    Mat       Aa;
    PetscBool available, petsc;

    PetscCall(MakeMatrix(t.comm, MATAIJ, 2, 0, &Aa));
    PetscCall(MatGetFactorAvailable(Aa, packages[p], MAT_FACTOR_LU, &available));
    PetscCall(MatDestroy(&Aa));
    if (!available) continue;
    PetscCall(PetscStrlcat(used, " ", sizeof(used)));
    PetscCall(PetscStrlcat(used, packages[p], sizeof(used)));
    PetscCall(PetscStrcmp(packages[p], MATSOLVERPETSC, &petsc));
    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(types); k++) {
      PetscCall(CheckPackage(&t, types[k], n, packages[p], PCLU));
      if (petsc) PetscCall(CheckPackage(&t, types[k], n, packages[p], PCILU));
      nfactored++;
    }
  }
  PetscCall(PetscPrintf(t.comm, "test_factor_packages on %d rank(s): all passed, packages:%s (%" PetscInt_FMT " type x package cases), largest relative error %.3g (tolerance %g)\n", t.size, used[0] ? used : " none for this matrix type", nfactored, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
