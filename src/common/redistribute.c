/* Moving a vector between two layouts of the same global size (a matrix
   redistributed by MatPCSRCreateRedistributed keeps the global numbering). */
#include "common/gpumats_impl.h"

/*@C
  GpuMatsVecRedistribute - copies x into y, a vector of the same global size whose
  entries may be distributed differently over the processes.
@*/
PetscErrorCode GpuMatsVecRedistribute(Vec x, Vec y)
{
  PetscInt   N, Ny, rstart, rend;
  IS         is;
  VecScatter scatter;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(x, VEC_CLASSID, 1);
  PetscValidHeaderSpecific(y, VEC_CLASSID, 2);
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecGetSize(y, &Ny));
  PetscCheck(N == Ny, PetscObjectComm((PetscObject)x), PETSC_ERR_ARG_SIZ, "GpuMatsVecRedistribute: x has %" PetscInt_FMT " entries, y %" PetscInt_FMT ": they must be of the same global size", N, Ny);
  PetscCall(VecGetOwnershipRange(y, &rstart, &rend));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)y), rend - rstart, rstart, 1, &is));
  PetscCall(VecScatterCreate(x, is, y, NULL, &scatter));
  PetscCall(VecScatterBegin(scatter, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(scatter, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&scatter));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}
