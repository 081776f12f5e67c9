/* Y = a X + Y for a MATSEQDIAG Y and any X.  The result holds the union of both sets of
   diagonals (refused, with a message naming -mat_diag_max_fill, only if that union would
   store more values than the fill limit allows), whatever MatStructure says: the flag
   only tells AIJ whether it may skip the pattern merge.
   PETSc reaches this file by two roads: MatAXPY() calls ops->axpy when X is diag too
   (MatAXPY_SeqDiag, either scheme), and for another X (AIJ of any pattern, dense, ...)
   with DIFFERENT_ or UNKNOWN_NONZERO_PATTERN it asks Y for a matrix of the merged
   pattern ("MatAXPYGetPreallocation_C"), adds Y's and a X's rows into it and puts it in
   Y's place.  With SAME_ or SUBSET_NONZERO_PATTERN it adds X's rows into Y by
   MatSetValues(), which accepts entries on Y's diagonals. */
#include "diag/diag_solverops.h"

PetscErrorCode DiagCheckFill(Mat A, const char *op, PetscInt ndiag, PetscInt64 stored, PetscInt64 nnz, PetscReal max_fill)
{
  PetscFunctionBegin;
  PetscCheck(!(max_fill > 0 && (double)stored > max_fill * (double)PetscMax(nnz, 1)), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag %s: the result's %" PetscInt64_FMT " nonzeros (at least) would lie on %" PetscInt_FMT " diagonals, so it would store %" PetscInt64_FMT " values, %.1f times the nonzeros (the limit is -mat_diag_max_fill %g). Use an AIJ matrix for this result, or raise -mat_diag_max_fill (0: no limit)",
             op, nnz, ndiag, stored, (double)stored / (double)PetscMax(nnz, 1), (double)max_fill);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* marks[] (size of the offset range of Y's scheme: HM d + m - 1, CDM k with its parts) gets the
   diagonals of the entries (i, j), counted in *fresh when Y does not store their diagonal */
static void DiagMarkEntry(const DiagFormat *fy, PetscInt i, PetscInt j, unsigned char *marks, PetscInt64 *fresh)
{
  const PetscInt n = fy->ncols;

  if (fy->scheme == DIAG_SCHEME_HM) {
    const PetscInt d = j - i;

    marks[d + fy->nrows - 1] = 1;
    if (DiagFind(fy, d) < 0) (*fresh)++;
  } else {
    const PetscInt k = (PetscInt)(((PetscInt64)j - i + n) % n);
    const PetscInt t = DiagFind(fy, k);

    marks[k] |= j >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER;
    if (t < 0) (*fresh)++;
  }
}

/* The values the union of Y's diagonals and the marked ones would store, and its nonzeros: Y's
   own diagonals count as entries (it was accepted with them), a new diagonal adds its length to
   the values and only the entries of X on it to the nonzeros */
static void DiagUnionSize(const DiagFormat *fy, const unsigned char *marks, PetscInt64 fresh, PetscInt *ndiag, PetscInt64 *stored, PetscInt64 *nnz)
{
  const PetscInt m = fy->nrows, n = fy->ncols, range = fy->scheme == DIAG_SCHEME_HM ? m + n : n;

  *ndiag  = fy->ndiag;
  *stored = fy->start[fy->ndiag];
  *nnz    = DiagPatternSize(fy) + fresh;
  for (PetscInt r = 0; r < range; r++) {
    const PetscInt off = fy->scheme == DIAG_SCHEME_HM ? r - (m - 1) : r;

    if (marks[r] && DiagFind(fy, off) < 0) {
      *stored += fy->scheme == DIAG_SCHEME_HM ? DiagHMLength(m, n, off) : n;
      (*ndiag)++;
    }
  }
}

/* Y's format extended by the marked diagonals (values copied, new ones zero) into *g, after the
   fill check; marks is freed (also when the check refuses) */
static PetscErrorCode DiagUnionFormat(Mat Y, unsigned char **marks, PetscInt64 fresh, const char *op, DiagFormat *g)
{
  Mat_SeqDiag   *d  = (Mat_SeqDiag *)Y->spptr;
  DiagFormat    *fy = &d->fmt;
  const PetscInt m = fy->nrows, n = fy->ncols, range = fy->scheme == DIAG_SCHEME_HM ? m + n : n;
  PetscInt      *extra, nextra = 0, ndiag;
  unsigned char *part;
  PetscInt64     stored, nnz;

  PetscFunctionBegin;
  DiagUnionSize(fy, *marks, fresh, &ndiag, &stored, &nnz);
  if (d->settings.max_fill > 0 && (double)stored > d->settings.max_fill * (double)PetscMax(nnz, 1)) PetscCall(PetscFree(*marks));
  PetscCall(DiagCheckFill(Y, op, ndiag, stored, nnz, d->settings.max_fill));
  PetscCall(PetscMalloc2(PetscMax(range, 1), &extra, PetscMax(range, 1), &part));
  for (PetscInt r = 0; r < range; r++) {
    if (!(*marks)[r]) continue;
    extra[nextra] = fy->scheme == DIAG_SCHEME_HM ? r - (m - 1) : r;
    part[nextra++] = fy->scheme == DIAG_SCHEME_HM ? DIAG_PART_UPPER : (*marks)[r];
  }
  PetscCall(PetscFree(*marks));
  PetscCall(DiagCheckStatus(DiagFormatWithDiagonals(fy, nextra, extra, fy->scheme == DIAG_SCHEME_CDM ? part : NULL, g), Y, op));
  g->nnz = nnz;
  PetscCall(PetscFree2(extra, part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagMarksAlloc(const DiagFormat *fy, unsigned char **marks)
{
  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(fy->scheme == DIAG_SCHEME_HM ? fy->nrows + fy->ncols : fy->ncols, 1), marks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAXPY_SeqDiag(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_SeqDiag *dy = (Mat_SeqDiag *)Y->spptr, *dx = (Mat_SeqDiag *)X->spptr;
  DiagFormat  *fx = &dx->fmt, *fy;
  PetscBool    isdiag, same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQDIAG, &isdiag));
  PetscCheck(isdiag, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag MatAXPY: X is a %s; MatAXPY() reaches this routine with a diag X only", ((PetscObject)X)->type_name);
  PetscCheck(Y->rmap->n == X->rmap->n && Y->cmap->n == X->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatAXPY: Y is %" PetscInt_FMT " x %" PetscInt_FMT ", X %" PetscInt_FMT " x %" PetscInt_FMT, Y->rmap->n, Y->cmap->n, X->rmap->n, X->cmap->n);
  PetscCheck(dy->has_format && dx->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatAXPY: assemble both matrices first");
  fy = &dy->fmt;
  if (fy->scheme == fx->scheme && fy->ndiag == fx->ndiag) PetscCall(PetscArraycmp(fy->offset, fx->offset, fx->ndiag, &same));
#if GPUMATS_HAVE_CUDA
  if (same) {
    PetscBool y_dev, x_dev;

    PetscCall(MatDiagValuesOnDevice_SeqDiag(Y, &y_dev));
    PetscCall(MatDiagValuesOnDevice_SeqDiag(X, &x_dev));
    if (y_dev && x_dev) { /* both current on the device: one AXPY there, no copy */
      PetscCall(DiagDeviceAXPYValues(dy->dev, a, dx->dev));
      if (fy->part)
        for (PetscInt t = 0; t < fy->ndiag; t++) fy->part[t] |= fx->part[t];
      PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)fy->start[fy->ndiag]));
      PetscCall(MatDiagDeviceChanged_SeqDiag(Y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(MatDiagSyncHost_SeqDiag(Y));
  PetscCall(MatDiagSyncHost_SeqDiag(X));
  if (same) { /* the same diagonals: one AXPY over the stored values (CDM padding holds zeros) */
    for (PetscInt64 p = 0; p < fy->start[fy->ndiag]; p++) fy->val[p] += a * fx->val[p];
    if (fy->part)
      for (PetscInt t = 0; t < fy->ndiag; t++) fy->part[t] |= fx->part[t];
  } else {
    unsigned char *marks;
    PetscInt64     fresh = 0;
    DiagFormat     g;

    PetscCall(DiagMarksAlloc(fy, &marks));
    for (PetscInt t = 0; t < fx->ndiag; t++)
      for (PetscInt64 p = 0; p < fx->start[t + 1] - fx->start[t]; p++) {
        PetscInt i, j;

        if (DiagSlotEntry(fx, t, p, &i, &j)) DiagMarkEntry(fy, i, j, marks, &fresh);
      }
    PetscCall(DiagUnionFormat(Y, &marks, fresh, "MatAXPY", &g));
    if (g.ndiag != fy->ndiag) PetscCall(MatDiagSetFormat_SeqDiag(Y, &g));
    else { /* no new diagonal (CDM: perhaps new parts, whose slots are there): Y keeps its storage */
      if (fy->part) PetscCall(PetscArraycpy(fy->part, g.part, fy->ndiag));
      DiagFormatFree(&g);
    }
    fy = &dy->fmt;
    for (PetscInt t = 0; t < fx->ndiag; t++)
      for (PetscInt64 p = 0; p < fx->start[t + 1] - fx->start[t]; p++) {
        PetscInt   i, j, u;
        PetscInt64 slot;

        if (!DiagSlotEntry(fx, t, p, &i, &j)) continue;
        u = DiagLocate(fy, i, j, &slot); /* present: the union holds X's diagonals */
        fy->val[fy->start[u] + slot] += a * fx->val[fx->start[t] + p];
      }
  }
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)fx->start[fx->ndiag]));
  PetscCall(MatDiagHostChanged_SeqDiag(Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new seqdiag like Y (settings, backend, prefix) with the union of Y's diagonals and those
   of X's entries, all values zero: MatAXPY_Basic() adds Y and a X into it. */
PetscErrorCode MatAXPYGetPreallocation_SeqDiag(Mat Y, Mat X, Mat *B)
{
  Mat_SeqDiag   *dy = (Mat_SeqDiag *)Y->spptr;
  unsigned char *marks;
  PetscInt64     fresh = 0;
  DiagFormat     g;

  PetscFunctionBegin;
  PetscCheck(dy->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatAXPY: assemble Y first");
  PetscCall(MatDiagSyncHost_SeqDiag(Y));
  PetscCall(DiagMarksAlloc(&dy->fmt, &marks));
  PetscCall(MatGetRowUpperTriangular(X));
  for (PetscInt i = 0; i < X->rmap->n; i++) {
    PetscInt        nz;
    const PetscInt *cols;

    PetscCall(MatGetRow(X, i, &nz, &cols, NULL));
    for (PetscInt k = 0; k < nz; k++) DiagMarkEntry(&dy->fmt, i, cols[k], marks, &fresh);
    PetscCall(MatRestoreRow(X, i, &nz, &cols, NULL));
  }
  PetscCall(MatRestoreRowUpperTriangular(X));
  PetscCall(DiagUnionFormat(Y, &marks, fresh, "MatAXPY", &g));
  PetscCall(PetscArrayzero(g.val, g.start[g.ndiag]));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)Y), B));
  PetscCall(MatSetSizes(*B, Y->rmap->n, Y->cmap->n, Y->rmap->N, Y->cmap->N));
  PetscCall(MatSetType(*B, MATSEQDIAG));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*B, ((PetscObject)Y)->prefix));
  ((Mat_SeqDiag *)(*B)->spptr)->settings = dy->settings;
  PetscCall(GpuMatsFormatSetBackend(*B, dy->base.backend));
  PetscCall(PetscLayoutSetUp((*B)->rmap));
  PetscCall(PetscLayoutSetUp((*B)->cmap));
  (*B)->preallocated = PETSC_TRUE;
  PetscCall(MatDiagSetFormat_SeqDiag(*B, &g));
  (*B)->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
