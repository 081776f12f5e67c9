/* MATMPIAIJCIHYBRID: a MATMPIAIJ whose diagonal and off-diagonal blocks are
   converted to MATSEQAIJCIHYBRID after every final assembly, so MPIAIJ's own
   products (scatter, diagonal-block mult, off-diagonal multadd) run on the
   cihybrid kernels for both blocks.  The user's BOUNDARY and split apply to
   the diagonal block; the off-diagonal block, whose columns are compressed
   ghost indices, always uses the automatic entries split. */
#include "cihybrid/cihybrid_impl.h"

typedef struct {
  struct _MatOps   parent;
  CIHybridSettings settings;
} Mat_MPIAIJCIHybrid;

static PetscErrorCode CIHybridConvertBlock(Mat B, void *ctx)
{
  const CIHybridSettings *s = (const CIHybridSettings *)ctx;
  PetscBool               is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCIHYBRID, &is));
  if (!is) PetscCall(MatConvert_SeqAIJ_SeqAIJCIHybrid(B, MATSEQAIJCIHYBRID, MAT_INPLACE_MATRIX, &B));
  PetscCall(MatCIHybridApplySettings_SeqAIJCIHybrid(B, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridConvertOffDiagonalBlock(Mat B, void *ctx)
{
  CIHybridSettings s = *(const CIHybridSettings *)ctx;

  PetscFunctionBegin;
  s.boundary = MAT_CIHYBRID_BOUNDARY_AUTO;
  s.split    = MAT_CIHYBRID_SPLIT_ENTRIES;
  PetscCall(CIHybridConvertBlock(B, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridUpdateBlocks(Mat A)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, c->settings.backend));
  if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall(CIHybridConvertBlock(Ad, &c->settings));
  if (Ao) PetscCall(CIHybridConvertOffDiagonalBlock(Ao, &c->settings));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIAIJCIHybrid(Mat A, MatAssemblyType mode)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*c->parent.assemblyend)(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MPICIHybridUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridComposeAll(Mat A, PetscBool set);

static PetscErrorCode MatDestroy_MPIAIJCIHybrid(Mat A)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;
  PetscErrorCode (*destroy)(Mat) = c->parent.destroy;

  PetscFunctionBegin;
  PetscCall(MPICIHybridComposeAll(A, PETSC_FALSE));
  PetscCall(PetscFree(A->spptr));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIAIJCIHybrid(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  /* MatDuplicate_MPIAIJ creates B with A's type name and duplicates the blocks */
  PetscCall((*c->parent.duplicate)(A, op, B));
  ((Mat_MPIAIJCIHybrid *)(*B)->spptr)->settings = c->settings;
  PetscCall(MPICIHybridUpdateBlocks(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIAIJCIHybrid(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (c->parent.setfromoptions) PetscCall((*c->parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(CIHybridSettingsFromOptions(A, &c->settings, PetscOptionsObject));
  if (A->assembled) PetscCall(MPICIHybridUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridViewBlock(Mat B, const char *name, PetscViewer viewer)
{
  MatCIHybridInfo info;
  PetscMPIInt     rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(MatCIHybridGetInfo(B, &info));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s block: ELLPACK width %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros in ELLPACK + %" PetscInt64_FMT " in CSR, padding %" PetscInt64_FMT ", %" PetscInt64_FMT " bytes on host, %" PetscInt64_FMT " on device\n", rank, name, info.width, info.nnz_ell, info.nnz_csr, info.padding, info.bytes_host, info.bytes_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIAIJCIHybrid(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJCIHybrid *c = (Mat_MPIAIJCIHybrid *)A->spptr;
  PetscBool           ascii;
  PetscViewerFormat   format;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall((*c->parent.view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(PetscViewerASCIIPrintf(viewer, "CIHYBRID blocks:\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(MPICIHybridViewBlock(Ad, "diagonal", viewer));
  PetscCall(MPICIHybridViewBlock(Ao, "off-diagonal", viewer));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridSetBoundary_MPIAIJCIHybrid(Mat A, PetscInt boundary)
{
  PetscFunctionBegin;
  ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.boundary = boundary;
  if (A->assembled) PetscCall(MPICIHybridUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridGetBoundary_MPIAIJCIHybrid(Mat A, PetscInt *boundary)
{
  PetscFunctionBegin;
  *boundary = ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.boundary;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridSetSplit_MPIAIJCIHybrid(Mat A, MatCIHybridSplit split)
{
  PetscFunctionBegin;
  ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.split = split;
  if (A->assembled) PetscCall(MPICIHybridUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridGetSplit_MPIAIJCIHybrid(Mat A, MatCIHybridSplit *split)
{
  PetscFunctionBegin;
  *split = ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.split;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridGetInfo_MPIAIJCIHybrid(Mat A, MatCIHybridInfo *info)
{
  Mat Ad;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatCIHybridGetInfo: the matrix is not assembled");
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatCIHybridGetInfo(Ad, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsSetBackend_MPIAIJCIHybrid(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.backend = backend;
  PetscCall(MPICIHybridUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_MPIAIJCIHybrid(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsUsesDevice_MPIAIJCIHybrid(Mat A, PetscBool *uses)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsBackendUsesDevice(A, ((Mat_MPIAIJCIHybrid *)A->spptr)->settings.backend, uses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJCIHybrid_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
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
  PetscCall(MPICIHybridComposeAll(B, PETSC_FALSE));
  *B->ops = ((Mat_MPIAIJCIHybrid *)B->spptr)->parent;
  PetscCall(PetscFree(B->spptr));
  PetscCall(MatSetVecType(B, VECSTANDARD));
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_TRUE;
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridComposeAll(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  /* the names MatConvert() looks for, with the type's full and root name */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijcihybrid_mpiaij_C", set ? MatConvert_MPIAIJCIHybrid_MPIAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaij_mpiaijcihybrid_C", set ? MatConvert_MPIAIJ_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaij_cihybrid_C", set ? MatConvert_MPIAIJ_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetBoundary_C", set ? MatCIHybridSetBoundary_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetBoundary_C", set ? MatCIHybridGetBoundary_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetSplit_C", set ? MatCIHybridSetSplit_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetSplit_C", set ? MatCIHybridGetSplit_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetInfo_C", set ? MatCIHybridGetInfo_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsSetBackend_C", set ? MatGpuMatsSetBackend_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_MPIAIJCIHybrid : NULL));
  /* A * dense B: both blocks through the cihybrid SpMM (mpicihybrid_product.c) */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpiaijcihybrid_mpidense_C", set ? MatProductSetFromOptions_MPIAIJCIHybrid_MPIDense : NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpiaijcihybrid_mpidensecuda_C", set ? MatProductSetFromOptions_MPIAIJCIHybrid_MPIDense : NULL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIAIJCIHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_MPIAIJCIHybrid *c;
  PetscBool           already;

  PetscFunctionBegin;
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJCIHYBRID, &already));
  if (already) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a %s to %s: only plain MATMPIAIJ can be converted", ((PetscObject)B)->type_name, MATMPIAIJCIHYBRID);

  PetscCall(PetscNew(&c));
  c->parent            = *B->ops;
  c->settings.boundary = MAT_CIHYBRID_BOUNDARY_AUTO;
  c->settings.split    = MAT_CIHYBRID_SPLIT_ENTRIES;
  c->settings.backend  = GPUMATS_BACKEND_AUTO;
  B->spptr             = c;

  B->ops->assemblyend    = MatAssemblyEnd_MPIAIJCIHybrid;
  B->ops->destroy        = MatDestroy_MPIAIJCIHybrid;
  B->ops->duplicate      = MatDuplicate_MPIAIJCIHybrid;
  B->ops->setfromoptions = MatSetFromOptions_MPIAIJCIHybrid;
  B->ops->view           = MatView_MPIAIJCIHybrid;
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_FALSE; /* MatCreate() binds every matrix; a GPU type starts unbound */
#endif
  PetscCall(MPICIHybridComposeAll(B, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIAIJCIHYBRID));
  if (B->assembled) PetscCall(MPICIHybridUpdateBlocks(B));
  else PetscCall(GpuMatsSetDefaultVecType(B, c->settings.backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIAIJCIHYBRID - "mpiaijcihybrid" - MATMPIAIJ with MATSEQAIJCIHYBRID blocks.
   Same options as MATSEQAIJCIHYBRID. Level: beginner
M*/
PetscErrorCode MatCreate_MPIAIJCIHybrid(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(B, MATMPIAIJ));
  PetscCall(MatConvert_MPIAIJ_MPIAIJCIHybrid(B, MATMPIAIJCIHYBRID, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}
