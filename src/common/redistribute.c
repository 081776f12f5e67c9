/* Row distributions gpumats chooses for an MPI matrix of any AIJ-based type: equal rows
   (PETSc's layout, the paper's PCSR-I) or equal nonzeros (PCSR-II); a copy of a matrix in
   another distribution, and the vectors moved between the two layouts (the global numbering
   is kept). */
#include "common/gpumats_impl.h"

const char *const GpuMatsPartitions[] = {"rows", "nnz", "GpuMatsPartition", "GPUMATS_PARTITION_", NULL};

/* Equal rows: PETSc's default layout. */
static void GpuMatsEqualRowStarts(PetscInt N, PetscMPIInt size, PetscInt *starts)
{
  for (PetscMPIInt r = 0; r <= size; r++) starts[r] = (N / size) * r + PetscMin(r, N % size);
}

/* First global row of each process (starts[0..size]) so that each holds about the
   same number of nonzeros: process r starts at the first row with at least r/size
   of all nonzeros before it.  Each process finds the first such row among its own,
   the minimum over the processes is the first overall (the count before a row only
   grows with the row).  A is an assembled MPIAIJ (or derived) matrix. */
static PetscErrorCode GpuMatsBalancedRowStarts(Mat A, PetscInt *starts)
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
  if (!total) GpuMatsEqualRowStarts(N, size, starts); /* no nonzeros to balance */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B, made from A by MatCreateSubMatrix() with A's type, gets the format settings and the
   backend of A when A is a gpumats MPI type (the MPI wrapper keeps them for the blocks). */
static PetscErrorCode GpuMatsRedistributedKeepSettings(Mat A, Mat B)
{
  PetscErrorCode (*setbackend)(Mat, GpuMatsBackend) = NULL;
  PetscBool      same;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ((PetscObject)A)->type_name, &same));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGpuMatsSetBackend_C", &setbackend));
  if (!same || !setbackend) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsMPICopySettings(A, B));
  PetscCall(GpuMatsMPIUpdateBlocks(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- public API (manual pages: include/gpumats.h) ---- */

PetscErrorCode MatGpuMatsCreateRedistributed(Mat A, GpuMatsPartition partition, Mat *B)
{
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscInt   *starts, nlocal, cstart, clocal;
  IS          isrow, iscol;
  PetscBool   mpiaij;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)A);
  PetscCheck(B, comm, PETSC_ERR_ARG_NULL, "MatGpuMatsCreateRedistributed: B, where the copy goes, is NULL");
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "MatGpuMatsCreateRedistributed: the matrix is not assembled (call MatAssemblyBegin/End first)");
  PetscCheck(partition == GPUMATS_PARTITION_ROWS || partition == GPUMATS_PARTITION_NNZ, comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown GpuMatsPartition %d: GPUMATS_PARTITION_ROWS or GPUMATS_PARTITION_NNZ", (int)partition);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1) { /* nothing to distribute */
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* mpiaij and every type named after it (mpiaijcihybrid, mpiaijpcsr, mpiaijcusparse, ...) */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  PetscCheck(mpiaij, comm, PETSC_ERR_SUP, "MatGpuMatsCreateRedistributed: %s is not an MPIAIJ matrix (cihybrid, pcsr, aij and the other MPIAIJ-based types are)", ((PetscObject)A)->type_name);
  PetscCall(PetscMalloc1(size + 1, &starts));
  if (partition == GPUMATS_PARTITION_NNZ) PetscCall(GpuMatsBalancedRowStarts(A, starts));
  else GpuMatsEqualRowStarts(A->rmap->N, size, starts);
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
  PetscCall(PetscInfo(A, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " on this process (%s partition)\n", starts[rank], starts[rank + 1], GpuMatsPartitions[partition]));
  PetscCall(PetscFree(starts));
  PetscCall(GpuMatsRedistributedKeepSettings(A, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsVecRedistribute(Vec x, Vec y)
{
  PetscInt   N, Ny, rstart, rend;
  IS         is;
  VecScatter scatter;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(x, VEC_CLASSID, 1);
  PetscValidHeaderSpecific(y, VEC_CLASSID, 2);
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecGetSize(y, &Ny));
  PetscCheck(N == Ny, PetscObjectComm((PetscObject)x), PETSC_ERR_ARG_SIZ, "GpuMatsVecRedistribute: x has %" PetscInt_FMT " entries, y %" PetscInt_FMT ": they must be of the same global size", N, Ny);
  PetscCall(VecGetOwnershipRange(y, &rstart, &rend));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)y), rend - rstart, rstart, 1, &is));
  PetscCall(VecScatterCreate(x, is, y, NULL, &scatter));
  PetscCall(VecScatterBegin(scatter, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(scatter, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&scatter));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}
