/* The registration of cihybrid, called once by GpuMatsInitializePackage() (gpumats.c) through
   the list of formats of the top-level meson.build.  The only caller of the constructors and of
   the factor registration, so it declares them. */
#include "cihybrid/cihybrid_impl.h"

PETSC_INTERN PetscErrorCode MatCreate_SeqAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCIHybridRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatCIHybridRegisterAll(void);

PetscErrorCode MatCIHybridRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(MatRegister(MATSEQAIJCIHYBRID, MatCreate_SeqAIJCIHybrid));
  PetscCall(MatRegister(MATMPIAIJCIHYBRID, MatCreate_MPIAIJCIHybrid));
  PetscCall(MatRegisterRootName(MATCIHYBRID, MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID));
  PetscCall(MatRegisterRootName(MATAIJCIHYBRID, MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID));
  PetscCall(MatCIHybridRegisterFactors());
  PetscFunctionReturn(PETSC_SUCCESS);
}
