/* MATSEQAIJCIHYBRID: COO values given in device memory go into the device copy (ELLPACK and
   remainder slots) by one kernel instead of through the host COO assembly and a new upload; the
   AIJ master gets them by one copy when it needs them (common/shadow_ahead.c), or at once when
   something reads it unseen.  As pcsr (pcsr_coo.c), the map from the COO entries to
   the stored entries made once, at MatSetPreallocationCOO (GpuMatsCOOStoredMap); common/coo.c, and
   common/mpicoo.c for the blocks of an MPI matrix, call them through composed functions and take
   AIJ's host path whenever these decline (host values, no device, a device-only matrix, a pattern
   changed since). */
#include "cihybrid/cihybrid_impl.h"
#include "common/gpumats_coo.h"

#if GPUMATS_HAVE_CUDA
static PetscErrorCode MatCIHybridCOOMap_SeqAIJCIHybrid(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt raises)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscInt64          nnz;
  int32_t            *jmap, *perm;
  PetscBool           uses, mapped = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceCOODestroy(&h->coo));
  PetscCall(GpuMatsBackendUsesDevice(A, h->shadow.base.backend, &uses));
  if (!uses || h->device_only) PetscFunctionReturn(PETSC_SUCCESS);
  if (h->settings.compress != MAT_CIHYBRID_COMPRESS_NONE) { /* its form is made from the host arrays */
    PetscCall(PetscInfo(A, "cihybrid COO: a compressed matrix takes its values through the host\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GpuMatsCOOStoredMap(A, n, ci, cj, place, &nnz, &jmap, &perm, &mapped));
  if (mapped) PetscCall(CIHybridDeviceCOOCreate((int32_t)A->rmap->n, (int32_t)nnz, jmap, perm, &h->coo)); /* takes jmap and perm (either may be NULL) */
  if (!h->coo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternRecord(A, raises, &h->coo_pattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridCOODeviceReady_SeqAIJCIHybrid(Mat A, PetscBool *ready)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  if (!h->coo || h->device_only || h->settings.compress != MAT_CIHYBRID_COMPRESS_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternSame(A, &h->coo_pattern, "cihybrid", ready));
  if (*ready) PetscCall(MatCIHybridUpdate_SeqAIJCIHybrid(A, ready)); /* the device copy as the host's, values included */
  if (*ready) {
    PetscCall(CIHybridDeviceCOOSlotsFit(h->dev, h->coo, ready));
    if (!*ready) PetscCall(PetscInfo(A, "cihybrid COO: the device copy's slots do not fit 32-bit indices: the values go through the host\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridCOODeviceWrite_SeqAIJCIHybrid(Mat A, const PetscScalar v[], const PetscScalar recv[], InsertMode mode, PetscInt raises, PetscBool may_run_ahead)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(h->coo && h->dev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid COO: device values written without a map or a device copy");
  PetscCall(CIHybridDeviceCOOSetValues(h->dev, h->coo, v, recv, (PetscBool)(mode == ADD_VALUES)));
  h->host_current = PETSC_FALSE; /* the host format's arrays are not current */
  PetscCall(GpuMatsCOODeviceValuesSet(A, &h->shadow, raises, may_run_ahead));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatCIHybridComposeCOO(Mat A, PetscBool set)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(GpuMatsCOOComposeBlock(A, set ? MatCIHybridCOOMap_SeqAIJCIHybrid : NULL, set ? MatCIHybridCOODeviceReady_SeqAIJCIHybrid : NULL, set ? MatCIHybridCOODeviceWrite_SeqAIJCIHybrid : NULL));
  if (!set && A->spptr) PetscCall(CIHybridDeviceCOODestroy(&((Mat_SeqAIJCIHybrid *)A->spptr)->coo));
#else
  (void)A;
  (void)set;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
