/* The grid transfers a DMDA makes for a gpumats type (DMCreateInterpolation, what PCMG interpolates
   and restricts with).  PETSc's DMDA keeps the DM's matrix type for them only when its name begins
   with "aij" (dainterp.c), so -dm_mat_type aijpcsr and aijcihybrid give transfers of that type,
   and pcsr or cihybrid give MATAIJ ones; aijdiag gives diag operators and pcsr transfers (diag keeps
   square matrices); with several unknowns a point PETSc wraps that scalar
   interpolation in a MAIJ, multiplied on the host.  Checked: the type each name gives, and the products of
   the transfers (interpolation, restriction, their add forms) against AIJ's, on 2-D and 3-D grids
   of 1 and 2 unknowns a point, on any number of processes. */
#include <petscdmda.h>
#include <gpumats.h>
#include "testmat.h"

static const char help[] = "DMCreateInterpolation of a DMDA with a gpumats matrix type, against AIJ\n";

static PetscErrorCode Transfers(TestCtx *t, PetscInt dim, PetscInt dof, MatType type, MatType expect_seq, MatType expect_mpi)
{
  DM   dac, daf;
  Mat  P, Pa;
  char desc[128];

  PetscFunctionBeginUser;
  if (dim == 2) PetscCall(DMDACreate2d(t->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 9, 7, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, &dac));
  else PetscCall(DMDACreate3d(t->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 5, 5, 7, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, &dac));
  PetscCall(DMSetUp(dac));
  PetscCall(DMRefine(dac, t->comm, &daf));
  PetscCall(DMSetMatType(dac, MATAIJ));
  PetscCall(DMCreateInterpolation(dac, daf, &Pa, NULL));
  PetscCall(DMSetMatType(dac, type));
  PetscCall(DMCreateInterpolation(dac, daf, &P, NULL));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "-dm_mat_type %s, %" PetscInt_FMT "-D, %" PetscInt_FMT " unknown(s) a point: the interpolation", type, dim, dof));
  if (dof == 1) PetscCall(CheckTypeOneOf(P, expect_seq, expect_mpi, desc));
  else { /* a MAIJ of the scalar interpolation, multiplied on the host (PETSc turns it into an AIJ of
            the scalar one's type for aijcusparse only: maij.c) */
    Mat scalar;

    PetscCall(CheckTypeOneOf(P, MATSEQMAIJ, MATMPIMAIJ, desc));
    PetscCall(MatMAIJGetAIJ(P, &scalar));
    PetscCall(CheckTypeOneOf(scalar, expect_seq, expect_mpi, desc));
  }
  PetscCall(CheckProducts(t, P, Pa, desc));
  if (!strcmp(type, MATAIJDIAG)) { /* and the operator: diag */
    Mat A;

    PetscCall(DMSetMatType(daf, type));
    PetscCall(DMCreateMatrix(daf, &A));
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "-dm_mat_type %s, %" PetscInt_FMT "-D, %" PetscInt_FMT " unknown(s) a point: the operator", type, dim, dof));
    PetscCall(CheckTypeOneOf(A, MATSEQDIAG, MATMPIDIAG, desc));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Pa));
  PetscCall(DMDestroy(&daf));
  PetscCall(DMDestroy(&dac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTests(void)
{
  TestCtx t;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_dmda_transfers", 0));
  PetscCall(TestCtxSeed(&t, 2026));
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (PetscInt dof = 1; dof <= 2; dof++) {
      PetscCall(Transfers(&t, dim, dof, MATAIJPCSR, MATSEQAIJPCSR, MATMPIAIJPCSR));
      PetscCall(Transfers(&t, dim, dof, MATAIJCIHYBRID, MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID));
      PetscCall(Transfers(&t, dim, dof, MATAIJDIAG, MATSEQAIJPCSR, MATMPIAIJPCSR));
      PetscCall(Transfers(&t, dim, dof, MATPCSR, MATSEQAIJ, MATMPIAIJ)); /* PETSc's rule: a name without "aij" first */
    }
  PetscCall(PetscPrintf(t.comm, "test_dmda_transfers on %d rank(s): all passed, %" PetscInt_FMT " products compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
