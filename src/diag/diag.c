/* MATSEQDIAG: the type itself — creation and its ops table, where the values live (host,
   device), the diagonals found from AIJ and AIJ made from them, values and rows read,
   conversion, load, duplication, destruction.  MatSetUp, MatSetValues and assembly:
   diag_assembly.c; settings, options and MatView: diag_options.c; the products:
   diag_ops.c (with vectors and dense matrices), diag_product*.c (sparse); the algebra:
   diag_algebra.c; the solvers' operations: diag_solverops.h. */
#include "diag/diag_solverops.h"
#include "common/gpumats_coo.h"


PetscErrorCode DiagCheckStatus(DiagStatus st, Mat A, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(st != DIAG_ERR_MEMORY, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s of a %" PetscInt_FMT " x %" PetscInt_FMT " diag matrix: out of host memory", what, A->rmap->n, A->cmap->n);
  PetscCheck(st != DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s of a %" PetscInt_FMT " x %" PetscInt_FMT " diag matrix: its rows + columns on this process (or those of an operand or of the product) exceed the largest PetscInt, %" PetscInt_FMT ": use more MPI processes", what, A->rmap->n, A->cmap->n, PETSC_MAX_INT);
  PetscCheck(st == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s of a %" PetscInt_FMT " x %" PetscInt_FMT " diag matrix: %s", what, A->rmap->n, A->cmap->n, DiagStatusString(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagCheckDeviceSize(const DiagFormat *f)
{
  PetscFunctionBegin;
  PetscCheck(DiagFitsDeviceIndices(f->nrows, f->ncols), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: the device copy of a %" PetscInt_FMT " x %" PetscInt_FMT " block (%" PetscInt_FMT " diagonals) on this process needs rows + columns <= %" PetscInt64_FMT " for its 32-bit indices (a square block: at most %" PetscInt64_FMT " rows): use more MPI processes (one GPU each), or -mat_gpumats_backend host",
             f->nrows, f->ncols, f->ndiag, (PetscInt64)DIAG_MAX_DEVICE_ROWS_PLUS_COLS, (PetscInt64)DIAG_MAX_DEVICE_ROWS_PLUS_COLS / 2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- where the values are -------------------------------------------------- */

PetscErrorCode MatDiagSyncHost_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (d->has_format && !d->fmt.val) { /* a product's C: its values were made on the device, or not yet */
    PetscCall(PetscInfo(A, "DIAG: the host copy of the values allocated (%" PetscInt64_FMT " values)\n", d->fmt.start[d->fmt.ndiag]));
    d->fmt.val = (PetscScalar *)calloc((size_t)PetscMax(d->fmt.start[d->fmt.ndiag], 1), sizeof(PetscScalar));
    PetscCheck(d->fmt.val, PETSC_COMM_SELF, PETSC_ERR_MEM, "diag: out of host memory for the %" PetscInt64_FMT " values of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix (%.1f MB)", d->fmt.start[d->fmt.ndiag], A->rmap->n, A->cmap->n, (double)d->fmt.start[d->fmt.ndiag] * sizeof(PetscScalar) / 1048576.0);
  }
#if GPUMATS_HAVE_CUDA
  if (d->values_at == DIAG_VALUES_DEVICE) {
    PetscCall(DiagDeviceGetValues(d->dev, &d->fmt));
    d->values_at = DIAG_VALUES_BOTH;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagSyncDevice_SeqDiag(Mat A)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  if (d->dev && d->values_at != DIAG_VALUES_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  if (!d->fmt.val) PetscCall(MatDiagSyncHost_SeqDiag(A)); /* a product's C never computed: zeros */
  PetscCall(PetscLogEventBegin(GPUMATS_FormatUpload, A, 0, 0, 0));
  if (!d->dev) {
    PetscCall(DiagCheckDeviceSize(&d->fmt));
    PetscCall(DiagDeviceCreate(&d->fmt, &d->dev));
    PetscCall(PetscInfo(A, "DIAG copied to the device: %" PetscInt_FMT " diagonals, %.1f MB of values\n", d->fmt.ndiag, (double)d->fmt.start[d->fmt.ndiag] * sizeof(PetscScalar) / 1048576.0));
  } else PetscCall(DiagDeviceCopyValues(d->dev, &d->fmt));
  d->values_at = DIAG_VALUES_BOTH;
  PetscCall(PetscLogEventEnd(GPUMATS_FormatUpload, A, 0, 0, 0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagHostChanged_SeqDiag(Mat A)
{
  PetscFunctionBegin;
  ((Mat_SeqDiag *)A->spptr)->values_at = DIAG_VALUES_HOST;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagValuesOnDevice_SeqDiag(Mat A, PetscBool *on)
{
  PetscFunctionBegin;
  *on = PETSC_FALSE;
#if GPUMATS_HAVE_CUDA
  {
    Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

    if (d->has_format && d->dev && d->values_at != DIAG_VALUES_HOST) PetscCall(GpuMatsBackendUsesDevice(A, d->base.backend, on));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagDeviceChanged_SeqDiag(Mat A)
{
  PetscFunctionBegin;
  ((Mat_SeqDiag *)A->spptr)->values_at = DIAG_VALUES_DEVICE;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagFreeDevice(Mat_SeqDiag *d)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(DiagDeviceDestroy(&d->dev));
  PetscCall(DiagSORDeviceReset(&d->sor));
#endif
  d->values_at = DIAG_VALUES_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagSetFormat_SeqDiag(Mat A, DiagFormat *fmt)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCall(DiagFreeDevice(d));
  if (d->has_format) DiagFormatFree(&d->fmt);
  PetscCall(PetscFree2(d->row_cols, d->row_vals));
  PetscCall(PetscFree(d->where));
  PetscCall(PetscFree(d->structure));
  d->fmt           = *fmt;
  d->has_format    = PETSC_TRUE;
  d->layout++;
  d->base.nnz    = fmt->start[fmt->ndiag];
  A->nonzerostate++;
  memset(fmt, 0, sizeof(*fmt));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- building the diagonals ------------------------------------------------ */

DiagScheme DiagSchemeOf(MatDiagScheme s)
{
  return s == MAT_DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM;
}

PetscErrorCode MatDiagPickScheme_SeqDiag(Mat A, DiagScheme automatic, PetscInt64 hm, PetscInt64 cdm, DiagScheme *scheme)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (d->settings.scheme == MAT_DIAG_SCHEME_AUTO) {
    *scheme = automatic;
    if (cdm < 0) PetscCall(PetscInfo(A, "DIAG scheme auto: HM (a %" PetscInt_FMT " x %" PetscInt_FMT " matrix: CDM is for square ones)\n", A->rmap->n, A->cmap->n));
    else PetscCall(PetscInfo(A, "DIAG scheme auto: %s (CDM would store %" PetscInt64_FMT " values, HM %" PetscInt64_FMT "; CDM is taken up to %.0f%% more)\n", automatic == DIAG_SCHEME_CDM ? "CDM" : "HM", cdm, hm, 100 * DIAG_CDM_MAX_EXTRA));
  } else *scheme = DiagSchemeOf(d->settings.scheme);
  PetscCheck(*scheme != DIAG_SCHEME_CDM || A->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-mat_diag_scheme cdm is for square matrices, this one is %" PetscInt_FMT " x %" PetscInt_FMT ": use hm or auto", A->rmap->n, A->cmap->n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagCheckBuilt_SeqDiag(Mat A, DiagStatus st, const DiagFormat *fmt, DiagScheme scheme, PetscInt64 stored)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(st != DIAG_ERR_TOO_SPREAD, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: the %" PetscInt64_FMT " nonzeros of this %" PetscInt_FMT " x %" PetscInt_FMT " matrix lie on %" PetscInt_FMT " diagonals, so %s would store %" PetscInt64_FMT " values, %.1f times the nonzeros (the limit is -mat_diag_max_fill %g). This matrix is not banded or structured enough for diag: use -mat_type aij or pcsr, or raise -mat_diag_max_fill",
             fmt->nnz, A->rmap->n, A->cmap->n, fmt->ndiag, scheme == DIAG_SCHEME_HM ? "HM" : "CDM", stored, (double)stored / (double)PetscMax(fmt->nnz, 1), (double)d->settings.max_fill);
  PetscCall(DiagCheckStatus(st, A, "Finding the diagonals"));
  PetscCall(PetscInfo(A, "DIAG %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros on %" PetscInt_FMT " diagonals, %" PetscInt64_FMT " values stored\n", scheme == DIAG_SCHEME_HM ? "HM" : "CDM", fmt->nrows, fmt->ncols, fmt->nnz, fmt->ndiag, stored));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagBuildFromAIJ_SeqDiag(Mat A, Mat M)
{
  Mat_SeqDiag       *d = (Mat_SeqDiag *)A->spptr;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m;
  PetscBool          done;
  DiagScheme         automatic, scheme;
  PetscInt64         hm, cdm, stored;
  DiagFormat         fmt;
  DiagStatus         st;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: cannot read the rows of a %s matrix", ((PetscObject)M)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(M, &aa));
  PetscCall(DiagCheckStatus(DiagChooseScheme(M->rmap->n, M->cmap->n, ai, aj, &automatic, &hm, &cdm), A, "Choosing the scheme"));
  PetscCall(MatDiagPickScheme_SeqDiag(A, automatic, hm, cdm, &scheme));
  st = DiagFromCSR(scheme, M->rmap->n, M->cmap->n, ai, aj, aa, d->settings.max_fill, &stored, &fmt);
  PetscCall(MatSeqAIJRestoreArrayRead(M, &aa));
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatDiagCheckBuilt_SeqDiag(A, st, &fmt, scheme, stored));
  PetscCall(MatDiagSetFormat_SeqDiag(A, &fmt));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatDiagStructureFromCSR_SeqDiag(A, ai, aj));
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row i's entries of the pattern (the structure mask, or any nonzero), by ascending column, into
   cols and vals when given; returns how many.  order: the stored diagonals by ascending offset
   (HM's storage order is 0, 1, 2, ..., -1, -2, ...), which a CDM row rotates: its wrapped
   columns, i + k >= n, come first. */
static PetscInt DiagRowEntries(const DiagFormat *f, const unsigned char *mask, const int *order, PetscInt i, PetscInt *cols, PetscScalar *vals)
{
  PetscInt first = 0, count = 0;

  if (f->scheme == DIAG_SCHEME_CDM) /* the first diagonal whose column wraps in this row */
    while (first < f->ndiag && f->offset[order[first]] < f->ncols - i) first++;
  for (PetscInt s = 0; s < f->ndiag; s++) {
    const PetscInt   t = order[(first + s) % f->ndiag];
    const PetscInt64 p = f->scheme == DIAG_SCHEME_HM ? (PetscInt64)i - DiagHMFirstRow(f->offset[t]) : i;
    PetscInt         ii, j;

    if (p < 0 || p >= f->start[t + 1] - f->start[t] || !DiagSlotEntry(f, t, p, &ii, &j)) continue;
    if (!DiagStructureHas(mask, f->start[t] + p) && f->val[f->start[t] + p] == (PetscScalar)0) continue;
    if (cols) cols[count] = j, vals[count] = f->val[f->start[t] + p];
    count++;
  }
  return count;
}

/* The entries of A: its structure when it knows it (the entries set before the first
   assembly: a DMDA's stencil is AIJ's pattern then, not every slot of the diagonals at the
   grid's edges), with any nonzero set elsewhere since; every slot otherwise.  Made row by row
   in column order: nothing to sort. */
PetscErrorCode MatDiagToAIJ_SeqDiag(Mat A, MatType type, Mat *M)
{
  Mat_SeqDiag         *d    = (Mat_SeqDiag *)A->spptr;
  const DiagFormat    *f    = &d->fmt;
  const unsigned char *mask = d->structure_for == f->offset ? d->structure : NULL;
  PetscInt            *ai, *aj;
  PetscScalar         *aa;
  int                 *order;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GPUMATS_ToAIJ, A, 0, 0, 0));
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  {
    const PetscInt64 entries = DiagPatternSize(f);

    PetscCheck(entries <= (PetscInt64)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: the AIJ copy of this %" PetscInt_FMT " x %" PetscInt_FMT " block would hold %" PetscInt64_FMT " entries, more than PetscInt indexes (%" PetscInt_FMT "): use more MPI processes, or a PETSc configured --with-64-bit-indices", A->rmap->n, A->cmap->n, entries, PETSC_MAX_INT);
  }
  order = DiagOffsetOrder(f->ndiag, f->offset);
  PetscCheck(order, PETSC_COMM_SELF, PETSC_ERR_MEM, "diag: out of host memory ordering %" PetscInt_FMT " diagonals", f->ndiag);
  PetscCall(PetscMalloc1(A->rmap->n + 1, &ai));
  ai[0] = 0;
  for (PetscInt i = 0; i < A->rmap->n; i++) ai[i + 1] = ai[i] + DiagRowEntries(f, mask, order, i, NULL, NULL);
  PetscCall(PetscMalloc1(PetscMax(ai[A->rmap->n], 1), &aj));
  PetscCall(PetscMalloc1(PetscMax(ai[A->rmap->n], 1), &aa));
  for (PetscInt i = 0; i < A->rmap->n; i++) (void)DiagRowEntries(f, mask, order, i, aj + ai[i], aa + ai[i]);
  free(order);
  PetscCall(GpuMatsSeqAIJAdoptCSR(PetscObjectComm((PetscObject)A), A->rmap->n, A->cmap->n, ai, aj, aa, M));
  PetscCall(MatConvert(*M, type, MAT_INPLACE_MATRIX, M));
  PetscCall(PetscLogEventEnd(GPUMATS_ToAIJ, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- values and rows (MatSetUp, MatSetValues and assembly: diag_assembly.c) ---- */

static PetscErrorCode MatGetValues_SeqDiag(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], PetscScalar v[])
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat  *f = &d->fmt;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatGetValues: assemble the matrix first (MatAssemblyBegin/End)");
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt c = 0; c < n; c++) {
      const PetscInt i = rows[r], j = cols[c];
      PetscInt       t;
      PetscInt64     slot;

      if (i < 0 || j < 0) continue;
      PetscCheck(i < A->rmap->n && j < A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatGetValues: (%" PetscInt_FMT ", %" PetscInt_FMT ") is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", i, j, A->rmap->n, A->cmap->n);
      t            = DiagLocate(f, i, j, &slot);
      v[r * n + c] = t < 0 ? 0 : f->val[f->start[t] + slot];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries of row i (CDM padding excluded), columns ascending. */
static PetscErrorCode MatGetRow_SeqDiag(Mat A, PetscInt i, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat  *f = &d->fmt;
  PetscInt     count = 0;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatGetRow: the matrix was never assembled");
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (!d->row_cols) PetscCall(PetscMalloc2(PetscMax(f->ndiag, 1), &d->row_cols, PetscMax(f->ndiag, 1), &d->row_vals));
  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt   off  = f->offset[t];
    const PetscInt64 slot = f->scheme == DIAG_SCHEME_HM ? i - DiagHMFirstRow(off) : i;
    PetscInt         ii, j;

    if (slot < 0 || slot >= f->start[t + 1] - f->start[t]) continue; /* HM: the diagonal misses row i */
    if (!DiagSlotEntry(f, t, slot, &ii, &j)) continue;
    if (d->structure_for == f->offset && !DiagStructureHas(d->structure, f->start[t] + slot) && f->val[f->start[t] + slot] == (PetscScalar)0) continue; /* as MatDiagToAIJ_SeqDiag */
    d->row_cols[count]   = j;
    d->row_vals[count++] = f->val[f->start[t] + slot];
  }
  PetscCall(PetscSortIntWithScalarArray(count, d->row_cols, d->row_vals));
  *nz = count;
  if (cols) *cols = d->row_cols;
  if (vals) *vals = d->row_vals;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatRestoreRow_SeqDiag(Mat A, PetscInt i, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* ---- conversion, load, duplicate, destroy ----------------------------------- */

static PetscErrorCode MatLoad_SeqDiag(Mat A, PetscViewer viewer)
{
  Mat M;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &M));
  if (A->rmap->n >= 0 || A->cmap->n >= 0) PetscCall(MatSetSizes(M, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetType(M, MATSEQAIJ));
  PetscCall(MatLoad(M, viewer));
  PetscCall(MatSetSizes(A, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatDiagSetUpLayout_SeqDiag(A));
  PetscCall(MatDiagBuildFromAIJ_SeqDiag(A, M));
  PetscCall(MatDestroy(&M));
  A->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* diag -> anything: AIJ directly from the diagonals, other types through AIJ */
static PetscErrorCode MatConvert_SeqDiag(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       M;
  PetscBool seqaij, aij;

  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatConvert: assemble the matrix first");
  PetscCall(PetscStrcmp(type, MATSEQAIJ, &seqaij));
  PetscCall(PetscStrcmp(type, MATAIJ, &aij));
  aij = (PetscBool)(aij || seqaij);
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &M));
  if (!aij) {
    Mat N;

    PetscCall(MatConvert(M, type, MAT_INITIAL_MATRIX, &N));
    PetscCall(MatDestroy(&M));
    M = N;
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(M, *newmat, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&M));
  } else if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &M));
  else *newmat = M;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ -> diag: the diagonals straight from the CSR arrays; the scheme and fill limit
   from the options database (MatConvert() gives no other way to pass them) */
PetscErrorCode MatConvert_SeqAIJ_SeqDiag(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       B;
  PetscBool isdiag;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(PetscObjectTypeCompare((PetscObject)*newmat, MATSEQDIAG, &isdiag));
    PetscCheck(isdiag, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatConvert to diag with MAT_REUSE_MATRIX: the target is a %s", ((PetscObject)*newmat)->type_name);
    B = *newmat;
  } else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetType(B, MATSEQDIAG));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)B, ((PetscObject)A)->prefix));
    PetscCall(MatSetFromOptions(B));
  }
  PetscCall(MatDiagSetUpLayout_SeqDiag(B));
  PetscCall(MatDiagBuildFromAIJ_SeqDiag(B, A));
  B->assembled = PETSC_TRUE;
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqDiag(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr, *e;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetType(*B, MATSEQDIAG));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*B, ((PetscObject)A)->prefix));
  e           = (Mat_SeqDiag *)(*B)->spptr;
  e->settings = d->settings;
  PetscCall(GpuMatsFormatSetBackend(*B, d->base.backend));
  if (!d->has_format) {
    PetscCall(MatDiagSetUpLayout_SeqDiag(*B));
    if (d->stage) PetscCall(DiagStageDuplicate(d->stage, (PetscBool)(op == MAT_COPY_VALUES), &e->stage));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    DiagFormat copy;

    PetscCall(MatDiagSyncHost_SeqDiag(A));
    PetscCall(DiagCheckStatus(DiagFormatCopy(&d->fmt, &copy), A, "MatDuplicate"));
    if (op != MAT_COPY_VALUES) PetscCall(PetscArrayzero(copy.val, copy.start[copy.ndiag]));
    (*B)->preallocated = PETSC_TRUE;
    PetscCall(MatDiagSetFormat_SeqDiag(*B, &copy));
    if (d->structure && d->structure_for == d->fmt.offset) {
      const PetscInt64 bytes = e->fmt.start[e->fmt.ndiag] / 8 + 1;

      PetscCall(PetscMalloc1(bytes, &e->structure));
      PetscCall(PetscArraycpy(e->structure, d->structure, bytes));
      e->structure_for = e->fmt.offset;
    }
  }
  (*B)->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCall(GpuMatsUninstallMultiplies(A, MATSEQDIAG));
  PetscCall(MatDiagComposeAssembly_SeqDiag(A, PETSC_FALSE));
  PetscCall(MatDiagComposeSettings(A, PETSC_FALSE));
  PetscCall(MatDiagComposeAIJProducts(A, PETSC_FALSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_seqdiag_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_diag_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAXPYGetPreallocation_C", NULL));
  PetscCall(MatDiagComposeCOO(A, PETSC_FALSE));
  PetscCall(MatDiagComposeCOOBlock_SeqDiag(A, PETSC_FALSE));
  PetscCall(DiagFreeDevice(d));
  if (d->has_format) DiagFormatFree(&d->fmt);
  PetscCall(DiagStageDestroy(&d->stage));
  PetscCall(PetscFree(d->where));
  PetscCall(PetscFree(d->structure));
  PetscCall(PetscFree2(d->row_cols, d->row_vals));
  PetscCall(MatDiagComposeOrderings_SeqDiag(A, PETSC_FALSE));
  PetscCall(MatDestroy(&d->ordering_aij));
  PetscCall(PetscFree(A->spptr));
  A->data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}


/*MC
   MATSEQDIAG - "seqdiag" - a sequential matrix stored by its nonzero diagonals, in the
   HM or the CDM scheme of Haque, Parvez and Hossain (Algorithms, 2024), with its
   products (MatMult, MatMultTranspose, MatMatMult of two diag matrices, with a dense
   matrix) on the GPU.  Entries set before the first assembly decide the diagonals
   (zeros count); after it, only entries on those diagonals can be set.

   Options Database Keys:
+  -mat_type diag - with -dll_append libgpumats.so (also -dm_mat_type diag for a DMDA)
.  -mat_diag_scheme <auto|hm|cdm> - how the diagonals are stored
.  -mat_diag_max_fill <3> - refuse a matrix storing more values than this times its nonzeros
-  -mat_gpumats_backend <auto|host|cuda> - where the products run

   Level: beginner
M*/
PetscErrorCode MatCreate_SeqDiag(Mat A)
{
  Mat_SeqDiag *d;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  d->settings.scheme   = MAT_DIAG_SCHEME_AUTO;
  d->settings.max_fill = 3;
  A->spptr             = d;
  A->data              = d;
  /* sizes given before the type: the row range is known at once (MatGetOwnershipRange before any MatSetValues) */
  if (A->rmap->n >= 0 || A->rmap->N >= 0) PetscCall(PetscLayoutSetUp(A->rmap));
  if (A->cmap->n >= 0 || A->cmap->N >= 0) PetscCall(PetscLayoutSetUp(A->cmap));
  PetscCall(GpuMatsInstallMultiplies(A, &DiagOps, MATSEQDIAG));
  PetscCall(MatDiagComposeAssembly_SeqDiag(A, PETSC_TRUE)); /* preallocation (DMCreateMatrix's path), FD colouring */
  A->ops->setup          = MatSetUp_SeqDiag;
  A->ops->setvalues      = MatSetValues_SeqDiag;
  A->ops->getvalues      = MatGetValues_SeqDiag;
  A->ops->getrow         = MatGetRow_SeqDiag;
  A->ops->restorerow     = MatRestoreRow_SeqDiag;
  A->ops->assemblybegin  = MatAssemblyBegin_SeqDiag;
  A->ops->assemblyend    = MatAssemblyEnd_SeqDiag;
  A->ops->setoption      = MatSetOption_SeqDiag;
  A->ops->setfromoptions = MatSetFromOptions_SeqDiag;
  A->ops->view           = MatView_SeqDiag;
  A->ops->load           = MatLoad_SeqDiag;
  A->ops->convert        = MatConvert_SeqDiag;
  A->ops->creategraph    = MatCreateGraph_SeqDiag; /* GAMG (diag_graph.c) */
  A->ops->duplicate      = MatDuplicate_SeqDiag;
  A->ops->destroy        = MatDestroy_SeqDiag;
  /* the algebra (diag_algebra.c) */
  A->ops->getdiagonal = MatGetDiagonal_SeqDiag;
  A->ops->scale       = MatScale_SeqDiag;
  A->ops->shift       = MatShift_SeqDiag;
  A->ops->axpy        = MatAXPY_SeqDiag;
  A->ops->zeroentries = MatZeroEntries_SeqDiag;
  A->ops->norm        = MatNorm_SeqDiag;
  A->ops->getinfo     = MatGetInfo_SeqDiag;
  A->ops->copy        = MatCopy_SeqDiag;
  A->ops->transpose   = MatTranspose_SeqDiag;
#if defined(PETSC_HAVE_DEVICE)
  A->ops->bindtocpu = MatBindToCPU_SeqDiag;
#endif
  A->ops->productsetfromoptions = MatProductSetFromOptions_SeqDiag; /* diag_product.c */
  PetscCall(MatDiagComposeOrderings_SeqDiag(A, PETSC_TRUE)); /* the graph a factorization's ordering reads: diag_factor.c */
  /* what PETSc's solvers call besides the products (diag_sor.c, diag_rows.c, diag_axpy.c, diag_submat.c) */
  A->ops->sor               = MatSOR_SeqDiag;
  A->ops->zerorows          = MatZeroRows_SeqDiag;
  A->ops->zerorowscolumns   = MatZeroRowsColumns_SeqDiag;
  A->ops->diagonalscale     = MatDiagonalScale_SeqDiag;
  A->ops->diagonalset       = MatDiagonalSet_SeqDiag;
  A->ops->createsubmatrix   = MatCreateSubMatrix_SeqDiag;
  A->ops->createsubmatrices = MatCreateSubMatrices_SeqDiag;
  A->ops->increaseoverlap   = MatIncreaseOverlap_SeqDiag;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAXPYGetPreallocation_C", MatAXPYGetPreallocation_SeqDiag));
  PetscCall(MatDiagComposeCOO(A, PETSC_TRUE)); /* COO assembly (diag_coo.c) */
  PetscCall(MatDiagComposeCOOBlock_SeqDiag(A, PETSC_TRUE));
  PetscCall(MatDiagComposeSettings(A, PETSC_TRUE));
  PetscCall(MatDiagComposeAIJProducts(A, PETSC_TRUE));
  /* found by MatConvert() on the new matrix it makes: type name of the source, then the target as given */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_seqdiag_C", MatConvert_SeqAIJ_SeqDiag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_diag_C", MatConvert_SeqAIJ_SeqDiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}
