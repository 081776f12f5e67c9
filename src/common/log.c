/* The log events every format uses: the format built from the host AIJ, the arrays uploaded,
   a format's entries copied as an AIJ, the twin of a factorization made or refreshed (the host
   AIJ it reads included: twin_factor.c).  Registered once by GpuMatsInitializePackage(). */
#include "common/gpumats_impl.h"

PetscLogEvent GPUMATS_FormatBuild, GPUMATS_FormatUpload, GPUMATS_ToAIJ, GPUMATS_TwinRefresh;

PetscErrorCode GpuMatsLogEventsRegister(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("GpuMatsBuild", MAT_CLASSID, &GPUMATS_FormatBuild));
  PetscCall(PetscLogEventRegister("GpuMatsUpload", MAT_CLASSID, &GPUMATS_FormatUpload));
  PetscCall(PetscLogEventRegister("GpuMatsToAIJ", MAT_CLASSID, &GPUMATS_ToAIJ));
  PetscCall(PetscLogEventRegister("GpuMatsTwin", MAT_CLASSID, &GPUMATS_TwinRefresh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
