/* Submatrices of a MATSEQDIAG, for PCFIELDSPLIT (MatCreateSubMatrix), PCASM and PCBJACOBI
   with several blocks (MatCreateSubMatrices, MatIncreaseOverlap), all through PETSc's AIJ
   code on an AIJ copy of the matrix.  What comes back:
   - MatCreateSubMatrix: a diag matrix (same settings and backend: a field's Krylov solve
     keeps the GPU products) when the submatrix's diagonals fit -mat_diag_max_fill (any
     strided index sets of a banded matrix do), else a seqaij one (-info says so);
   - MatCreateSubMatrices: seqaij blocks, since the subdomain solvers of ASM and block
     Jacobi factor them (ILU, LU), which runs on AIJ anyway.
   MAT_REUSE_MATRIX refills the matrices given back before, whatever their type.
   MatIncreaseOverlap follows the stored entries, explicit zeros included, as AIJ's follows
   its own: a diagonal stores zeros where AIJ may have no entry (the end of a grid line), so
   with several subdomains on one process the overlaps can differ from AIJ's on such rows. */
#include "diag/diag_solverops.h"

PetscErrorCode DiagAIJFits(Mat M, const DiagSettings *s, PetscBool *fits)
{
  const PetscInt *ai, *aj;
  PetscInt        m;
  PetscBool       done;
  DiagScheme      scheme = DiagSchemeOf(s->scheme);
  PetscInt64      hm, cdm, stored;
  DiagFormat      fmt;
  DiagStatus      st;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: cannot read the rows of a %s matrix", ((PetscObject)M)->type_name);
  *fits = PETSC_TRUE;
  st    = s->scheme == MAT_DIAG_SCHEME_AUTO ? DiagChooseScheme(M->rmap->n, M->cmap->n, ai, aj, &scheme, &hm, &cdm) : DIAG_OK;
  if (st == DIAG_OK) {
    if (scheme == DIAG_SCHEME_CDM && M->rmap->n != M->cmap->n) *fits = PETSC_FALSE; /* CDM asked for a rectangular block */
    else {
      st = DiagFromCSR(scheme, M->rmap->n, M->cmap->n, ai, aj, NULL, s->max_fill, &stored, &fmt); /* the structure only */
      DiagFormatFree(&fmt);
      if (st == DIAG_ERR_TOO_SPREAD) *fits = PETSC_FALSE, st = DIAG_OK;
    }
  }
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(DiagCheckStatus(st, M, "Finding the diagonals"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagFromAIJIfFits(Mat M, const DiagSettings *s, GpuMatsBackend backend, PetscBool *fits, Mat *B)
{
  PetscFunctionBegin;
  *B = NULL;
  PetscCall(DiagAIJFits(M, s, fits));
  if (!*fits) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, M->rmap->n, M->cmap->n, M->rmap->n, M->cmap->n));
  PetscCall(MatSetType(*B, MATSEQDIAG));
  ((Mat_SeqDiag *)(*B)->spptr)->settings = *s;
  PetscCall(GpuMatsFormatSetBackend(*B, backend));
  PetscCall(PetscLayoutSetUp((*B)->rmap));
  PetscCall(PetscLayoutSetUp((*B)->cmap));
  (*B)->preallocated = PETSC_TRUE;
  PetscCall(MatDiagBuildFromAIJ_SeqDiag(*B, M));
  (*B)->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagCopyAIJInto(Mat src, Mat dst)
{
  const PetscInt *si, *sj, *di, *dj;
  PetscInt        ms, md;
  PetscBool       dsame, ddone, same = PETSC_FALSE, isdiag;

  PetscFunctionBegin;
  PetscCheck(src->rmap->n == dst->rmap->n && src->cmap->n == dst->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag submatrix reuse: the matrix given back is %" PetscInt_FMT " x %" PetscInt_FMT ", the index sets ask for %" PetscInt_FMT " x %" PetscInt_FMT, dst->rmap->n, dst->cmap->n, src->rmap->n, src->cmap->n);
  PetscCall(PetscObjectTypeCompare((PetscObject)dst, MATSEQDIAG, &isdiag));
  if (isdiag) { /* a diag submatrix from before: its diagonals found again */
    PetscCall(MatDiagBuildFromAIJ_SeqDiag(dst, src));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &ms, &si, &sj, &dsame));
  PetscCall(MatGetRowIJ(dst, 0, PETSC_FALSE, PETSC_FALSE, &md, &di, &dj, &ddone));
  if (dsame && ddone && si[ms] - si[0] == di[md] - di[0]) {
    PetscCall(PetscArraycmp(si, di, ms + 1, &same));
    if (same) PetscCall(PetscArraycmp(sj, dj, si[ms], &same));
  }
  PetscCall(MatRestoreRowIJ(dst, 0, PETSC_FALSE, PETSC_FALSE, &md, &di, &dj, &ddone));
  PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &ms, &si, &sj, &dsame));
  if (!same) PetscCall(MatSetOption(dst, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatCopy(src, dst, same ? SAME_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrix_SeqDiag(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  Mat          M, S;
  PetscBool    fits;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatCreateSubMatrix: assemble the matrix first");
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &M));
  PetscCall(MatCreateSubMatrix(M, isrow, iscol, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatDestroy(&M));
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(DiagCopyAIJInto(S, *B));
    PetscCall(MatDestroy(&S));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DiagFromAIJIfFits(S, &d->settings, d->base.backend, &fits, B));
  if (fits) PetscCall(MatDestroy(&S));
  else {
    PetscCall(PetscInfo(A, "DIAG MatCreateSubMatrix: the %" PetscInt_FMT " x %" PetscInt_FMT " submatrix spreads over too many diagonals for diag: seqaij\n", S->rmap->n, S->cmap->n));
    *B = S;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrices_SeqDiag(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat  M, *fresh;

  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatCreateSubMatrices: assemble the matrix first");
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &M));
  PetscCall(MatCreateSubMatrices(M, n, irow, icol, MAT_INITIAL_MATRIX, &fresh));
  PetscCall(MatDestroy(&M));
  if (scall == MAT_REUSE_MATRIX) {
    for (PetscInt i = 0; i < n; i++) PetscCall(DiagCopyAIJInto(fresh[i], (*submat)[i]));
    PetscCall(MatDestroySubMatrices(n, &fresh));
  } else *submat = fresh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatIncreaseOverlap_SeqDiag(Mat A, PetscInt n, IS is[], PetscInt ov)
{
  Mat G;

  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatIncreaseOverlap: assemble the matrix first");
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &G)); /* the graph with the stored zeros, as AIJ's holds its own */
  PetscCall(MatIncreaseOverlap(G, n, is, ov));
  PetscCall(MatDestroy(&G));
  PetscFunctionReturn(PETSC_SUCCESS);
}
