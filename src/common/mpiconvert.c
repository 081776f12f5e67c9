/* The MPI types are MPIAIJ whose diagonal and off-diagonal blocks are the
   sequential format. The blocks are re-queried after every assembly since
   MatDisAssemble_MPIAIJ replaces the off-diagonal one. */
#include "common/gpumats_impl.h"

PetscErrorCode GpuMatsMPIConvertBlocks(Mat A, PetscErrorCode (*convert)(Mat, void *), void *ctx)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall((*convert)(Ad, ctx));
  if (Ao) PetscCall((*convert)(Ao, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
