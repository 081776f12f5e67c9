/* Value changes of an AIJ shadow (pcsr, cihybrid) that its device copy follows: MatScale,
   MatShift, MatDiagonalSet, MatAXPY and MatCopy with the same pattern, MatZeroEntries.  AIJ
   makes the change on the host master, as before; when the device copy was current, the format
   makes the same change there (values_device of its GpuMatsFormatOps) and the copy stays
   current, so the next product uploads nothing instead of every value.

   The copy is marked current at the state the matrix will have when the interface function
   returns: MatScale, MatShift, MatDiagonalSet, MatZeroEntries and MatCopy raise the state once
   after the op (PETSc 3.18-3.22), MatAXPY does not (AIJ's op raises it itself).  A state other
   than the one marked, or a changed nonzero state, uploads the values again as before: the
   device never keeps values the host does not have. */
#include "common/gpumats_impl.h"

#if GPUMATS_HAVE_CUDA
/* Is A's device copy current, so that it can follow a change? */
static PetscErrorCode ShadowDeviceReady(Mat A, PetscBool *ready)
{
  GpuMatsShadow      *s = GpuMatsShadowOf(A);
  GpuMatsShadowChange change;
  PetscBool           on_device;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  if (!s->base.ops->values_device || !s->device_current) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsBackendUsesDevice(A, s->base.backend, &on_device));
  if (!on_device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsShadowCheck(A, s, &change));
  *ready = (PetscBool)(change == GPUMATS_SHADOW_CURRENT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After AIJ changed A's values on the host: the same change on the device copy, if the copy was
   current before (ready, at shadow state 'before'), AIJ kept the pattern and nothing rebuilt the
   copy meanwhile.  'raises': the state increases the interface function makes after the op. */
static PetscErrorCode ShadowDeviceFollow(Mat A, PetscBool ready, PetscObjectState before, const GpuMatsValuesChange *c, PetscInt raises, const char *what)
{
  GpuMatsShadow   *s    = GpuMatsShadowOf(A);
  PetscBool        done = PETSC_FALSE;

  PetscFunctionBegin;
  if (!ready) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->state == before && s->nonzerostate == A->nonzerostate && s->device_current) PetscCall((*s->base.ops->values_device)(A, c, &done));
  if (!done) {
    PetscCall(PetscInfo(A, "%s: %s on the host only: the values are uploaded again at the next product\n", ((PetscObject)A)->type_name, what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GpuMatsShadowMarkCurrentAhead(A, s, raises));
  PetscCall(PetscInfo(A, "%s: %s on the host master and on the device copy: nothing to upload at the next product\n", ((PetscObject)A)->type_name, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X is of Y's type and its device copy is current: it can be read on the device */
static PetscErrorCode ShadowDevicePartner(Mat Y, Mat X, PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, ((PetscObject)Y)->type_name, ok));
  if (*ok) PetscCall(ShadowDeviceReady(X, ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's MatScale, MatShift or MatZeroEntries on the host master, then the same on the device copy */
static PetscErrorCode ShadowChangeValues(Mat A, GpuMatsValuesOp op, PetscScalar a, const char *what)
{
  GpuMatsShadow      *s = GpuMatsShadowOf(A);
  GpuMatsValuesChange c = {op, a, NULL, NULL};
  PetscObjectState    before = s->state;
  PetscBool           ready;

  PetscFunctionBegin;
  PetscCall(ShadowDeviceReady(A, &ready));
  if (op == GPUMATS_VALUES_SCALE) PetscCall((*s->parent.scale)(A, a));
  else if (op == GPUMATS_VALUES_SHIFT) PetscCall((*s->parent.shift)(A, a));
  else PetscCall((*s->parent.zeroentries)(A));
  PetscCall(ShadowDeviceFollow(A, ready, before, &c, 1, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatScale_SeqAIJShadow(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(ShadowChangeValues(A, GPUMATS_VALUES_SCALE, a, "MatScale"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatShift_SeqAIJShadow(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(ShadowChangeValues(A, GPUMATS_VALUES_SHIFT, a, "MatShift"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroEntries_SeqAIJShadow(Mat A)
{
  PetscFunctionBegin;
  PetscCall(ShadowChangeValues(A, GPUMATS_VALUES_ZERO, 0.0, "MatZeroEntries"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalSet_SeqAIJShadow(Mat A, Vec D, InsertMode mode)
{
  GpuMatsShadow      *s = GpuMatsShadowOf(A);
  GpuMatsValuesChange c = {mode == ADD_VALUES ? GPUMATS_VALUES_DIAGONAL_ADD : GPUMATS_VALUES_DIAGONAL_SET, 0.0, NULL, NULL};
  PetscObjectState    before = s->state;
  PetscBool           ready;
  GpuMatsDeviceVec    dv;

  PetscFunctionBegin;
  PetscCall(ShadowDeviceReady(A, &ready));
  PetscCall((*s->parent.diagonalset)(A, D, mode));
  if (!ready) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsVecGetDeviceArray(D, GPUMATS_READ, &s->base.stage_x, &dv));
  c.d = dv.device;
  PetscCall(ShadowDeviceFollow(A, ready, before, &c, 1, "MatDiagonalSet"));
  PetscCall(GpuMatsVecRestoreDeviceArray(&dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCopy() calls the op of the source A; B follows when it is of A's type */
static PetscErrorCode MatCopy_SeqAIJShadow(Mat A, Mat B, MatStructure str)
{
  GpuMatsShadow      *s = GpuMatsShadowOf(A);
  GpuMatsValuesChange c = {GPUMATS_VALUES_COPY, 0.0, NULL, A};
  PetscObjectState    before = 0;
  PetscBool           b_ready = PETSC_FALSE, a_ready = PETSC_FALSE;

  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN) PetscCall(ShadowDevicePartner(A, B, &b_ready));
  if (b_ready) PetscCall(ShadowDeviceReady(A, &a_ready));
  if (b_ready) before = GpuMatsShadowOf(B)->state;
  PetscCall((*s->parent.copy)(A, B, str));
  PetscCall(ShadowDeviceFollow(B, (PetscBool)(a_ready && b_ready), before, &c, 1, "MatCopy"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  GpuMatsShadow      *s = GpuMatsShadowOf(Y);
  GpuMatsValuesChange c = {GPUMATS_VALUES_AXPY, a, NULL, X};
  PetscObjectState    before = s->state;
  PetscBool           ready = PETSC_FALSE, partner = PETSC_FALSE;

  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN) PetscCall(ShadowDeviceReady(Y, &ready));
  if (ready) PetscCall(ShadowDevicePartner(Y, X, &partner));
  PetscCall((*s->parent.axpy)(Y, a, X, str));
  PetscCall(ShadowDeviceFollow(Y, (PetscBool)(ready && partner), before, &c, 0, "MatAXPY"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
PetscErrorCode GpuMatsShadowAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  PetscCall((*GpuMatsShadowOf(Y)->parent.axpy)(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* After GpuMatsShadowInstall: the value changes above, for a format that can follow them */
PetscErrorCode GpuMatsShadowInstallValueOps(Mat A)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  if (!GpuMatsFormatOf(A)->ops->values_device) PetscFunctionReturn(PETSC_SUCCESS);
  A->ops->scale       = MatScale_SeqAIJShadow;
  A->ops->shift       = MatShift_SeqAIJShadow;
  A->ops->diagonalset = MatDiagonalSet_SeqAIJShadow;
  A->ops->zeroentries = MatZeroEntries_SeqAIJShadow;
  A->ops->copy        = MatCopy_SeqAIJShadow;
  A->ops->axpy        = GpuMatsShadowAXPY;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
