/* MATMPIDIAG: the operations PETSc's default solvers call besides the products, done as
   MPIAIJ does them with its two blocks: on each process's diagonal block (a seqdiag: the
   routines of diag_solverops.h) and its off-process block (a seqaijpcsr: its CSR values
   in place), with the ghost values of x or of a scaling vector brought by the matrix's
   scatter.  SOR sweeps locally (SOR_LOCAL_*, Eisenstat, applying U or L), as MPIAIJ's.
   Rows to zero may be given on any process.  What changes which diagonals or ghost
   columns exist (AXPY with another pattern) and the submatrices go through an MPIAIJ
   copy and PETSc's own code; the fill limit is checked on every process together before
   a result is built, so a refusal is an error on all of them. */
#include "diag/mpidiag_impl.h"
#include "diag/diag_solverops.h"

static PetscErrorCode MPIDiagCheck(Mat M, const char *op, PetscBool congruent)
{
  PetscFunctionBegin;
  PetscCheck(MPIDiagOf(M)->A, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_WRONGSTATE, "mpidiag %s: assemble the matrix first", op);
  if (congruent) {
    PetscBool cong;

    PetscCall(MatHasCongruentLayouts(M, &cong));
    PetscCheck(cong, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "mpidiag %s: the rows and columns must be distributed alike (here rows [%" PetscInt_FMT ", %" PetscInt_FMT "), columns [%" PetscInt_FMT ", %" PetscInt_FMT ") on this process): give both local sizes the same, or convert to MATMPIAIJ", op, M->rmap->rstart, M->rmap->rend, M->cmap->rstart, M->cmap->rend);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M->nonzerostate follows its diagonal block's on every process together (a preconditioner
   compares it to decide whether the pattern changed: all processes must decide alike) */
PetscErrorCode MPIDiagSyncNonzeroState(Mat M, PetscObjectState before)
{
  PetscMPIInt changed = MPIDiagOf(M)->A->nonzerostate != before, any;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)M)));
  if (any) M->nonzerostate++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- SOR ------------------------------------------------------------------------- */

/* bb1 = bb - B x_ghost: the right-hand side of a local sweep */
static PetscErrorCode MPIDiagLocalRHS(Mat M, Vec xx, Vec bb, Vec bb1)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(VecScatterBegin(c->Mvctx, xx, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(c->Mvctx, xx, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (c->nghost) {
    PetscCall(VecScale(c->lvec, -1.0));
    PetscCall((*c->B->ops->multadd)(c->B, c->lvec, bb, bb1));
  } else PetscCall(VecCopy(bb, bb1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSOR_MPIDiag(Mat M, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_MPIDiag *c   = MPIDiagOf(M);
  Vec          bb1 = NULL;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatSOR", PETSC_TRUE));
  PetscCall(DiagSORCheckPivots(c->A, omega, fshift));
  if (flag == SOR_APPLY_UPPER || flag == SOR_APPLY_LOWER) {
    PetscCall(MatSOR_SeqDiag(c->A, bb, omega, flag, fshift, lits, 1, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (its > 1 || ~flag & SOR_ZERO_INITIAL_GUESS || flag & SOR_EISENSTAT) PetscCall(VecDuplicate(bb, &bb1));
  if ((flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP || (flag & SOR_LOCAL_FORWARD_SWEEP) || (flag & SOR_LOCAL_BACKWARD_SWEEP)) {
    const MatSORType local = (flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP ? SOR_SYMMETRIC_SWEEP : (flag & SOR_LOCAL_FORWARD_SWEEP) ? SOR_FORWARD_SWEEP : SOR_BACKWARD_SWEEP;

    if (flag & SOR_ZERO_INITIAL_GUESS) {
      PetscCall(MatSOR_SeqDiag(c->A, bb, omega, flag, fshift, lits, 1, xx));
      its--;
    }
    while (its-- > 0) {
      PetscCall(MPIDiagLocalRHS(M, xx, bb, bb1));
      PetscCall(MatSOR_SeqDiag(c->A, bb1, omega, local, fshift, lits, 1, xx));
    }
  } else if (flag & SOR_EISENSTAT) {
    Vec xx1, dvec;

    PetscCall(VecDuplicate(bb, &xx1));
    PetscCall(MatSOR_SeqDiag(c->A, bb, omega, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_BACKWARD_SWEEP), fshift, lits, 1, xx));
    PetscCall(VecScatterBegin(c->Mvctx, xx, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(c->Mvctx, xx, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(MatCreateVecs(M, &dvec, NULL));
    PetscCall(MatGetDiagonal(M, dvec));
    PetscCall(VecPointwiseMult(bb1, dvec, xx));
    PetscCall(VecDestroy(&dvec));
    PetscCall(VecAYPX(bb1, (omega - 2.0) / omega, bb));
    if (c->nghost) PetscCall((*c->B->ops->multadd)(c->B, c->lvec, bb1, bb1));
    PetscCall(MatSOR_SeqDiag(c->A, bb1, omega, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_FORWARD_SWEEP), fshift, lits, 1, xx1));
    PetscCall(VecAXPY(xx, 1.0, xx1));
    PetscCall(VecDestroy(&xx1));
  } else {
    PetscCall(VecDestroy(&bb1));
    SETERRQ(PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "mpidiag MatSOR: flag %d sweeps across processes, which no parallel matrix does (MPIAIJ neither): use the local sweeps SOR_LOCAL_FORWARD/BACKWARD/SYMMETRIC_SWEEP (PCSOR's default, -pc_sor_local_symmetric), SOR_EISENSTAT or SOR_APPLY_UPPER/LOWER", (int)flag);
  }
  PetscCall(VecDestroy(&bb1));
  M->factorerrortype = c->A->factorerrortype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- zero rows, scale, set the diagonal --------------------------------------------- */

/* the off-process block's entries in place: rows zeroed (zrow), columns zeroed (zcol, by ghost
   column) with b[i] -= a(i,g) xg[g] first, or rows and columns scaled (l, r) */
typedef struct {
  const PetscBool   *zrow;
  const PetscScalar *zcol; /* nonzero: the ghost column is zeroed */
  const PetscScalar *xg;
  PetscScalar       *b;
  const PetscScalar *l, *r;
} MPIDiagOffBlockEdit;

static PetscErrorCode MPIDiagEditOffBlock(Mat M, const MPIDiagOffBlockEdit *e)
{
  Mat_MPIDiag    *c = MPIDiagOf(M);
  const PetscInt *ai, *aj;
  PetscInt        m;
  PetscBool       done;
  PetscScalar    *aa;

  PetscFunctionBegin;
  if (!c->nghost) PetscFunctionReturn(PETSC_SUCCESS);
  /* the host values of the block made current first where its device copy ran ahead (device COO
     values): MatSeqAIJGetArray below is no op of the block */
  PetscCall(GpuMatsAheadSync(c->B, "an edit of mpidiag's off-process block"));
  PetscCall(MatGetRowIJ(c->B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mpidiag: cannot read the rows of the off-process block");
  PetscCall(MatSeqAIJGetArray(c->B, &aa));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      if (e->zrow && e->zrow[i]) aa[p] = 0;
      else if (e->zcol && PetscAbsScalar(e->zcol[aj[p]])) {
        if (e->b) e->b[i] -= aa[p] * e->xg[aj[p]];
        aa[p] = 0;
      }
      if (e->l) aa[p] *= e->l[i];
      if (e->r) aa[p] *= e->r[aj[p]];
    }
  PetscCall(MatSeqAIJRestoreArray(c->B, &aa)); /* the pcsr copy refreshes its values */
  PetscCall(MatRestoreRowIJ(c->B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIDiagZeroRows(Mat M, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b, PetscBool columns)
{
  Mat_MPIDiag        *c      = MPIDiagOf(M);
  const char         *op     = columns ? "MatZeroRowsColumns" : "MatZeroRows";
  PetscObjectState    before;
  PetscInt            len, *lrows;
  PetscBool          *zrow;
  Vec                 lmask = NULL;
  const PetscScalar  *xa = NULL, *mask = NULL, *xg = NULL;
  PetscScalar        *ba = NULL;
  MPIDiagOffBlockEdit e;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, op, (PetscBool)(columns || diag != (PetscScalar)0 || (x && b))));
  before = c->A->nonzerostate;
  PetscCall(PetscLayoutMapLocal(M->rmap, N, rows, &len, &lrows, NULL)); /* the rows this process owns, from every process's list */
  if (columns) { /* which ghost columns are zeroed, and the ghost values of x */
    Vec xmask;

    PetscCall(MatCreateVecs(M, &xmask, NULL));
    PetscCall(VecSet(xmask, 0.0));
    {
      PetscScalar *v;

      PetscCall(VecGetArray(xmask, &v));
      for (PetscInt k = 0; k < len; k++) v[lrows[k]] = 1;
      PetscCall(VecRestoreArray(xmask, &v));
    }
    PetscCall(VecDuplicate(c->lvec, &lmask));
    PetscCall(VecScatterBegin(c->Mvctx, xmask, lmask, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(c->Mvctx, xmask, lmask, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecDestroy(&xmask));
    if (x && b) {
      PetscCall(VecScatterBegin(c->Mvctx, x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(c->Mvctx, x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecGetArrayRead(c->lvec, &xg));
    }
    PetscCall(VecGetArrayRead(lmask, &mask));
  }
  if (x && b) {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(b, &ba));
  }
  PetscCall(DiagZeroRowsArrays_SeqDiag(c->A, len, lrows, diag, columns, xa, ba)); /* the diagonal block first, as MPIAIJ */
  PetscCall(PetscCalloc1(PetscMax(M->rmap->n, 1), &zrow));
  for (PetscInt k = 0; k < len; k++) zrow[lrows[k]] = PETSC_TRUE;
  PetscCall(PetscMemzero(&e, sizeof(e)));
  e.zrow = zrow, e.zcol = mask, e.xg = xg, e.b = xg ? ba : NULL;
  PetscCall(MPIDiagEditOffBlock(M, &e));
  PetscCall(PetscFree(zrow));
  if (x && b) {
    PetscCall(VecRestoreArray(b, &ba));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  if (columns) {
    PetscCall(VecRestoreArrayRead(lmask, &mask));
    if (xg) PetscCall(VecRestoreArrayRead(c->lvec, &xg));
    PetscCall(VecDestroy(&lmask));
  }
  PetscCall(PetscFree(lrows));
  PetscCall(MPIDiagSyncNonzeroState(M, before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroRows_MPIDiag(Mat M, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagZeroRows(M, N, rows, diag, x, b, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroRowsColumns_MPIDiag(Mat M, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagZeroRows(M, N, rows, diag, x, b, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalScale_MPIDiag(Mat M, Vec ll, Vec rr)
{
  Mat_MPIDiag        *c = MPIDiagOf(M);
  const PetscScalar  *l = NULL, *r = NULL, *rg = NULL;
  MPIDiagOffBlockEdit e;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatDiagonalScale", PETSC_FALSE));
  if (rr) PetscCall(VecScatterBegin(c->Mvctx, rr, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (ll) PetscCall(VecGetArrayRead(ll, &l));
  if (rr) PetscCall(VecGetArrayRead(rr, &r));
  PetscCall(DiagScaleArrays_SeqDiag(c->A, l, r));
  if (rr) {
    PetscCall(VecRestoreArrayRead(rr, &r));
    PetscCall(VecScatterEnd(c->Mvctx, rr, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(c->lvec, &rg));
  }
  PetscCall(PetscMemzero(&e, sizeof(e)));
  e.l = l, e.r = rg;
  PetscCall(MPIDiagEditOffBlock(M, &e));
  if (rr) PetscCall(VecRestoreArrayRead(c->lvec, &rg));
  if (ll) PetscCall(VecRestoreArrayRead(ll, &l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalSet_MPIDiag(Mat M, Vec D, InsertMode mode)
{
  Mat_MPIDiag       *c = MPIDiagOf(M);
  PetscObjectState   before;
  const PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatDiagonalSet", PETSC_TRUE));
  before = c->A->nonzerostate;
  PetscCall(VecGetArrayRead(D, &v));
  PetscCall(DiagSetDiagonalArray_SeqDiag(c->A, v, mode));
  PetscCall(VecRestoreArrayRead(D, &v));
  PetscCall(MPIDiagSyncNonzeroState(M, before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- results of another pattern through MPIAIJ ------------------------------------- */

/* Refuses, on every process together, an MPIAIJ P whose diagonal blocks would not fit diag
   with M's settings */
static PetscErrorCode MPIDiagCheckFits(Mat M, Mat P, const char *op, PetscBool *fits)
{
  Mat             Ad, Ao;
  const PetscInt *garray;
  PetscBool       local;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(P, &Ad, &Ao, &garray));
  PetscCall(DiagAIJFits(Ad, MPIDiagSettingsOf(M), &local));
  PetscCall(MPIU_Allreduce(&local, fits, 1, GPUMATS_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)M)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same as an error on every process, the MPIAIJ *P destroyed first */
static PetscErrorCode MPIDiagRequireFits(Mat M, Mat *P, const char *op)
{
  PetscBool fits;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckFits(M, *P, op, &fits));
  if (!fits) PetscCall(MatDestroy(P));
  PetscCheck(fits, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "mpidiag %s: on some process the result's diagonal block would spread over too many diagonals (the limit is -mat_diag_max_fill %g). Use an AIJ matrix for this result, or raise -mat_diag_max_fill (0: no limit)", op, (double)MPIDiagSettingsOf(M)->max_fill);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new mpidiag with M's settings, backend and prefix and the entries of the MPIAIJ P (destroyed) */
static PetscErrorCode MPIDiagNewFrom(Mat M, Mat P, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), B));
  PetscCall(MatSetSizes(*B, P->rmap->n, P->cmap->n, P->rmap->N, P->cmap->N));
  PetscCall(MatSetType(*B, MATMPIDIAG));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*B, ((PetscObject)M)->prefix));
  PetscCall(GpuMatsMPICopySettings(M, *B));
  PetscCall(MatSetUp(*B));
  PetscCall(MatDestroy(&MPIDiagOf(*B)->stage));
  PetscCall(MPIDiagRebuildFrom(*B, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X of this type: the same diagonals and ghost columns everywhere add value by value; any
   other pattern merges through MPIAIJ */
static PetscErrorCode MatAXPY_MPIDiag(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_MPIDiag *cy = MPIDiagOf(Y), *cx = MPIDiagOf(X);
  PetscBool    same = PETSC_FALSE, all;
  Mat          P, Q;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(Y, "MatAXPY", PETSC_FALSE));
  PetscCall(MPIDiagCheck(X, "MatAXPY", PETSC_FALSE));
  {
    const DiagFormat *fy = &((Mat_SeqDiag *)cy->A->spptr)->fmt, *fx = &((Mat_SeqDiag *)cx->A->spptr)->fmt;

    if (fy->scheme == fx->scheme && fy->ndiag == fx->ndiag && cy->nghost == cx->nghost) {
      PetscCall(PetscArraycmp(fy->offset, fx->offset, fx->ndiag, &same));
      if (same) PetscCall(PetscArraycmp(cy->garray, cx->garray, cx->nghost, &same));
      if (same && cx->nghost) { /* the same entries in the off-process blocks */
        const PetscInt *yi, *yj, *xi, *xj;
        PetscInt        my, mx;
        PetscBool       dy, dx;

        PetscCall(MatGetRowIJ(cy->B, 0, PETSC_FALSE, PETSC_FALSE, &my, &yi, &yj, &dy));
        PetscCall(MatGetRowIJ(cx->B, 0, PETSC_FALSE, PETSC_FALSE, &mx, &xi, &xj, &dx));
        same = (PetscBool)(dy && dx && my == mx && yi[my] == xi[mx]);
        if (same) PetscCall(PetscArraycmp(yi, xi, my + 1, &same));
        if (same) PetscCall(PetscArraycmp(yj, xj, yi[my], &same));
        PetscCall(MatRestoreRowIJ(cx->B, 0, PETSC_FALSE, PETSC_FALSE, &mx, &xi, &xj, &dx));
        PetscCall(MatRestoreRowIJ(cy->B, 0, PETSC_FALSE, PETSC_FALSE, &my, &yi, &yj, &dy));
      }
    }
  }
  PetscCall(MPIU_Allreduce(&same, &all, 1, GPUMATS_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  if (all) {
    PetscCall(MatAXPY_SeqDiag(cy->A, a, cx->A, SAME_NONZERO_PATTERN));
    if (cx->nghost) PetscCall(MatAXPY(cy->B, a, cx->B, SAME_NONZERO_PATTERN));
    PetscCall(PetscObjectStateIncrease((PetscObject)Y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPIDiagToMPIAIJ(Y, &P));
  PetscCall(MPIDiagToMPIAIJ(X, &Q));
  PetscCall(MatAXPY(P, a, Q, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatDestroy(&Q));
  PetscCall(MPIDiagRequireFits(Y, &P, "MatAXPY"));
  PetscCall(MPIDiagRebuildFrom(Y, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatAXPY() with an X of another type: an mpidiag with the union of the two patterns, zeros */
PetscErrorCode MatAXPYGetPreallocation_MPIDiag(Mat Y, Mat X, Mat *B)
{
  Mat P, Q;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(Y, "MatAXPY", PETSC_FALSE));
  PetscCall(MPIDiagToMPIAIJ(Y, &P));
  PetscCall(MatConvert(X, MATMPIAIJ, MAT_INITIAL_MATRIX, &Q));
  PetscCall(MatAXPY(P, 1.0, Q, DIFFERENT_NONZERO_PATTERN)); /* the pattern is what counts */
  PetscCall(MatDestroy(&Q));
  PetscCall(MatZeroEntries(P));
  PetscCall(MPIDiagRequireFits(Y, &P, "MatAXPY"));
  PetscCall(MPIDiagNewFrom(Y, P, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrix_MPIDiag(Mat M, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat       P, S;
  PetscBool isdiag, fits;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatCreateSubMatrix", PETSC_FALSE));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(MatCreateSubMatrix(P, isrow, iscol, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatDestroy(&P));
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(PetscObjectTypeCompare((PetscObject)*B, MATMPIDIAG, &isdiag));
    if (isdiag) {
      PetscCall(MPIDiagRequireFits(*B, &S, "MatCreateSubMatrix"));
      PetscCall(MPIDiagRebuildFrom(*B, S));
    } else {
      PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatCopy(S, *B, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatDestroy(&S));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPIDiagCheckFits(M, S, "MatCreateSubMatrix", &fits));
  if (fits) PetscCall(MPIDiagNewFrom(M, S, B));
  else {
    PetscCall(PetscInfo(M, "MPIDIAG MatCreateSubMatrix: the submatrix spreads over too many diagonals for diag: mpiaij\n"));
    *B = S;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrices_MPIDiag(Mat M, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat P, *fresh;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatCreateSubMatrices", PETSC_FALSE));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(MatCreateSubMatrices(P, n, irow, icol, MAT_INITIAL_MATRIX, &fresh));
  PetscCall(MatDestroy(&P));
  if (scall == MAT_REUSE_MATRIX) {
    for (PetscInt i = 0; i < n; i++) PetscCall(DiagCopyAIJInto(fresh[i], (*submat)[i]));
    PetscCall(MatDestroySubMatrices(n, &fresh));
  } else *submat = fresh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCGASM's subdomains on subcommunicators: MPIAIJ blocks, made (and refilled: the MPIAIJ copy has
   the same structure as the one they came from) by PETSc's code */
static PetscErrorCode MatCreateSubMatricesMPI_MPIDiag(Mat M, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat P;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatCreateSubMatricesMPI", PETSC_FALSE));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(MatCreateSubMatricesMPI(P, n, irow, icol, scall, submat));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatIncreaseOverlap_MPIDiag(Mat M, PetscInt n, IS is[], PetscInt ov)
{
  Mat P;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheck(M, "MatIncreaseOverlap", PETSC_FALSE));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(MatIncreaseOverlap(P, n, is, ov));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIDiagInstallOps(Mat M)
{
  PetscFunctionBegin;
  M->ops->sor                  = MatSOR_MPIDiag;
  M->ops->zerorows             = MatZeroRows_MPIDiag;
  M->ops->zerorowscolumns      = MatZeroRowsColumns_MPIDiag;
  M->ops->diagonalscale        = MatDiagonalScale_MPIDiag;
  M->ops->diagonalset          = MatDiagonalSet_MPIDiag;
  M->ops->axpy                 = MatAXPY_MPIDiag;
  M->ops->createsubmatrix      = MatCreateSubMatrix_MPIDiag;
  M->ops->createsubmatrices    = MatCreateSubMatrices_MPIDiag;
  M->ops->createsubmatricesmpi = MatCreateSubMatricesMPI_MPIDiag;
  M->ops->increaseoverlap      = MatIncreaseOverlap_MPIDiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}
