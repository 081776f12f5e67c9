/* The staging of entries before the first assembly of a diag matrix: a mark per diagonal and
   the values as triples, linear in the entries set whatever was preallocated. */
#include "diag/diag_impl.h" /* PETSC_SUCCESS on PETSc 3.18 */

PetscErrorCode DiagTriplesReserve(DiagTriples *t, PetscInt64 more)
{
  PetscInt      *ti, *tj;
  PetscScalar   *tv;
  unsigned char *tadd;
  PetscInt64     capacity;

  PetscFunctionBegin;
  if (t->count + more <= t->capacity) PetscFunctionReturn(PETSC_SUCCESS);
  capacity = PetscMax(t->count + more, 2 * t->capacity); /* doubling: appends cost O(1) amortised */
  capacity = PetscMax(capacity, 64);
  PetscCall(PetscMalloc4(capacity, &ti, capacity, &tj, capacity, &tv, capacity, &tadd));
  if (t->count) {
    PetscCall(PetscArraycpy(ti, t->ti, t->count));
    PetscCall(PetscArraycpy(tj, t->tj, t->count));
    PetscCall(PetscArraycpy(tv, t->tv, t->count));
    PetscCall(PetscArraycpy(tadd, t->tadd, t->count));
  }
  PetscCall(PetscFree4(t->ti, t->tj, t->tv, t->tadd));
  t->ti = ti, t->tj = tj, t->tv = tv, t->tadd = tadd;
  t->capacity = capacity;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagTriplesAppend(DiagTriples *t, PetscInt i, PetscInt j, PetscScalar v, InsertMode mode)
{
  PetscFunctionBegin;
  if (t->count == t->capacity) PetscCall(DiagTriplesReserve(t, 1));
  t->ti[t->count]   = i;
  t->tj[t->count]   = j;
  t->tv[t->count]   = v;
  t->tadd[t->count] = (unsigned char)(mode == ADD_VALUES);
  t->count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagTriplesCopy(const DiagTriples *src, DiagTriples *dst)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(dst, sizeof(*dst)));
  PetscCall(DiagTriplesReserve(dst, src->count));
  if (src->count) {
    PetscCall(PetscArraycpy(dst->ti, src->ti, src->count));
    PetscCall(PetscArraycpy(dst->tj, src->tj, src->count));
    PetscCall(PetscArraycpy(dst->tv, src->tv, src->count));
    PetscCall(PetscArraycpy(dst->tadd, src->tadd, src->count));
  }
  dst->count = src->count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagTriplesFree(DiagTriples *t)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(t->ti, t->tj, t->tv, t->tadd));
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagStageCreate(PetscInt m, PetscInt n, DiagStage **stage)
{
  DiagStage *s;

  PetscFunctionBegin;
  PetscCheck((PetscInt64)m + n <= (PetscInt64)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: a %" PetscInt_FMT " x %" PetscInt_FMT " block has more offsets than PetscInt indexes: use more MPI processes", m, n);
  PetscCall(PetscNew(&s));
  s->m = m, s->n = n;
  PetscCall(PetscCalloc1(PetscMax(m + n - 1, 1), &s->present));
  *stage = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagStageDestroy(DiagStage **stage)
{
  PetscFunctionBegin;
  if (!*stage) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DiagTriplesFree(&(*stage)->values));
  PetscCall(PetscFree((*stage)->present));
  PetscCall(PetscFree(*stage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagStageDuplicate(const DiagStage *s, PetscBool values, DiagStage **copy)
{
  PetscFunctionBegin;
  PetscCall(DiagStageCreate(s->m, s->n, copy));
  PetscCall(PetscArraycpy((*copy)->present, s->present, PetscMax(s->m + s->n - 1, 1)));
  (*copy)->nset                = s->nset;
  (*copy)->ignore_zero_entries = s->ignore_zero_entries;
  PetscCall(DiagTriplesCopy(&s->values, &(*copy)->values)); /* the entries: the structure, and the values */
  if (!values) PetscCall(DiagStageZeroEntries(*copy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagStageAdd(DiagStage *s, PetscInt mr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], const PetscScalar v[], PetscBool column_oriented, InsertMode mode)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < mr; r++) {
    const PetscInt i = rows[r];

    if (i < 0) continue; /* PETSc's convention: negative indices are ignored */
    PetscCheck(i < s->m, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSetValues: row %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", i, s->m);
    for (PetscInt c = 0; c < nc; c++) {
      const PetscInt    j     = cols[c];
      const PetscScalar value = v ? v[column_oriented ? c * mr + r : r * nc + c] : 0;

      if (j < 0) continue;
      PetscCheck(j < s->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag MatSetValues: column %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", j, s->n);
      if (value == (PetscScalar)0 && s->ignore_zero_entries && mode == ADD_VALUES && i != j) continue; /* as AIJ */
      s->present[j - i + s->m - 1] = 1;
      s->nset++;
      /* zeros too: the entries set are the structure (what an FD colouring is valid for) */
      PetscCall(DiagTriplesAppend(&s->values, i, j, value, mode));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagStageZeroEntries(DiagStage *s)
{
  PetscFunctionBegin;
  for (PetscInt64 p = 0; p < s->values.count; p++) s->values.tv[p] = 0; /* the entries stay, with the value zero */
  PetscFunctionReturn(PETSC_SUCCESS);
}
