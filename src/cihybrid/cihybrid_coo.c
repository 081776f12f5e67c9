/* MATSEQAIJCIHYBRID: COO values given in device memory go into the device copy (ELLPACK and
   remainder slots) by one kernel instead of through the host COO assembly and a new upload; the
   AIJ master gets them by one copy when it needs them (common/shadow_ahead.c), or at once when
   something reads it unseen.  As pcsr (pcsr_coo.c), the map from the COO entries to
   the stored entries made once, at MatSetPreallocationCOO (GpuMatsCOOStoredMap); common/coo.c
   calls both through composed functions and takes AIJ's host path whenever these decline (host
   values, no device, a device-only matrix, a pattern changed since). */
#include "cihybrid/cihybrid_impl.h"
#include "common/gpumats_coo.h"

#if GPUMATS_HAVE_CUDA
static PetscErrorCode MatCIHybridCOOMap_SeqAIJCIHybrid(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[])
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscInt64          nnz;
  int32_t            *jmap, *perm;
  PetscBool           uses, mapped = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceCOODestroy(&h->coo));
  PetscCall(GpuMatsBackendUsesDevice(A, h->shadow.backend, &uses));
  if (!uses || h->device_only) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOStoredMap(A, n, ci, cj, &nnz, &jmap, &perm, &mapped));
  if (mapped) PetscCall(CIHybridDeviceCOOCreate((int32_t)A->rmap->n, (int32_t)nnz, jmap, perm, &h->coo)); /* takes jmap and perm (either may be NULL) */
  if (!h->coo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternRecord(A, &h->coo_pattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v in device memory: *done when the values went in on the device */
static PetscErrorCode MatCIHybridCOOSetValuesDevice_SeqAIJCIHybrid(Mat A, const PetscScalar v[], InsertMode mode, PetscBool *done)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscBool           same, on_device, ahead, fit;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!h->coo || h->device_only) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternSame(A, &h->coo_pattern, "cihybrid", &same));
  if (!same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCIHybridUpdate_SeqAIJCIHybrid(A, &on_device)); /* the device copy as the host's, values included */
  if (!on_device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CIHybridDeviceCOOSetValues(h->dev, h->coo, v, (PetscBool)(mode == ADD_VALUES), &fit));
  if (!fit) {
    PetscCall(PetscInfo(A, "cihybrid COO: the device copy's slots do not fit 32-bit indices: the values go through the host\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GpuMatsCOODeviceValuesSet(A, &h->shadow));
  h->host_current = PETSC_FALSE; /* the host format's arrays are not current */
  PetscCall(GpuMatsShadowAheadBegin(A, &ahead));
  if (!ahead) PetscCall((*h->shadow.ops->values_download)(A));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatCIHybridComposeCOO(Mat A, PetscBool set)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "GpuMatsCOOMap_C", set ? MatCIHybridCOOMap_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "GpuMatsCOOSetValuesDevice_C", set ? MatCIHybridCOOSetValuesDevice_SeqAIJCIHybrid : NULL));
  if (!set && A->spptr) PetscCall(CIHybridDeviceCOODestroy(&((Mat_SeqAIJCIHybrid *)A->spptr)->coo));
#else
  (void)A;
  (void)set;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
