/* Finite-difference Jacobians by colouring (MatFDColoringCreate/SetUp/Apply) into seqdiag and
   mpidiag, as SNES computes them without a user Jacobian.  Each colour perturbs its columns
   once; the columns of a colour are then visited along the stored diagonals (and the few
   off-process entries listed by colour at setup), so one Jacobian writes each entry once:
   O(nnz) besides the function evaluations, not O(colours x nnz).  The values are computed with
   the same operations as PETSc's AIJ version, so both give the same Jacobian bit for bit.
   A colouring is valid for the entries set before the first assembly (the DMDA's stencil), not
   for every slot of a stored diagonal (at a grid's edge (i, i+1) may join two colours' columns):
   the slots outside that structure get zeros, as AIJ, which has no such entries. */
#include "diag/diag_impl.h"

typedef struct {
  PetscInt *bstart; /* ncolors + 1: the off-process entries of colour k are bstart[k] .. bstart[k+1] */
  PetscInt *brow, *bpos, *bghost; /* their local row, place in the off-process block's values, ghost column */
  Vec       gscale; /* -mat_fd_type ds: 1/dx of the ghost columns */
} DiagFDColoring;

static PetscErrorCode DiagFDColoringDestroy(void *arg)
{
  DiagFDColoring *ctx = (DiagFDColoring *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree4(ctx->bstart, ctx->brow, ctx->bpos, ctx->bghost));
  PetscCall(VecDestroy(&ctx->gscale));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal block (a seqdiag) and, for mpidiag, the off-process block and its ghost scatter */
static PetscErrorCode DiagFDColoringBlocks(Mat J, Mat *A, Mat *B, VecScatter *scatter, Vec *lvec)
{
  PetscBool seq;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSEQDIAG, &seq));
  if (seq) *A = J, *B = NULL, *scatter = NULL, *lvec = NULL;
  else PetscCall(MatMPIDiagGetLocalBlocks(J, A, B, scatter, lvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries of local column jl of the diagonal block: row i on each stored diagonal, -1 where
   the diagonal misses the column (HM: outside the rows; CDM: the padding of an absent part) */
static inline PetscInt DiagColumnRow(const DiagFormat *f, PetscInt t, PetscInt jl, PetscInt64 *slot)
{
  const PetscInt off = f->offset[t];
  PetscInt       i   = jl - off;

  if (f->scheme == DIAG_SCHEME_HM) {
    if (i < 0 || i >= f->nrows) return -1;
    *slot = f->start[t] + (off < 0 ? jl : i); /* slot min(i, j) */
    return i;
  }
  if (i < 0) i += f->ncols;
  if (!(f->part[t] & (jl >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER))) return -1;
  *slot = f->start[t] + i;
  return i;
}

PetscErrorCode MatFDColoringCreate_Diag(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  PetscFunctionBegin;
  PetscCheck(c->ctype == IS_COLORING_GLOBAL, PetscObjectComm((PetscObject)J), PETSC_ERR_SUP, "diag MatFDColoringCreate: the colouring is IS_COLORING_LOCAL (ghosted numbering); diag takes IS_COLORING_GLOBAL, what SNES and DMCreateColoring(dm, IS_COLORING_GLOBAL, ...) give");
  c->M      = J->rmap->N;
  c->N      = J->cmap->N;
  c->m      = J->rmap->n;
  c->rstart = J->rmap->rstart;
  { /* index sets of our own, from the colour of each local column, which MatFDColoringDestroy
       frees; the colouring's own index sets are left to the other matrices it may serve */
    const ISColoringValue *colors;
    PetscInt               n, *count, **cols;

    PetscCall(ISColoringGetColors(iscoloring, &n, &c->ncolors, &colors));
    PetscCheck(n == J->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatFDColoringCreate: the colouring colours %" PetscInt_FMT " columns on this process, the matrix has %" PetscInt_FMT, n, J->cmap->n);
    PetscCall(PetscCalloc2(c->ncolors, &count, c->ncolors, &cols));
    for (PetscInt jl = 0; jl < n; jl++) count[colors[jl]]++;
    for (PetscInt k = 0; k < c->ncolors; k++) PetscCall(PetscMalloc1(count[k], &cols[k]));
    PetscCall(PetscArrayzero(count, c->ncolors));
    for (PetscInt jl = 0; jl < n; jl++) cols[colors[jl]][count[colors[jl]]++] = J->cmap->rstart + jl;
    PetscCall(PetscMalloc1(c->ncolors, &c->isa));
    for (PetscInt k = 0; k < c->ncolors; k++) PetscCall(ISCreateGeneral(PETSC_COMM_SELF, count[k], cols[k], PETSC_OWN_POINTER, &c->isa[k]));
    PetscCall(PetscFree2(count, cols));
  }
  PetscCall(PetscMalloc2(c->ncolors, &c->ncolumns, c->ncolors, &c->columns));
  PetscCall(PetscCalloc1(c->ncolors, &c->nrows));
  for (PetscInt k = 0; k < c->ncolors; k++) {
    const PetscInt *idx;

    PetscCall(ISGetLocalSize(c->isa[k], &c->ncolumns[k]));
    PetscCall(ISGetIndices(c->isa[k], &idx));
    c->columns[k] = (PetscInt *)idx; /* owned by the index set, which lives as long as c */
    PetscCall(ISRestoreIndices(c->isa[k], &idx));
    for (PetscInt l = 0; l < c->ncolumns[k]; l++)
      PetscCheck(idx[l] >= J->cmap->rstart && idx[l] < J->cmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatFDColoringCreate: colour %" PetscInt_FMT " lists column %" PetscInt_FMT ", which this process does not own (it owns [%" PetscInt_FMT ", %" PetscInt_FMT ")): give each process the colours of its own columns", k, idx[l], J->cmap->rstart, J->cmap->rend);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatFDColoringSetUp_Diag(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  DiagFDColoring *ctx;
  PetscContainer  container;
  Mat             A, B;
  VecScatter      scatter;
  Vec             lvec;
  DiagFormat     *f;
  const unsigned char *mask;

  PetscFunctionBegin;
  PetscCall(DiagFDColoringBlocks(J, &A, &B, &scatter, &lvec));
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatFDColoringSetUp: assemble the matrix first");
  f    = &((Mat_SeqDiag *)A->spptr)->fmt;
  mask = ((Mat_SeqDiag *)A->spptr)->structure_for == f->offset ? ((Mat_SeqDiag *)A->spptr)->structure : NULL;
  PetscCall(PetscNew(&ctx));
  /* rows hit by each colour in the diagonal block (what MatFDColoringView shows) */
  for (PetscInt k = 0; k < c->ncolors; k++)
    for (PetscInt l = 0; l < c->ncolumns[k]; l++)
      for (PetscInt t = 0; t < f->ndiag; t++) {
        PetscInt64 slot;

        if (DiagColumnRow(f, t, c->columns[k][l] - J->cmap->rstart, &slot) >= 0 && DiagStructureHas(mask, slot)) c->nrows[k]++;
      }
  if (B) { /* the off-process entries by the colour of their column, brought from its owner */
    Vec                colour, gcolour;
    PetscScalar       *cv;
    const PetscScalar *gc;
    const PetscInt    *bi, *bj;
    PetscInt           nb, *fill;
    PetscBool          done;

    PetscCall(MatCreateVecs(J, &colour, NULL));
    PetscCall(VecDuplicate(lvec, &gcolour));
    PetscCall(VecGetArrayWrite(colour, &cv));
    for (PetscInt k = 0; k < c->ncolors; k++)
      for (PetscInt l = 0; l < c->ncolumns[k]; l++) cv[c->columns[k][l] - J->cmap->rstart] = (PetscScalar)k;
    PetscCall(VecRestoreArrayWrite(colour, &cv));
    PetscCall(VecScatterBegin(scatter, colour, gcolour, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(scatter, colour, gcolour, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "mpidiag MatFDColoringSetUp: cannot read the off-process block");
    PetscCall(PetscMalloc4(c->ncolors + 1, &ctx->bstart, PetscMax(bi[nb], 1), &ctx->brow, PetscMax(bi[nb], 1), &ctx->bpos, PetscMax(bi[nb], 1), &ctx->bghost));
    PetscCall(PetscCalloc1(c->ncolors + 1, &fill));
    PetscCall(VecGetArrayRead(gcolour, &gc));
    for (PetscInt p = 0; p < bi[nb]; p++) fill[(PetscInt)PetscRealPart(gc[bj[p]]) + 1]++;
    for (PetscInt k = 0; k < c->ncolors; k++) fill[k + 1] += fill[k];
    PetscCall(PetscArraycpy(ctx->bstart, fill, c->ncolors + 1));
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt p = bi[i]; p < bi[i + 1]; p++) {
        const PetscInt k = (PetscInt)PetscRealPart(gc[bj[p]]), q = fill[k]++;

        ctx->brow[q] = i, ctx->bpos[q] = p, ctx->bghost[q] = bj[p];
        c->nrows[k]++;
      }
    PetscCall(VecRestoreArrayRead(gcolour, &gc));
    PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done));
    PetscCall(PetscFree(fill));
    PetscCall(VecDestroy(&colour));
    PetscCall(VecDestroy(&gcolour));
  }
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, ctx));
  PetscCall(GpuMatsContainerSetDestroy(container, DiagFDColoringDestroy));
  PetscCall(PetscObjectCompose((PetscObject)c, "DiagFDColoring", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatFDColoringApply_Diag(Mat J, MatFDColoring c, Vec x1, void *sctx)
{
  PetscErrorCode (*f)(void *, Vec, Vec, void *) = (PetscErrorCode(*)(void *, Vec, Vec, void *))(void (*)(void))c->f; /* through the generic function type */
  const PetscBool    wp = (PetscBool)(c->htype[0] == 'w');
  const PetscInt     cstart = J->cmap->rstart;
  DiagFDColoring    *ctx;
  PetscContainer     container;
  Mat                A, B;
  VecScatter         scatter;
  Vec                lvec;
  DiagFormat        *fm;
  PetscScalar        dx = 0, *w, *bv = NULL, *vs = NULL;
  const PetscScalar *xa, *f1, *f2, *gs = NULL;
  const unsigned char *mask;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)c, "DiagFDColoring", (PetscObject *)&container));
  PetscCheck(container, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_WRONGSTATE, "diag MatFDColoringApply: call MatFDColoringSetUp() first");
  PetscCall(PetscContainerGetPointer(container, (void **)&ctx));
  PetscCall(DiagFDColoringBlocks(J, &A, &B, &scatter, &lvec));
  fm   = &((Mat_SeqDiag *)A->spptr)->fmt;
  mask = ((Mat_SeqDiag *)A->spptr)->structure_for == fm->offset ? ((Mat_SeqDiag *)A->spptr)->structure : NULL;
  /* F(x1), unless the caller gave it (MatFDColoringSetF) */
  if (!c->fset) {
    PetscCall(PetscLogEventBegin(MAT_FDColoringFunction, c, 0, 0, 0));
    PetscCall((*f)(sctx, x1, c->w1, c->fctx));
    PetscCall(PetscLogEventEnd(MAT_FDColoringFunction, c, 0, 0, 0));
  } else c->fset = PETSC_FALSE;
  /* the perturbations: one for all columns (wp), or one a column (ds) */
  if (wp) {
    PetscReal unorm;

    PetscCall(VecNorm(x1, NORM_2, &unorm));
    dx = 1.0 / (PetscSqrtReal(1.0 + unorm) * c->error_rel);
  } else {
    if (!c->vscale) PetscCall(VecDuplicate(x1, &c->vscale));
    PetscCall(VecGetArrayRead(x1, &xa));
    PetscCall(VecGetArrayWrite(c->vscale, &vs));
    for (PetscInt jl = 0; jl < J->cmap->n; jl++) {
      PetscScalar h = xa[jl];

      if (PetscAbsScalar(h) < c->umin) h = PetscRealPart(h) >= 0 ? c->umin : -c->umin;
      vs[jl] = 1.0 / (h * c->error_rel);
    }
    PetscCall(VecRestoreArrayRead(x1, &xa));
    PetscCall(VecRestoreArrayWrite(c->vscale, &vs));
    if (B) {
      if (!ctx->gscale) PetscCall(VecDuplicate(lvec, &ctx->gscale));
      PetscCall(VecScatterBegin(scatter, c->vscale, ctx->gscale, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(scatter, c->vscale, ctx->gscale, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecGetArrayRead(ctx->gscale, &gs));
    }
    PetscCall(VecGetArrayRead(c->vscale, (const PetscScalar **)&vs));
  }
  if (!c->w3) PetscCall(VecDuplicate(x1, &c->w3));
  PetscCall(VecCopy(x1, c->w3));
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (B) { /* its host values current first where its device copy ran ahead (device COO values) */
    PetscCall(GpuMatsAheadSync(B, "the colouring's Jacobian"));
    PetscCall(MatSeqAIJGetArray(B, &bv));
  }
  for (PetscInt k = 0; k < c->ncolors; k++) {
    const PetscInt *cols = c->columns[k], ncols = c->ncolumns[k];

    c->currentcolor = k;
    PetscCall(VecGetArray(c->w3, &w));
    for (PetscInt l = 0; l < ncols; l++) w[cols[l] - cstart] += wp ? 1.0 / dx : 1.0 / vs[cols[l] - cstart];
    PetscCall(VecRestoreArray(c->w3, &w));
    PetscCall(PetscLogEventBegin(MAT_FDColoringFunction, c, 0, 0, 0));
    PetscCall((*f)(sctx, c->w3, c->w2, c->fctx));
    PetscCall(PetscLogEventEnd(MAT_FDColoringFunction, c, 0, 0, 0));
    /* back to x1 where this colour moved it: cheaper than a copy of the vector per colour */
    PetscCall(VecGetArray(c->w3, &w));
    PetscCall(VecGetArrayRead(x1, &xa));
    for (PetscInt l = 0; l < ncols; l++) w[cols[l] - cstart] = xa[cols[l] - cstart];
    PetscCall(VecRestoreArrayRead(x1, &xa));
    PetscCall(VecRestoreArray(c->w3, &w));
    /* J(i, j) = (F(x + h e_j) - F(x))_i / h for the columns j of this colour */
    PetscCall(VecGetArrayRead(c->w1, &f1));
    PetscCall(VecGetArrayRead(c->w2, &f2));
    for (PetscInt l = 0; l < ncols; l++) {
      const PetscInt    jl    = cols[l] - cstart;
      const PetscScalar scale = wp ? dx : vs[jl];

      for (PetscInt t = 0; t < fm->ndiag; t++) {
        PetscInt64     slot;
        const PetscInt i = DiagColumnRow(fm, t, jl, &slot);

        if (i >= 0) fm->val[slot] = DiagStructureHas(mask, slot) ? (f2[i] - f1[i]) * scale : 0;
      }
    }
    if (B)
      for (PetscInt p = ctx->bstart[k]; p < ctx->bstart[k + 1]; p++) bv[ctx->bpos[p]] = (f2[ctx->brow[p]] - f1[ctx->brow[p]]) * (wp ? dx : gs[ctx->bghost[p]]);
    PetscCall(VecRestoreArrayRead(c->w2, &f2));
    PetscCall(VecRestoreArrayRead(c->w1, &f1));
  }
  c->currentcolor = -1;
  if (!wp) {
    PetscCall(VecRestoreArrayRead(c->vscale, (const PetscScalar **)&vs));
    if (gs) PetscCall(VecRestoreArrayRead(ctx->gscale, &gs));
  }
  if (B) PetscCall(MatSeqAIJRestoreArray(B, &bv));
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}
