/* The storage of the MPI types hosted by MATMPIAIJ (cihybrid, pcsr): MPIAIJ's diagonal and
   off-diagonal blocks are converted in place to the class's block kinds after every final
   assembly (re-queried every time: disassembly creates a new off-diagonal block), so
   MPIAIJ's own products (scatter, diagonal-block mult, off-diagonal multadd) run on the
   format's kernels for both blocks.  The class-generic part (settings, backend, options,
   the view of the blocks) is mpiclass.c; this file keeps MPIAIJ's ops beside it. */
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"

typedef struct {
  GpuMatsMPI     mpi; /* first: GpuMatsMPIOf */
  struct _MatOps parent;
  /* the blocks' device copies ahead of their host AIJ (MatSetValuesCOO from device memory,
     common/mpicoo.c): MPIAIJ's own ops read the blocks' host arrays, so A's table syncs them first */
  PetscBool      ahead;
  PetscBool      host_readers; /* a sparse product reads the blocks' host arrays unseen: never ahead */
  struct _MatOps ahead_saved;
} Mat_MPIAIJShadow;

#define MPIShadowOf(A) ((Mat_MPIAIJShadow *)(A)->spptr)

/* The blocks follow the settings once A is assembled (the assembly converts them) */
static PetscErrorCode MPIShadowGetBlocks(Mat A, Mat *Ad, Mat *Ao)
{
  PetscFunctionBegin;
  *Ad = *Ao = NULL;
  if (A->assembled && A->preallocated) PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowGetGhostColumns(Mat A, const PetscInt *garray[])
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, garray));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const GpuMatsMPIStorage MPIShadowStorage = {MPIShadowGetBlocks, NULL, MPIShadowGetGhostColumns};

PetscErrorCode GpuMatsMPIShadowGetParentOps(Mat A, const struct _MatOps **parent)
{
  PetscFunctionBegin;
  *parent = &MPIShadowOf(A)->parent;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's blocks as they are (assembled or not) become the class's, and A's vectors follow the backend */
static PetscErrorCode MPIShadowConvertHostedBlocks(Mat A)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, GpuMatsMPIOf(A)->backend));
  if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(GpuMatsMPIConvertBlocks(A, Ad, Ao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIAIJShadow(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall((*MPIShadowOf(A)->parent.assemblyend)(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MPIShadowConvertHostedBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks' host values brought up to date, A's own table back (a no-op unless A is ahead) */
static PetscErrorCode MPIShadowAheadSync(Mat A, const char *why)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  Mat               Ad, Ao;

  PetscFunctionBegin;
  if (!c->ahead) PetscFunctionReturn(PETSC_SUCCESS);
  *A->ops  = c->ahead_saved;
  c->ahead = PETSC_FALSE;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(GpuMatsAheadSync(Ad, why));
  PetscCall(GpuMatsAheadSync(Ao, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowMarkHostReaders(Mat A, const char *why)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  if (!c->host_readers) PetscCall(PetscInfo(A, "%s: %s reads the blocks' host AIJ directly: values given on the device go back to it at once from now on\n", ((PetscObject)A)->type_name, why));
  c->host_readers = PETSC_TRUE;
  PetscCall(MPIShadowAheadSync(A, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the blocks take values on the device (common/mpicoo.c): *ahead when they may run ahead,
   A's table then syncing them before any op but the products (and what reads no value) */
static PetscErrorCode MPIShadowAheadBegin(Mat A, PetscBool *ahead)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  *ahead = (PetscBool)!c->host_readers;
  if (!*ahead || c->ahead) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsAheadOpsInstall(A, &c->ahead_saved));
  c->ahead = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sparse product with an operand of an MPI shadow type: MPIAIJ's, whose numeric phase reads the
   blocks' host arrays at every MatProductNumeric */
static PetscErrorCode MatProductSetFromOptions_MPIAIJShadow(Mat C)
{
  Mat_Product *product     = C->product;
  Mat          operands[3] = {product->A, product->B, product->C};
  PetscErrorCode (*aij)(Mat) = NULL;

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    if (!operands[k]) continue;
    PetscCall(GpuMatsShadowMarkHostReaders(operands[k], "a sparse MatProduct"));
    if (!aij && operands[k]->ops->productsetfromoptions == MatProductSetFromOptions_MPIAIJShadow) aij = MPIShadowOf(operands[k])->parent.productsetfromoptions;
  }
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An MPI shadow product without an MPI shadow operand");
  PetscCall((*aij)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowComposeAll(Mat A, PetscBool set);

static PetscErrorCode MPIShadowContextDestroy(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPIFinalize(GpuMatsMPIOf(A)));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIAIJShadow(Mat A)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  PetscErrorCode (*destroy)(Mat) = c->parent.destroy;

  PetscFunctionBegin;
  PetscCall(MPIShadowComposeAll(A, PETSC_FALSE));
  PetscCall(MPIShadowContextDestroy(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The products: with device vectors and an MPI that is not GPU-aware, the ghost values through
   pinned buffers of the matrix's own (mpighosts.c); else MPIAIJ's, which begin the scatter of
   the ghost values, run the diagonal block's product, then end the scatter.  The backend is
   checked before (mpiclass.c). */
static PetscErrorCode MPIShadowMult(Mat A, Vec x, Vec y0, Vec y)
{
  Mat_MPIAIJShadow *c    = MPIShadowOf(A);
  PetscBool         done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(GpuMatsMPICheckBackend(A));
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  PetscCall(GpuMatsMPIGhostsMult(A, x, y0, y, &done));
#endif
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  if (y0) PetscCall((*c->parent.multadd)(A, x, y0, y));
  else PetscCall((*c->parent.mult)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowMult(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIAIJShadow(Mat A, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowMult(A, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPICheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.multtranspose)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIAIJShadow(Mat A, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPICheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.multtransposeadd)(A, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIAIJShadow(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  /* MatDuplicate_MPIAIJ creates B with A's type name and duplicates the blocks */
  PetscCall((*MPIShadowOf(A)->parent.duplicate)(A, op, B));
  PetscCall(GpuMatsMPICopySettings(A, *B));
  PetscCall(MPIShadowConvertHostedBlocks(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIAIJShadow(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  if (c->parent.setfromoptions) PetscCall((*c->parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(GpuMatsMPISetFromOptions(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's view, then (ASCII info) the section of the blocks */
static PetscErrorCode MatView_MPIAIJShadow(Mat A, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall((*MPIShadowOf(A)->parent.view)(A, viewer));
  if (A->assembled) PetscCall(GpuMatsMPIViewBlocks(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJShadow_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B, Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MPIShadowAheadSync(A, "MatConvert to MPIAIJ"));
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  if (B->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, NULL));
    if (Ad) PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ad));
    if (Ao) PetscCall(MatConvert(Ao, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ao));
  }
  PetscCall(MPIShadowComposeAll(B, PETSC_FALSE));
  *B->ops = MPIShadowOf(B)->parent;
  PetscCall(MPIShadowContextDestroy(B));
  PetscCall(GpuMatsBecomeAIJ(B, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The class-generic functions (mpiclass.c, the class's own last), then MPIAIJ's conversion
   back and the products with a dense B */
static PetscErrorCode MPIShadowComposeAll(Mat A, PetscBool set)
{
  const GpuMatsMPIClass *cls = GpuMatsMPIOf(A)->cls;
  char                   name[256];

  PetscFunctionBegin;
  PetscCall(GpuMatsMPICompose(A, set));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_mpiaij_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatConvert_MPIAIJShadow_MPIAIJ : NULL));
  /* A * dense B: both blocks through the format's SpMM (mpidense_product.c) */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_mpidense_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow_MPIDense : NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_mpidensecuda_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow_MPIDense : NULL));
#endif
  PetscCall(GpuMatsCOOComposeAIJ(A, set)); /* MPIAIJ's COO, wrapped: common/coo.c */
  /* the blocks ahead of their host AIJ after device COO values, and the sparse products that read them */
  PetscCall(GpuMatsAheadComposeSync(A, set ? MPIShadowAheadSync : NULL, set ? MPIShadowMarkHostReaders : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "GpuMatsMPIAheadBegin_C", set ? MPIShadowAheadBegin : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_mpiaij_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_mpiaij_%s_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATMPIAIJ (MAT_INPLACE_MATRIX) or a copy of it becomes the MPI type of the class. */
PetscErrorCode GpuMatsMPIShadowConvert(Mat A, const GpuMatsMPIClass *cls, MatReuse reuse, Mat *newmat)
{
  Mat               B;
  Mat_MPIAIJShadow *c;
  PetscBool         already;

  PetscFunctionBegin;
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, cls->mpitype, &already));
  if (already) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a %s to %s: only plain MATMPIAIJ can be converted", ((PetscObject)B)->type_name, cls->mpitype);

  PetscCall(PetscNew(&c));
  c->parent = *B->ops;
  PetscCall(GpuMatsMPIInitialize(&c->mpi, cls, &MPIShadowStorage));
  B->spptr = c;

  B->ops->assemblyend      = MatAssemblyEnd_MPIAIJShadow;
  B->ops->destroy          = MatDestroy_MPIAIJShadow;
  B->ops->duplicate        = MatDuplicate_MPIAIJShadow;
  B->ops->setfromoptions   = MatSetFromOptions_MPIAIJShadow;
  B->ops->view             = MatView_MPIAIJShadow;
  B->ops->mult             = MatMult_MPIAIJShadow;
  B->ops->multadd          = MatMultAdd_MPIAIJShadow;
  B->ops->multtranspose    = MatMultTranspose_MPIAIJShadow;
  B->ops->multtransposeadd = MatMultTransposeAdd_MPIAIJShadow;
  if (B->ops->productsetfromoptions) B->ops->productsetfromoptions = MatProductSetFromOptions_MPIAIJShadow;
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  B->ops->getcurrentmemtype = MatGetCurrentMemType_GpuMats;
#endif
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_FALSE; /* MatCreate() binds every matrix; a GPU type starts unbound */
#endif
  PetscCall(MPIShadowComposeAll(B, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, cls->mpitype));
  if (B->assembled) PetscCall(MPIShadowConvertHostedBlocks(B));
  else PetscCall(GpuMatsSetDefaultVecType(B, c->mpi.backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
