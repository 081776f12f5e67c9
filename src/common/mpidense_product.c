/* MatProduct AB with a dense B for the MPI shadow types: both blocks through
   the format's SpMM, C_local = A_diag B_local + A_offdiag B_ghost.

   PETSc's MPIAIJ x MPIDense product cannot be reused: it multiplies the
   off-diagonal block with its own SeqAIJ loop (MatMatMultNumericAdd_SeqAIJ_SeqDense
   on the Mat_SeqAIJ arrays), and its entry points are not exported.  Here the
   rows of B that the off-diagonal block needs (its columns, 'garray') come
   in with one PetscSF broadcast of all k columns, while the diagonal block's
   SpMM runs. */
#include "common/gpumats_impl.h"
#include <petscsf.h>

typedef struct {
  PetscSF          sf;     /* leaf (r, j) at j*nghost + r of 'ghost'; root (i, j) at j*n + i of B's local rows packed */
  Mat              ghost;  /* nghost x k: the rows of B the off-diagonal block multiplies */
  Mat              packed; /* n x k, leading dimension n: B's local rows when B's own leading dimension is larger */
  PetscObjectId    A_id;   /* the SF follows A's off-diagonal columns: rebuilt when A or its structure changes */
  PetscObjectState A_nonzerostate;
} MPIShadowProduct;

static PetscErrorCode MPIShadowProductDestroy(void *arg)
{
  MPIShadowProduct *p = (MPIShadowProduct *)GpuMatsProductCtx(arg);

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&p->sf));
  PetscCall(MatDestroy(&p->ghost));
  PetscCall(MatDestroy(&p->packed));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowCreateDenseLike(Mat Blocal, PetscInt m, PetscInt k, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, M));
  PetscCall(MatSetSizes(*M, m, k, m, k));
  PetscCall(MatSetType(*M, ((PetscObject)Blocal)->type_name));
  PetscCall(MatSetUp(*M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The broadcast of B's ghost rows and the matrix that receives them.
   Collective: A's id and nonzerostate are the same on every rank. */
static PetscErrorCode MPIShadowProductSetUpGhosts(Mat A, Mat B, MPIShadowProduct *p)
{
  const PetscInt *garray, *range;
  PetscInt        nghost, k = B->cmap->N, r, j;
  PetscSFNode    *remote;
  Mat             Ao, Blocal;

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&p->sf));
  PetscCall(MatDestroy(&p->ghost));
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  PetscCall(MatDenseGetLocalMatrix(B, &Blocal));
  PetscCall(PetscLayoutGetRanges(A->cmap, &range));
  nghost = Ao->cmap->n;
  /* the ghost rows x k columns, and B's local rows x k, are PetscInt-indexed leaves and roots */
  PetscCheck((PetscInt64)nghost * k <= PETSC_MAX_INT && (PetscInt64)A->cmap->n * k <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "A B with %" PetscInt_FMT " columns of B: the %" PetscInt_FMT " ghost rows (and %" PetscInt_FMT " local rows) of B on this process times the columns exceed the largest PetscInt, %" PetscInt_FMT ": use more MPI processes or multiply fewer columns at a time", k, nghost, A->cmap->n, PETSC_MAX_INT);
  PetscCall(PetscMalloc1(nghost * k, &remote));
  for (r = 0; r < nghost; r++) {
    PetscMPIInt owner;

    PetscCall(PetscLayoutFindOwner(A->cmap, garray[r], &owner));
    for (j = 0; j < k; j++) {
      remote[j * nghost + r].rank  = owner;
      remote[j * nghost + r].index = j * (range[owner + 1] - range[owner]) + garray[r] - range[owner];
    }
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &p->sf));
  PetscCall(PetscSFSetGraph(p->sf, A->cmap->n * k, nghost * k, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(p->sf));
  PetscCall(MPIShadowCreateDenseLike(Blocal, nghost, k, &p->ghost));
  p->A_id           = ((PetscObject)A)->id;
  p->A_nonzerostate = A->nonzerostate;
  PetscCall(PetscInfo(A, "A B: %" PetscInt_FMT " ghost rows of B x %" PetscInt_FMT " columns for the off-diagonal block\n", nghost, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The array of a sequential dense matrix where the broadcast should read or write it. */
static PetscErrorCode MPIShadowDenseGetArray(Mat M, PetscBool write, PetscMemType *mtype, PetscScalar **array)
{
  PetscBool cuda;

  PetscFunctionBegin;
  *mtype = PETSC_MEMTYPE_HOST;
  PetscCall(GpuMatsDenseIsCUDA(M, &cuda));
#if defined(PETSC_HAVE_CUDA)
  if (cuda) {
    *mtype = PETSC_MEMTYPE_CUDA;
    if (write) PetscCall(MatDenseCUDAGetArrayWrite(M, array));
    else PetscCall(MatDenseCUDAGetArrayRead(M, (const PetscScalar **)array));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (write) PetscCall(MatDenseGetArrayWrite(M, array));
  else PetscCall(MatDenseGetArrayRead(M, (const PetscScalar **)array));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIShadowDenseRestoreArray(Mat M, PetscBool write, PetscMemType mtype, PetscScalar **array)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (PetscMemTypeDevice(mtype)) {
    if (write) PetscCall(MatDenseCUDARestoreArrayWrite(M, array));
    else PetscCall(MatDenseCUDARestoreArrayRead(M, (const PetscScalar **)array));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (write) PetscCall(MatDenseRestoreArrayWrite(M, array));
  else PetscCall(MatDenseRestoreArrayRead(M, (const PetscScalar **)array));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_MPIAIJShadow_MPIDense(Mat C)
{
  Mat_Product        *product = C->product;
  Mat                 A = product->A, B = product->B, Ad, Ao, Blocal, Clocal, root;
  MPIShadowProduct *p;
  PetscInt            ldb;
  PetscScalar        *rootdata, *leafdata;
  PetscMemType        rootmtype, leafmtype;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  p = (MPIShadowProduct *)product->data;
  if (p->A_id != ((PetscObject)A)->id || p->A_nonzerostate != A->nonzerostate) PetscCall(MPIShadowProductSetUpGhosts(A, B, p));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatDenseGetLocalMatrix(B, &Blocal));
  PetscCall(MatDenseGetLocalMatrix(C, &Clocal));
  PetscCall(MatDenseGetLDA(Blocal, &ldb));
  root = Blocal;
  if (ldb != Blocal->rmap->n) { /* the SF's roots are the local rows with leading dimension n */
    if (!p->packed) PetscCall(MPIShadowCreateDenseLike(Blocal, Blocal->rmap->n, Blocal->cmap->n, &p->packed));
    PetscCall(MatCopy(Blocal, p->packed, SAME_NONZERO_PATTERN));
    root = p->packed;
  }
  PetscCall(MPIShadowDenseGetArray(root, PETSC_FALSE, &rootmtype, &rootdata));
  PetscCall(MPIShadowDenseGetArray(p->ghost, PETSC_TRUE, &leafmtype, &leafdata));
  PetscCall(PetscSFBcastWithMemTypeBegin(p->sf, MPIU_SCALAR, rootmtype, rootdata, leafmtype, leafdata, MPI_REPLACE));
  PetscCall(GpuMatsFormatSpMM(Ad, Blocal, Clocal, PETSC_FALSE));
  PetscCall(PetscSFBcastEnd(p->sf, MPIU_SCALAR, rootdata, leafdata, MPI_REPLACE));
  PetscCall(MPIShadowDenseRestoreArray(p->ghost, PETSC_TRUE, leafmtype, &leafdata));
  PetscCall(MPIShadowDenseRestoreArray(root, PETSC_FALSE, rootmtype, &rootdata));
  PetscCall(GpuMatsFormatSpMM(Ao, p->ghost, Clocal, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_MPIAIJShadow_MPIDense(Mat C)
{
  Mat_Product        *product = C->product;
  MPIShadowProduct *p;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "Product data not empty");
  PetscCall(GpuMatsProductSetUpDense(C, MatProductSymbolic_MPIAIJShadow_MPIDense));
  PetscCall(PetscNew(&p));
  PetscCall(MPIShadowProductSetUpGhosts(product->A, product->B, p));
  product->data          = p;
  product->destroy       = MPIShadowProductDestroy;
  C->ops->productnumeric = MatProductNumeric_MPIAIJShadow_MPIDense;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSetFromOptions_MPIAIJShadow_MPIDense(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  if (product->type != MATPRODUCT_AB) {
    PetscCall(GpuMatsProductSetFromOptions_Parent(C, MATMPIAIJ));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(A->cmap->rstart == B->rmap->rstart && A->cmap->rend == B->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A B: the local columns of A [%" PetscInt_FMT ", %" PetscInt_FMT ") must be the local rows of B [%" PetscInt_FMT ", %" PetscInt_FMT ")", A->cmap->rstart, A->cmap->rend, B->rmap->rstart, B->rmap->rend);
  C->ops->productsymbolic = MatProductSymbolic_MPIAIJShadow_MPIDense;
  PetscFunctionReturn(PETSC_SUCCESS);
}
