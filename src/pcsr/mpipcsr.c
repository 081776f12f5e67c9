/* MATMPIAIJPCSR, the MPI class of pcsr (src/common/mpiclass.h): a MATMPIAIJ
   (src/common/mpishadow.c) whose diagonal and off-diagonal blocks are both of pcsr's
   block class, MATSEQAIJPCSR; the same block class holds mpidiag's off-process block
   (pcsr_block.h).  And the two row distributions of the paper: equal rows (PCSR-I,
   PETSc's default) and equal nonzeros (PCSR-II, computed by
   src/common/redistribute.c). */
#include "pcsr/pcsr_impl.h"
#include "pcsr/pcsr_block.h"

static PetscErrorCode PCSRConvertBlock(Mat B, const void *settings, GpuMatsBackend backend, PetscBool offdiagonal)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJPCSR, &is));
  if (!is) PetscCall(MatConvert_SeqAIJ_SeqAIJPCSR(B, MATSEQAIJPCSR, MAT_INPLACE_MATRIX, &B));
  if (settings) PetscCall(MatPCSRApplySettings_SeqAIJPCSR(B, (const PCSRSettings *)settings));
  PetscCall(GpuMatsFormatSetBackend(B, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kept by the MPI matrix and given to the blocks at each assembly; the partition applies
   where rows are distributed (MatLoad), not to the blocks. */
GPUMATS_MPI_SETTING(MatPCSRSetKernel_MPIAIJPCSR, MatPCSRGetKernel_MPIAIJPCSR, PCSRSettings, kernel, MatPCSRKernel)
GPUMATS_MPI_SETTING(MatPCSRSetTranspose_MPIAIJPCSR, MatPCSRGetTranspose_MPIAIJPCSR, PCSRSettings, transpose, MatPCSRTranspose)
GPUMATS_MPI_SETTING(MatPCSRSetPartition_MPIAIJPCSR, MatPCSRGetPartition_MPIAIJPCSR, PCSRSettings, partition, GpuMatsPartition)

/* The options of the sequential type, and the partition */
static PetscErrorCode PCSRSetFromOptions_MPI(Mat A, GPUMATS_OPTIONS_ARG)
{
  GpuMatsPartition partition;
  PetscEnum        value;
  PetscBool        set;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetPartition(A, &partition));
  PetscOptionsHeadBegin(PetscOptionsObject, "PCSR matrix options");
  PetscCall(PCSRSetFromOptions(A, PetscOptionsObject));
  value = (PetscEnum)partition;
  PetscCall(PetscOptionsEnum("-mat_pcsr_partition", "Rows per process where gpumats chooses them (MatLoad): equal rows or equal nonzeros", "MatPCSRSetPartition", GpuMatsPartitions, value, &value, &set));
  if (set) PetscCall(MatPCSRSetPartition(A, (GpuMatsPartition)value));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRViewBlock(Mat B, const char *which, PetscViewer viewer)
{
  MatPCSRInfo info;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(MatPCSRGetInfo(B, &info));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s block: %" PetscInt_FMT " rows, %" PetscInt64_FMT " nonzeros (row lengths: mean %.2f, longest %" PetscInt64_FMT "), kernel %s, %" PetscInt64_FMT " bytes on device\n", rank, which, B->rmap->n, info.nnz, info.mean_row_len, info.max_row_len, MatPCSRKernels[info.kernel], info.bytes_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatPCSRGetInfo_MPIAIJPCSR(Mat A, MatPCSRInfo *info)
{
  Mat Ad;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatPCSRGetInfo: the matrix is not assembled");
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatPCSRGetInfo(Ad, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatLoad into a matrix whose local sizes the caller left to PETSc honours the partition
   (PETSc's load gives equal rows; common/redistribute.c computes the other distribution). */
static PetscErrorCode MatLoad_MPIAIJPCSR(Mat A, PetscViewer viewer)
{
  const struct _MatOps *parent;
  PetscBool             choose = A->rmap->n < 0 && A->cmap->n < 0 ? PETSC_TRUE : PETSC_FALSE;
  GpuMatsPartition      partition;
  Mat                   B;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetPartition(A, &partition));
  PetscCall(GpuMatsMPIShadowGetParentOps(A, &parent));
  PetscCall((*parent->load)(A, viewer));
  if (!choose || partition == GPUMATS_PARTITION_ROWS) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGpuMatsCreateRedistributed(A, partition, &B));
  PetscCall(MatHeaderReplace(A, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRComposeMPI(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRSetKernel_C", set ? MatPCSRSetKernel_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetKernel_C", set ? MatPCSRGetKernel_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRSetTranspose_C", set ? MatPCSRSetTranspose_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetTranspose_C", set ? MatPCSRGetTranspose_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRSetPartition_C", set ? MatPCSRSetPartition_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetPartition_C", set ? MatPCSRGetPartition_MPIAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetInfo_C", set ? MatPCSRGetInfo_MPIAIJPCSR : NULL));
  /* before a factorization reads the blocks' host AIJ (common/aij_factors.c): marked, never ahead again */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GPUMATS_FACTOR_PREPARE, set ? GpuMatsShadowMarkHostReaders : NULL));
  if (set) A->ops->load = MatLoad_MPIAIJPCSR;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const PCSRSettings PCSRSettingsDefault = {MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, GPUMATS_PARTITION_ROWS};

/* Both blocks; also mpidiag's off-process block, which keeps pcsr's default settings */
const GpuMatsMPIBlockClass PCSRMPIBlock = {PCSRConvertBlock, NULL, PCSRViewBlock};

static const GpuMatsMPIClass PCSRMPIClass = {
  "PCSR", MATSEQAIJPCSR, MATMPIAIJPCSR, MATPCSR, sizeof(PCSRSettings), &PCSRSettingsDefault,
  {&PCSRMPIBlock, PETSC_TRUE}, {&PCSRMPIBlock, PETSC_TRUE}, PCSRSetFromOptions_MPI, PCSRComposeMPI, MatConvert_MPIAIJ_MPIAIJPCSR,
};

PetscErrorCode MatConvert_MPIAIJ_MPIAIJPCSR(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPIShadowConvert(A, &PCSRMPIClass, reuse, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIAIJPCSR - "mpiaijpcsr" - MATMPIAIJ with MATSEQAIJPCSR blocks, one MPI
   process per GPU.  Same options as MATSEQAIJPCSR, and -mat_pcsr_partition.
   Level: beginner
M*/
PetscErrorCode MatCreate_MPIAIJPCSR(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(B, MATMPIAIJ));
  PetscCall(MatConvert_MPIAIJ_MPIAIJPCSR(B, MATMPIAIJPCSR, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}
