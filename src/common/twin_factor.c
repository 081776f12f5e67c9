/* Factorizations through a twin: an AIJ matrix with the entries of a gpumats matrix A, of the
   type a factorization package factors (MATSEQAIJ for petsc, MATSEQAIJCUSPARSE for cusparse),
   factored by that package.  The factor is the package's own matrix: its solves (MatSolve,
   MatSolveTranspose, MatMatSolve, on the GPU with cusparse), MatFactorGetSolverType and view.

   The format says how to read A as a host AIJ (GpuMatsHostAIJFn: a copy, or A itself for an AIJ
   subclass whose host arrays it brings up to date).  MatGetFactor asks the package for the
   factor of an empty twin (A's sizes, the twin's type); the symbolic phase makes the twin with
   A's entries and runs the package's symbolic phase on it; each numeric phase copies A's values
   into the twin where they changed (A's state; one copy of the values: the pattern is kept) and
   runs the package's numeric phase on it.  A pattern that changed without a new symbolic phase
   (diag keeps the entries set and the nonzeros: a stored zero that became nonzero) makes the
   twin again and runs the symbolic phase again, with the orderings and options it was first
   given.  cusparse's solves take device vectors only: host vectors given to them (-vec_type
   standard) are staged through two device vectors of the factor. */
#include "common/gpumats_impl.h"

typedef PetscErrorCode (*LUSymbolicFn)(Mat, Mat, IS, IS, const MatFactorInfo *);
typedef PetscErrorCode (*CholeskySymbolicFn)(Mat, Mat, IS, const MatFactorInfo *);
typedef PetscErrorCode (*NumericFn)(Mat, Mat, const MatFactorInfo *);
typedef PetscErrorCode (*SolveFn)(Mat, Vec, Vec);

typedef struct {
  GpuMatsHostAIJFn   host_aij;
  MatType            twintype; /* MATSEQAIJ, or MATSEQAIJCUSPARSE for cusparse */
  Mat                twin;
  IS                 row, col; /* the orderings of the symbolic phase (col: NULL for Cholesky, ICC) */
  MatFactorInfo      info;     /* and its options */
  LUSymbolicFn       lu_symbolic; /* the package's, for the factor type of F */
  CholeskySymbolicFn cholesky_symbolic;
  NumericFn          numeric;
  PetscBool          device_vectors_only;            /* the package's solves take device vectors only (cusparse) */
  SolveFn            solve, solve_transpose;         /* the package's, when staged */
  Vec                stage_b, stage_x;               /* device vectors for host ones, made at the first such solve */
  PetscBool          symmetric;                      /* Cholesky, ICC: the twin is the symmetric matrix of A's upper triangle */
  PetscInt           n, *ia, *ja;                    /* A's pattern when the twin was made (an LU or ILU twin's own arrays) */
  PetscInt           nz, *from;                      /* the twin's entries, where each is in A's (-1 - k: conjugated; NULL: A's own) */
  PetscObjectState   state;                          /* of A when the twin was last refreshed */
} TwinFactor;

#define TWIN_FACTOR "GpuMatsTwinFactor"

static PetscErrorCode TwinPatternFree(TwinFactor *);

static PetscErrorCode TwinFactorDestroy(void *arg)
{
  TwinFactor *t = (TwinFactor *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&t->twin));
  PetscCall(ISDestroy(&t->row));
  PetscCall(ISDestroy(&t->col));
  PetscCall(TwinPatternFree(t));
  PetscCall(VecDestroy(&t->stage_b));
  PetscCall(VecDestroy(&t->stage_x));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TwinFactorGet(Mat F, TwinFactor **t)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, TWIN_FACTOR, (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: a factor through a twin without its context");
  PetscCall(PetscContainerGetPointer(c, (void **)t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern of a Cholesky or ICC twin and where each of its entries comes from in the host AIJ
   (ia, ja): the symmetric matrix of A's upper triangle (its strict part mirrored below the
   diagonal), since PETSc's factors read the upper triangle and cusparse's ICC(0) the lower one:
   either then factors what PETSc's AIJ factors.  A mirrored entry is conjugated (a Hermitian
   matrix's lower triangle) and marked by from = -1 - k.  (An LU or ILU twin has A's pattern.) */
static PetscErrorCode TwinSymmetricPattern(PetscInt n, const PetscInt *ia, const PetscInt *ja, PetscInt **ti, PetscInt **tj, PetscInt **from)
{
  PetscInt *len, *next;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, ti));
  PetscCall(PetscCalloc2(n, &len, n, &next));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] >= i) {
        len[i]++;
        if (ja[k] > i) len[ja[k]]++; /* its mirror, in row ja[k] */
      }
  for (PetscInt i = 0; i < n; i++) (*ti)[i + 1] = (*ti)[i] + len[i];
  PetscCall(PetscMalloc1((*ti)[n], tj));
  PetscCall(PetscMalloc1((*ti)[n], from));
  /* rows in column order: the mirrored entries of row i (columns < i) come from rows < i, in order */
  for (PetscInt i = 0; i < n; i++) next[i] = (*ti)[i];
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] > i) {
        (*tj)[next[ja[k]]]     = i;
        (*from)[next[ja[k]]++] = -1 - k;
      }
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] >= i) {
        (*tj)[next[i]]     = ja[k];
        (*from)[next[i]++] = k;
      }
  PetscCall(PetscFree2(len, next));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after the twin's destruction: A's pattern is an LU or ILU twin's, freed with it */
static PetscErrorCode TwinPatternFree(TwinFactor *t)
{
  PetscFunctionBegin;
  if (t->symmetric) {
    PetscCall(PetscFree(t->ia));
    PetscCall(PetscFree(t->ja));
  }
  t->ia = t->ja = NULL;
  PetscCall(PetscFree(t->from));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the twin's values from the host AIJ's */
static PetscErrorCode TwinCopyValues(TwinFactor *t, Mat src)
{
  const PetscScalar *v;
  PetscScalar       *w;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(src, &v));
  PetscCall(MatSeqAIJGetArrayWrite(t->twin, &w)); /* cusparse's numeric phase uploads them */
  if (!t->from) PetscCall(PetscArraycpy(w, v, t->nz));
  else
    for (PetscInt k = 0; k < t->nz; k++) w[k] = t->from[k] >= 0 ? v[t->from[k]] : PetscConj(v[-1 - t->from[k]]);
  PetscCall(MatSeqAIJRestoreArrayWrite(t->twin, &w));
  PetscCall(MatSeqAIJRestoreArrayRead(src, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a new twin (A's pattern kept, to tell a change) with the entries of the host AIJ src of A */
static PetscErrorCode TwinBuild(TwinFactor *t, Mat A, Mat src)
{
  const PetscInt *ia, *ja;
  PetscInt        n, *ti = NULL, *tj = NULL;
  PetscScalar    *tv;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&t->twin));
  PetscCall(TwinPatternFree(t));
  PetscCall(MatGetRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: the host AIJ of a %s matrix gave no rows", ((PetscObject)A)->type_name);
  t->n = n;
  PetscCall(PetscMalloc1(n + 1, &t->ia));
  PetscCall(PetscMalloc1(ia[n], &t->ja));
  PetscCall(PetscArraycpy(t->ia, ia, n + 1));
  PetscCall(PetscArraycpy(t->ja, ja, ia[n]));
  t->nz = ia[n];
  if (t->symmetric) {
    PetscCall(TwinSymmetricPattern(n, ia, ja, &ti, &tj, &t->from));
    t->nz = ti[n];
  }
  PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(PetscMalloc1(t->nz, &tv));
  /* an LU or ILU twin has A's pattern: it takes the copy kept to tell a change */
  PetscCall(GpuMatsSeqAIJAdoptCSR(PETSC_COMM_SELF, A->rmap->n, A->cmap->n, ti ? ti : t->ia, tj ? tj : t->ja, tv, &t->twin));
  PetscCall(MatSetBlockSizesFromMats(t->twin, A, A));
  PetscCall(MatConvert(t->twin, t->twintype, MAT_INPLACE_MATRIX, &t->twin));
  PetscCall(TwinCopyValues(t, src));
  PetscCall(MatPropagateSymmetryOptions(A, t->twin));
  if (t->symmetric) PetscCall(MatSetOption(t->twin, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's entries into the twin: its values where A's pattern is the one the twin was made from
   (*same), else a new twin.  Nothing to do where A has not changed since (its state): the first
   numeric phase follows the symbolic one at once, and diag's host AIJ is a copy. */
static PetscErrorCode TwinRefresh(TwinFactor *t, Mat A, PetscBool *same)
{
  Mat              src;
  const PetscInt  *ia, *ja;
  PetscInt         n;
  PetscBool        done;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  *same = PETSC_TRUE;
  if (state == t->state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(GPUMATS_TwinRefresh, A, 0, 0, 0));
  PetscCall((*t->host_aij)(A, &src));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state)); /* the host AIJ's making may have counted */
  PetscCall(MatGetRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: the rows of a %s matrix could not be read", ((PetscObject)A)->type_name);
  *same = (PetscBool)(n == t->n && ia[n] == t->ia[n]); /* t->n < 0: the placeholder */
  if (*same) PetscCall(PetscArraycmp(ia, t->ia, n + 1, same));
  if (*same) PetscCall(PetscArraycmp(ja, t->ja, ia[n], same));
  PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (*same) PetscCall(TwinCopyValues(t, src));
  else {
    if (t->n >= 0) PetscCall(PetscInfo(A, "%s: the twin of the factorization made again: the pattern changed\n", ((PetscObject)A)->type_name));
    PetscCall(TwinBuild(t, A, src));
  }
  PetscCall(MatDestroy(&src));
  t->state = state;
  PetscCall(PetscLogEventEnd(GPUMATS_TwinRefresh, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TwinRemember(TwinFactor *t, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  if (row) PetscCall(PetscObjectReference((PetscObject)row));
  if (col) PetscCall(PetscObjectReference((PetscObject)col));
  PetscCall(ISDestroy(&t->row));
  PetscCall(ISDestroy(&t->col));
  t->row  = row;
  t->col  = col;
  t->info = *info;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_Twin(Mat, Mat, const MatFactorInfo *);
static PetscErrorCode MatCholeskyFactorNumeric_Twin(Mat, Mat, const MatFactorInfo *);

static PetscBool TwinIsCholesky(Mat F)
{
  return (PetscBool)(F->factortype == MAT_FACTOR_CHOLESKY || F->factortype == MAT_FACTOR_ICC);
}

/* the package's symbolic phase on the twin; its numeric phase then goes through the twin too */
static PetscErrorCode TwinSymbolic(Mat F, TwinFactor *t)
{
  PetscFunctionBegin;
  if (TwinIsCholesky(F)) {
    PetscCall((*t->cholesky_symbolic)(F, t->twin, t->row, &t->info));
    t->numeric                    = F->ops->choleskyfactornumeric;
    F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_Twin;
  } else {
    PetscCall((*t->lu_symbolic)(F, t->twin, t->row, t->col, &t->info));
    t->numeric              = F->ops->lufactornumeric;
    F->ops->lufactornumeric = MatLUFactorNumeric_Twin;
  }
  PetscCheck(t->numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: the %s symbolic phase of the twin left no numeric phase", MatFactorTypes[F->factortype]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host vectors (-vec_type standard, a program's own VECSEQ) in a solve by a package whose solves
   take device vectors only: copied into device vectors of the factor and back, as the products
   stage theirs */
static PetscErrorCode TwinStageCopy(Vec from, Vec to)
{
  const PetscScalar *f;
  PetscScalar       *t;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &f));
  PetscCall(VecGetArrayWrite(to, &t));
  PetscCall(PetscArraycpy(t, f, n));
  PetscCall(VecRestoreArrayWrite(to, &t));
  PetscCall(VecRestoreArrayRead(from, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TwinSolveStaged(Mat F, Vec b, Vec x, PetscBool transpose)
{
  TwinFactor *t;
  PetscBool   b_device, x_device;
  Vec         wb = b, wx = x;

  PetscFunctionBegin;
  PetscCall(TwinFactorGet(F, &t));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &b_device, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &x_device, VECSEQCUDA, VECMPICUDA, ""));
  if (!(b_device && x_device) && !t->stage_b) {
    PetscCall(MatCreateVecs(t->twin, &t->stage_x, &t->stage_b));
    PetscCall(PetscInfo(F, "%s solves with host vectors (%s, %s): staged through device vectors\n", MatFactorTypes[F->factortype], ((PetscObject)b)->type_name, ((PetscObject)x)->type_name));
  }
  if (!b_device) {
    wb = t->stage_b;
    PetscCall(TwinStageCopy(b, wb));
  }
  if (!x_device) wx = t->stage_x;
  PetscCall((*(transpose ? t->solve_transpose : t->solve))(F, wb, wx));
  if (!x_device) PetscCall(TwinStageCopy(wx, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_TwinStaged(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(TwinSolveStaged(F, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_TwinStaged(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(TwinSolveStaged(F, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solves the numeric phase set, behind the staging (each numeric phase may set others) */
static PetscErrorCode TwinStageSolves(Mat F, TwinFactor *t)
{
  PetscFunctionBegin;
  if (!t->device_vectors_only) PetscFunctionReturn(PETSC_SUCCESS);
  if (F->ops->solve != MatSolve_TwinStaged) t->solve = F->ops->solve;
  if (F->ops->solvetranspose != MatSolveTranspose_TwinStaged) t->solve_transpose = F->ops->solvetranspose;
  if (t->solve) F->ops->solve = MatSolve_TwinStaged;
  if (t->solve_transpose) F->ops->solvetranspose = MatSolveTranspose_TwinStaged;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TwinNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  TwinFactor *t;
  PetscBool   same;

  PetscFunctionBegin;
  PetscCall(TwinFactorGet(F, &t));
  PetscCall(TwinRefresh(t, A, &same));
  if (!same) PetscCall(TwinSymbolic(F, t));
  PetscCall((*t->numeric)(F, t->twin, info));
  /* a package's numeric phase may choose another one for the next time (AIJ's does): keep it */
  if (TwinIsCholesky(F)) {
    if (F->ops->choleskyfactornumeric != MatCholeskyFactorNumeric_Twin) t->numeric = F->ops->choleskyfactornumeric;
    F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_Twin;
  } else {
    if (F->ops->lufactornumeric != MatLUFactorNumeric_Twin) t->numeric = F->ops->lufactornumeric;
    F->ops->lufactornumeric = MatLUFactorNumeric_Twin;
  }
  PetscCall(TwinStageSolves(F, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_Twin(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(TwinNumeric(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_Twin(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(TwinNumeric(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symbolic phase of either kind: the orderings and options kept for a new twin */
static PetscErrorCode TwinSymbolicOf(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  TwinFactor *t;
  PetscBool   same;

  PetscFunctionBegin;
  PetscCall(TwinFactorGet(F, &t));
  PetscCall(TwinRemember(t, row, col, info));
  PetscCall(TwinRefresh(t, A, &same));
  PetscCall(TwinSymbolic(F, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorSymbolic_Twin(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(TwinSymbolicOf(F, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorSymbolic_Twin(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(TwinSymbolicOf(F, A, perm, NULL, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The twin MatGetFactor asks the package's factor of: A's sizes, block sizes and the twin's
   type, no entries (all a package's MatGetFactor reads).  The entries come with the symbolic
   phase: PCSetUp may ask for a factor twice (PETSc 3.18-3.25 with no package named: the first is
   replaced), and each would have copied A. */
static PetscErrorCode TwinPlaceholder(TwinFactor *t, Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &t->twin));
  PetscCall(MatSetSizes(t->twin, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
  PetscCall(MatSetBlockSizesFromMats(t->twin, A, A));
  PetscCall(MatSetType(t->twin, t->twintype));
  PetscCall(MatSeqAIJSetPreallocation(t->twin, 0, NULL));
  PetscCall(MatAssemblyBegin(t->twin, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(t->twin, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsTwinFactorCreate(Mat A, MatFactorType ftype, MatSolverType package, MatType twintype, GpuMatsHostAIJFn host_aij, Mat *F)
{
  TwinFactor    *t;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscNew(&t));
  t->host_aij = host_aij;
  t->symmetric = (PetscBool)(ftype == MAT_FACTOR_CHOLESKY || ftype == MAT_FACTOR_ICC);
  t->twintype = twintype;
  t->n        = -1; /* no twin made yet: the symbolic phase makes it */
  t->state    = -1;
  PetscCall(PetscStrcmp(package, MATSOLVERCUSPARSE, &t->device_vectors_only));
  PetscCall(TwinPlaceholder(t, A));
  PetscCall(MatGetFactor(t->twin, package, ftype, F));
  t->lu_symbolic       = ftype == MAT_FACTOR_ILU ? (*F)->ops->ilufactorsymbolic : (*F)->ops->lufactorsymbolic;
  t->cholesky_symbolic = ftype == MAT_FACTOR_ICC ? (*F)->ops->iccfactorsymbolic : (*F)->ops->choleskyfactorsymbolic;
  PetscCheck(t->symmetric ? t->cholesky_symbolic != NULL : t->lu_symbolic != NULL, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpumats: %s gives no %s symbolic phase for %s", package, MatFactorTypes[ftype], twintype);
  switch (ftype) {
  case MAT_FACTOR_LU:
    (*F)->ops->lufactorsymbolic = MatLUFactorSymbolic_Twin;
    break;
  case MAT_FACTOR_ILU:
    (*F)->ops->ilufactorsymbolic = MatLUFactorSymbolic_Twin;
    break;
  case MAT_FACTOR_CHOLESKY:
    (*F)->ops->choleskyfactorsymbolic = MatCholeskyFactorSymbolic_Twin;
    break;
  case MAT_FACTOR_ICC:
    (*F)->ops->iccfactorsymbolic = MatCholeskyFactorSymbolic_Twin;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "gpumats: no %s factorization through a twin", MatFactorTypes[ftype]);
  }
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, t));
  PetscCall(GpuMatsContainerSetDestroy(c, TwinFactorDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*F, TWIN_FACTOR, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(PetscInfo(A, "%s: %s factorization by %s on a %s twin\n", ((PetscObject)A)->type_name, MatFactorTypes[ftype], package, twintype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowHostAIJ(Mat A, Mat *aij)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsAheadSync(A, "a factorization")); /* values made on the device come back */
  PetscCall(PetscObjectReference((PetscObject)A));
  *aij = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factor of A where its products run: on the GPU through an aijcusparse twin, factored and
   solved by cusparse, where they run on the GPU and cusparse has the factor type; else the
   factor "petsc" gives A (on the host, where the products are) */
PetscErrorCode GpuMatsTwinFactorWhereProducts(Mat A, MatFactorType ftype, GpuMatsHostAIJFn host_aij, Mat *F)
{
  PetscBool device = PETSC_FALSE;
  PetscErrorCode (*cusparse)(Mat, MatFactorType, Mat *) = NULL;

  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(MatGpuMatsUsesDevice(A, &device));
  if (device) PetscCall(MatSolverTypeGet(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, ftype, NULL, NULL, &cusparse));
#endif
  if (cusparse) PetscCall(GpuMatsTwinFactorCreate(A, ftype, MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, host_aij, F));
  else {
    PetscCall(PetscInfo(A, "%s: %s factorization on the host (%s)\n", ((PetscObject)A)->type_name, MatFactorTypes[ftype], device ? "cusparse has none" : "the products run on the host"));
    PetscCall(MatGetFactor(A, MATSOLVERPETSC, ftype, F));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsRegisterTwinFactors(MatType seqtype, PetscErrorCode (*getfactor)(Mat, MatFactorType, Mat *))
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  /* the exact type name: what MatGetFactor takes when nobody names a package (a named package
     goes by the type's prefix: "petsc" finds seqaij's for pcsr and cihybrid, "seqdia" for diag) */
  for (MatFactorType t = MAT_FACTOR_LU; t <= MAT_FACTOR_ICC; t = (MatFactorType)(t + 1)) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, seqtype, t, getfactor));
#else
  (void)seqtype;
  (void)getfactor;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
