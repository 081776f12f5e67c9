/* Package registration: the types, their root names, log events, and the
   check that the running PETSc is the one gpumats was compiled against.  Above the formats:
   it alone needs their constructors, so it declares them. */
#include "common/gpumats_impl.h"

PETSC_INTERN PetscErrorCode MatCreate_SeqAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJPCSR(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJPCSR(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJDiag(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJDiag(Mat);
PETSC_INTERN PetscErrorCode MatDiagRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatPCSRRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatCIHybridRegisterFactors(void);

static PetscBool GpuMatsPackageInitialized = PETSC_FALSE;

PetscErrorCode GpuMatsFinalizePackage(void)
{
  PetscFunctionBegin;
  GpuMatsPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A plugin is compiled against one petscconf.h and struct layout: loading it
   into another PETSc version corrupts memory, so refuse. */
static PetscErrorCode GpuMatsCheckPetscVersion(void)
{
  PetscInt major, minor, subminor, release;

  PetscFunctionBegin;
  PetscCall(PetscGetVersionNumber(&major, &minor, &subminor, &release));
  PetscCheck(major == PETSC_VERSION_MAJOR && minor == PETSC_VERSION_MINOR && subminor == PETSC_VERSION_SUBMINOR, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "gpumats was compiled against PETSc %d.%d.%d but is loaded into PETSc %" PetscInt_FMT ".%" PetscInt_FMT ".%" PetscInt_FMT ": rebuild gpumats against this PETSc", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, major, minor, subminor);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  GpuMatsInitializePackage - registers the gpumats matrix types. Called by
  PETSc when the library is loaded with -dll_append; call it yourself after
  PetscInitialize() when you link the library.
@*/
PetscErrorCode GpuMatsInitializePackage(void)
{
  PetscFunctionBegin;
  if (GpuMatsPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  GpuMatsPackageInitialized = PETSC_TRUE;
  PetscCall(GpuMatsCheckPetscVersion());
  PetscCall(MatRegister(MATSEQAIJCIHYBRID, MatCreate_SeqAIJCIHybrid));
  PetscCall(MatRegister(MATMPIAIJCIHYBRID, MatCreate_MPIAIJCIHybrid));
  PetscCall(MatRegisterRootName(MATCIHYBRID, MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID));
  PetscCall(MatRegisterRootName(MATAIJCIHYBRID, MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID));
  PetscCall(MatRegister(MATSEQAIJPCSR, MatCreate_SeqAIJPCSR));
  PetscCall(MatRegister(MATMPIAIJPCSR, MatCreate_MPIAIJPCSR));
  PetscCall(MatRegisterRootName(MATPCSR, MATSEQAIJPCSR, MATMPIAIJPCSR));
  PetscCall(MatRegisterRootName(MATAIJPCSR, MATSEQAIJPCSR, MATMPIAIJPCSR));
  PetscCall(MatRegister(MATSEQDIAG, MatCreate_SeqDiag));
  PetscCall(MatRegister(MATMPIDIAG, MatCreate_MPIDiag));
  PetscCall(MatDiagRegisterFactors());
  PetscCall(MatRegisterRootName(MATDIAG, MATSEQDIAG, MATMPIDIAG));
  PetscCall(MatRegister(MATSEQAIJDIAG, MatCreate_SeqAIJDiag)); /* a factory: diag or pcsr (diag/aijdiag.c) */
  PetscCall(MatRegister(MATMPIAIJDIAG, MatCreate_MPIAIJDiag));
  PetscCall(MatRegisterRootName(MATAIJDIAG, MATSEQAIJDIAG, MATMPIAIJDIAG));
  PetscCall(MatPCSRRegisterFactors());
  PetscCall(MatCIHybridRegisterFactors());
  PetscCall(GpuMatsRegisterAIJFactors()); /* a package named for pcsr and cihybrid: common/aij_factors.c */
  PetscCall(GpuMatsLogEventsRegister());
  PetscCall(PetscRegisterFinalize(GpuMatsFinalizePackage));
  PetscCall(PetscInfo(NULL, "gpumats %s registered %s, %s and %s (%s), built against PETSc %d.%d.%d\n", GPUMATS_VERSION, MATCIHYBRID, MATPCSR, MATDIAG, GPUMATS_HAVE_CUDA ? "with CUDA" : "host only", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Found by PETSc's -dll_append through the library's file name libgpumats.so */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_gpumats(void)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
