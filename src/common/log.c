/* The log events every format uses: the format built from the host AIJ, the arrays uploaded.
   Registered once by GpuMatsInitializePackage(). */
#include "common/gpumats_impl.h"

PetscLogEvent GPUMATS_FormatBuild, GPUMATS_FormatUpload;

PetscErrorCode GpuMatsLogEventsRegister(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("GpuMatsBuild", MAT_CLASSID, &GPUMATS_FormatBuild));
  PetscCall(PetscLogEventRegister("GpuMatsUpload", MAT_CLASSID, &GPUMATS_FormatUpload));
  PetscFunctionReturn(PETSC_SUCCESS);
}
