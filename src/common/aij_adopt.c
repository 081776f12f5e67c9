/* A MATSEQAIJ made on CSR arrays that it takes over.  MatSeqAIJSetPreallocationCSR, PETSc's public
   way to give AIJ its arrays, inserts them row by row through MatSetValues: on a large grid the
   copies that factorizations and conversions make took most of a preconditioner's setup.
   MatCreateSeqAIJWithArrays uses the arrays as they are, but leaves them to the caller; a
   container composed on the matrix frees them when it is destroyed (after its data: composed
   objects go last), and follows the matrix through MatHeaderReplace. */
#include "common/gpumats_impl.h"

typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} AdoptedCSR;

static PetscErrorCode AdoptedCSRDestroy(void *arg)
{
  AdoptedCSR *csr = (AdoptedCSR *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(csr->i));
  PetscCall(PetscFree(csr->j));
  PetscCall(PetscFree(csr->a));
  PetscCall(PetscFree(csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GpuMatsSeqAIJAdoptCSR - an m x n MATSEQAIJ on the arrays i, j, a (each from PetscMalloc, columns
  ascending in each row), freed with the matrix.  As after MatSeqAIJSetPreallocationCSR, a new
  nonzero is an error.
*/
PetscErrorCode GpuMatsSeqAIJAdoptCSR(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt *i, PetscInt *j, PetscScalar *a, Mat *M)
{
  AdoptedCSR    *csr;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJWithArrays(comm, m, n, i, j, a, M));
  PetscCall(PetscNew(&csr));
  csr->i = i;
  csr->j = j;
  csr->a = a;
  PetscCall(PetscContainerCreate(comm, &c));
  PetscCall(PetscContainerSetPointer(c, csr));
  PetscCall(GpuMatsContainerSetDestroy(c, AdoptedCSRDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*M, "GpuMatsAdoptedCSR", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(MatSetOption(*M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
