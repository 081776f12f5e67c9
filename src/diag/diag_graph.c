/* MatCreateGraph of seqdiag and mpidiag (GAMG's first step: the graph of the couplings between
   the blocks of unknowns): AIJ's, on an AIJ copy with the matrix's block sizes. */
#include "diag/diag_impl.h"
#include "diag/mpidiag_impl.h"

static PetscErrorCode DiagCreateGraph(Mat A, Mat aij, PetscBool symmetrize, PetscBool scale, PetscReal filter GPUMATS_CREATEGRAPH_INDEX_ARGS, Mat *graph)
{
  PetscFunctionBegin;
  PetscCall(MatSetBlockSizesFromMats(aij, A, A));
  PetscCall(MatPropagateSymmetryOptions(A, aij));
  PetscCall(MatCreateGraph(aij, symmetrize, scale, filter GPUMATS_CREATEGRAPH_INDEX_PASS, graph));
  PetscCall(MatDestroy(&aij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateGraph_SeqDiag(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter GPUMATS_CREATEGRAPH_INDEX_ARGS, Mat *graph)
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &aij));
  PetscCall(DiagCreateGraph(A, aij, symmetrize, scale, filter GPUMATS_CREATEGRAPH_INDEX_PASS, graph));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateGraph_MPIDiag(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter GPUMATS_CREATEGRAPH_INDEX_ARGS, Mat *graph)
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(MPIDiagToMPIAIJ(A, &aij));
  PetscCall(DiagCreateGraph(A, aij, symmetrize, scale, filter GPUMATS_CREATEGRAPH_INDEX_PASS, graph));
  PetscFunctionReturn(PETSC_SUCCESS);
}
