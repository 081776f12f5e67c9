/* MATSEQDIAG factorizations (LU, ILU, Cholesky, ICC) through an AIJ twin of the matrix
   (common/twin_factor.c): the twin has the entries diag keeps (those set, and the nonzeros),
   each numeric phase copies the values into it.  With nobody naming a package, a matrix whose
   products run on the GPU is factored and solved there by cusparse on an aijcusparse twin (the
   default preconditioner, ILU on one process or on each block of block Jacobi, no longer sends
   the vectors to the host at each solve); -pc_factor_mat_solver_type petsc, or a matrix on the
   host, gets PETSc's own AIJ code on a MATSEQAIJ twin.

   The ordering of a factorization (MatGetOrdering: nd, rcm, qmd, 1wd, natural) is asked of
   the diag matrix itself.  PETSc's orderings read its graph by MatGetRowIJ, which AIJ gives
   compressed to its inodes (rows of one pattern, as the unknowns of a grid point), and then
   expand the permutation of the nodes to the rows by MatInodeAdjustForInodes on the matrix
   they were asked of.  A type without getrowij is converted to AIJ by nd and rcm, which
   then permute its nodes, and nothing expands them: the symbolic phase read a permutation
   shorter than the matrix (SNES ex19, 4 unknowns a point, -pc_type lu or mg).  So a diag
   matrix answers both from an AIJ copy of its pattern, kept while the pattern stays: its
   orderings are AIJ's own, row for row. */
#include "diag/diag_impl.h"

/* The AIJ copy of A kept for its orderings and factorizations: made again when the pattern
   changed, and when the values did too where they are asked for (a factorization's twin) */
static PetscErrorCode DiagCachedAIJ(Mat A, PetscBool values, Mat *aij)
{
  Mat_SeqDiag     *d = (Mat_SeqDiag *)A->spptr;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: assemble the matrix before asking its rows, an ordering or a factorization");
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!d->ordering_aij || d->ordering_for != A->nonzerostate || (values && d->ordering_values != state)) {
    PetscCall(MatDestroy(&d->ordering_aij));
    PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &d->ordering_aij));
    d->ordering_for    = A->nonzerostate;
    d->ordering_values = state;
  }
  *aij = d->ordering_aij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagOrderingAIJ(Mat A, Mat *aij)
{
  PetscFunctionBegin;
  PetscCall(DiagCachedAIJ(A, PETSC_FALSE, aij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetRowIJ_SeqDiag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(DiagOrderingAIJ(A, &aij));
  PetscCall(MatGetRowIJ(aij, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatRestoreRowIJ_SeqDiag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(d->ordering_aij, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatRestoreRowIJ without MatGetRowIJ");
  PetscCall(MatRestoreRowIJ(d->ordering_aij, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatInodeAdjustForInodes_SeqDiag(Mat A, IS *rperm, IS *cperm)
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(DiagOrderingAIJ(A, &aij));
  PetscCall(MatInodeAdjustForInodes(aij, rperm, cperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagComposeOrderings_SeqDiag(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  A->ops->getrowij     = set ? MatGetRowIJ_SeqDiag : NULL;
  A->ops->restorerowij = set ? MatRestoreRowIJ_SeqDiag : NULL;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatInodeAdjustForInodes_C", set ? MatInodeAdjustForInodes_SeqDiag : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* diag's entries as a host AIJ, a new reference: the kept copy (a factorization asks the
   ordering and the twin of the same values) */
static PetscErrorCode DiagHostAIJ(Mat A, Mat *aij)
{
  PetscFunctionBegin;
  PetscCall(DiagCachedAIJ(A, PETSC_TRUE, aij));
  PetscCall(PetscObjectReference((PetscObject)*aij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqDiag_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsTwinFactorCreate(A, ftype, MATSOLVERPETSC, MATSEQAIJ, DiagHostAIJ, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqDiag(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsTwinFactorWhereProducts(A, ftype, DiagHostAIJ, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagRegisterFactors(void)
{
  PetscFunctionBegin;
  /* "petsc" for "seqdia", a prefix of the type name: MatGetFactor finds a named package's
     factor by prefix, but takes the exact name first when nobody names one, and that is the
     GPU's where the products run (GpuMatsRegisterTwinFactors) */
  for (MatFactorType t = MAT_FACTOR_LU; t <= MAT_FACTOR_ICC; t = (MatFactorType)(t + 1)) PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, "seqdia", t, MatGetFactor_SeqDiag_PETSc));
  PetscCall(GpuMatsRegisterTwinFactors(MATSEQDIAG, MatGetFactor_SeqDiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}
