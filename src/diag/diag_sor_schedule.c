/* The levels of a Gauss-Seidel sweep of a MATSEQDIAG matrix, for the device sweeps
   (diag_sor_device.c): one pass over the rows in order, each row one level above the
   highest of the earlier rows it is coupled with.  Coupled either way, so that one set of
   levels serves the forward sweep (earlier rows new, later rows old) and the backward one
   (the levels in reverse).  A 7-point star on an nx x ny x nz grid gets the wavefronts
   x + y + z; the entries AIJ would lack (the neighbours across a grid line's end, kept as
   explicit zeros on the diagonal) couple nothing unless their value is nonzero. */
#include "diag/diag_solverops.h"

/* An entry that couples: in the structure (when A knows it) or nonzero */
static inline PetscBool DiagCouples(const DiagFormat *f, const unsigned char *structure, PetscInt64 p)
{
  return (PetscBool)((structure && DiagStructureHas(structure, p)) || f->val[p] != (PetscScalar)0);
}

PetscErrorCode DiagSORScheduleCreate(Mat A, PetscInt *nlevels, PetscInt **level_start, PetscInt **rows, PetscInt **level)
{
  Mat_SeqDiag         *d = (Mat_SeqDiag *)A->spptr;
  const DiagFormat    *f = &d->fmt;
  const unsigned char *structure = d->structure_for == f->offset ? d->structure : NULL;
  const PetscInt       n = A->rmap->n;
  PetscInt            *lev, *start, *order, top = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &lev));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &order));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt l = 0;

    for (PetscInt t = 0; t < f->ndiag; t++) {
      const PetscInt   k = f->offset[t];
      const PetscInt64 s = f->start[t];

      if (f->scheme == DIAG_SCHEME_HM) { /* a(i, i + k) for k < 0 lies in slot i + k; a(i - k, i) for k > 0 in slot i - k */
        const PetscInt j = k < 0 ? i + k : i - k;

        if (k && j >= 0 && DiagCouples(f, structure, s + j)) l = PetscMax(l, lev[j] + 1);
      } else { /* compact diagonal k: a(i, i + k - n) in slot i (lower part), a(i - k, i) in slot i - k (upper part) */
        if ((f->part[t] & DIAG_PART_LOWER) && k && i + k >= n && DiagCouples(f, structure, s + i)) l = PetscMax(l, lev[i + k - n] + 1);
        if ((f->part[t] & DIAG_PART_UPPER) && k && i - k >= 0 && DiagCouples(f, structure, s + i - k)) l = PetscMax(l, lev[i - k] + 1);
      }
    }
    lev[i] = l;
    top    = PetscMax(top, l + 1);
  }
  *nlevels = n ? top : 0;
  PetscCall(PetscCalloc1(*nlevels + 1, &start));
  for (PetscInt i = 0; i < n; i++) start[lev[i] + 1]++;
  for (PetscInt l = 0; l < *nlevels; l++) start[l + 1] += start[l];
  {
    PetscInt *next;

    PetscCall(PetscMalloc1(*nlevels + 1, &next));
    PetscCall(PetscArraycpy(next, start, *nlevels + 1));
    for (PetscInt i = 0; i < n; i++) order[next[lev[i]]++] = i;
    PetscCall(PetscFree(next));
  }
  *level_start = start;
  *rows        = order;
  *level       = lev;
  PetscFunctionReturn(PETSC_SUCCESS);
}
