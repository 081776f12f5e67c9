/* A vector's array as the device kernels see it. Device vectors (VECCUDA,
   with a CUDA PETSc) are used in place; host vectors go through the
   matrix's pinned staging buffers. */
#include "common/gpumats_impl.h"

#if GPUMATS_HAVE_CUDA
PetscErrorCode GpuMatsVecGetDeviceArray(Vec v, GpuMatsAccess access, GpuMatsStage *stage, GpuMatsDeviceVec *d)
{
  PetscInt n;
  size_t   bytes;

  PetscFunctionBegin;
  d->vec    = v;
  d->access = access;
  d->stage  = stage;
  switch (access) {
  case GPUMATS_READ:
    PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&d->array, &d->mtype));
    break;
  case GPUMATS_WRITE:
    PetscCall(VecGetArrayWriteAndMemType(v, &d->array, &d->mtype));
    break;
  case GPUMATS_READ_WRITE:
    PetscCall(VecGetArrayAndMemType(v, &d->array, &d->mtype));
    break;
  }
  if (PetscMemTypeDevice(d->mtype)) {
    d->device = d->array;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetLocalSize(v, &n));
  bytes = (size_t)n * sizeof(PetscScalar);
  if (access == GPUMATS_WRITE) {
    PetscCall(GpuMatsStageReserve(stage, bytes));
    d->device = (PetscScalar *)stage->device;
  } else {
    void *dev;

    PetscCall(GpuMatsStageUpload(stage, d->array, bytes, &dev));
    d->device = (PetscScalar *)dev;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsVecRestoreDeviceArray(GpuMatsDeviceVec *d)
{
  PetscFunctionBegin;
  if (!PetscMemTypeDevice(d->mtype) && d->access != GPUMATS_READ) {
    PetscInt n;

    PetscCall(VecGetLocalSize(d->vec, &n));
    PetscCall(GpuMatsStageDownload(d->stage, d->array, (size_t)n * sizeof(PetscScalar)));
  }
  switch (d->access) {
  case GPUMATS_READ:
    PetscCall(VecRestoreArrayReadAndMemType(d->vec, (const PetscScalar **)&d->array));
    break;
  case GPUMATS_WRITE:
    PetscCall(VecRestoreArrayWriteAndMemType(d->vec, &d->array));
    break;
  case GPUMATS_READ_WRITE:
    PetscCall(VecRestoreArrayAndMemType(d->vec, &d->array));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
