/* The products of an MPI type whose storage owns its two blocks and the scatter of the ghost
   values (GpuMatsMPIStorage.get_scatter; mpidiag): the scatter begins, the diagonal block
   multiplies while the ghost values travel, the scatter ends, the off-process block adds its
   part; with device vectors and an MPI that is not GPU-aware, the exchange through pinned
   buffers of mpighosts.c instead, where it is taken.  The transposes go the other way: the
   off-process block's part is scattered back and added.  Any class may own its scatter this way;
   the MPIAIJ-hosted ones use MPIAIJ's. */
#include "common/gpumats_impl.h"

/* The blocks and the scatter, or an error naming the operation before the first assembly */
static PetscErrorCode MPIBlocksGet(Mat M, const char *op, Mat *A, Mat *B, VecScatter *scatter, Vec *lvec)
{
  GpuMatsMPI *c = GpuMatsMPIOf(M);

  PetscFunctionBegin;
  *A = *B = NULL;
  PetscCall((*c->storage->get_blocks)(M, A, B));
  PetscCheck(*A && *B, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_WRONGSTATE, "%s %s: assemble the matrix first", ((PetscObject)M)->type_name, op);
  PetscCall((*c->storage->get_scatter)(M, scatter, lvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M x, plus y0 when not NULL */
static PetscErrorCode MPIBlocksMult(Mat M, Vec x, Vec y0, Vec y)
{
  Mat        A, B;
  VecScatter scatter;
  Vec        lvec;
  PetscBool  done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MPIBlocksGet(M, "MatMult", &A, &B, &scatter, &lvec));
  PetscCall(GpuMatsMPICheckBackend(M));
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  PetscCall(GpuMatsMPIGhostsMult(M, x, y0, y, &done));
#endif
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterBegin(scatter, x, lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (y0) PetscCall((*A->ops->multadd)(A, x, y0, y));
  else PetscCall((*A->ops->mult)(A, x, y));
  PetscCall(VecScatterEnd(scatter, x, lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (B->cmap->n) PetscCall((*B->ops->multadd)(B, lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^T x, plus y0 when not NULL */
static PetscErrorCode MPIBlocksMultTranspose(Mat M, Vec x, Vec y0, Vec y)
{
  Mat        A, B;
  VecScatter scatter;
  Vec        lvec;

  PetscFunctionBegin;
  PetscCall(MPIBlocksGet(M, "MatMultTranspose", &A, &B, &scatter, &lvec));
  PetscCall(GpuMatsMPICheckBackend(M));
  if (B->cmap->n) PetscCall((*B->ops->multtranspose)(B, x, lvec));
  else PetscCall(VecSet(lvec, 0.0));
  if (y0) PetscCall((*A->ops->multtransposeadd)(A, x, y0, y));
  else PetscCall((*A->ops->multtranspose)(A, x, y));
  PetscCall(VecScatterBegin(scatter, lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(scatter, lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMult_GpuMatsMPIBlocks(Mat M, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIBlocksMult(M, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_GpuMatsMPIBlocks(Mat M, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIBlocksMult(M, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTranspose_GpuMatsMPIBlocks(Mat M, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIBlocksMultTranspose(M, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTransposeAdd_GpuMatsMPIBlocks(Mat M, Vec x, Vec y0, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MPIBlocksMultTranspose(M, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
