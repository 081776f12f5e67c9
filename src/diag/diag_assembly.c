/* MATSEQDIAG assembly: MatSetUp (a DMDA's stencil at once, diag_dmda.c, else the staging),
   MatSetValues and MatSetValuesLocal (into the staging until the first assembly finds the
   diagonals, in place after it in O(1) an entry), MatAssemblyBegin/End, the whole matrix from
   CSR arrays, MatSetOption. */
#include "diag/diag_impl.h"

PetscErrorCode MatDiagSetUpLayout_SeqDiag(Mat A)
{
  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  PetscCheck(A->rmap->n >= 0 && A->cmap->n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: rows and columns must be nonnegative, not %" PetscInt_FMT " x %" PetscInt_FMT, A->rmap->n, A->cmap->n);
  A->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With a DMDA attached (DMCreateMatrix's generic path) the stencil's diagonals, assembled;
   otherwise the staging of the entries to come */
PetscErrorCode MatSetUp_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DM           dm;
  PetscBool    built = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDiagSetUpLayout_SeqDiag(A));
  if (d->has_format || d->stage) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(MatDiagFromDMDA_SeqDiag(A, dm, &built));
  if (!built) PetscCall(DiagStageCreate(A->rmap->n, A->cmap->n, &d->stage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- in place, once the diagonals are known ---------------------------------- */

/* where[]: the stored diagonal of every offset, so that an entry finds its slot by index
   arithmetic (a binary search over the diagonals would cost log(ndiag) an entry) */
static PetscErrorCode DiagBuildWhere(Mat_SeqDiag *d)
{
  const DiagFormat *f     = &d->fmt;
  const PetscInt    range = f->scheme == DIAG_SCHEME_HM ? f->nrows + f->ncols - 1 : f->ncols;

  PetscFunctionBegin;
  PetscCall(PetscFree(d->where));
  PetscCall(PetscMalloc1(PetscMax(range, 1), &d->where));
  for (PetscInt r = 0; r < range; r++) d->where[r] = -1;
  for (PetscInt t = 0; t < f->ndiag; t++) d->where[f->scheme == DIAG_SCHEME_HM ? f->offset[t] + f->nrows - 1 : f->offset[t]] = t;
  d->where_for = f->offset;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value slot of entry (i, j), or NULL when no stored diagonal holds it.  CDM: an entry in
   the absent part of a stored compact diagonal uses the padding that is already there. */
static inline PetscScalar *DiagSlotAddress(Mat_SeqDiag *d, PetscInt i, PetscInt j)
{
  DiagFormat *f = &d->fmt;
  PetscInt    t;

  if (f->scheme == DIAG_SCHEME_HM) {
    const PetscInt off = j - i;

    t = d->where[off + f->nrows - 1];
    return t < 0 ? NULL : f->val + f->start[t] + (off < 0 ? j : i); /* slot min(i, j) */
  }
  t = d->where[j >= i ? j - i : j - i + f->ncols];
  if (t < 0) return NULL;
  f->part[t] |= j >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER;
  return f->val + f->start[t] + i;
}

PetscScalar *MatDiagSlot_SeqDiag(Mat A, PetscInt i, PetscInt j)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  if (!d->where || d->where_for != d->fmt.offset) {
    if (DiagBuildWhere(d)) return NULL;
  }
  return DiagSlotAddress(d, i, j);
}

/* The structure bits of the entries of CSR rows (local indices) on A's current diagonals */
PetscErrorCode MatDiagStructureFromCSR_SeqDiag(Mat A, const PetscInt ai[], const PetscInt aj[])
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscFree(d->structure));
  PetscCall(PetscCalloc1(d->fmt.start[d->fmt.ndiag] / 8 + 1, &d->structure));
  if (!d->where || d->where_for != d->fmt.offset) PetscCall(DiagBuildWhere(d));
  for (PetscInt i = 0; i < A->rmap->n; i++)
    for (PetscInt p = ai[i]; p < ai[i + 1]; p++) {
      PetscScalar *slot = DiagSlotAddress(d, i, aj[p]);

      if (slot) DiagStructureSet(d->structure, slot - d->fmt.val);
    }
  d->structure_for = d->fmt.offset;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagOffPattern(Mat A, PetscInt i, PetscInt j)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
          "diag MatSetValues: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") lies on diagonal %" PetscInt_FMT ", which this matrix does not store (it stores %" PetscInt_FMT " diagonals, found at its first assembly: the stencil's with DMCreateMatrix). Set an entry on every diagonal you need before the first MatAssemblyEnd (zeros count), or use an AIJ matrix",
          i, j, j - i, ((Mat_SeqDiag *)A->spptr)->fmt.ndiag);
}

/* After the first assembly the diagonals are fixed: an entry on a stored diagonal is set in
   place; an exact zero elsewhere changes nothing and is dropped (so is any value with
   MAT_NEW_NONZERO_LOCATIONS false); any other value is an error that says what to do. */
static PetscErrorCode DiagSetInPlace(Mat A, PetscInt mr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (!d->where || d->where_for != d->fmt.offset) PetscCall(DiagBuildWhere(d));
  for (PetscInt r = 0; r < mr; r++) {
    const PetscInt i = rows[r];

    if (i < 0) continue; /* PETSc's convention: negative indices are ignored */
    PetscCheck(i < A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSetValues: row %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", i, A->rmap->n);
    for (PetscInt c = 0; c < nc; c++) {
      const PetscInt    j     = cols[c];
      const PetscScalar value = v ? v[d->column_oriented ? c * mr + r : r * nc + c] : 0;
      PetscScalar      *slot;

      if (j < 0) continue;
      PetscCheck(j < A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSetValues: column %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", j, A->cmap->n);
      slot = DiagSlotAddress(d, i, j);
      if (!slot) {
        if (value == (PetscScalar)0 || d->ignore_new_nonzeros) continue;
        PetscCall(DiagOffPattern(A, i, j));
      }
      if (mode == ADD_VALUES) *slot += value;
      else *slot = value;
    }
  }
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetValues_SeqDiag(Mat A, PetscInt mr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (!d->has_format && !d->stage) PetscCall(MatSetUp_SeqDiag(A));
  if (d->stage) PetscCall(DiagStageAdd(d->stage, mr, rows, nc, cols, v, d->column_oriented, mode));
  else PetscCall(DiagSetInPlace(A, mr, rows, nc, cols, v, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetValuesLocal (MatSetValuesStencil's path, a row at a time): the local indices mapped
   here through the block indices of the local-to-global maps, then set as MatSetValues does;
   PETSc's generic path maps each call into buffers and passes it through MatSetValues again */
static PetscErrorCode DiagMapLocal(ISLocalToGlobalMapping map, PetscInt n, const PetscInt local[], PetscInt global[])
{
  const PetscInt *block;
  PetscInt        bs, size;

  PetscFunctionBegin;
  if (!map) {
    PetscCall(PetscArraycpy(global, local, n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ISLocalToGlobalMappingGetBlockSize(map, &bs));
  PetscCall(ISLocalToGlobalMappingGetSize(map, &size));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(map, &block));
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt l = local[k];

    PetscCheck(l < size, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSetValuesLocal: local index %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ") of the local-to-global map", l, size);
    global[k] = l < 0 ? -1 : (bs == 1 ? block[l] : (block[l / bs] < 0 ? -1 : bs * block[l / bs] + l % bs));
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(map, &block));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesLocal_SeqDiag(Mat A, PetscInt mr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  PetscInt  buf[128], *grows = buf, *gcols;

  PetscFunctionBegin;
  if (mr + nc > (PetscInt)PETSC_STATIC_ARRAY_LENGTH(buf)) PetscCall(PetscMalloc1(mr + nc, &grows));
  gcols = grows + mr;
  PetscCall(DiagMapLocal(A->rmap->mapping, mr, rows, grows));
  PetscCall(DiagMapLocal(A->cmap->mapping, nc, cols, gcols));
  PetscCall(MatSetValues_SeqDiag(A, mr, grows, nc, gcols, v, mode));
  if (grows != buf) PetscCall(PetscFree(grows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the first assembly: the diagonals from the staging ---------------------- */

static PetscErrorCode MatDiagBuildFromStage_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagStage   *s = d->stage;
  DiagScheme   automatic, scheme;
  PetscInt64   hm, cdm, stored;
  DiagFormat   fmt;
  DiagStatus   st;

  PetscFunctionBegin;
  PetscCall(DiagCheckStatus(DiagChooseSchemeFromOffsets(s->m, s->n, s->present, &automatic, &hm, &cdm), A, "Choosing the scheme"));
  PetscCall(MatDiagPickScheme_SeqDiag(A, automatic, hm, cdm, &scheme));
  st = DiagFromOffsets(scheme, s->m, s->n, s->present, s->nset, d->settings.max_fill, &stored, &fmt);
  if (st == DIAG_ERR_TOO_SPREAD && A->rmap->n != A->cmap->n) { /* a rectangular one becomes pcsr (diag_rectangular.c) */
    PetscCall(MatDiagStageBecomePCSR_SeqDiag(A, s, fmt.ndiag));
    PetscFunctionReturn(PETSC_SUCCESS); /* A's diag context is gone */
  }
  PetscCall(MatDiagCheckBuilt_SeqDiag(A, st, &fmt, scheme, stored));
  d->stage = NULL;
  PetscCall(MatDiagSetFormat_SeqDiag(A, &fmt));
  PetscCall(DiagBuildWhere(d));
  PetscCall(PetscCalloc1(d->fmt.start[d->fmt.ndiag] / 8 + 1, &d->structure));
  d->structure_for = d->fmt.offset;
  for (PetscInt64 p = 0; p < s->values.count; p++) { /* in the order set: INSERT after ADD overwrites */
    PetscScalar *slot = DiagSlotAddress(d, s->values.ti[p], s->values.tj[p]);

    if (s->values.tadd[p]) *slot += s->values.tv[p];
    else *slot = s->values.tv[p];
    DiagStructureSet(d->structure, slot - d->fmt.val);
  }
  PetscCall(DiagStageDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAssemblyBegin_SeqDiag(Mat A, MatAssemblyType type)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAssemblyEnd_SeqDiag(Mat A, MatAssemblyType type)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (!d->has_format && !d->stage) PetscCall(MatSetUp_SeqDiag(A)); /* assembled with no entries */
  if (d->stage && type == MAT_FINAL_ASSEMBLY) PetscCall(MatDiagBuildFromStage_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetOption_SeqDiag(Mat A, MatOption op, PetscBool flg)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  switch (op) {
  case MAT_IGNORE_ZERO_ENTRIES: /* only while the pattern is collected: after it, zeros off the diagonals are dropped anyway */
    if (!d->has_format && !d->stage && (A->rmap->n >= 0 || A->rmap->N >= 0) && (A->cmap->n >= 0 || A->cmap->N >= 0)) PetscCall(MatSetUp_SeqDiag(A));
    if (d->stage) d->stage->ignore_zero_entries = flg;
    break;
  case MAT_NEW_NONZERO_LOCATIONS:
    d->ignore_new_nonzeros = (PetscBool)!flg;
    break;
  case MAT_ROW_ORIENTED:
    d->column_oriented = (PetscBool)!flg;
    break;
  default: /* MAT_NEW_NONZERO_LOCATION_ERR and MAT_NEW_NONZERO_ALLOCATION_ERR: entries off the diagonals are errors already */
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the whole matrix from CSR arrays ------------------------------------------- */

/* The whole matrix at once: its diagonals straight from the CSR arrays, assembled as AIJ's is */
static PetscErrorCode MatSeqAIJSetPreallocationCSR_SeqDiag(Mat A, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[])
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagScheme   automatic, scheme;
  PetscInt64   hm, cdm, stored;
  DiagFormat   fmt;
  DiagStatus   st;

  PetscFunctionBegin;
  PetscCall(MatDiagSetUpLayout_SeqDiag(A));
  PetscCheck(!A->rmap->n || ai[0] == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSeqAIJSetPreallocationCSR: i[0] is %" PetscInt_FMT ", must be 0", ai[0]);
  PetscCall(DiagStageDestroy(&d->stage));
  PetscCall(DiagCheckStatus(DiagChooseScheme(A->rmap->n, A->cmap->n, ai, aj, &automatic, &hm, &cdm), A, "Choosing the scheme"));
  PetscCall(MatDiagPickScheme_SeqDiag(A, automatic, hm, cdm, &scheme));
  st = DiagFromCSR(scheme, A->rmap->n, A->cmap->n, ai, aj, aa, d->settings.max_fill, &stored, &fmt);
  PetscCheck(st != DIAG_ERR_ARGUMENT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSeqAIJSetPreallocationCSR: a column index is outside [0, %" PetscInt_FMT ")", A->cmap->n);
  PetscCall(MatDiagCheckBuilt_SeqDiag(A, st, &fmt, scheme, stored));
  PetscCall(MatDiagSetFormat_SeqDiag(A, &fmt));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSeqAIJSetPreallocation is not composed: diag needs no counts (the staging grows with the
   entries set), and without it DMCreateMatrix takes PETSc's generic path, MatSetUp with the DM
   attached (above), instead of counting and inserting the stencil's zeros entry by entry. */
PetscErrorCode MatDiagComposeAssembly_SeqDiag(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqAIJSetPreallocationCSR_C", set ? MatSeqAIJSetPreallocationCSR_SeqDiag : NULL));
  if (set) {
    A->ops->setvalueslocal   = MatSetValuesLocal_SeqDiag;
    A->ops->fdcoloringcreate = MatFDColoringCreate_Diag;
    A->ops->fdcoloringsetup  = MatFDColoringSetUp_Diag;
    A->ops->fdcoloringapply  = MatFDColoringApply_Diag;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
