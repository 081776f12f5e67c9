/* The state of a format that shadows the host AIJ: what must be redone before it is used, its
   device copy marked current (also when COO values went straight into it). */
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"

/* What must be redone before the format can be used. */
PetscErrorCode GpuMatsShadowCheck(Mat A, const GpuMatsShadow *s, GpuMatsShadowChange *change)
{
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!s->built || s->nonzerostate != A->nonzerostate || s->nrows != A->rmap->n || s->ncols != A->cmap->n) *change = GPUMATS_SHADOW_STRUCTURE;
  else if (s->state != state) *change = GPUMATS_SHADOW_VALUES;
  else *change = GPUMATS_SHADOW_CURRENT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowMarkCurrent(Mat A, GpuMatsShadow *s)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &s->state));
  s->nonzerostate = A->nonzerostate;
  s->nrows        = A->rmap->n;
  s->ncols        = A->cmap->n;
  s->built        = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy already holds the values A will have after 'raises' more state increases
   (those the interface function makes after the op that changed them on both copies). */
PetscErrorCode GpuMatsShadowMarkCurrentAhead(Mat A, GpuMatsShadow *s, PetscInt raises)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowMarkCurrent(A, s));
  s->state += raises;
  s->device_current = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowSkipEmpty(Mat A, GpuMatsShadow *s, GpuMatsShadowChange change, PetscBool has_device_copy, PetscBool *skipped)
{
  PetscFunctionBegin;
  *skipped = (PetscBool)(change == GPUMATS_SHADOW_VALUES && has_device_copy && !s->base.nnz);
  if (*skipped) {
    PetscCall(GpuMatsShadowMarkCurrent(A, s));
    s->device_current = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix a MatConvert() to or from a shadow type changes: A itself
   (MAT_INPLACE_MATRIX) or a copy of it (MAT_INITIAL_MATRIX). For
   MAT_REUSE_MATRIX the values are copied into *newmat and *B is NULL:
   nothing is left to convert. */
PetscErrorCode GpuMatsConvertTarget(Mat A, MatReuse reuse, Mat *newmat, Mat *B)
{
  PetscFunctionBegin;
  *B = NULL;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, newmat));
  else *newmat = A;
  *B = *newmat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
PetscErrorCode GpuMatsCOODeviceValuesSet(Mat A, GpuMatsShadow *shadow, PetscInt raises, PetscBool may_run_ahead)
{
  PetscBool ahead = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  /* the device copy holds these values already: current after the assemblies to come */
  PetscCall(GpuMatsShadowMarkCurrentAhead(A, shadow, raises));
  if (may_run_ahead) PetscCall(GpuMatsShadowAheadBegin(A, &ahead));
  if (!ahead) PetscCall((*shadow->base.ops->values_download)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
