/* The names aijdiag, seqaijdiag and mpiaijdiag: a factory, not a type.  PETSc's DMDA makes its grid
   transfers (DMCreateInterpolation, with which PCMG interpolates and restricts) of the DM's matrix
   type only when that name begins with "aij" (dainterp.c, ConvertToAIJ), else MATAIJ, on the host.
   A transfer is rectangular and its entries lie on no few diagonals, which diag does not store; so
   -dm_mat_type aijdiag makes a square matrix (the operators) diag and any other pcsr, whose
   products, the transposed one (the restriction) included, run on the GPU. */
#include "diag/diag_impl.h"

static PetscErrorCode AIJDiagBecome(Mat B, MatType square, MatType other)
{
  const PetscBool rectangular = (PetscBool)(B->rmap->N != B->cmap->N || B->rmap->n != B->cmap->n);
  MatType         type        = rectangular ? other : square;

  PetscFunctionBegin;
  PetscCall(PetscInfo(B, "%s: a %" PetscInt_FMT " x %" PetscInt_FMT " matrix is %s%s\n", MATAIJDIAG, B->rmap->N, B->cmap->N, type, rectangular ? " (diag keeps square operators; a grid transfer is rectangular)" : ""));
  PetscCall(MatSetType(B, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATAIJDIAG - "aijdiag" - for a DMDA's matrices: MATDIAG for its square operators, and MATPCSR
   for the rectangular grid transfers that a DMDA makes of the DM's matrix type when that type's
   name begins with "aij" (multigrid then interpolates and restricts on the GPU).  A matrix is never
   of this type: it becomes diag or pcsr when its type is set, by its sizes (-info says which).

   Options Database Keys:
.  -dm_mat_type aijdiag - with -dll_append libgpumats.so

   Level: beginner

.seealso: MATDIAG, MATPCSR, MATAIJPCSR
M*/
PetscErrorCode MatCreate_SeqAIJDiag(Mat B)
{
  PetscFunctionBegin;
  PetscCall(AIJDiagBecome(B, MATSEQDIAG, MATSEQAIJPCSR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_MPIAIJDiag(Mat B)
{
  PetscFunctionBegin;
  PetscCall(AIJDiagBecome(B, MATMPIDIAG, MATMPIAIJPCSR));
  PetscFunctionReturn(PETSC_SUCCESS);
}
