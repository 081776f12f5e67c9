static const char help[] = "pcsr and cihybrid factored by every package this PETSc has for AIJ, named as a user names\n\
it (-pc_factor_mat_solver_type), and diag by petsc: KSPPREONLY + LU (and PETSc's ILU) against MATAIJ\n\
factored by the same package, then refactored after new values.  PETSc finds a named package for\n\
these types by the prefix of their names; gpumats' MatGetFactor in its place (common/aij_factors.c)\n\
must hand the package a host AIJ that is current, and the factor it makes.  Then the factor each\n\
type gets when nobody names a package (LU, ILU, Cholesky, ICC; block Jacobi with ILU on several\n\
ranks): cusparse's, through an aijcusparse twin, where the products run on the GPU, else petsc's.\n\
  -n <40>   grid side (n^2 rows)\n";

#include <gpumats.h>
#include <petscksp.h>
#include "testmat.h"

/* A 5-point operator on an n x n grid, diagonally dominant, symmetric or not; values from 'seed' */
static PetscErrorCode MakeMatrixSym(MPI_Comm comm, MatType type, PetscInt n, PetscInt seed, PetscBool symmetric, Mat *A)
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
      const PetscInt    lo = PetscMin(r, cols[k]), hi = PetscMax(r, cols[k]);
      const PetscScalar v  = k == 2 ? 6.0 + (PetscScalar)((r * 7 + seed) % 5) : -1.0 + 0.1 * (PetscScalar)(((symmetric ? lo * 3 + hi : r * (k + 3)) + seed) % 7);

      if (cols[k] >= 0) PetscCall(MatSetValue(*A, r, cols[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (symmetric) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeMatrix(MPI_Comm comm, MatType type, PetscInt n, PetscInt seed, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MakeMatrixSym(comm, type, n, seed, PETSC_FALSE, A));
  PetscFunctionReturn(0);
}

/* the same new values on the same pattern in A and Aa */
static PetscErrorCode NewValues(Mat A, Mat Aa)
{
  PetscFunctionBeginUser;
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(Aa, 2.0));
  PetscCall(MatShift(A, 1.5));
  PetscCall(MatShift(Aa, 1.5));
  PetscFunctionReturn(PETSC_SUCCESS);
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
    if (s) PetscCall(NewValues(A, Aa)); /* new values on the same pattern: each package refactors */
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

/* The factor 'type' gets when nobody names a package: x = F^-1 b with KSPPREONLY against MATAIJ
   factored by PETSc, then refactored after new values; the factor is cusparse's where the
   products of the (block of the) matrix run on the GPU, else petsc's */
static PetscErrorCode CheckDefaultFactor(TestCtx *t, MatType type, PetscInt n, PCType pctype)
{
  const PetscBool symmetric = (PetscBool)(!strcmp(pctype, PCCHOLESKY) || !strcmp(pctype, PCICC));
  Mat             A, Aa, F, block;
  KSP             ksp[2];
  Vec             b, x[2];
  PC              pc, factorpc;
  MatSolverType   got;
  PetscBool       device, match;
  char            what[160];

  PetscFunctionBeginUser;
  PetscCall(MakeMatrixSym(t->comm, type, n, 3, symmetric, &A));
  PetscCall(MakeMatrixSym(t->comm, MATAIJ, n, 3, symmetric, &Aa));
  PetscCall(MatCreateVecs(Aa, &x[1], &b));
  PetscCall(MatCreateVecs(A, &x[0], NULL));
  PetscCall(VecSetRandom(b, t->vrnd));
  for (int k = 0; k < 2; k++) {
    PetscCall(KSPCreate(t->comm, &ksp[k]));
    PetscCall(KSPSetOperators(ksp[k], k ? Aa : A, k ? Aa : A));
    PetscCall(KSPSetType(ksp[k], KSPPREONLY));
    PetscCall(KSPGetPC(ksp[k], &pc));
    PetscCall(PCSetType(pc, pctype));
  }
  for (PetscInt s = 0; s < 2; s++) {
    if (s) PetscCall(NewValues(A, Aa)); /* new values on the same pattern: refactored */
    for (int k = 0; k < 2; k++) PetscCall(KSPSolve(ksp[k], b, x[k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, %s with no package named, values %" PetscInt_FMT, type, pctype, s));
    PetscCall(CompareVecs(t, x[0], x[1], what, "KSPSolve (preonly)"));
  }
  /* which factor it was */
  PetscCall(KSPGetPC(ksp[0], &pc));
  factorpc = pc;
  if (!strcmp(pctype, PCBJACOBI)) {
    KSP     *sub;
    PetscInt nlocal;

    PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, NULL, &sub));
    PetscCall(KSPGetPC(sub[0], &factorpc));
  }
  PetscCall(PCFactorGetMatrix(factorpc, &F));
  PetscCall(MatFactorGetSolverType(F, &got));
  PetscCall(PCGetOperators(factorpc, NULL, &block));
  PetscCall(MatGpuMatsUsesDevice(block, &device));
  PetscCall(PetscStrcmp(got, device ? "cusparse" : MATSOLVERPETSC, &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MISMATCH %s, %s with no package named: factored by %s, expected %s (products on the %s)", type, pctype, got, device ? "cusparse" : MATSOLVERPETSC, device ? "GPU" : "host");
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
  const MatType       types[]    = {MATPCSR, MATCIHYBRID, MATDIAG};
  const PCType        pctypes[]  = {PCLU, PCILU, PCCHOLESKY, PCICC};
  TestCtx             t;
  PetscInt            n = 40, nfactored = 0, ndefault = 0;
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
      PetscBool isdiag;

      PetscCall(PetscStrcmp(types[k], MATDIAG, &isdiag));
      if (isdiag && !petsc) continue; /* diag's only named package */
      PetscCall(CheckPackage(&t, types[k], n, packages[p], PCLU));
      if (petsc) PetscCall(CheckPackage(&t, types[k], n, packages[p], PCILU));
      nfactored++;
    }
  }
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(types); k++) {
    if (t.size > 1) {
      PetscCall(CheckDefaultFactor(&t, types[k], n, PCBJACOBI));
      ndefault++;
    } else
      for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(pctypes); f++) {
        PetscCall(CheckDefaultFactor(&t, types[k], n, pctypes[f]));
        ndefault++;
      }
  }
  PetscCall(PetscPrintf(t.comm, "test_factor_packages on %d rank(s): all passed, packages:%s (%" PetscInt_FMT " type x package cases), %" PetscInt_FMT " cases with no package named, largest relative error %.3g (tolerance %g)\n", t.size, used[0] ? used : " none for this matrix type", nfactored, ndefault, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
