/* MATMPIDIAG's class (src/common/mpiclass.h): the diagonal block is of diag's block class,
   a MATSEQDIAG made from the assembled SeqAIJ block with the MPI matrix's settings; the
   off-process block is of pcsr's block class (pcsr_block.h), which keeps pcsr's default
   settings.  The settings (scheme, fill limit, product kernel) are kept by the MPI matrix
   and forwarded to the diagonal block by the common mechanism; the storage, the scatter
   and the assembly are the type's own (mpidiag.c, mpidiag_assembly.c). */
#include "diag/mpidiag_impl.h"
#include "pcsr/pcsr_block.h"

/* A new seqdiag with the diagonals of the assembled SeqAIJ block aij, found with these settings */
static PetscErrorCode DiagCreateBlock(Mat aij, const void *settings, GpuMatsBackend backend, PetscBool offdiagonal, Mat *block)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, aij->rmap->n, aij->cmap->n, aij->rmap->n, aij->cmap->n));
  PetscCall(MatSetType(B, MATSEQDIAG));
  if (settings) ((Mat_SeqDiag *)B->spptr)->settings = *(const DiagSettings *)settings;
  PetscCall(GpuMatsFormatSetBackend(B, backend));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  B->preallocated = PETSC_TRUE;
  PetscCall(MatDiagBuildFromAIJ_SeqDiag(B, aij));
  B->assembled = PETSC_TRUE;
  *block       = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A seqdiag block follows new settings through its setters (the fill limit and the kernel
   before the scheme, whose change converts it); an AIJ block cannot become one in place */
static PetscErrorCode DiagConvertBlock(Mat B, const void *settings, GpuMatsBackend backend, PetscBool offdiagonal)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQDIAG, &is));
  PetscCheck(is, PETSC_COMM_SELF, PETSC_ERR_SUP, "A %s block cannot become a seqdiag in place: a seqdiag block is made new from the assembled one", ((PetscObject)B)->type_name);
  if (settings) {
    const DiagSettings *s = (const DiagSettings *)settings;

    PetscCall(MatDiagSetMaxFill(B, s->max_fill));
    PetscCall(MatDiagSetProductKernel(B, s->product));
    PetscCall(MatDiagSetScheme(B, s->scheme));
  }
  PetscCall(GpuMatsFormatSetBackend(B, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagViewBlock(Mat B, const char *which, PetscViewer viewer)
{
  MatDiagInfo info;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(MatDiagGetInfo_SeqDiag(B, &info));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s block: %s, %" PetscInt_FMT " diagonals, %" PetscInt64_FMT " entries, %" PetscInt64_FMT " padding, %" PetscInt64_FMT " bytes on device\n", rank, which, info.scheme == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", info.ndiag, info.entries, info.padding, info.bytes_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const GpuMatsMPIBlockClass DiagMPIBlock = {DiagConvertBlock, DiagCreateBlock, DiagViewBlock};

/* Kept by the MPI matrix and given to its diagonal block, now and at every rebuild */
GPUMATS_MPI_SETTING_SET(MatDiagSetScheme_MPIDiag, DiagSettings, scheme, MatDiagScheme)
GPUMATS_MPI_SETTING(MatDiagSetMaxFill_MPIDiag, MatDiagGetMaxFill_MPIDiag, DiagSettings, max_fill, PetscReal)
GPUMATS_MPI_SETTING(MatDiagSetProductKernel_MPIDiag, MatDiagGetProductKernel_MPIDiag, DiagSettings, product, MatDiagProductKernel)
GPUMATS_MPI_SETTING(MatDiagSetSOR_MPIDiag, MatDiagGetSOR_MPIDiag, DiagSettings, sor, MatDiagSOR)

/* The scheme the diagonal block uses (auto resolved) once there is one, else the one asked for */
static PetscErrorCode MatDiagGetScheme_MPIDiag(Mat M, MatDiagScheme *scheme)
{
  PetscFunctionBegin;
  if (MPIDiagOf(M)->A) PetscCall(MatDiagGetScheme(MPIDiagOf(M)->A, scheme));
  else *scheme = MPIDiagSettingsOf(M)->scheme;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetInfo_MPIDiag(Mat M, MatDiagInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatDiagGetInfo"));
  PetscCall(MatDiagGetInfo_SeqDiag(MPIDiagOf(M)->A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagComposeMPI(Mat M, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetScheme_C", set ? MatDiagSetScheme_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetScheme_C", set ? MatDiagGetScheme_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetMaxFill_C", set ? MatDiagSetMaxFill_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetMaxFill_C", set ? MatDiagGetMaxFill_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetProductKernel_C", set ? MatDiagSetProductKernel_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetProductKernel_C", set ? MatDiagGetProductKernel_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetSOR_C", set ? MatDiagSetSOR_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetSOR_C", set ? MatDiagGetSOR_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetInfo_C", set ? MatDiagGetInfo_MPIDiag : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diag options, each through its public setter (diag_options.c) */
static PetscErrorCode DiagSetFromOptions_MPI(Mat M, GPUMATS_OPTIONS_ARG)
{
  PetscFunctionBegin;
  PetscCall(DiagSetFromOptions(M, MPIDiagSettingsOf(M), PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const DiagSettings DiagSettingsDefault = {MAT_DIAG_SCHEME_AUTO, 3, MAT_DIAG_PRODUCT_OURS, MAT_DIAG_SOR_AUTO, DIAG_PLAN_AUTO};

const GpuMatsMPIClass DiagMPIClass = {
  "DIAG", MATSEQDIAG, MATMPIDIAG, MATDIAG, sizeof(DiagSettings), &DiagSettingsDefault,
  {&DiagMPIBlock, PETSC_TRUE}, {&PCSRMPIBlock, PETSC_FALSE}, DiagSetFromOptions_MPI, DiagComposeMPI, MatConvert_MPIAIJ_MPIDiag,
};
