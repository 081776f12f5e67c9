/* The registration of diag and of the factory aijdiag (aijdiag.c: diag or pcsr), called once by
   GpuMatsInitializePackage() (gpumats.c) through the list of formats of the top-level
   meson.build.  The only caller of the constructors and of the factor registration, so it
   declares them. */
#include "diag/diag_impl.h"

PETSC_INTERN PetscErrorCode MatCreate_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJDiag(Mat);
PETSC_INTERN PetscErrorCode MatDiagRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatDiagRegisterAll(void);

PetscErrorCode MatDiagRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(MatRegister(MATSEQDIAG, MatCreate_SeqDiag));
  PetscCall(MatRegister(MATMPIDIAG, MatCreate_MPIDiag));
  PetscCall(MatDiagRegisterFactors());
  PetscCall(MatRegisterRootName(MATDIAG, MATSEQDIAG, MATMPIDIAG));
  PetscCall(MatRegister(MATSEQAIJDIAG, MatCreate_SeqAIJDiag));
  PetscCall(MatRegister(MATMPIAIJDIAG, MatCreate_MPIAIJDiag));
  PetscCall(MatRegisterRootName(MATAIJDIAG, MATSEQAIJDIAG, MATMPIAIJDIAG));
  PetscFunctionReturn(PETSC_SUCCESS);
}
