/* MATMPIDIAG: the algebra, on each process's blocks as MPIAIJ's: the diagonal, the diagonal
   block, scale, shift, zero, rows, norms, information.  The ops table that installs them is
   the type's (mpidiag.c). */
#include "diag/mpidiag_impl.h"

static PetscErrorCode MPIDiagCheckSquareLayout(Mat M, const char *op)
{
  PetscFunctionBegin;
  PetscCheck(M->rmap->rstart == M->cmap->rstart && M->rmap->rend == M->cmap->rend, PETSC_COMM_SELF, PETSC_ERR_SUP, "mpidiag %s: the rows and columns must be distributed alike (rows [%" PetscInt_FMT ", %" PetscInt_FMT "), columns [%" PetscInt_FMT ", %" PetscInt_FMT ") here)", op, M->rmap->rstart, M->rmap->rend, M->cmap->rstart, M->cmap->rend);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetDiagonal_MPIDiag(Mat M, Vec v)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatGetDiagonal"));
  PetscCall(MPIDiagCheckSquareLayout(M, "MatGetDiagonal"));
  PetscCall((*MPIDiagOf(M)->A->ops->getdiagonal)(MPIDiagOf(M)->A, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* for block Jacobi: the diagonal block is a seqdiag, whose ILU runs on an AIJ copy */
PetscErrorCode MatGetDiagonalBlock_MPIDiag(Mat M, Mat *a)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatGetDiagonalBlock"));
  PetscCall(MPIDiagCheckSquareLayout(M, "MatGetDiagonalBlock"));
  *a = MPIDiagOf(M)->A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatScale_MPIDiag(Mat M, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatScale"));
  PetscCall(MatScale(MPIDiagOf(M)->A, a));
  PetscCall(MatScale(MPIDiagOf(M)->B, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatShift_MPIDiag(Mat M, PetscScalar a)
{
  PetscObjectState before;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatShift"));
  PetscCall(MPIDiagCheckSquareLayout(M, "MatShift"));
  before = MPIDiagOf(M)->A->nonzerostate;
  PetscCall(MatShift(MPIDiagOf(M)->A, a));
  PetscCall(MPIDiagSyncNonzeroState(M, before)); /* the main diagonal may have been added */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroEntries_MPIDiag(Mat M)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagStageZeroEntries(M));
  if (c->A) {
    PetscCall(MatZeroEntries(c->A));
    PetscCall(MatZeroEntries(c->B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries of local row i (global index), global columns ascending */
PetscErrorCode MatGetRow_MPIDiag(Mat M, PetscInt row, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  Mat_MPIDiag       *c = MPIDiagOf(M);
  PetscInt           i = row - M->rmap->rstart, na, nb;
  const PetscInt    *ca, *cb;
  const PetscScalar *va, *vb;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatGetRow"));
  PetscCheck(i >= 0 && i < M->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mpidiag MatGetRow: row %" PetscInt_FMT " is not owned by this process", row);
  PetscCall(MatGetRow(c->A, i, &na, &ca, &va));
  PetscCall(MatGetRow(c->B, i, &nb, &cb, &vb));
  if (na + nb > c->row_capacity) {
    PetscCall(PetscFree2(c->row_cols, c->row_vals));
    c->row_capacity = na + nb;
    PetscCall(PetscMalloc2(c->row_capacity, &c->row_cols, c->row_capacity, &c->row_vals));
  }
  for (PetscInt k = 0; k < na; k++) c->row_cols[k] = ca[k] + M->cmap->rstart, c->row_vals[k] = va[k];
  for (PetscInt k = 0; k < nb; k++) c->row_cols[na + k] = c->garray[cb[k]], c->row_vals[na + k] = vb[k];
  *nz = na + nb;
  PetscCall(MatRestoreRow(c->B, i, &nb, &cb, &vb)); /* sets na, nb to 0 */
  PetscCall(MatRestoreRow(c->A, i, &na, &ca, &va));
  PetscCall(PetscSortIntWithScalarArray(*nz, c->row_cols, c->row_vals));
  if (cols) *cols = c->row_cols;
  if (vals) *vals = c->row_vals;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatRestoreRow_MPIDiag(Mat M, PetscInt row, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatNorm_MPIDiag(Mat M, NormType type, PetscReal *nrm)
{
  PetscReal local = 0;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatNorm"));
  PetscCheck(type == NORM_FROBENIUS || type == NORM_INFINITY || type == NORM_1, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "mpidiag MatNorm: NORM_1, NORM_INFINITY and NORM_FROBENIUS only");
  if (type == NORM_1) { /* column sums over all processes */
    PetscReal *sum, *total;

    PetscCall(PetscCalloc2(M->cmap->N + 1, &sum, M->cmap->N + 1, &total));
    for (PetscInt row = M->rmap->rstart; row < M->rmap->rend; row++) {
      PetscInt           nz;
      const PetscInt    *cols;
      const PetscScalar *v;

      PetscCall(MatGetRow(M, row, &nz, &cols, &v));
      for (PetscInt k = 0; k < nz; k++) sum[cols[k]] += PetscAbsScalar(v[k]);
      PetscCall(MatRestoreRow(M, row, &nz, &cols, &v));
    }
    PetscCall(MPIU_Allreduce(sum, total, (PetscMPIInt)M->cmap->N, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)M)));
    *nrm = 0;
    for (PetscInt j = 0; j < M->cmap->N; j++) *nrm = PetscMax(*nrm, total[j]);
    PetscCall(PetscFree2(sum, total));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt row = M->rmap->rstart; row < M->rmap->rend; row++) {
    PetscInt           nz;
    const PetscScalar *v;
    PetscReal          sum = 0;

    PetscCall(MatGetRow(M, row, &nz, NULL, &v));
    for (PetscInt k = 0; k < nz; k++) sum += type == NORM_FROBENIUS ? PetscRealPart(PetscConj(v[k]) * v[k]) : PetscAbsScalar(v[k]);
    PetscCall(MatRestoreRow(M, row, &nz, NULL, &v));
    local = type == NORM_FROBENIUS ? local + sum : PetscMax(local, sum);
  }
  PetscCall(MPIU_Allreduce(&local, nrm, 1, MPIU_REAL, type == NORM_FROBENIUS ? MPIU_SUM : MPIU_MAX, PetscObjectComm((PetscObject)M)));
  if (type == NORM_FROBENIUS) *nrm = PetscSqrtReal(*nrm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetInfo_MPIDiag(Mat M, MatInfoType flag, MatInfo *info)
{
  Mat_MPIDiag   *c = MPIDiagOf(M);
  MatInfo        ia, ib;
  PetscLogDouble local[4], global[4];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscCall(PetscMemzero(&ia, sizeof(ia)));
  PetscCall(PetscMemzero(&ib, sizeof(ib)));
  if (c->A) {
    PetscCall(MatGetInfo(c->A, MAT_LOCAL, &ia));
    PetscCall(MatGetInfo(c->B, MAT_LOCAL, &ib));
  }
  local[0] = ia.nz_used + ib.nz_used, local[1] = ia.nz_allocated + ib.nz_allocated, local[2] = ia.nz_unneeded + ib.nz_unneeded, local[3] = ia.memory + ib.memory;
  if (flag == MAT_LOCAL) PetscCall(PetscArraycpy(global, local, 4));
  else PetscCall(MPIU_Allreduce(local, global, 4, MPIU_PETSCLOGDOUBLE, flag == MAT_GLOBAL_MAX ? MPI_MAX : MPI_SUM, PetscObjectComm((PetscObject)M)));
  info->block_size   = 1.0;
  info->nz_used      = global[0];
  info->nz_allocated = global[1];
  info->nz_unneeded  = global[2];
  info->memory       = global[3];
  info->assemblies   = (PetscLogDouble)M->num_ass;
  PetscFunctionReturn(PETSC_SUCCESS);
}
