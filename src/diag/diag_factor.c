/* MATSEQDIAG factorizations (LU, ILU, Cholesky, ICC) by PETSc's own AIJ code on an AIJ
   copy of the matrix: the symbolic phase makes the copy, each numeric phase refreshes
   its values, the solves are AIJ's.  This is what makes KSP's default preconditioner
   (ILU on one process) and -pc_type lu work on a diag matrix; the factors are not the
   point of the format, the products are.

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

/* the AIJ copy of A's pattern that orderings read, made again when the pattern changed */
static PetscErrorCode DiagOrderingAIJ(Mat A, Mat *aij)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: assemble the matrix before asking its rows or an ordering");
  if (!d->ordering_aij || d->ordering_for != A->nonzerostate) {
    PetscCall(MatDestroy(&d->ordering_aij));
    PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &d->ordering_aij));
    d->ordering_for = A->nonzerostate;
  }
  *aij = d->ordering_aij;
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

typedef struct {
  Mat aij; /* the copy the factorization reads */
  PetscErrorCode (*lusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*choleskysymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lunumeric)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*choleskynumeric)(Mat, Mat, const MatFactorInfo *);
} DiagFactor;

static PetscErrorCode DiagFactorDestroy(void *arg)
{
  DiagFactor *f = (DiagFactor *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&f->aij));
  PetscCall(PetscFree(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagFactorGet(Mat F, DiagFactor **f)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, "GpuMatsDiagFactor", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag factorization without its context");
  PetscCall(PetscContainerGetPointer(c, (void **)f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the AIJ copy of A: made once, its values refreshed after */
static PetscErrorCode DiagFactorCopy(DiagFactor *f, Mat A)
{
  Mat fresh;

  PetscFunctionBegin;
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &fresh));
  if (f->aij && f->aij->rmap->n == fresh->rmap->n) {
    PetscCall(MatCopy(fresh, f->aij, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&fresh));
  } else {
    PetscCall(MatDestroy(&f->aij));
    f->aij = fresh;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_SeqDiag(Mat F, Mat A, const MatFactorInfo *info)
{
  DiagFactor *f;

  PetscFunctionBegin;
  PetscCall(DiagFactorGet(F, &f));
  PetscCall(DiagFactorCopy(f, A));
  PetscCall((*f->lunumeric)(F, f->aij, info));
  F->ops->lufactornumeric = MatLUFactorNumeric_SeqDiag; /* AIJ's numeric phase may choose another one for the next time */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_SeqDiag(Mat F, Mat A, const MatFactorInfo *info)
{
  DiagFactor *f;

  PetscFunctionBegin;
  PetscCall(DiagFactorGet(F, &f));
  PetscCall(DiagFactorCopy(f, A));
  PetscCall((*f->choleskynumeric)(F, f->aij, info));
  F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_SeqDiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symbolic phases: AIJ's on the copy, then the numeric phase goes through the copy too */
static PetscErrorCode MatLUFactorSymbolic_SeqDiag(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  DiagFactor *f;

  PetscFunctionBegin;
  PetscCall(DiagFactorGet(F, &f));
  PetscCall(DiagFactorCopy(f, A));
  PetscCall((*(F->factortype == MAT_FACTOR_ILU ? f->ilusymbolic : f->lusymbolic))(F, f->aij, row, col, info));
  f->lunumeric            = F->ops->lufactornumeric;
  F->ops->lufactornumeric = MatLUFactorNumeric_SeqDiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorSymbolic_SeqDiag(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  DiagFactor *f;

  PetscFunctionBegin;
  PetscCall(DiagFactorGet(F, &f));
  PetscCall(DiagFactorCopy(f, A));
  PetscCall((*(F->factortype == MAT_FACTOR_ICC ? f->iccsymbolic : f->choleskysymbolic))(F, f->aij, perm, info));
  f->choleskynumeric            = F->ops->choleskyfactornumeric;
  F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_SeqDiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorGetSolverType_SeqDiag(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERPETSC;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqDiag_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  Mat            pattern;
  DiagFactor    *f;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCheck(((Mat_SeqDiag *)A->spptr)->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatGetFactor: assemble the matrix first");
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &pattern));
  PetscCall(MatGetFactor(pattern, MATSOLVERPETSC, ftype, F));
  PetscCall(MatDestroy(&pattern));
  PetscCall(PetscNew(&f));
  f->lusymbolic       = (*F)->ops->lufactorsymbolic;
  f->ilusymbolic      = (*F)->ops->ilufactorsymbolic;
  f->choleskysymbolic = (*F)->ops->choleskyfactorsymbolic;
  f->iccsymbolic      = (*F)->ops->iccfactorsymbolic;
  if (f->lusymbolic) (*F)->ops->lufactorsymbolic = MatLUFactorSymbolic_SeqDiag;
  if (f->ilusymbolic) (*F)->ops->ilufactorsymbolic = MatLUFactorSymbolic_SeqDiag;
  if (f->choleskysymbolic) (*F)->ops->choleskyfactorsymbolic = MatCholeskyFactorSymbolic_SeqDiag;
  if (f->iccsymbolic) (*F)->ops->iccfactorsymbolic = MatCholeskyFactorSymbolic_SeqDiag;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, f));
  PetscCall(GpuMatsContainerSetDestroy(c, DiagFactorDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*F, "GpuMatsDiagFactor", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatFactorGetSolverType_C", MatFactorGetSolverType_SeqDiag));
  PetscCall(PetscInfo(A, "DIAG %s factorization by PETSc's AIJ code on an AIJ copy\n", MatFactorTypes[ftype]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagRegisterFactors(void)
{
  PetscFunctionBegin;
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQDIAG, MAT_FACTOR_LU, MatGetFactor_SeqDiag_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQDIAG, MAT_FACTOR_ILU, MatGetFactor_SeqDiag_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQDIAG, MAT_FACTOR_CHOLESKY, MatGetFactor_SeqDiag_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQDIAG, MAT_FACTOR_ICC, MatGetFactor_SeqDiag_PETSc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
