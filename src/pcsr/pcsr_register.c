/* The registration of pcsr, called once by GpuMatsInitializePackage() (gpumats.c) through the
   list of formats of the top-level meson.build.  The only caller of the constructors and of the
   factor registration, so it declares them. */
#include "pcsr/pcsr_impl.h"

PETSC_INTERN PetscErrorCode MatCreate_SeqAIJPCSR(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJPCSR(Mat);
PETSC_INTERN PetscErrorCode MatPCSRRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatPCSRRegisterAll(void);

PetscErrorCode MatPCSRRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(MatRegister(MATSEQAIJPCSR, MatCreate_SeqAIJPCSR));
  PetscCall(MatRegister(MATMPIAIJPCSR, MatCreate_MPIAIJPCSR));
  PetscCall(MatRegisterRootName(MATPCSR, MATSEQAIJPCSR, MATMPIAIJPCSR));
  PetscCall(MatRegisterRootName(MATAIJPCSR, MATSEQAIJPCSR, MATMPIAIJPCSR));
  PetscCall(MatPCSRRegisterFactors());
  PetscFunctionReturn(PETSC_SUCCESS);
}
