/* MATSEQDIAG: the multiplies (common machinery, diag kernels) and the algebra on the
   diagonals: diagonal, scale, shift, zero, norms, information, copy, transpose; the ops
   table, with the solver operations of diag_solverops.h. */
#include "diag/diag_solverops.h"

/* ---- the multiplies --------------------------------------------------------- */

static PetscErrorCode DiagUpdate(Mat A, PetscBool *on_device)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: the matrix must be assembled before it is multiplied");
  PetscCall(GpuMatsBackendUsesDevice(A, d->shadow.backend, on_device));
  d->shadow.nnz = d->fmt.start[d->fmt.ndiag];
  if (*on_device) PetscCall(MatDiagSyncDevice_SeqDiag(A));
  else PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagMultHostOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;

  PetscFunctionBegin;
  if (transpose) DiagMultTransposeHost(f, x, y0, y);
  else DiagMultHost(f, x, y0, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagSpMMHostOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  DiagSpMMHost(&((Mat_SeqDiag *)A->spptr)->fmt, k, B, ldb, add, C, ldc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode DiagMultDeviceOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(DiagDeviceMult(((Mat_SeqDiag *)A->spptr)->dev, transpose, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagSpMMDeviceOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  PetscCall(DiagDeviceSpMM(((Mat_SeqDiag *)A->spptr)->dev, k, B, ldb, add, C, ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

const GpuMatsShadowOps DiagOps = {
  DiagUpdate, DiagMultHostOp, DiagSpMMHostOp,
#if GPUMATS_HAVE_CUDA
  DiagMultDeviceOp, DiagSpMMDeviceOp
#endif
};

/* ---- the algebra (on the host values) ---------------------------------------- */

static PetscErrorCode DiagCheckAssembled(Mat A, const char *op)
{
  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag %s: assemble the matrix first", op);
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_SeqDiag(Mat A, Vec v)
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

static PetscErrorCode MatScale_SeqDiag(Mat A, PetscScalar a)
{
  DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatScale"));
  for (PetscInt64 p = 0; p < f->start[f->ndiag]; p++) f->val[p] *= a;
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y + a I: the main diagonal added when missing (nothing to do without one: 0 rows or columns) */
static PetscErrorCode MatShift_SeqDiag(Mat A, PetscScalar a)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(DiagCheckAssembled(A, "MatShift"));
  if (PetscMin(A->rmap->n, A->cmap->n) == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DiagEnsureMainDiagonal_SeqDiag(A));
  v = d->fmt.val + d->fmt.start[DiagFind(&d->fmt, 0)]; /* slot i is a(i,i) in both schemes */
  for (PetscInt i = 0; i < PetscMin(A->rmap->n, A->cmap->n); i++) v[i] += a;
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroEntries_SeqDiag(Mat A)
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

static PetscErrorCode MatNorm_SeqDiag(Mat A, NormType type, PetscReal *nrm)
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

static PetscErrorCode MatGetInfo_SeqDiag(Mat A, MatInfoType flag, MatInfo *info)
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

static PetscErrorCode MatCopy_SeqDiag(Mat A, Mat B, MatStructure str)
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
static PetscErrorCode MatTranspose_SeqDiag(Mat A, MatReuse reuse, Mat *B)
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
    PetscCall(GpuMatsShadowSetBackend(C, d->shadow.backend));
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
static PetscErrorCode MatBindToCPU_SeqDiag(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, flg ? GPUMATS_BACKEND_HOST : ((Mat_SeqDiag *)A->spptr)->shadow.backend));
  if (flg) PetscCall(MatDiagSyncHost_SeqDiag(A)); /* the host operations find the values there */
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatDiagInstallOps_SeqDiag(Mat A)
{
  PetscFunctionBegin;
  A->ops->getdiagonal           = MatGetDiagonal_SeqDiag;
  A->ops->scale                 = MatScale_SeqDiag;
  A->ops->shift                 = MatShift_SeqDiag;
  A->ops->axpy                  = MatAXPY_SeqDiag;
  A->ops->zeroentries           = MatZeroEntries_SeqDiag;
  A->ops->norm                  = MatNorm_SeqDiag;
  A->ops->getinfo               = MatGetInfo_SeqDiag;
  A->ops->copy                  = MatCopy_SeqDiag;
  A->ops->transpose             = MatTranspose_SeqDiag;
  A->ops->productsetfromoptions = MatProductSetFromOptions_SeqDiag;
  /* what PETSc's solvers call besides the products (diag_sor.c, diag_rows.c, diag_axpy.c, diag_submat.c) */
  A->ops->sor                   = MatSOR_SeqDiag;
  A->ops->zerorows              = MatZeroRows_SeqDiag;
  A->ops->zerorowscolumns       = MatZeroRowsColumns_SeqDiag;
  A->ops->diagonalscale         = MatDiagonalScale_SeqDiag;
  A->ops->diagonalset           = MatDiagonalSet_SeqDiag;
  A->ops->createsubmatrix       = MatCreateSubMatrix_SeqDiag;
  A->ops->createsubmatrices     = MatCreateSubMatrices_SeqDiag;
  A->ops->increaseoverlap       = MatIncreaseOverlap_SeqDiag;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAXPYGetPreallocation_C", MatAXPYGetPreallocation_SeqDiag));
#if defined(PETSC_HAVE_DEVICE)
  A->ops->bindtocpu = MatBindToCPU_SeqDiag;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
