/* A rectangular diag matrix whose entries lie on too many diagonals for diag (more values stored
   than -mat_diag_max_fill times its entries) becomes pcsr at its first assembly, where a square one
   is refused.  Such a matrix is one a solver makes of the operator's type, a grid transfer or
   GAMG's prolongator (agg.c: MatGetType(A)), not an operator a user chose diag for; pcsr keeps
   its products on the GPU.  -info says so.  The matrix's header is replaced (MatHeaderReplace):
   nothing of its diag context may be used after. */
#include "diag/mpidiag_impl.h"

static PetscErrorCode DiagBecome(Mat A, Mat *M, PetscInt64 entries, PetscInt ndiag)
{
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(MatSetOptionsPrefix(*M, prefix));
  PetscCall(MatSetBlockSizesFromMats(*M, A, A));
  PetscCall(PetscInfo(A, "diag: the %" PetscInt64_FMT " entries of this %" PetscInt_FMT " x %" PetscInt_FMT " block lie on %" PetscInt_FMT " diagonals, more than -mat_diag_max_fill allows: the rectangular matrix (a grid transfer, a prolongator) is %s\n", entries, A->rmap->n, A->cmap->n, ndiag, ((PetscObject)*M)->type_name));
  PetscCall(MatHeaderReplace(A, M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagStageBecomePCSR_SeqDiag(Mat A, const DiagStage *s, PetscInt ndiag)
{
  Mat        M;
  PetscInt  *nnz;
  InsertMode mode = NOT_SET_VALUES;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(A->rmap->n, 1), &nnz));
  for (PetscInt64 p = 0; p < s->values.count; p++) nnz[s->values.ti[p]]++; /* repeats counted: an upper bound */
  for (PetscInt i = 0; i < A->rmap->n; i++) nnz[i] = PetscMin(nnz[i], A->cmap->n);
  PetscCall(MatCreate(PETSC_COMM_SELF, &M));
  PetscCall(MatSetSizes(M, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
  PetscCall(MatSetType(M, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(M, 0, nnz));
  PetscCall(PetscFree(nnz));
  for (PetscInt64 p = 0; p < s->values.count; p++) { /* in the order set: a flush where the mode changes, as a user would */
    const InsertMode m = s->values.tadd[p] ? ADD_VALUES : INSERT_VALUES;

    if (mode != NOT_SET_VALUES && m != mode) {
      PetscCall(MatAssemblyBegin(M, MAT_FLUSH_ASSEMBLY));
      PetscCall(MatAssemblyEnd(M, MAT_FLUSH_ASSEMBLY));
    }
    mode = m;
    PetscCall(MatSetValues(M, 1, &s->values.ti[p], 1, &s->values.tj[p], &s->values.tv[p], mode));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(M, MATSEQAIJPCSR, MAT_INPLACE_MATRIX, &M));
  PetscCall(DiagBecome(A, &M, s->nset, ndiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIDiagBecomePCSRIfSpread(Mat M, Mat *P, PetscBool *became)
{
  Mat             Ad;
  const PetscInt *ai, *aj;
  PetscInt        m;
  PetscBool       done, spread = PETSC_FALSE;
  DiagFormat      fmt;
  DiagStatus      st;

  PetscFunctionBegin;
  *became = PETSC_FALSE;
  if (M->rmap->N == M->cmap->N) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(*P, &Ad, NULL, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  st = DiagFromCSR(DIAG_SCHEME_HM, m, Ad->cmap->n, ai, aj, NULL, MPIDiagSettingsOf(M)->max_fill, NULL, &fmt);
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  if (st == DIAG_ERR_TOO_SPREAD) spread = PETSC_TRUE;
  else if (st == DIAG_OK) DiagFormatFree(&fmt);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &spread, 1, GPUMATS_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)M)));
  if (!spread) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatConvert(*P, MATMPIAIJPCSR, MAT_INPLACE_MATRIX, P));
  PetscCall(DiagBecome(M, P, st == DIAG_ERR_TOO_SPREAD ? fmt.nnz : 0, st == DIAG_ERR_TOO_SPREAD ? fmt.ndiag : 0));
  *became = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
