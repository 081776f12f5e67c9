/* MatSOR for MATSEQDIAG, on the host (as aijcusparse does: a sweep is sequential by
   nature).  Each row is visited as AIJ visits it: the entries left of the main diagonal
   by ascending column, then those right of it, with the same arithmetic in the same
   order as PETSc's MatSOR_SeqAIJ, so the iterates agree with AIJ's to the last bit
   where the patterns agree (a diag matrix may hold explicit zeros that AIJ lacks).
   Every MatSORType flag: forward, backward, symmetric sweeps (local ones alike on one
   process), a zero initial guess, Eisenstat's trick, applying (U + D/omega) or
   (L + D/omega); omega, fshift, its and lits. */
#include "diag/diag_solverops.h"

PetscErrorCode DiagRowPlanCreate(const DiagFormat *f, DiagRowPlan *p)
{
  PetscInt *klo, *kup;

  PetscFunctionBegin;
  p->f   = f;
  p->nlo = p->nup = 0;
  PetscCall(PetscMalloc2(PetscMax(f->ndiag, 1), &p->lo, PetscMax(f->ndiag, 1), &p->up));
  PetscCall(PetscMalloc2(PetscMax(f->ndiag, 1), &klo, PetscMax(f->ndiag, 1), &kup));
  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt d = f->offset[t];

    if (f->scheme == DIAG_SCHEME_HM) {
      if (d < 0) klo[p->nlo] = d, p->lo[p->nlo++] = t;
      else if (d > 0) kup[p->nup] = d, p->up[p->nup++] = t;
    } else { /* compact diagonal k > 0: its lower part is subdiagonal n - k, its upper one superdiagonal k */
      if (d > 0 && (f->part[t] & DIAG_PART_LOWER)) klo[p->nlo] = d, p->lo[p->nlo++] = t;
      if (d > 0 && (f->part[t] & DIAG_PART_UPPER)) kup[p->nup] = d, p->up[p->nup++] = t;
    }
  }
  /* ascending offsets give ascending columns in every row: HM j = i + d, CDM j = i + k - n (lower) and i + k (upper) */
  PetscCall(PetscSortIntWithArray(p->nlo, klo, p->lo));
  PetscCall(PetscSortIntWithArray(p->nup, kup, p->up));
  PetscCall(PetscFree2(klo, kup));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagRowPlanDestroy(DiagRowPlan *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(p->lo, p->up));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sum - (or +, sign -1 / 1) the entries of row i left of the main diagonal times x, by ascending column */
static inline PetscScalar DiagRowLower(const DiagRowPlan *p, PetscInt i, PetscScalar sum, const PetscScalar *x, int sign)
{
  const DiagFormat *f = p->f;
  const PetscInt    n = f->ncols;

  for (PetscInt q = 0; q < p->nlo; q++) {
    const PetscInt t = p->lo[q], d = f->offset[t];
    PetscInt       j;
    PetscScalar    v;

    if (f->scheme == DIAG_SCHEME_HM) {
      j = i + d;
      if (j < 0) continue;
      v = f->val[f->start[t] + j]; /* slot i - (-d) */
    } else {
      if (i + d < n) continue;
      j = i + d - n;
      v = f->val[f->start[t] + i];
    }
    if (sign < 0) sum -= v * x[j];
    else sum += v * x[j];
  }
  return sum;
}

/* the same for the entries right of the main diagonal */
static inline PetscScalar DiagRowUpper(const DiagRowPlan *p, PetscInt i, PetscScalar sum, const PetscScalar *x, int sign)
{
  const DiagFormat *f = p->f;
  const PetscInt    n = f->ncols;

  for (PetscInt q = 0; q < p->nup; q++) {
    const PetscInt t = p->up[q], j = i + f->offset[t];
    PetscScalar    v;

    if (j >= n) continue;
    v = f->val[f->start[t] + i];
    if (sign < 0) sum -= v * x[j];
    else sum += v * x[j];
  }
  return sum;
}

/* mdiag: a(i,i); idiag: what AIJ multiplies by (1/a(i,i), or omega/(fshift + a(i,i))), with AIJ's
   handling of a zero diagonal: with a negative fshift a zero pivot recorded (PCSOR reports it) */
static PetscErrorCode DiagInvertDiagonal(Mat A, PetscReal omega, PetscReal fshift, PetscScalar *mdiag, PetscScalar *idiag)
{
  const DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;
  const PetscInt    t = DiagFind(f, 0), n = A->rmap->n;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) mdiag[i] = t >= 0 ? f->val[f->start[t] + i] : 0; /* slot i of diagonal 0 in both schemes */
  if (omega == 1.0 && PetscRealPart(fshift) <= 0.0) {
    for (PetscInt i = 0; i < n; i++) {
      if (!PetscAbsScalar(mdiag[i])) { /* fshift < 0: DiagSORCheckPivots refused a zero diagonal with fshift 0 */
        PetscCall(PetscInfo(A, "Zero diagonal on row %" PetscInt_FMT "\n", i));
        A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
        A->factorerror_zeropivot_value = 0.0;
        A->factorerror_zeropivot_row   = i;
      }
      idiag[i] = 1.0 / mdiag[i];
    }
    PetscCall(PetscLogFlops(n));
  } else {
    for (PetscInt i = 0; i < n; i++) idiag[i] = omega / (fshift + mdiag[i]);
    PetscCall(PetscLogFlops(2.0 * n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagSORCheckShape(Mat A)
{
  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatSOR: assemble the matrix first");
  PetscCheck(A->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag MatSOR: SOR needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, A->rmap->n, A->cmap->n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagSORCheckPivots(Mat A, PetscReal omega, PetscReal fshift)
{
  Mat_SeqDiag      *d = (Mat_SeqDiag *)A->spptr;
  const DiagFormat *f = &d->fmt;
  const PetscInt    t = DiagFind(f, 0);

  PetscFunctionBegin;
  PetscCall(DiagSORCheckShape(A));
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (omega != 1.0 || PetscRealPart(fshift) != 0.0) PetscFunctionReturn(PETSC_SUCCESS); /* no check: AIJ's neither (a negative fshift records a zero pivot) */
  for (PetscInt i = 0; i < A->rmap->n; i++) PetscCheck(t >= 0 && PetscAbsScalar(f->val[f->start[t] + i]), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "diag MatSOR: zero diagonal in row %" PetscInt_FMT " (SOR divides by it): give the matrix a nonzero diagonal, or a negative fshift to record a zero pivot instead", i);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSOR_SeqDiag(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_SeqDiag       *d = (Mat_SeqDiag *)A->spptr;
  const PetscInt     m = A->rmap->n;
  DiagRowPlan        p;
  PetscScalar       *x, *t, *mdiag, *idiag, sum;
  const PetscScalar *b, *xb;
  PetscLogDouble     nz;
  PetscBool          done = PETSC_FALSE;

  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(MatSOR_SeqDiag_Device(A, bb, omega, flag, fshift, its, lits, xx, &done));
#endif
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DiagSORCheckPivots(A, omega, fshift)); /* the refusals before anything is allocated */
  its = its * lits;
  nz  = (PetscLogDouble)d->fmt.start[d->fmt.ndiag];
  PetscCall(DiagRowPlanCreate(&d->fmt, &p));
  PetscCall(PetscMalloc3(PetscMax(m, 1), &mdiag, PetscMax(m, 1), &idiag, PetscMax(m, 1), &t));
  PetscCall(DiagInvertDiagonal(A, omega, fshift, mdiag, idiag));
  PetscCall(VecGetArray(xx, &x));
  PetscCall(VecGetArrayRead(bb, &b));
  if (flag == SOR_APPLY_UPPER || flag == SOR_APPLY_LOWER) { /* x = (U + D/omega) b or (L + D/omega) b */
    for (PetscInt i = 0; i < m; i++) {
      sum  = b[i] * (fshift + mdiag[i]) / omega;
      x[i] = flag == SOR_APPLY_UPPER ? DiagRowUpper(&p, i, sum, b, 1) : DiagRowLower(&p, i, sum, b, 1);
    }
    PetscCall(PetscLogFlops(nz));
  } else if (flag & SOR_EISENSTAT) {
    /* A = L + D + U, E = D/omega: (L + E)^{-1} A (U + E)^{-1} b by Eisenstat's trick */
    const PetscScalar scale = (2.0 / omega) - 1.0;

    for (PetscInt i = m - 1; i >= 0; i--) x[i] = DiagRowUpper(&p, i, b[i], x, -1) * idiag[i]; /* x = (E + U)^{-1} b */
    for (PetscInt i = 0; i < m; i++) t[i] = b[i] - scale * mdiag[i] * x[i];                   /* t = b - (2E - D) x */
    for (PetscInt i = 0; i < m; i++) {                                                       /* t = (E + L)^{-1} t, x += t */
      t[i] = DiagRowLower(&p, i, t[i], t, -1) * idiag[i];
      x[i] += t[i];
    }
    PetscCall(PetscLogFlops(6.0 * m - 1 + 2.0 * nz));
  } else {
    if (flag & SOR_ZERO_INITIAL_GUESS) {
      if (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) {
        for (PetscInt i = 0; i < m; i++) {
          t[i] = DiagRowLower(&p, i, b[i], x, -1);
          x[i] = t[i] * idiag[i];
        }
        xb = t;
        PetscCall(PetscLogFlops(nz));
      } else xb = b;
      if (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) {
        for (PetscInt i = m - 1; i >= 0; i--) {
          sum = DiagRowUpper(&p, i, xb[i], x, -1);
          if (xb == b) x[i] = sum * idiag[i];
          else x[i] = (1 - omega) * x[i] + sum * idiag[i]; /* omega in idiag */
        }
        PetscCall(PetscLogFlops(nz));
      }
      its--;
    }
    while (its-- > 0) {
      if (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) {
        for (PetscInt i = 0; i < m; i++) {
          sum  = DiagRowLower(&p, i, b[i], x, -1);
          t[i] = sum; /* b - L x, kept for the backward sweep */
          sum  = DiagRowUpper(&p, i, sum, x, -1);
          x[i] = (1. - omega) * x[i] + sum * idiag[i];
        }
        xb = t;
        PetscCall(PetscLogFlops(2.0 * nz));
      } else xb = b;
      if (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) {
        for (PetscInt i = m - 1; i >= 0; i--) {
          if (xb == b) { /* the whole row, its diagonal too (as AIJ), added back after */
            sum = DiagRowLower(&p, i, xb[i], x, -1);
            sum -= mdiag[i] * x[i];
            sum  = DiagRowUpper(&p, i, sum, x, -1);
            x[i] = (1. - omega) * x[i] + (sum + mdiag[i] * x[i]) * idiag[i];
          } else {
            sum  = DiagRowUpper(&p, i, xb[i], x, -1);
            x[i] = (1. - omega) * x[i] + sum * idiag[i];
          }
        }
        PetscCall(PetscLogFlops(xb == b ? 2.0 * nz : nz));
      }
    }
  }
  PetscCall(VecRestoreArrayRead(bb, &b));
  PetscCall(VecRestoreArray(xx, &x));
  PetscCall(PetscFree3(mdiag, idiag, t));
  PetscCall(DiagRowPlanDestroy(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
