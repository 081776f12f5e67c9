/* MATSEQDIAG: zeroing rows (Dirichlet conditions) and rows with their columns, scaling
   rows and columns, setting or adding to the main diagonal.  The stored diagonals stay
   (a zeroed entry is an explicit zero, as with AIJ's MAT_KEEP_NONZERO_PATTERN); the main
   diagonal is added when a value must go there and it is missing.  The semantics of
   the right-hand side fix (b = diag x on zeroed rows, b -= A(:, zeroed) x elsewhere) are
   PETSc's, as documented for MatZeroRows() and MatZeroRowsColumns(). */
#include "diag/diag_solverops.h"

PetscErrorCode DiagEnsureMainDiagonal_SeqDiag(Mat A)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat  *f = &d->fmt, g;
  PetscInt     t, zero = 0;
  unsigned char upper = DIAG_PART_UPPER;

  PetscFunctionBegin;
  if (PetscMin(A->rmap->n, A->cmap->n) == 0) PetscFunctionReturn(PETSC_SUCCESS); /* no main diagonal to store */
  t = DiagFind(f, 0);
  if (t >= 0) {
    if (f->scheme == DIAG_SCHEME_CDM) f->part[t] |= DIAG_PART_UPPER; /* compact diagonal 0: its slots are there */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(A, "DIAG: the main diagonal added (a value must go there)\n"));
  PetscCall(DiagCheckStatus(DiagFormatWithDiagonals(f, 1, &zero, &upper, &g), A, "Adding the main diagonal"));
  PetscCall(MatDiagSetFormat_SeqDiag(A, &g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagCheckRows(Mat A, PetscInt N, const PetscInt rows[], const char *op)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < N; k++) PetscCheck(rows[k] >= 0 && rows[k] < A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag %s: row %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", op, rows[k], A->rmap->n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagZeroRowsArrays_SeqDiag(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, PetscBool columns, const PetscScalar *x, PetscScalar *b)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  const PetscInt m = A->rmap->n, n = A->cmap->n;
  DiagFormat  *f;
  PetscBool   *zeroed;
  PetscInt     t0;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag %s: assemble the matrix first", columns ? "MatZeroRowsColumns" : "MatZeroRows");
  PetscCall(DiagCheckRows(A, N, rows, columns ? "MatZeroRowsColumns" : "MatZeroRows"));
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (diag != (PetscScalar)0) {
    PetscBool some = PETSC_FALSE;

    for (PetscInt k = 0; k < N; k++) some = (PetscBool)(some || rows[k] < n);
    if (some) PetscCall(DiagEnsureMainDiagonal_SeqDiag(A));
  }
  f = &d->fmt;
  PetscCall(PetscCalloc1(PetscMax(m, 1), &zeroed));
  for (PetscInt k = 0; k < N; k++) zeroed[rows[k]] = PETSC_TRUE;
  for (PetscInt t = 0; t < f->ndiag; t++) {
    PetscScalar *v = f->val + f->start[t];

    for (PetscInt64 p = 0; p < f->start[t + 1] - f->start[t]; p++) {
      PetscInt i, j;

      if (!DiagSlotEntry(f, t, p, &i, &j)) continue; /* CDM padding: zero already */
      if (zeroed[i]) v[p] = 0;
      else if (columns && j < m && zeroed[j]) { /* a zeroed column: its entry moves to the right-hand side */
        if (b) b[i] -= v[p] * x[j];
        v[p] = 0;
      }
    }
  }
  t0 = DiagFind(f, 0);
  for (PetscInt k = 0; k < N; k++) {
    const PetscInt r = rows[k];

    if (r >= n) continue; /* no diagonal entry in a row past the columns */
    if (x && b) b[r] = diag * x[r];
    if (diag != (PetscScalar)0) f->val[f->start[t0] + r] = diag; /* slot r of diagonal 0 in both schemes */
  }
  PetscCall(PetscFree(zeroed));
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagZeroRowsVecs(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, PetscBool columns, Vec x, Vec b)
{
  const PetscScalar *xa = NULL;
  PetscScalar       *ba = NULL;

  PetscFunctionBegin;
  if (x && b) {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(b, &ba));
  }
  PetscCall(DiagZeroRowsArrays_SeqDiag(A, N, rows, diag, columns, xa, ba));
  if (x && b) {
    PetscCall(VecRestoreArray(b, &ba));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroRows_SeqDiag(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(DiagZeroRowsVecs(A, N, rows, diag, PETSC_FALSE, x, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroRowsColumns_SeqDiag(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(DiagZeroRowsVecs(A, N, rows, diag, PETSC_TRUE, x, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each entry a(i,j) becomes (a(i,j) l[i]) r[j], AIJ's order of the two products */
PetscErrorCode DiagScaleArrays_SeqDiag(Mat A, const PetscScalar *l, const PetscScalar *r)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat  *f = &d->fmt;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatDiagonalScale: assemble the matrix first");
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  for (PetscInt t = 0; t < f->ndiag; t++) {
    PetscScalar *v = f->val + f->start[t];

    for (PetscInt64 p = 0; p < f->start[t + 1] - f->start[t]; p++) {
      PetscInt i, j;

      DiagSlotEntry(f, t, p, &i, &j); /* CDM padding holds zeros: scaling them changes nothing */
      if (l) v[p] *= l[i];
      if (r) v[p] *= r[j];
    }
  }
  PetscCall(PetscLogFlops((PetscLogDouble)f->start[f->ndiag] * ((l ? 1 : 0) + (r ? 1 : 0))));
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagonalScale_SeqDiag(Mat A, Vec ll, Vec rr)
{
  const PetscScalar *l = NULL, *r = NULL;

  PetscFunctionBegin;
  if (ll) {
    PetscInt len;

    PetscCall(VecGetLocalSize(ll, &len));
    PetscCheck(len == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatDiagonalScale: the left vector has %" PetscInt_FMT " entries, the matrix %" PetscInt_FMT " rows", len, A->rmap->n);
    PetscCall(VecGetArrayRead(ll, &l));
  }
  if (rr) {
    PetscInt len;

    PetscCall(VecGetLocalSize(rr, &len));
    PetscCheck(len == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatDiagonalScale: the right vector has %" PetscInt_FMT " entries, the matrix %" PetscInt_FMT " columns", len, A->cmap->n);
    PetscCall(VecGetArrayRead(rr, &r));
  }
  PetscCall(DiagScaleArrays_SeqDiag(A, l, r));
  if (ll) PetscCall(VecRestoreArrayRead(ll, &l));
  if (rr) PetscCall(VecRestoreArrayRead(rr, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagSetDiagonalArray_SeqDiag(Mat A, const PetscScalar *v, InsertMode mode)
{
  Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
  const PetscInt k = PetscMin(A->rmap->n, A->cmap->n);
  PetscScalar   *a;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatDiagonalSet: assemble the matrix first");
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag MatDiagonalSet: INSERT_VALUES or ADD_VALUES, not %d", (int)mode);
  if (!k) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscCall(DiagEnsureMainDiagonal_SeqDiag(A));
  a = d->fmt.val + d->fmt.start[DiagFind(&d->fmt, 0)]; /* slot i is a(i,i) in both schemes */
  for (PetscInt i = 0; i < k; i++) {
    if (mode == INSERT_VALUES) a[i] = v[i];
    else a[i] += v[i];
  }
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagonalSet_SeqDiag(Mat A, Vec D, InsertMode mode)
{
  const PetscScalar *v;

  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  {
    Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
    const PetscInt k = PetscMin(A->rmap->n, A->cmap->n), t = d->has_format ? DiagFind(&d->fmt, 0) : -1;
    PetscBool      on_device;

    PetscCall(MatDiagValuesOnDevice_SeqDiag(A, &on_device));
    if (on_device && t >= 0 && k > 0 && (mode == INSERT_VALUES || mode == ADD_VALUES)) { /* the main diagonal stored and the values current on the device */
      GpuMatsDeviceVec dv;

      PetscCall(GpuMatsVecGetDeviceArray(D, GPUMATS_READ, &d->base.stage_x, &dv));
      PetscCall(DiagDeviceSetValues(d->dev, d->fmt.start[t], k, dv.device, (PetscBool)(mode == ADD_VALUES)));
      PetscCall(GpuMatsVecRestoreDeviceArray(&dv));
      PetscCall(MatDiagDeviceChanged_SeqDiag(A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(VecGetArrayRead(D, &v));
  PetscCall(DiagSetDiagonalArray_SeqDiag(A, v, mode));
  PetscCall(VecRestoreArrayRead(D, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
