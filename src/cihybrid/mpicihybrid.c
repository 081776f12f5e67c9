/* MATMPIAIJCIHYBRID, the MPI class of cihybrid (src/common/mpiclass.h): a MATMPIAIJ
   (src/common/mpishadow.c) whose diagonal and off-diagonal blocks are both of cihybrid's
   block class, MATSEQAIJCIHYBRID.  The user's BOUNDARY and split apply to the diagonal
   block; the off-diagonal block, whose columns are compressed ghost indices, always uses
   the automatic entries split. */
#include "cihybrid/cihybrid_impl.h"

static PetscErrorCode CIHybridConvertBlock(Mat B, const void *settings, GpuMatsBackend backend, PetscBool offdiagonal)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCIHYBRID, &is));
  if (!is) PetscCall(MatConvert_SeqAIJ_SeqAIJCIHybrid(B, MATSEQAIJCIHYBRID, MAT_INPLACE_MATRIX, &B));
  if (settings) {
    CIHybridSettings s = *(const CIHybridSettings *)settings;

    if (offdiagonal) {
      s.boundary = MAT_CIHYBRID_BOUNDARY_AUTO;
      s.split    = MAT_CIHYBRID_SPLIT_ENTRIES;
    }
    PetscCall(MatCIHybridApplySettings_SeqAIJCIHybrid(B, &s));
  }
  PetscCall(GpuMatsFormatSetBackend(B, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridViewBlock(Mat B, const char *which, PetscViewer viewer)
{
  MatCIHybridInfo info;
  PetscMPIInt     rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(MatCIHybridGetInfo(B, &info));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s block: ELLPACK width %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros in ELLPACK + %" PetscInt64_FMT " in CSR, padding %" PetscInt64_FMT ", %" PetscInt64_FMT " bytes on host, %" PetscInt64_FMT " on device\n", rank, which, info.width, info.nnz_ell, info.nnz_csr, info.padding, info.bytes_host, info.bytes_device));
  if (info.compressed) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s block compressed: %.2f bytes a nonzero, dictionary of %" PetscInt_FMT " values, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escaped columns\n", rank, which, info.bytes_per_nonzero, info.dict_count, info.nnz_explicit, info.escapes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kept by the MPI matrix and given to the blocks at each assembly */
GPUMATS_MPI_SETTING(MatCIHybridSetBoundary_MPIAIJCIHybrid, MatCIHybridGetBoundary_MPIAIJCIHybrid, CIHybridSettings, boundary, PetscInt)
GPUMATS_MPI_SETTING(MatCIHybridSetSplit_MPIAIJCIHybrid, MatCIHybridGetSplit_MPIAIJCIHybrid, CIHybridSettings, split, MatCIHybridSplit)
GPUMATS_MPI_SETTING(MatCIHybridSetKernel_MPIAIJCIHybrid, MatCIHybridGetKernel_MPIAIJCIHybrid, CIHybridSettings, kernel, MatCIHybridKernel)
GPUMATS_MPI_SETTING(MatCIHybridSetCompress_MPIAIJCIHybrid, MatCIHybridGetCompress_MPIAIJCIHybrid, CIHybridSettings, compress, MatCIHybridCompress)

static PetscErrorCode MatCIHybridGetInfo_MPIAIJCIHybrid(Mat A, MatCIHybridInfo *info)
{
  Mat Ad;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatCIHybridGetInfo: the matrix is not assembled");
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatCIHybridGetInfo(Ad, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridComposeMPI(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetBoundary_C", set ? MatCIHybridSetBoundary_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetBoundary_C", set ? MatCIHybridGetBoundary_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetSplit_C", set ? MatCIHybridSetSplit_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetSplit_C", set ? MatCIHybridGetSplit_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetKernel_C", set ? MatCIHybridSetKernel_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetKernel_C", set ? MatCIHybridGetKernel_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetCompress_C", set ? MatCIHybridSetCompress_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetCompress_C", set ? MatCIHybridGetCompress_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetInfo_C", set ? MatCIHybridGetInfo_MPIAIJCIHybrid : NULL));
  PetscCall(MatCIHybridComposeDeviceOnlyMPI(A, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both blocks: the off-diagonal one told so (its split above) */
static const GpuMatsMPIBlockClass CIHybridMPIBlock = {CIHybridConvertBlock, NULL, CIHybridViewBlock};

static const GpuMatsMPIClass CIHybridMPIClass = {
  "CIHYBRID", MATSEQAIJCIHYBRID, MATMPIAIJCIHYBRID, MATCIHYBRID, sizeof(CIHybridSettings), &CIHybridSettingsDefault,
  {&CIHybridMPIBlock, PETSC_TRUE}, {&CIHybridMPIBlock, PETSC_TRUE}, CIHybridSetFromOptions, CIHybridComposeMPI, MatConvert_MPIAIJ_MPIAIJCIHybrid,
};

PetscErrorCode MatConvert_MPIAIJ_MPIAIJCIHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPIShadowConvert(A, &CIHybridMPIClass, reuse, newmat));
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
