/* MATMPIDIAG assembly: the staging until the first assembly finds the diagonals and the
   ghost columns, MatSetValues after it (own rows, stored diagonals and ghost columns), the
   MPIAIJ preallocation call (the path DMCreateMatrix takes with a DMDA), MatSetOption.
   With counts the staging is an MPIAIJ preallocated with them, as AIJ would be; without,
   the entries are kept as triples and their pattern in a MATPREALLOCATOR, and an MPIAIJ
   preallocated exactly replays them at the final assembly: linear in the entries either way
   (a staging AIJ guessing its sizes would reallocate for every row that outgrows them). */
#include "diag/mpidiag_impl.h"

PetscErrorCode MPIDiagSetUpLayout(Mat M)
{
  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(M->rmap));
  PetscCall(PetscLayoutSetUp(M->cmap));
  PetscCheck(M->rmap->n >= 0 && M->cmap->n >= 0 && M->rmap->N >= 0 && M->cmap->N >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "diag: rows and columns must be nonnegative, not %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT ")", M->rmap->N, M->cmap->N, M->rmap->n, M->cmap->n);
  M->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIDiagStageDestroy(Mat M)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&c->stage));
  PetscCall(MatDestroy(&c->pattern));
  PetscCall(DiagTriplesFree(&c->staged));
  PetscCall(PetscFree(c->phase_end));
  c->nphases = c->phase_capacity = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetUp_MPIDiag(Mat M)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagSetUpLayout(M));
  if (c->A || c->stage || c->pattern) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), &c->pattern));
  PetscCall(MatSetSizes(c->pattern, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(c->pattern, MATPREALLOCATOR));
  PetscCall(MatSetUp(c->pattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJSetPreallocation_MPIDiag(Mat M, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagSetUpLayout(M));
  if (c->A) {
    PetscCall(PetscInfo(M, "mpidiag: a preallocation after the first assembly changes nothing, the diagonals are fixed\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c->staged.count) PetscCall(PetscInfo(M, "mpidiag: the preallocation drops the %" PetscInt64_FMT " entries set before it, as AIJ's does\n", c->staged.count));
  PetscCall(MPIDiagStageDestroy(M));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), &c->stage));
  PetscCall(MatSetSizes(c->stage, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(c->stage, MATMPIAIJ));
  PetscCall(MatMPIAIJSetPreallocation(c->stage, d_nz, d_nnz, o_nz, o_nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIDiagComposeAssembly(Mat M, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatMPIAIJSetPreallocation_C", set ? MatMPIAIJSetPreallocation_MPIDiag : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the first assembly: the local columns go to the diagonal block (in place, O(1) an
   entry), the others to the ghost columns found at that assembly. */
static PetscErrorCode MPIDiagSetAssembled(Mat M, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_MPIDiag *c = MPIDiagOf(M);
  PetscInt     rstart = M->rmap->rstart, rend = M->rmap->rend, cstart = M->cmap->rstart, cend = M->cmap->rend;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt i = rows[r] - rstart;

    if (rows[r] < 0) continue;
    PetscCheck(rows[r] >= rstart && rows[r] < rend, PETSC_COMM_SELF, PETSC_ERR_SUP, "mpidiag MatSetValues: row %" PetscInt_FMT " belongs to another process (this one owns [%" PetscInt_FMT ", %" PetscInt_FMT ")); after the first assembly each process sets its own rows", rows[r], rstart, rend);
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt    j     = cols[k];
      const PetscScalar value = v ? v[c->column_oriented ? k * m + r : r * n + k] : 0;

      if (j < 0) continue;
      PetscCheck(j < M->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mpidiag MatSetValues: column %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", j, M->cmap->N);
      if (j >= cstart && j < cend) {
        const PetscInt jl = j - cstart;

        PetscCall(MatSetValues_SeqDiag(c->A, 1, &i, 1, &jl, &value, mode));
      } else {
        PetscInt g;

        PetscCall(PetscFindInt(j, c->nghost, c->garray, &g));
        if (g < 0) {
          PetscCheck(value == (PetscScalar)0 || ((Mat_SeqDiag *)c->A->spptr)->ignore_new_nonzeros, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mpidiag MatSetValues: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is in a column of another process that this matrix does not store for rows %" PetscInt_FMT "..%" PetscInt_FMT " (they had no entry there at the first assembly). Set every entry you need (zeros count) before the first MatAssemblyEnd, or use an AIJ matrix", rows[r], j, rstart, rend - 1);
          continue;
        }
        if (value == (PetscScalar)0) { /* a zero off the pattern is dropped, on it is set */
          PetscCall(MatSetOption(c->B, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
          PetscCall(MatSetValues(c->B, 1, &i, 1, &g, &value, mode));
          PetscCall(MatSetOption(c->B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
        } else PetscCall(MatSetValues(c->B, 1, &i, 1, &g, &value, mode));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetValues_MPIDiag(Mat M, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  if (c->A) {
    PetscCall(MPIDiagSetAssembled(M, m, rows, n, cols, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!c->stage && !c->pattern) PetscCall(MatSetUp_MPIDiag(M));
  if (c->stage) {
    PetscCall(MatSetValues(c->stage, m, rows, n, cols, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSetValues(c->pattern, m, rows, n, cols, v, INSERT_VALUES)); /* one mode: the pattern sees no flush */
  PetscCall(DiagTriplesReserve(&c->staged, (PetscInt64)m * n));
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt k = 0; k < n; k++)
      if (rows[r] >= 0 && cols[k] >= 0) PetscCall(DiagTriplesAppend(&c->staged, rows[r], cols[k], v ? v[c->column_oriented ? k * m + r : r * n + k] : 0, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPIAIJ of the staged triples: exactly preallocated from their pattern, the triples set
   in their order with a flush assembly wherever the caller had one (the insert mode may change
   there), then assembled */
static PetscErrorCode MPIDiagReplay(Mat M, Mat *P)
{
  Mat_MPIDiag *c = MPIDiagOf(M);
  PetscInt64   p = 0;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), P));
  PetscCall(MatSetSizes(*P, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(*P, MATMPIAIJ));
  PetscCall(MatPreallocatorPreallocate(c->pattern, PETSC_FALSE, *P));
  for (PetscInt phase = 0; phase <= c->nphases; phase++) {
    const PetscInt64 end = phase < c->nphases ? c->phase_end[phase] : c->staged.count;

    for (; p < end; p++) PetscCall(MatSetValues(*P, 1, &c->staged.ti[p], 1, &c->staged.tj[p], &c->staged.tv[p], c->staged.tadd[p] ? ADD_VALUES : INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*P, phase < c->nphases ? MAT_FLUSH_ASSEMBLY : MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, phase < c->nphases ? MAT_FLUSH_ASSEMBLY : MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAssemblyBegin_MPIDiag(Mat M, MatAssemblyType type)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  if (c->stage) PetscCall(MatAssemblyBegin(c->stage, type));
  else if (c->pattern) PetscCall(MatAssemblyBegin(c->pattern, MAT_FINAL_ASSEMBLY)); /* the preallocator takes final assemblies only: called once, at the end */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAssemblyEnd_MPIDiag(Mat M, MatAssemblyType type)
{
  Mat_MPIDiag *c = MPIDiagOf(M);
  Mat          P;

  PetscFunctionBegin;
  if (!c->A && !c->stage && !c->pattern) PetscCall(MatSetUp_MPIDiag(M)); /* assembled with no entries at all */
  if (c->A) {
    PetscCall(MatAssemblyBegin(c->B, type));
    PetscCall(MatAssemblyEnd(c->B, type));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c->stage) {
    PetscCall(MatAssemblyEnd(c->stage, type));
    if (type == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
    P        = c->stage;
    c->stage = NULL;
  } else {
    if (type == MAT_FLUSH_ASSEMBLY) { /* a phase ends: the insert mode may change after it */
      if (c->nphases == c->phase_capacity) {
        PetscInt64 *grown;

        c->phase_capacity = PetscMax(2 * c->phase_capacity, 8);
        PetscCall(PetscMalloc1(c->phase_capacity, &grown));
        if (c->nphases) PetscCall(PetscArraycpy(grown, c->phase_end, c->nphases));
        PetscCall(PetscFree(c->phase_end));
        c->phase_end = grown;
      }
      c->phase_end[c->nphases++] = c->staged.count;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatAssemblyEnd(c->pattern, MAT_FINAL_ASSEMBLY));
    PetscCall(MPIDiagReplay(M, &P));
  }
  PetscCall(MPIDiagStageDestroy(M));
  { /* a rectangular matrix whose diagonal blocks diag would refuse becomes pcsr (diag_rectangular.c) */
    PetscBool became;

    PetscCall(MPIDiagBecomePCSRIfSpread(M, &P, &became));
    if (became) PetscFunctionReturn(PETSC_SUCCESS); /* M's mpidiag context is gone */
  }
  PetscCall(MPIDiagBuildFromMPIAIJ(M, P));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIDiagStageZeroEntries(Mat M)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  if (c->stage) PetscCall(MatZeroEntries(c->stage));
  for (PetscInt64 p = 0; p < c->staged.count; p++) c->staged.tv[p] = 0; /* the entries stay in the pattern */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetOption_MPIDiag(Mat M, MatOption op, PetscBool flg)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  if (op == MAT_ROW_ORIENTED) c->column_oriented = (PetscBool)!flg;
  if (c->stage) PetscCall(MatSetOption(c->stage, op, flg));
  if (c->A) PetscCall(MatSetOption(c->A, op, flg)); /* MAT_NEW_NONZERO_LOCATIONS */
  PetscFunctionReturn(PETSC_SUCCESS);
}
