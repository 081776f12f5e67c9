/* What solvers do to the operator of a device-only cihybrid matrix (cihybrid_device_only.c),
   done on its device copy: SLEPc's spectral transformations shift, scale, duplicate and copy it,
   PCJacobi reads its diagonal, EPS takes its norm.  None of these needs the host copy; where one
   cannot be done on the device (a diagonal entry that is not stored, another pattern or type),
   the host copy is made, -info says why, and AIJ's operation runs.  PETSc's interface functions
   advance the object state after each op, as for AIJ; MatAXPY does not, so the op does. */
#include "cihybrid/cihybrid_impl.h"

#if GPUMATS_HAVE_CUDA
/* X is a seqaijcihybrid matrix whose entries are on the device alone */
static PetscErrorCode CIHybridIsDeviceOnlyMatrix(Mat X, Mat_SeqAIJCIHybrid **hx)
{
  PetscBool same;

  PetscFunctionBegin;
  *hx = NULL;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCIHYBRID, &same));
  if (same && ((Mat_SeqAIJCIHybrid *)X->spptr)->device_only) *hx = (Mat_SeqAIJCIHybrid *)X->spptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is every diagonal entry stored?  If not, the host copy is made for 'op' (a new nonzero). */
static PetscErrorCode CIHybridDiagonalStored(Mat A, const char *op, PetscBool *stored)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscInt            missing;
  char                why[128];

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceMissingDiagonal(h->dev, &missing));
  *stored = missing ? PETSC_FALSE : PETSC_TRUE;
  if (*stored) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(why, sizeof(why), "%s (%" PetscInt_FMT " diagonal entries are not stored: new nonzeros)", op, missing));
  PetscCall(CIHybridMakeHostCopy(A, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_GetDiagonal(Mat A, Vec v)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  GpuMatsDeviceVec    dv;

  PetscFunctionBegin;
  PetscCall(GpuMatsVecGetDeviceArray(v, GPUMATS_WRITE, &h->shadow.base.stage_y, &dv));
  PetscCall(CIHybridDeviceGetDiagonal(h->dev, dv.device));
  PetscCall(GpuMatsVecRestoreDeviceArray(&dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_Shift(Mat A, PetscScalar a)
{
  PetscBool stored;

  PetscFunctionBegin;
  PetscCall(CIHybridDiagonalStored(A, "MatShift", &stored));
  if (!stored) {
    PetscCall((*A->ops->shift)(A, a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CIHybridDeviceShiftDiagonal(((Mat_SeqAIJCIHybrid *)A->spptr)->dev, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_DiagonalSet(Mat A, Vec d, InsertMode mode)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  GpuMatsDeviceVec    dv;
  PetscBool           stored;

  PetscFunctionBegin;
  PetscCall(CIHybridDiagonalStored(A, "MatDiagonalSet", &stored));
  if (!stored) {
    PetscCall((*A->ops->diagonalset)(A, d, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GpuMatsVecGetDeviceArray(d, GPUMATS_READ, &h->shadow.base.stage_x, &dv));
  PetscCall(CIHybridDeviceSetDiagonal(h->dev, dv.device, mode == ADD_VALUES ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(GpuMatsVecRestoreDeviceArray(&dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_Scale(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceScale(((Mat_SeqAIJCIHybrid *)A->spptr)->dev, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_ZeroEntries(Mat A)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceZeroValues(((Mat_SeqAIJCIHybrid *)A->spptr)->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_Norm(Mat A, NormType type, PetscReal *nrm)
{
  PetscFunctionBegin;
  PetscCall(CIHybridDeviceNorm(((Mat_SeqAIJCIHybrid *)A->spptr)->dev, type, nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridStashFree(CIHybridStash *stash)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(stash->rows, stash->cols, stash->vals));
  stash->n = stash->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MAT_ROW_ORIENTED is AIJ's to keep; the stash reads v[] the same way. */
PetscErrorCode CIHybridDeviceOnly_SetOption(Mat A, MatOption op, PetscBool flg)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (op == MAT_ROW_ORIENTED) h->column_oriented = flg ? PETSC_FALSE : PETSC_TRUE;
  PetscCall((*h->host_ops.setoption)(A, op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Values are kept until the assembly, which writes them into their stored slots on the device. */
PetscErrorCode CIHybridDeviceOnly_SetValues(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  CIHybridStash *st = &((Mat_SeqAIJCIHybrid *)A->spptr)->stash;
  const PetscBool cols_first = ((Mat_SeqAIJCIHybrid *)A->spptr)->column_oriented;

  PetscFunctionBegin;
  if (st->n + m * n > st->cap) {
    const PetscInt cap = PetscMax(2 * st->cap, st->n + m * n);
    int32_t       *rows, *cols;
    PetscScalar   *vals;

    PetscCall(PetscMalloc3(cap, &rows, cap, &cols, cap, &vals));
    if (st->n) {
      PetscCall(PetscArraycpy(rows, st->rows, st->n));
      PetscCall(PetscArraycpy(cols, st->cols, st->n));
      PetscCall(PetscArraycpy(vals, st->vals, st->n));
    }
    PetscCall(PetscFree3(st->rows, st->cols, st->vals));
    st->rows = rows;
    st->cols = cols;
    st->vals = vals;
    st->cap  = cap;
  }
  for (PetscInt i = 0; i < m; i++) {
    if (im[i] < 0) continue;
    PetscCheck(im[i] < A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row too large: row %" PetscInt_FMT " max %" PetscInt_FMT, im[i], A->rmap->n - 1);
    for (PetscInt j = 0; j < n; j++) {
      if (in[j] < 0) continue;
      PetscCheck(in[j] < A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column too large: col %" PetscInt_FMT " max %" PetscInt_FMT, in[j], A->cmap->n - 1);
      st->rows[st->n] = (int32_t)im[i];
      st->cols[st->n] = (int32_t)in[j];
      st->vals[st->n] = v ? (cols_first ? v[i + j * m] : v[i * n + j]) : 0.0;
      st->n++;
    }
  }
  st->mode = mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceOnly_AssemblyBegin(Mat A, MatAssemblyType type)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  int32_t     row, col;
  PetscInt    order;
  PetscScalar val;
} CIHybridStashEntry;

static int CIHybridStashCompare(const void *a, const void *b)
{
  const CIHybridStashEntry *x = (const CIHybridStashEntry *)a, *y = (const CIHybridStashEntry *)b;

  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->order < y->order ? -1 : (x->order > y->order);
}

/* The stash sorted by row and column, each entry once: the last one inserted, or the sum of the
   added ones (written back into the stash's arrays; returns their number). */
static PetscErrorCode CIHybridStashCombine(CIHybridStash *st, PetscInt *n)
{
  CIHybridStashEntry *e;
  PetscInt            u = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(st->n, &e));
  for (PetscInt k = 0; k < st->n; k++) {
    e[k].row   = st->rows[k];
    e[k].col   = st->cols[k];
    e[k].order = k;
    e[k].val   = st->vals[k];
  }
  qsort(e, (size_t)st->n, sizeof(*e), CIHybridStashCompare);
  for (PetscInt k = 0; k < st->n; k++) {
    if (u && e[k].row == st->rows[u - 1] && e[k].col == st->cols[u - 1]) {
      st->vals[u - 1] = st->mode == ADD_VALUES ? st->vals[u - 1] + e[k].val : e[k].val;
      continue;
    }
    st->rows[u] = e[k].row;
    st->cols[u] = e[k].col;
    st->vals[u] = e[k].val;
    u++;
  }
  PetscCall(PetscFree(e));
  *n = u;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stash on the device when every entry has a stored slot; otherwise (new nonzeros) the host
   copy takes them all and AIJ's assembly runs. */
PetscErrorCode CIHybridDeviceOnly_AssemblyEnd(Mat A, MatAssemblyType type)
{
  Mat_SeqAIJCIHybrid *h  = (Mat_SeqAIJCIHybrid *)A->spptr;
  CIHybridStash      *st = &h->stash;
  PetscInt            n = 0, missing;
  char                why[128];

  PetscFunctionBegin;
  if (!st->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CIHybridStashCombine(st, &n));
  PetscCall(CIHybridDeviceSetValues(h->dev, n, st->rows, st->cols, st->vals, st->mode == ADD_VALUES ? PETSC_TRUE : PETSC_FALSE, &missing));
  if (missing) {
    PetscCall(PetscSNPrintf(why, sizeof(why), "MatSetValues (%" PetscInt_FMT " of %" PetscInt_FMT " entries are not stored: new nonzeros)", missing, n));
    PetscCall(CIHybridMakeHostCopy(A, why));
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt row = st->rows[k], col = st->cols[k];

      PetscCall((*A->ops->setvalues)(A, 1, &row, 1, &col, &st->vals[k], st->mode));
    }
    if (A->ops->assemblybegin) PetscCall((*A->ops->assemblybegin)(A, type)); /* AIJ has none */
    PetscCall((*A->ops->assemblyend)(A, type));
  }
  st->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X on the device when X is device-only with Y's pattern; otherwise on the host copies. */
PetscErrorCode CIHybridDeviceOnly_AXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_SeqAIJCIHybrid *hy = (Mat_SeqAIJCIHybrid *)Y->spptr, *hx;
  PetscBool           same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(CIHybridIsDeviceOnlyMatrix(X, &hx));
  if (hx) PetscCall(CIHybridDeviceSamePattern(hy->dev, hx->dev, &same));
  if (!same) {
    PetscCall(CIHybridMakeHostCopy(Y, hx ? "MatAXPY with a device-built matrix of another pattern" : "MatAXPY with a matrix on the host"));
    PetscCall((*Y->ops->axpy)(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CIHybridDeviceAXPY(hy->dev, a, hx->dev));
  PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B (not yet device-only, its host AIJ empty and assembled) gets a device copy of A's pattern,
   with A's values or zeros, and becomes device-only. */
static PetscErrorCode CIHybridTakeDevicePattern(Mat A, Mat B, PetscBool copy_values)
{
  Mat_SeqAIJCIHybrid *ha = (Mat_SeqAIJCIHybrid *)A->spptr, *hb = (Mat_SeqAIJCIHybrid *)B->spptr;
  CIHybridStatus      status;

  PetscFunctionBegin;
  PetscCall(MatCIHybridFreeFormat_SeqAIJCIHybrid(B));
  status = CIHybridLayoutCopy(&ha->fmt, &hb->fmt);
  PetscCheck(status == CIHYBRID_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "cihybrid: out of host memory copying the layout of a %" PetscInt_FMT "-row matrix", A->rmap->n);
  hb->model_bytes = ha->model_bytes;
  PetscCall(CIHybridDeviceDuplicate(ha->dev, &ha->fmt, copy_values, &hb->dev));
  PetscCall(CIHybridBecomeDeviceOnly(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new device-only matrix with A's pattern, settings and backend; no host copy is made. */
PetscErrorCode CIHybridDeviceOnly_Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  CIHybridSettings    s;
  Mat                 D;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &D));
  PetscCall(MatSetSizes(D, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(D, A, A));
  PetscCall(MatSetType(D, MATSEQAIJCIHYBRID));
  PetscCall(MatCIHybridGetSettings_SeqAIJCIHybrid(A, &s));
  PetscCall(MatCIHybridApplySettings_SeqAIJCIHybrid(D, &s));
  PetscCall(GpuMatsFormatSetBackend(D, h->shadow.base.backend));
  PetscCall(MatSeqAIJSetPreallocation(D, 0, NULL));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(CIHybridTakeDevicePattern(A, D, op == MAT_COPY_VALUES ? PETSC_TRUE : PETSC_FALSE));
  *B = D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B = A: device to device into a device-only B of A's pattern, or of another pattern when str
   allows it (B takes A's); anything else on the host copies. */
PetscErrorCode CIHybridDeviceOnly_Copy(Mat A, Mat B, MatStructure str)
{
  Mat_SeqAIJCIHybrid *ha = (Mat_SeqAIJCIHybrid *)A->spptr, *hb;
  PetscBool           same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(CIHybridIsDeviceOnlyMatrix(B, &hb));
  if (hb) PetscCall(CIHybridDeviceSamePattern(ha->dev, hb->dev, &same));
  if (same) {
    PetscCall(CIHybridDeviceCopyValues(hb->dev, ha->dev));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (hb && str != SAME_NONZERO_PATTERN) {
    *B->ops         = hb->host_ops; /* B becomes device-only again, with A's pattern */
    hb->device_only = PETSC_FALSE;
    PetscCall(CIHybridTakeDevicePattern(A, B, PETSC_TRUE));
    B->nonzerostate++;
    PetscCall(PetscInfo(B, "MatCopy from a device-built matrix of another pattern: B takes A's pattern on the device\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CIHybridMakeHostCopy(A, hb ? "MatCopy with SAME_NONZERO_PATTERN into a matrix of another pattern" : "MatCopy into a matrix on the host"));
  PetscCall((*A->ops->copy)(A, B, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
