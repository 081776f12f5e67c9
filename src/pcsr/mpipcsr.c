/* MATMPIAIJPCSR, the MPI class of pcsr (src/common/mpiclass.h): a MATMPIAIJ
   (src/common/mpishadow.c) whose diagonal and off-diagonal blocks are both of pcsr's
   block class, MATSEQAIJPCSR; the same block class holds mpidiag's off-process block
   (pcsr_block.h).  And the two row distributions of the paper: equal rows (PCSR-I,
   PETSc's default) and equal nonzeros (PCSR-II). */
#include "pcsr/pcsr_impl.h"
#include "pcsr/pcsr_block.h"

static PetscErrorCode PCSRConvertBlock(Mat B, const void *settings, GpuMatsBackend backend, PetscBool offdiagonal)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJPCSR, &is));
  if (!is) PetscCall(MatConvert_SeqAIJ_SeqAIJPCSR(B, MATSEQAIJPCSR, MAT_INPLACE_MATRIX, &B));
  if (settings) PetscCall(MatPCSRApplySettings_SeqAIJPCSR(B, (const PCSRSettings *)settings));
  PetscCall(GpuMatsShadowSetBackend(B, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kept by the MPI matrix and given to the blocks at each assembly; the partition applies
   where rows are distributed (MatLoad, MatPCSRCreateRedistributed), not to the blocks. */
GPUMATS_MPI_SETTING(MatPCSRSetKernel_MPIAIJPCSR, MatPCSRGetKernel_MPIAIJPCSR, PCSRSettings, kernel, MatPCSRKernel)
GPUMATS_MPI_SETTING(MatPCSRSetTranspose_MPIAIJPCSR, MatPCSRGetTranspose_MPIAIJPCSR, PCSRSettings, transpose, MatPCSRTranspose)
GPUMATS_MPI_SETTING(MatPCSRSetPartition_MPIAIJPCSR, MatPCSRGetPartition_MPIAIJPCSR, PCSRSettings, partition, MatPCSRPartition)

/* The options of the sequential type, and the partition */
static PetscErrorCode PCSRSetFromOptions_MPI(Mat A, GPUMATS_OPTIONS_ARG)
{
  MatPCSRPartition partition;
  PetscEnum        value;
  PetscBool        set;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetPartition(A, &partition));
  PetscOptionsHeadBegin(PetscOptionsObject, "PCSR matrix options");
  PetscCall(PCSRSetFromOptions(A, PetscOptionsObject));
  value = (PetscEnum)partition;
  PetscCall(PetscOptionsEnum("-mat_pcsr_partition", "Rows per process where gpumats chooses them (MatLoad, MatPCSRCreateRedistributed): equal rows or equal nonzeros", "MatPCSRSetPartition", MatPCSRPartitions, value, &value, &set));
  if (set) PetscCall(MatPCSRSetPartition(A, (MatPCSRPartition)value));
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

/* Equal rows: PETSc's default layout. */
static void PCSREqualRowStarts(PetscInt N, PetscMPIInt size, PetscInt *starts)
{
  for (PetscMPIInt r = 0; r <= size; r++) starts[r] = (N / size) * r + PetscMin(r, N % size);
}

/* First global row of each process (starts[0..size]) so that each holds about the
   same number of nonzeros: process r starts at the first row with at least r/size
   of all nonzeros before it.  Each process finds the first such row among its own,
   the minimum over the processes is the first overall (the count before a row only
   grows with the row). */
static PetscErrorCode PCSRBalancedRowStarts(Mat A, PetscInt *starts)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt     size, rank;
  PetscInt        m = A->rmap->n, N = A->rmap->N, i, nc;
  PetscInt64      local = 0, before = 0, total = 0;
  PetscInt       *first;
  Mat             Ad, Ao;
  const PetscInt *ia, *ib;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nc, &ia, NULL, &done));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nc, &ib, NULL, &done));
  local = m ? (PetscInt64)(ia[m] - ia[0]) + (ib[m] - ib[0]) : 0;
  PetscCallMPI(MPI_Exscan(&local, &before, 1, MPIU_INT64, MPI_SUM, comm));
  if (rank == 0) before = 0; /* MPI_Exscan leaves rank 0's result undefined */
  PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCall(PetscMalloc1(size + 1, &first));
  for (PetscMPIInt r = 0; r <= size; r++) first[r] = N;
  for (i = 0; i < m; i++) {
    for (PetscMPIInt r = 1; r < size; r++)
      if (first[r] == N && before * size >= (PetscInt64)r * total) first[r] = A->rmap->rstart + i;
    before += (ia[i + 1] - ia[i]) + (ib[i + 1] - ib[i]);
  }
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nc, &ib, NULL, &done));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nc, &ia, NULL, &done));
  PetscCall(MPIU_Allreduce(first, starts, size + 1, MPIU_INT, MPI_MIN, comm));
  PetscCall(PetscFree(first));
  starts[0]    = 0;
  starts[size] = N;
  if (!total) PCSREqualRowStarts(N, size, starts); /* no nonzeros to balance */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatPCSRCreateRedistributed - a copy of an assembled MPI matrix with its rows
  distributed by 'partition': MAT_PCSR_PARTITION_ROWS (equal rows, PETSc's
  default) or MAT_PCSR_PARTITION_NNZ (equal nonzeros, the paper's PCSR-II).
  Global numbering is unchanged.  A square matrix gets the same distribution for
  its columns, so MatCreateVecs(*B) gives matching vectors; GpuMatsVecRedistribute()
  moves vectors between the two layouts.  The copy has the type of A.
@*/
PetscErrorCode MatPCSRCreateRedistributed(Mat A, MatPCSRPartition partition, Mat *B)
{
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscInt   *starts, nlocal, cstart, clocal;
  IS          isrow, iscol;
  PetscBool   mpiaij;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)A);
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "MatPCSRCreateRedistributed: the matrix is not assembled");
  PetscCheck(partition == MAT_PCSR_PARTITION_ROWS || partition == MAT_PCSR_PARTITION_NNZ, comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatPCSRPartition %d", (int)partition);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  if (!mpiaij) PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &mpiaij, MATMPIAIJPCSR, MATMPIAIJCIHYBRID, ""));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1 || !mpiaij) { /* nothing to distribute */
    PetscCheck(size == 1, comm, PETSC_ERR_SUP, "MatPCSRCreateRedistributed: %s is not an MPIAIJ matrix", ((PetscObject)A)->type_name);
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(size + 1, &starts));
  if (partition == MAT_PCSR_PARTITION_NNZ) PetscCall(PCSRBalancedRowStarts(A, starts));
  else PCSREqualRowStarts(A->rmap->N, size, starts);
  nlocal = starts[rank + 1] - starts[rank];
  PetscCall(ISCreateStride(comm, nlocal, starts[rank], 1, &isrow));
  if (A->rmap->N == A->cmap->N) {
    cstart = starts[rank];
    clocal = nlocal;
  } else {
    cstart = A->cmap->rstart;
    clocal = A->cmap->n;
  }
  PetscCall(ISCreateStride(comm, clocal, cstart, 1, &iscol));
  PetscCall(MatCreateSubMatrix(A, isrow, iscol, MAT_INITIAL_MATRIX, B));
  PetscCall(ISDestroy(&iscol));
  PetscCall(ISDestroy(&isrow));
  PetscCall(PetscInfo(A, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " on this process (%s partition)\n", starts[rank], starts[rank + 1], MatPCSRPartitions[partition]));
  PetscCall(PetscFree(starts));
  {
    void          *sa, *sb;
    GpuMatsBackend backend;
    PetscBool      pcsr;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJPCSR, &pcsr));
    if (pcsr) { /* the settings of A go with the copy */
      PetscCall(GpuMatsMPIShadowGetSettings(A, &sa));
      PetscCall(GpuMatsMPIShadowGetSettings(*B, &sb));
      *(PCSRSettings *)sb = *(const PCSRSettings *)sa;
      PetscCall(MatGpuMatsGetBackend(A, &backend));
      PetscCall(MatGpuMatsSetBackend(*B, backend));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatLoad into a matrix whose local sizes the caller left to PETSc honours the partition. */
static PetscErrorCode MatLoad_MPIAIJPCSR(Mat A, PetscViewer viewer)
{
  const struct _MatOps *parent;
  PetscBool             choose = A->rmap->n < 0 && A->cmap->n < 0 ? PETSC_TRUE : PETSC_FALSE;
  MatPCSRPartition      partition;
  Mat                   B;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetPartition(A, &partition));
  PetscCall(GpuMatsMPIShadowGetParentOps(A, &parent));
  PetscCall((*parent->load)(A, viewer));
  if (!choose || partition == MAT_PCSR_PARTITION_ROWS) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatPCSRCreateRedistributed(A, partition, &B));
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
  if (set) A->ops->load = MatLoad_MPIAIJPCSR;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const PCSRSettings PCSRSettingsDefault = {MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, MAT_PCSR_PARTITION_ROWS};

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
