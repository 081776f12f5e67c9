/* MATSEQAIJPCSR: COO values given in device memory go into the device copy by one kernel instead
   of through the host COO assembly and a new upload; the AIJ master gets them by one copy when it
   needs them (common/shadow_ahead.c), or at once when something reads it unseen.
   The map from the COO entries to the stored entries (AIJ's order) is made once, at
   MatSetPreallocationCOO; common/coo.c, and common/mpicoo.c for the blocks of an MPI matrix, call
   them through composed functions and take AIJ's host path whenever these decline (host values,
   no device, a pattern changed since). */
#include "pcsr/pcsr_impl.h"
#include "common/gpumats_coo.h"

#if GPUMATS_HAVE_CUDA
/* After the pattern is made from the entries: the stored entry of each COO entry (ci, cj on the
   host, in the caller's order; its value at place[q]), grouped by stored entry, uploaded when the products run on the
   device (raises: common/gpumats_coo.h) */
static PetscErrorCode MatPCSRCOOMap_SeqAIJPCSR(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt raises)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;
  PetscInt64      nnz;
  int32_t        *jmap, *perm;
  PetscBool       uses, mapped;

  PetscFunctionBegin;
  PetscCall(PCSRDeviceCOODestroy(&p->coo));
  PetscCall(GpuMatsBackendUsesDevice(A, p->shadow.base.backend, &uses));
  if (!uses) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOStoredMap(A, n, ci, cj, place, &nnz, &jmap, &perm, &mapped));
  if (!mapped) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRDeviceCOOCreate((int32_t)nnz, jmap, perm, &p->coo)); /* takes jmap and perm (either may be NULL) */
  PetscCall(GpuMatsCOOPatternRecord(A, raises, &p->coo_pattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatPCSRCOODeviceReady_SeqAIJPCSR(Mat A, PetscBool *ready)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  if (!p->coo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsCOOPatternSame(A, &p->coo_pattern, "pcsr", ready));
  if (*ready) PetscCall(MatPCSRUpdate_SeqAIJPCSR(A, ready)); /* the device copy as the host's, values included */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatPCSRCOODeviceWrite_SeqAIJPCSR(Mat A, const PetscScalar v[], const PetscScalar recv[], InsertMode mode, PetscInt raises, PetscBool may_run_ahead)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(p->coo && p->dev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr COO: device values written without a map or a device copy");
  PetscCall(PCSRDeviceCOOSetValues(p->dev, p->coo, v, recv, (PetscBool)(mode == ADD_VALUES)));
  PetscCall(GpuMatsCOODeviceValuesSet(A, &p->shadow, raises, may_run_ahead));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatPCSRComposeCOO_SeqAIJPCSR(Mat A, PetscBool set)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(GpuMatsCOOComposeBlock(A, set ? MatPCSRCOOMap_SeqAIJPCSR : NULL, set ? MatPCSRCOODeviceReady_SeqAIJPCSR : NULL, set ? MatPCSRCOODeviceWrite_SeqAIJPCSR : NULL));
  if (!set) PetscCall(PCSRDeviceCOODestroy(&((Mat_SeqAIJPCSR *)A->spptr)->coo));
#else
  (void)A;
  (void)set;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
