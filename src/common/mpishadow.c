/* MPIAIJ whose diagonal and off-diagonal blocks are converted to a shadow
   format after every final assembly, so MPIAIJ's own products (scatter,
   diagonal-block mult, off-diagonal multadd) run on the format's kernels for
   both blocks.  One implementation for every format: the format's class
   (GpuMatsMPIShadowClass) says how to convert a block with its settings, how
   to read its options and how to show a block. */
#include "common/gpumats_impl.h"

#define MPIShadowOf(A) ((Mat_MPIAIJShadow *)(A)->spptr)

PetscErrorCode GpuMatsMPIShadowGetSettings(Mat A, void **settings)
{
  PetscFunctionBegin;
  *settings = MPIShadowOf(A)->settings;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIShadowSetSetting(Mat A, size_t offset, const void *value, size_t size)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  PetscCheck(offset + size <= c->cls->settings_size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Setting at %zu (%zu bytes) outside the %s settings", offset, size, c->cls->name);
  PetscCall(PetscMemcpy((char *)c->settings + offset, value, size));
  if (A->assembled) PetscCall(GpuMatsMPIShadowUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIShadowGetSetting(Mat A, size_t offset, void *value, size_t size)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  PetscCheck(offset + size <= c->cls->settings_size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Setting at %zu (%zu bytes) outside the %s settings", offset, size, c->cls->name);
  PetscCall(PetscMemcpy(value, (const char *)c->settings + offset, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks follow the settings; re-queried every time: disassembly creates a new off-diagonal block. */
PetscErrorCode GpuMatsMPIShadowUpdateBlocks(Mat A)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  Mat               Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, c->backend));
  if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall((*c->cls->convert_block)(Ad, c->settings, c->backend, PETSC_FALSE));
  if (Ao) PetscCall((*c->cls->convert_block)(Ao, c->settings, c->backend, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIAIJShadow(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall((*MPIShadowOf(A)->parent.assemblyend)(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(GpuMatsMPIShadowUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowComposeAll(Mat A, const GpuMatsMPIShadowClass *cls, PetscBool set);

static PetscErrorCode MPIShadowContextDestroy(Mat A)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  PetscCall(PetscFree(c->settings));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIAIJShadow(Mat A)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  PetscErrorCode (*destroy)(Mat) = c->parent.destroy;

  PetscFunctionBegin;
  PetscCall(MPIShadowComposeAll(A, c->cls, PETSC_FALSE));
  PetscCall(MPIShadowContextDestroy(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The products are MPIAIJ's: they begin the scatter of the ghost values, run the diagonal
   block's product, then end the scatter.  A block that refuses to run (-mat_gpumats_backend
   cuda with no usable device) must refuse before the scatter begins: an error between the
   two leaves the scatter outstanding, and MatDestroy then fails on it. */
static PetscErrorCode MPIShadowCheckBackend(Mat A)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  PetscBool         uses;

  PetscFunctionBegin;
  if (c->backend == GPUMATS_BACKEND_CUDA) PetscCall(GpuMatsBackendUsesDevice(A, c->backend, &uses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowCheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.mult)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIAIJShadow(Mat A, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowCheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.multadd)(A, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowCheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.multtranspose)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIAIJShadow(Mat A, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIShadowCheckBackend(A));
  PetscCall((*MPIShadowOf(A)->parent.multtransposeadd)(A, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIAIJShadow(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A), *d;

  PetscFunctionBegin;
  /* MatDuplicate_MPIAIJ creates B with A's type name and duplicates the blocks */
  PetscCall((*c->parent.duplicate)(A, op, B));
  d          = MPIShadowOf(*B);
  d->backend = c->backend;
  PetscCall(PetscMemcpy(d->settings, c->settings, c->cls->settings_size));
  PetscCall(GpuMatsMPIShadowUpdateBlocks(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIAIJShadow(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);

  PetscFunctionBegin;
  if (c->parent.setfromoptions) PetscCall((*c->parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall((*c->cls->set_from_options)(A, PetscOptionsObject));
  PetscCall(GpuMatsBackendFromOptions(&c->backend, PetscOptionsObject));
  if (A->assembled) PetscCall(GpuMatsMPIShadowUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIAIJShadow(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJShadow *c = MPIShadowOf(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  Mat               Ad, Ao;

  PetscFunctionBegin;
  PetscCall((*c->parent.view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s blocks:\n", c->cls->name));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall((*c->cls->view_block)(Ad, "diagonal", viewer));
  PetscCall((*c->cls->view_block)(Ao, "off-diagonal", viewer));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsSetBackend_MPIAIJShadow(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  MPIShadowOf(A)->backend = backend;
  PetscCall(GpuMatsMPIShadowUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_MPIAIJShadow(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = MPIShadowOf(A)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJShadow_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B, Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  if (B->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, NULL));
    if (Ad) PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ad));
    if (Ao) PetscCall(MatConvert(Ao, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ao));
  }
  PetscCall(MPIShadowComposeAll(B, MPIShadowOf(B)->cls, PETSC_FALSE));
  *B->ops = MPIShadowOf(B)->parent;
  PetscCall(MPIShadowContextDestroy(B));
  PetscCall(GpuMatsBecomeAIJ(B, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowComposeAll(Mat A, const GpuMatsMPIShadowClass *cls, PetscBool set)
{
  char name[256];

  PetscFunctionBegin;
  /* the names MatConvert() looks for, with the type's full and root name */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_mpiaij_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatConvert_MPIAIJShadow_MPIAIJ : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? cls->convert_from_mpiaij : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", cls->roottype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? cls->convert_from_mpiaij : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsSetBackend_C", set ? MatGpuMatsSetBackend_MPIAIJShadow : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_MPIAIJShadow : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_Backend : NULL));
  /* A * dense B: both blocks through the format's SpMM (mpidense_product.c) */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_mpidense_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow_MPIDense : NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_mpidensecuda_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_MPIAIJShadow_MPIDense : NULL));
#endif
  if (cls->compose) PetscCall((*cls->compose)(A, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATMPIAIJ (MAT_INPLACE_MATRIX) or a copy of it becomes the MPI type of the class. */
PetscErrorCode GpuMatsMPIShadowConvert(Mat A, const GpuMatsMPIShadowClass *cls, MatReuse reuse, Mat *newmat)
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
  c->parent  = *B->ops;
  c->cls     = cls;
  c->backend = GPUMATS_BACKEND_AUTO;
  PetscCall(PetscMalloc(cls->settings_size, &c->settings));
  PetscCall(PetscMemcpy(c->settings, cls->settings_default, cls->settings_size));
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
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_FALSE; /* MatCreate() binds every matrix; a GPU type starts unbound */
#endif
  PetscCall(MPIShadowComposeAll(B, cls, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, cls->mpitype));
  if (B->assembled) PetscCall(GpuMatsMPIShadowUpdateBlocks(B));
  else PetscCall(GpuMatsSetDefaultVecType(B, c->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
