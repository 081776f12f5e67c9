/* Factorizations through a twin: an AIJ matrix with the entries of a gpumats matrix A, of the
   type a factorization package factors (MATSEQAIJ for petsc, MATSEQAIJCUSPARSE for cusparse),
   factored by that package.  The factor is the package's own matrix: its solves (MatSolve,
   MatSolveTranspose, MatMatSolve, on the GPU with cusparse), MatFactorGetSolverType and view.

   The format says how to read A as a host AIJ (GpuMatsHostAIJFn: a copy, or A itself for an AIJ
   subclass whose host arrays it brings up to date).  MatGetFactor makes the twin and asks the
   package for the factor of it; the symbolic phase refreshes the twin and runs the package's
   symbolic phase on it; each numeric phase copies A's current values into the twin (one copy of
   the values: the pattern is kept) and runs the package's numeric phase on it.  A pattern that
   changed without a new symbolic phase (diag keeps the entries set and the nonzeros: a stored
   zero that became nonzero) makes the twin again and runs the symbolic phase again, with the
   orderings and options it was first given.  cusparse's solves take device vectors only: host
   vectors given to them (-vec_type standard) are staged through two device vectors of the factor. */
#include "common/gpumats_impl.h"

typedef PetscErrorCode (*LUSymbolicFn)(Mat, Mat, IS, IS, const MatFactorInfo *);
typedef PetscErrorCode (*CholeskySymbolicFn)(Mat, Mat, IS, const MatFactorInfo *);
typedef PetscErrorCode (*NumericFn)(Mat, Mat, const MatFactorInfo *);
typedef PetscErrorCode (*SolveFn)(Mat, Vec, Vec);

typedef struct {
  GpuMatsHostAIJFn   host_aij;
  Mat                twin;
  IS                 row, col; /* the orderings of the symbolic phase (col: NULL for Cholesky, ICC) */
  MatFactorInfo      info;     /* and its options */
  LUSymbolicFn       lu_symbolic; /* the package's, for the factor type of F */
  CholeskySymbolicFn cholesky_symbolic;
  NumericFn          numeric;
  PetscBool          device_vectors_only;            /* the package's solves take device vectors only (cusparse) */
  SolveFn            solve, solve_transpose;         /* the package's, when staged */
  Vec                stage_b, stage_x;               /* device vectors for host ones, made at the first such solve */
} TwinFactor;

#define TWIN_FACTOR "GpuMatsTwinFactor"

static PetscErrorCode TwinFactorDestroy(void *arg)
{
  TwinFactor *t = (TwinFactor *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&t->twin));
  PetscCall(ISDestroy(&t->row));
  PetscCall(ISDestroy(&t->col));
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

/* a new matrix of 'type' with the entries of the host AIJ src */
static PetscErrorCode TwinFromHostAIJ(Mat A, Mat src, MatType type, Mat *twin)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *v;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: the host AIJ of a %s matrix gave no rows", ((PetscObject)A)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(src, &v));
  PetscCall(MatCreate(PETSC_COMM_SELF, twin));
  PetscCall(MatSetSizes(*twin, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
  PetscCall(MatSetBlockSizesFromMats(*twin, A, A));
  PetscCall(MatSetType(*twin, type));
  PetscCall(MatSeqAIJSetPreallocationCSR(*twin, ia, ja, v));
  PetscCall(MatSeqAIJRestoreArrayRead(src, &v));
  PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatPropagateSymmetryOptions(A, *twin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's entries into the twin: its values where the pattern is the twin's (*same), else a new twin */
static PetscErrorCode TwinRefresh(TwinFactor *t, Mat A, PetscBool *same)
{
  Mat             src;
  const PetscInt *ia, *ja, *ta, *tj;
  PetscInt        n, tn;
  PetscBool       done, tdone;

  PetscFunctionBegin;
  PetscCall((*t->host_aij)(A, &src));
  PetscCall(MatGetRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatGetRowIJ(t->twin, 0, PETSC_FALSE, PETSC_FALSE, &tn, &ta, &tj, &tdone));
  PetscCheck(done && tdone, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats: the rows of a %s matrix or of its twin could not be read", ((PetscObject)A)->type_name);
  *same = (PetscBool)(n == tn && ia[n] == ta[tn]);
  if (*same) {
    PetscBool eq;

    PetscCall(PetscArraycmp(ia, ta, n + 1, &eq));
    if (eq) PetscCall(PetscArraycmp(ja, tj, ia[n], &eq));
    *same = eq;
  }
  PetscCall(MatRestoreRowIJ(t->twin, 0, PETSC_FALSE, PETSC_FALSE, &tn, &ta, &tj, &tdone));
  if (*same) {
    const PetscScalar *v;
    PetscScalar       *w;

    PetscCall(MatSeqAIJGetArrayRead(src, &v));
    PetscCall(MatSeqAIJGetArrayWrite(t->twin, &w)); /* cusparse's numeric phase uploads them */
    PetscCall(PetscArraycpy(w, v, ia[n]));
    PetscCall(MatSeqAIJRestoreArrayWrite(t->twin, &w));
    PetscCall(MatSeqAIJRestoreArrayRead(src, &v));
    PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  } else {
    MatType type;
    Mat     twin;

    PetscCall(MatRestoreRowIJ(src, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscCall(MatGetType(t->twin, &type));
    PetscCall(TwinFromHostAIJ(A, src, type, &twin));
    PetscCall(MatDestroy(&t->twin));
    t->twin = twin;
    PetscCall(PetscInfo(A, "%s: the twin of the factorization made again: the pattern changed\n", ((PetscObject)A)->type_name));
  }
  PetscCall(MatDestroy(&src));
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

static PetscErrorCode MatLUFactorSymbolic_Twin(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
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

static PetscErrorCode MatCholeskyFactorSymbolic_Twin(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  TwinFactor *t;
  PetscBool   same;

  PetscFunctionBegin;
  PetscCall(TwinFactorGet(F, &t));
  PetscCall(TwinRemember(t, perm, NULL, info));
  PetscCall(TwinRefresh(t, A, &same));
  PetscCall(TwinSymbolic(F, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsTwinFactorCreate(Mat A, MatFactorType ftype, MatSolverType package, MatType twintype, GpuMatsHostAIJFn host_aij, Mat *F)
{
  TwinFactor    *t;
  PetscContainer c;
  Mat            src;

  PetscFunctionBegin;
  PetscCall(PetscNew(&t));
  t->host_aij = host_aij;
  PetscCall((*host_aij)(A, &src));
  PetscCall(TwinFromHostAIJ(A, src, twintype, &t->twin));
  PetscCall(PetscStrcmp(package, MATSOLVERCUSPARSE, &t->device_vectors_only));
  PetscCall(MatDestroy(&src));
  PetscCall(MatGetFactor(t->twin, package, ftype, F));
  t->lu_symbolic       = ftype == MAT_FACTOR_ILU ? (*F)->ops->ilufactorsymbolic : (*F)->ops->lufactorsymbolic;
  t->cholesky_symbolic = ftype == MAT_FACTOR_ICC ? (*F)->ops->iccfactorsymbolic : (*F)->ops->choleskyfactorsymbolic;
  PetscCheck(ftype == MAT_FACTOR_CHOLESKY || ftype == MAT_FACTOR_ICC ? t->cholesky_symbolic != NULL : t->lu_symbolic != NULL, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpumats: %s gives no %s symbolic phase for %s", package, MatFactorTypes[ftype], twintype);
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
