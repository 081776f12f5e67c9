/* MATSEQDIAG: the algebra on the diagonals (on the host values): diagonal, scale, shift,
   zero, norms, information, copy, transpose, binding to the CPU.  The ops table that
   installs them is the type's (diag.c). */
#include "diag/diag_solverops.h"

/* ---- the algebra (on the host values) ---------------------------------------- */

static PetscErrorCode DiagCheckAssembled(Mat A, const char *op)
{
  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag %s: assemble the matrix first", op);
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetDiagonal_SeqDiag(Mat A, Vec v)
{
  DiagFormat  *f = &((Mat_SeqDiag *)A->spptr)->fmt;
  PetscScalar *a;
  PetscInt     t;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatGetDiagonal"));
  t = DiagFind(f, 0);
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < A->rmap->n; i++) a[i] = t >= 0 && i < A->cmap->n ? f->val[f->start[t] + i] : 0; /* slot i of diagonal 0 in both schemes */
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatScale_SeqDiag(Mat A, PetscScalar a)
{
  DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;

  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatScale: assemble the matrix first");
#if GPUMATS_HAVE_CUDA
  {
    PetscBool on_device;

    PetscCall(MatDiagValuesOnDevice_SeqDiag(A, &on_device));
    if (on_device) { /* where the values are current: no copy either way */
      PetscCall(DiagDeviceScaleValues(((Mat_SeqDiag *)A->spptr)->dev, a));
      PetscCall(PetscLogGpuFlops((PetscLogDouble)f->start[f->ndiag]));
      PetscCall(MatDiagDeviceChanged_SeqDiag(A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(DiagCheckAssembled(A, "MatScale"));
  for (PetscInt64 p = 0; p < f->start[f->ndiag]; p++) f->val[p] *= a;
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y + a I: the main diagonal added when missing (nothing to do without one: 0 rows or columns) */
PetscErrorCode MatShift_SeqDiag(Mat A, PetscScalar a)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatShift: assemble the matrix first");
  if (PetscMin(A->rmap->n, A->cmap->n) == 0) PetscFunctionReturn(PETSC_SUCCESS);
#if GPUMATS_HAVE_CUDA
  {
    const PetscInt t = DiagFind(&d->fmt, 0);
    PetscBool      on_device;

    PetscCall(MatDiagValuesOnDevice_SeqDiag(A, &on_device));
    if (on_device && t >= 0) { /* the main diagonal stored and the values current on the device */
      PetscCall(DiagDeviceShiftValues(d->dev, d->fmt.start[t], PetscMin(A->rmap->n, A->cmap->n), a));
      PetscCall(PetscLogGpuFlops(PetscMin(A->rmap->n, A->cmap->n)));
      PetscCall(MatDiagDeviceChanged_SeqDiag(A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscCall(DiagEnsureMainDiagonal_SeqDiag(A));
  v = d->fmt.val + d->fmt.start[DiagFind(&d->fmt, 0)]; /* slot i is a(i,i) in both schemes */
  for (PetscInt i = 0; i < PetscMin(A->rmap->n, A->cmap->n); i++) v[i] += a;
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroEntries_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (d->stage) PetscCall(DiagStageZeroEntries(d->stage));
  if (!d->has_format) PetscFunctionReturn(PETSC_SUCCESS);
  if (!d->fmt.val) PetscCall(MatDiagSyncHost_SeqDiag(A)); /* a product's C with no host values yet */
  PetscCall(PetscArrayzero(d->fmt.val, d->fmt.start[d->fmt.ndiag]));
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatNorm_SeqDiag(Mat A, NormType type, PetscReal *nrm)
{
  DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;
  PetscReal  *sum;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatNorm"));
  *nrm = 0;
  if (type == NORM_FROBENIUS) {
    for (PetscInt64 p = 0; p < f->start[f->ndiag]; p++) *nrm += PetscRealPart(PetscConj(f->val[p]) * f->val[p]);
    *nrm = PetscSqrtReal(*nrm);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(type == NORM_1 || type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag MatNorm: NORM_1, NORM_INFINITY and NORM_FROBENIUS only");
  PetscCall(PetscCalloc1(PetscMax(type == NORM_1 ? A->cmap->n : A->rmap->n, 1), &sum));
  for (PetscInt t = 0; t < f->ndiag; t++)
    for (PetscInt64 p = 0; p < f->start[t + 1] - f->start[t]; p++) {
      PetscInt i, j;

      DiagSlotEntry(f, t, p, &i, &j); /* padding holds zeros: no need to skip it */
      sum[type == NORM_1 ? j : i] += PetscAbsScalar(f->val[f->start[t] + p]);
    }
  for (PetscInt k = 0; k < (type == NORM_1 ? A->cmap->n : A->rmap->n); k++) *nrm = PetscMax(*nrm, sum[k]);
  PetscCall(PetscFree(sum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetInfo_SeqDiag(Mat A, MatInfoType flag, MatInfo *info)
{
  MatDiagInfo di;

  PetscFunctionBegin;
  PetscCall(MatDiagGetInfo_SeqDiag(A, &di));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size   = 1.0;
  info->nz_allocated = (PetscLogDouble)di.stored;
  info->nz_used      = (PetscLogDouble)di.entries;
  info->nz_unneeded  = (PetscLogDouble)di.padding;
  info->memory       = (PetscLogDouble)(di.stored * (PetscInt64)sizeof(PetscScalar) + di.ndiag * (PetscInt64)(sizeof(PetscInt) + sizeof(PetscInt64)));
  info->assemblies   = (PetscLogDouble)A->num_ass;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCopy_SeqDiag(Mat A, Mat B, MatStructure str)
{
  Mat_SeqDiag *da = (Mat_SeqDiag *)A->spptr;
  PetscBool    isdiag;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatCopy"));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQDIAG, &isdiag));
  if (isdiag) {
    Mat_SeqDiag *db = (Mat_SeqDiag *)B->spptr;
    DiagFormat   copy;

    PetscCheck(A->rmap->n == B->rmap->n && A->cmap->n == B->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatCopy: A is %" PetscInt_FMT " x %" PetscInt_FMT ", B %" PetscInt_FMT " x %" PetscInt_FMT, A->rmap->n, A->cmap->n, B->rmap->n, B->cmap->n);
    if (db->has_format && db->fmt.scheme == da->fmt.scheme && db->fmt.ndiag == da->fmt.ndiag) {
      PetscBool same;

      PetscCall(PetscArraycmp(db->fmt.offset, da->fmt.offset, da->fmt.ndiag, &same));
      if (same) { /* the same diagonals: the values only */
        PetscCall(MatDiagSyncHost_SeqDiag(B));
        PetscCall(PetscArraycpy(db->fmt.val, da->fmt.val, da->fmt.start[da->fmt.ndiag]));
        if (da->fmt.part) PetscCall(PetscArraycpy(db->fmt.part, da->fmt.part, da->fmt.ndiag));
        PetscCall(MatDiagHostChanged_SeqDiag(B));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    PetscCall(DiagCheckStatus(DiagFormatCopy(&da->fmt, &copy), A, "MatCopy"));
    PetscCall(DiagStageDestroy(&db->stage));
    B->preallocated = PETSC_TRUE;
    PetscCall(MatDiagSetFormat_SeqDiag(B, &copy));
    B->assembled = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* another type: row by row, as PETSc's MatCopy_Basic */
  if (B->assembled) PetscCall(MatZeroEntries(B));
  for (PetscInt i = 0; i < A->rmap->n; i++) {
    PetscInt     nz, *cols;
    PetscScalar *vals;

    PetscCall(MatGetRow(A, i, &nz, (const PetscInt **)&cols, (const PetscScalar **)&vals));
    PetscCall(MatSetValues(B, 1, &i, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, i, &nz, (const PetscInt **)&cols, (const PetscScalar **)&vals));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^T: the diagonals with their offsets negated (HM, values copied as they are) or the
   compact diagonals reversed and shifted (CDM).  MAT_INPLACE_MATRIX swaps the shapes. */
PetscErrorCode MatTranspose_SeqDiag(Mat A, MatReuse reuse, Mat *B)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat   t;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatTranspose"));
  PetscCall(DiagCheckStatus(DiagFormatTranspose(&d->fmt, &t), A, "MatTranspose"));
  if (reuse == MAT_REUSE_MATRIX) C = *B;
  else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &C));
    PetscCall(MatSetSizes(C, A->cmap->n, A->rmap->n, A->cmap->N, A->rmap->N));
    PetscCall(MatSetType(C, MATSEQDIAG));
    ((Mat_SeqDiag *)C->spptr)->settings = d->settings;
    PetscCall(GpuMatsFormatSetBackend(C, d->base.backend));
    PetscCall(PetscLayoutSetUp(C->rmap));
    PetscCall(PetscLayoutSetUp(C->cmap));
    C->preallocated = PETSC_TRUE;
  }
  PetscCall(MatDiagSetFormat_SeqDiag(C, &t));
  C->assembled = PETSC_TRUE;
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &C));
  else *B = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DEVICE)
PetscErrorCode MatBindToCPU_SeqDiag(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, flg ? GPUMATS_BACKEND_HOST : ((Mat_SeqDiag *)A->spptr)->base.backend));
  if (flg) PetscCall(MatDiagSyncHost_SeqDiag(A)); /* the host operations find the values there */
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
