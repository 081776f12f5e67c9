/* Where a multiply runs: the device when gpumats has CUDA, a device can be
   used, the matrix is not bound to the CPU and the user did not ask for the
   host. A missing device is not an error unless the user asked for CUDA. */
#include "common/gpumats_impl.h"

const char *const GpuMatsBackends[] = {"auto", "host", "cuda", "GpuMatsBackend", "GPUMATS_BACKEND_", NULL};

PetscErrorCode GpuMatsBackendUsesDevice(Mat A, GpuMatsBackend backend, PetscBool *uses)
{
  PetscFunctionBegin;
  *uses = PETSC_FALSE;
  if (backend == GPUMATS_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_DEVICE)
  if (A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
#endif
#if GPUMATS_HAVE_CUDA
  {
    PetscBool   avail;
    const char *why;

    PetscCall(GpuMatsCUDAInitialize(&avail, &why));
    if (!avail) {
      PetscCheck(backend != GPUMATS_BACKEND_CUDA, PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix %s: -mat_gpumats_backend cuda was asked for but no CUDA device can be used (%s)", ((PetscObject)A)->type_name, why);
      PetscCall(PetscInfo(A, "No usable CUDA device (%s): multiplies run on the host\n", why));
    }
    *uses = avail;
  }
#else
  PetscCheck(backend != GPUMATS_BACKEND_CUDA, PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix %s: -mat_gpumats_backend cuda was asked for but gpumats was built without CUDA (rebuild with -Dcuda=enabled)", ((PetscObject)A)->type_name);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With a CUDA PETSc, vectors made by MatCreateVecs live on the device when the
   multiplies do, so solvers never copy.  A device present is enough to say so: its context
   is made at the first product, not while the matrix is made. */
PetscErrorCode GpuMatsSetDefaultVecType(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA) && GPUMATS_HAVE_CUDA
  {
    PetscBool present = PETSC_FALSE;

    if (backend != GPUMATS_BACKEND_HOST && !A->boundtocpu) PetscCall(GpuMatsCUDADevicePresent(&present));
    PetscCall(MatSetVecType(A, present ? VECCUDA : VECSTANDARD));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsBackendFromOptions(GpuMatsBackend *backend, GPUMATS_OPTIONS_ARG)
{
  PetscEnum value = (PetscEnum)*backend;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "gpumats options");
  PetscCall(PetscOptionsEnum("-mat_gpumats_backend", "Where products run: auto (the GPU where gpumats was built with CUDA and a device can be used, else the host; -info says why), host, cuda (a missing device is an error)", "MatGpuMatsSetBackend", GpuMatsBackends, value, &value, NULL));
  PetscOptionsHeadEnd();
  *backend = (GpuMatsBackend)value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- public API: dispatch through composed functions (every type, seq and MPI) ---- */

PetscErrorCode MatGpuMatsSetBackend(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(backend >= GPUMATS_BACKEND_AUTO && backend <= GPUMATS_BACKEND_CUDA, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown GpuMatsBackend %d", (int)backend);
  PetscTryMethod(A, "MatGpuMatsSetBackend_C", (Mat, GpuMatsBackend), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGpuMatsGetBackend(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGpuMatsGetBackend_C", (Mat, GpuMatsBackend *), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every gpumats type composes this beside MatGpuMatsGetBackend_C: programs that load the library
   with -dll_append and cannot link it (ci_eigen, the FCI builders) ask it by name */
PetscErrorCode MatGpuMatsUsesDevice_Backend(Mat A, PetscBool *uses)
{
  GpuMatsBackend backend;

  PetscFunctionBegin;
  PetscCall(MatGpuMatsGetBackend(A, &backend));
  PetscCall(GpuMatsBackendUsesDevice(A, backend, uses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
/* MatGetCurrentMemType of every gpumats type, sequential or MPI: where its products run */
PetscErrorCode MatGetCurrentMemType_GpuMats(Mat A, PetscMemType *m)
{
  PetscBool uses;

  PetscFunctionBegin;
  PetscCall(MatGpuMatsUsesDevice(A, &uses));
  *m = uses ? PETSC_MEMTYPE_CUDA : PETSC_MEMTYPE_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatGpuMatsUsesDevice(Mat A, PetscBool *uses)
{
  PetscErrorCode (*f)(Mat, PetscBool *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  *uses = PETSC_FALSE;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", &f));
  if (f) PetscCall((*f)(A, uses));
  PetscFunctionReturn(PETSC_SUCCESS);
}
