/* MATSEQAIJPCSR: COO values given in device memory go into the device copy by one kernel instead
   of through the host COO assembly and a new upload; the AIJ master gets them by one copy when it
   needs them (common/shadow_ahead.c), or at once when something reads it unseen.
   The map from the COO entries to the stored entries (AIJ's order) is made once, at
   MatSetPreallocationCOO; common/coo.c calls both through composed functions and takes AIJ's
   host path whenever these decline (host values, no device, a pattern changed since). */
#include "pcsr/pcsr_impl.h"
#include "common/gpumats_coo.h"

#if GPUMATS_HAVE_CUDA
/* After AIJ's MatSetPreallocationCOO: the stored entry of each COO entry (ci, cj on the host, in
   the caller's order), grouped by stored entry, uploaded when the products run on the device. */
static PetscErrorCode MatPCSRCOOMap_SeqAIJPCSR(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[])
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;
  PetscInt64      nnz;
  int32_t        *jmap, *perm;
  PetscBool       uses, mapped;

  PetscFunctionBegin;
  PetscCall(PCSRDeviceCOODestroy(&p->coo));
  PetscCall(GpuMatsBackendUsesDevice(A, p->shadow.backend, &uses));
  if (!uses) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOStoredMap(A, n, ci, cj, &nnz, &jmap, &perm, &mapped));
  if (!mapped) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRDeviceCOOCreate((int32_t)nnz, jmap, perm, &p->coo)); /* takes jmap and perm (either may be NULL) */
  PetscCall(GpuMatsCOOPatternRecord(A, &p->coo_pattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v in device memory: *done when the values went in on the device */
static PetscErrorCode MatPCSRCOOSetValuesDevice_SeqAIJPCSR(Mat A, const PetscScalar v[], InsertMode mode, PetscBool *done)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;
  PetscBool       same, on_device, ahead;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!p->coo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternSame(A, &p->coo_pattern, "pcsr", &same));
  if (!same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatPCSRUpdate_SeqAIJPCSR(A, &on_device)); /* the device copy as the host's, values included */
  if (!on_device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRDeviceCOOSetValues(p->dev, p->coo, v, (PetscBool)(mode == ADD_VALUES)));
  PetscCall(GpuMatsCOODeviceValuesSet(A, &p->shadow));
  PetscCall(GpuMatsShadowAheadBegin(A, &ahead));
  if (!ahead) PetscCall((*p->shadow.ops->values_download)(A));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatPCSRComposeCOO_SeqAIJPCSR(Mat A, PetscBool set)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "GpuMatsCOOMap_C", set ? MatPCSRCOOMap_SeqAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "GpuMatsCOOSetValuesDevice_C", set ? MatPCSRCOOSetValuesDevice_SeqAIJPCSR : NULL));
  if (!set) PetscCall(PCSRDeviceCOODestroy(&((Mat_SeqAIJPCSR *)A->spptr)->coo));
#else
  (void)A;
  (void)set;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
