/* The device copy ahead of the host AIJ master (pcsr and cihybrid, sequential).

   MatSetValuesCOO with values in device memory writes them into the device copy.  Copying them
   back into the host master at once costs what two dozen MatMults do, every time, and
   aijcusparse does not pay it.  So the device copy may run
   ahead: the host values are then older, and anything that could read them brings them up to
   date first (GpuMatsShadowAheadSync: one download, done once).

   What could read them: every op but the products, the assembly MatSetValuesCOO ends with, and
   bookkeeping.  While A is ahead its table is GpuMatsAheadOpsFill's, generated from the struct
   _MatOps of the PETSc it is built against (tools/build/gen-ahead-ops.py), so that no op of any
   PETSc version is missed: each wrapper brings A (and any other matrix argument) up to date,
   which puts A's own table back, and runs the op.  The formats' updates do the same before a
   product on the host or a rebuild from the host arrays.

   SeqAIJ's assembly and MatSetOption, kept, write entries of the table they run in (the inode
   check puts SeqAIJ's row and column IJ ops back; MAT_SORTED_FULL chooses MatSetValues): while
   A is ahead those entries go to the table A gets back, and are wrapped again.

   What reads A's host arrays without an op of A runs later, unseen: the numeric phase of a
   factorization or of a sparse product.  Those mark A when they are made (a sparse
   MatProductSetFromOptions, MatGetFactor of any package: aij_factors.c), and a marked A never
   runs ahead: its values go back to the host at once.  Not seen: the user's own
   MatSeqAIJGetArray() (README, "Values in device memory"). */
#include "common/gpumats_impl.h"
#include "gpumats_ahead_ops.h" /* generated: GpuMatsAheadOpsFill */

#define SHADOW_AHEAD_SYNC   "GpuMatsShadowAheadSync_C"
#define SHADOW_HOST_READERS "GpuMatsShadowMarkHostReaders_C"

PetscErrorCode GpuMatsShadowAheadSync(Mat A, const char *why)
{
  GpuMatsShadow *s = GpuMatsShadowOf(A);
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (!s->ahead) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t0));
#if GPUMATS_HAVE_CUDA
  PetscCall((*s->base.ops->values_download)(A));
#endif
  *A->ops  = s->ahead_saved;
  s->ahead = PETSC_FALSE;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(A, "%s: the host AIJ's %" PetscInt64_FMT " values brought up to date from the device copy for %s (%g s)\n", ((PetscObject)A)->type_name, s->base.nnz, why, t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsAheadSync(Mat M, const char *why)
{
  PetscErrorCode (*sync)(Mat, const char *) = NULL;

  PetscFunctionBegin;
  if (!M) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQueryFunction((PetscObject)M, SHADOW_AHEAD_SYNC, &sync));
  if (sync) PetscCall((*sync)(M, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowAheadSyncOperand(Mat M)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsAheadSync(M, "an operation of another matrix"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsAheadComposeSync(Mat M, PetscErrorCode (*sync)(Mat, const char *), PetscErrorCode (*mark)(Mat, const char *))
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)M, SHADOW_AHEAD_SYNC, sync));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, SHADOW_HOST_READERS, mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsAheadOpsInstall(Mat A, struct _MatOps *saved)
{
  PetscFunctionBegin;
  *saved = *A->ops;
  GpuMatsAheadOpsFill(saved, A->ops);
  /* kept: the products (on the device copy; one on the host syncs in the format's update), the
     assembly that ends MatSetValuesCOO (nothing was inserted: every insertion syncs first), what
     reads no value, and the destruction (productsetfromoptions, which runs on the product, is
     not in the generated table at all) */
  A->ops->mult             = saved->mult;
  A->ops->multadd          = saved->multadd;
  A->ops->multtranspose    = saved->multtranspose;
  A->ops->multtransposeadd = saved->multtransposeadd;
  A->ops->assemblybegin    = saved->assemblybegin;
  A->ops->assemblyend      = saved->assemblyend;
  A->ops->setoption        = saved->setoption;
  A->ops->getinfo          = saved->getinfo;
  A->ops->getvecs          = saved->getvecs;
  A->ops->destroy          = saved->destroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShadowAheadInstall(Mat);

/* After a kept op of SeqAIJ that may write A's table: each entry it wrote is SeqAIJ's new op,
   for the table A gets back at its sync; then wrapped again.  The table is read entry by entry,
   as MatHasOperation() reads it.  (Nothing to do where the op synced A: its table is back.) */
static PetscErrorCode ShadowAheadKeepWritten(Mat A, const struct _MatOps *before)
{
  typedef void (*MatOp)(void);
  GpuMatsShadow *s     = GpuMatsShadowOf(A);
  const MatOp   *was   = (const MatOp *)before, *now = (const MatOp *)A->ops;
  MatOp         *saved = (MatOp *)&s->ahead_saved;

  PetscFunctionBegin;
  if (!s->ahead) PetscFunctionReturn(PETSC_SUCCESS);
  for (size_t k = 0; k < sizeof(struct _MatOps) / sizeof(MatOp); k++)
    if (now[k] != was[k]) saved[k] = now[k];
  *A->ops = s->ahead_saved;
  PetscCall(ShadowAheadInstall(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_SeqAIJShadowAhead(Mat A, MatAssemblyType mode)
{
  struct _MatOps before = *A->ops;

  PetscFunctionBegin;
  PetscCall((*GpuMatsShadowOf(A)->ahead_saved.assemblyend)(A, mode));
  PetscCall(ShadowAheadKeepWritten(A, &before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetOption_SeqAIJShadowAhead(Mat A, MatOption op, PetscBool flg)
{
  struct _MatOps before = *A->ops;

  PetscFunctionBegin;
  PetscCall((*GpuMatsShadowOf(A)->ahead_saved.setoption)(A, op, flg));
  PetscCall(ShadowAheadKeepWritten(A, &before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ahead table over A's own, which is saved */
static PetscErrorCode ShadowAheadInstall(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsAheadOpsInstall(A, &GpuMatsShadowOf(A)->ahead_saved));
  A->ops->assemblyend = MatAssemblyEnd_SeqAIJShadowAhead;
  A->ops->setoption   = MatSetOption_SeqAIJShadowAhead;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowAheadBegin(Mat A, PetscBool *ahead)
{
  GpuMatsShadow *s = GpuMatsShadowOf(A);

  PetscFunctionBegin;
  *ahead = PETSC_FALSE;
#if GPUMATS_HAVE_CUDA
  if (s->host_readers || !s->base.ops->values_download) PetscFunctionReturn(PETSC_SUCCESS);
  *ahead = PETSC_TRUE;
  if (s->ahead) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ShadowAheadInstall(A));
  s->ahead = PETSC_TRUE;
  PetscCall(PetscInfo(A, "%s: new values on the device copy only; the host AIJ follows when a host operation needs them\n", ((PetscObject)A)->type_name));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowAheadDrop(Mat A)
{
  GpuMatsShadow *s = GpuMatsShadowOf(A);

  PetscFunctionBegin;
  if (s->ahead) *A->ops = s->ahead_saved;
  s->ahead = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShadowMarkHostReaders(Mat A, const char *why)
{
  GpuMatsShadow *s = GpuMatsShadowOf(A);

  PetscFunctionBegin;
  if (!s->host_readers) PetscCall(PetscInfo(A, "%s: %s reads the host AIJ directly: values given on the device go back to it at once from now on\n", ((PetscObject)A)->type_name, why));
  s->host_readers = PETSC_TRUE;
  PetscCall(GpuMatsShadowAheadSync(A, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowMarkHostReaders(Mat M, const char *why)
{
  PetscErrorCode (*mark)(Mat, const char *) = NULL;

  PetscFunctionBegin;
  if (!M) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQueryFunction((PetscObject)M, SHADOW_HOST_READERS, &mark));
  if (mark) PetscCall((*mark)(M, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sparse product with a shadow operand: AIJ's, whose numeric phase reads the operands' host
   arrays at every MatProductNumeric.  (With a dense B the composed functions of format_ops.c
   take the product instead.) */
static PetscErrorCode MatProductSetFromOptions_SeqAIJShadow(Mat C)
{
  Mat_Product *product = C->product;
  Mat          operands[3];
  PetscErrorCode (*aij)(Mat) = NULL;

  PetscFunctionBegin;
  operands[0] = product->A;
  operands[1] = product->B;
  operands[2] = product->C;
  for (int k = 0; k < 3; k++) {
    PetscErrorCode (*mark)(Mat, const char *) = NULL;

    if (!operands[k]) continue;
    PetscCall(PetscObjectQueryFunction((PetscObject)operands[k], SHADOW_HOST_READERS, &mark));
    if (!mark) continue;
    PetscCall((*mark)(operands[k], "a sparse MatProduct"));
    if (!aij) aij = GpuMatsShadowOf(operands[k])->parent.productsetfromoptions;
  }
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A shadow product without a shadow operand");
  PetscCall((*aij)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowInstallHostReaders(Mat A, const char *seqtype, PetscBool set)
{
  char name[256];

  PetscFunctionBegin;
  PetscCall(GpuMatsAheadComposeSync(A, set ? GpuMatsShadowAheadSync : NULL, set ? ShadowMarkHostReaders : NULL));
  /* AIJ's sparse products through the function above: with A of this type (its op), with a
     MATSEQAIJ on either side (the names MatProductSetFromOptions() looks for when the ops differ) */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_seqaij_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_SeqAIJShadow : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_seqaij_%s_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_SeqAIJShadow : NULL));
  if (set) A->ops->productsetfromoptions = MatProductSetFromOptions_SeqAIJShadow;
  PetscFunctionReturn(PETSC_SUCCESS);
}
