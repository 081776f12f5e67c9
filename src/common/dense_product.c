/* MatProduct AB with a dense B for every format (GpuMatsFormat): C = A B for all k
   columns of B with one SpMM of the format (host or CUDA) instead of k MatMult.

   MatProduct reaches it through the composed function
   "MatProductSetFromOptions_<seqtype>_seqdense_C" (and _seqdensecuda_C):
   A's ops->productsetfromoptions stays SeqAIJ's, so every sparse product
   (A*A, A*SeqAIJ, PtAP in multigrid) keeps PETSc's AIJ code.  The other
   product types with a dense B go to PETSc's SeqAIJ x SeqDense code, which
   works on the AIJ master. */
#include "common/gpumats_impl.h"

/* Is M a CUDA dense matrix, whose array the device kernels can use in place? */
PetscErrorCode GpuMatsDenseIsCUDA(Mat M, PetscBool *cuda)
{
  PetscFunctionBegin;
  *cuda = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQDENSECUDA, cuda));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* A sequential dense block as the device kernel sees it: a CUDA dense matrix
   in place, a host one through the matrix's staging buffers. */
typedef struct {
  Mat           mat;
  GpuMatsAccess access;
  PetscBool     cuda;
  PetscScalar  *host; /* a host matrix's array */
  PetscScalar  *device;
  PetscInt      ld; /* of 'device' */
  GpuMatsStage *stage;
} GpuMatsDeviceDense;

static PetscErrorCode GpuMatsDenseGetDeviceArray(Mat M, GpuMatsAccess access, GpuMatsStage *stage, GpuMatsDeviceDense *d)
{
  PetscFunctionBegin;
  d->mat    = M;
  d->access = access;
  d->stage  = stage;
  PetscCall(GpuMatsDenseIsCUDA(M, &d->cuda));
  if (d->cuda) {
  #if defined(PETSC_HAVE_CUDA)
    switch (access) {
    case GPUMATS_READ:
      PetscCall(MatDenseCUDAGetArrayRead(M, (const PetscScalar **)&d->device));
      break;
    case GPUMATS_WRITE:
      PetscCall(MatDenseCUDAGetArrayWrite(M, &d->device));
      break;
    case GPUMATS_READ_WRITE:
      PetscCall(MatDenseCUDAGetArray(M, &d->device));
      break;
    }
    PetscCall(MatDenseGetLDA(M, &d->ld));
  #endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (access) {
  case GPUMATS_READ:
    PetscCall(MatDenseGetArrayRead(M, (const PetscScalar **)&d->host));
    break;
  case GPUMATS_WRITE:
    PetscCall(MatDenseGetArrayWrite(M, &d->host));
    break;
  case GPUMATS_READ_WRITE:
    PetscCall(MatDenseGetArray(M, &d->host));
    break;
  }
  d->ld = M->rmap->n;
  if (access == GPUMATS_WRITE) PetscCall(GpuMatsStageDenseReserve(stage, M->rmap->n, M->cmap->n, &d->device));
  else {
    PetscInt lda;

    PetscCall(MatDenseGetLDA(M, &lda));
    PetscCall(GpuMatsStageDenseUpload(stage, d->host, M->rmap->n, M->cmap->n, lda, &d->device));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GpuMatsDenseRestoreDeviceArray(GpuMatsDeviceDense *d)
{
  Mat M = d->mat;

  PetscFunctionBegin;
  if (d->cuda) {
  #if defined(PETSC_HAVE_CUDA)
    switch (d->access) {
    case GPUMATS_READ:
      PetscCall(MatDenseCUDARestoreArrayRead(M, (const PetscScalar **)&d->device));
      break;
    case GPUMATS_WRITE:
      PetscCall(MatDenseCUDARestoreArrayWrite(M, &d->device));
      break;
    case GPUMATS_READ_WRITE:
      PetscCall(MatDenseCUDARestoreArray(M, &d->device));
      break;
    }
  #endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d->access != GPUMATS_READ) {
    PetscInt lda;

    PetscCall(MatDenseGetLDA(M, &lda));
    PetscCall(GpuMatsStageDenseDownload(d->stage, d->host, M->rmap->n, M->cmap->n, lda));
  }
  switch (d->access) {
  case GPUMATS_READ:
    PetscCall(MatDenseRestoreArrayRead(M, (const PetscScalar **)&d->host));
    break;
  case GPUMATS_WRITE:
    PetscCall(MatDenseRestoreArrayWrite(M, &d->host));
    break;
  case GPUMATS_READ_WRITE:
    PetscCall(MatDenseRestoreArray(M, &d->host));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GpuMatsFormatSpMMDevice(Mat A, Mat B, Mat C, PetscBool add, PetscLogDouble flops)
{
  GpuMatsFormat     *f = GpuMatsFormatOf(A);
  GpuMatsDeviceDense db, dc;

  PetscFunctionBegin;
  PetscCall(GpuMatsDenseGetDeviceArray(B, GPUMATS_READ, &f->stage_x, &db));
  PetscCall(GpuMatsDenseGetDeviceArray(C, add ? GPUMATS_READ_WRITE : GPUMATS_WRITE, &f->stage_y, &dc));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeBegin());
  #endif
  PetscCall((*f->ops->spmm_device)(A, B->cmap->n, db.device, db.ld, add, dc.device, dc.ld));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  #else
  PetscCall(PetscLogFlops(flops));
  #endif
  PetscCall(GpuMatsDenseRestoreDeviceArray(&dc));
  PetscCall(GpuMatsDenseRestoreDeviceArray(&db));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode GpuMatsFormatSpMMHost(Mat A, Mat B, Mat C, PetscBool add, PetscLogDouble flops)
{
  GpuMatsFormat      *f = GpuMatsFormatOf(A);
  const PetscScalar  *b;
  PetscScalar        *c;
  PetscInt            ldb, ldc;

  PetscFunctionBegin;
  PetscCall(MatDenseGetLDA(B, &ldb));
  PetscCall(MatDenseGetLDA(C, &ldc));
  PetscCall(MatDenseGetArrayRead(B, &b));
  if (add) PetscCall(MatDenseGetArray(C, &c));
  else PetscCall(MatDenseGetArrayWrite(C, &c));
  PetscCall((*f->ops->spmm_host)(A, B->cmap->n, b, ldb, add, c, ldc));
  if (add) PetscCall(MatDenseRestoreArray(C, &c));
  else PetscCall(MatDenseRestoreArrayWrite(C, &c));
  PetscCall(MatDenseRestoreArrayRead(B, &b));
  PetscCall(PetscLogFlops(flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = A B (+ C when add) for A of any format and sequential dense B, C
   (host or CUDA, any leading dimensions), on the backend of A's multiplies.
   Also the block product of the MPI types. */
PetscErrorCode GpuMatsFormatSpMM(Mat A, Mat B, Mat C, PetscBool add)
{
  GpuMatsFormat     *f = GpuMatsFormatOf(A);
  PetscBool           on_device;
  PetscLogDouble      flops;

  PetscFunctionBegin;
  PetscCheck(B->rmap->n == A->cmap->n && C->rmap->n == A->rmap->n && C->cmap->n == B->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "C (%" PetscInt_FMT " x %" PetscInt_FMT ") = A (%" PetscInt_FMT " x %" PetscInt_FMT ") B (%" PetscInt_FMT " x %" PetscInt_FMT "): sizes do not match", C->rmap->n, C->cmap->n, A->rmap->n, A->cmap->n, B->rmap->n, B->cmap->n);
  PetscCall((*f->ops->update)(A, &on_device)); /* first, on every rank: the first device probe is collective */
  if (!A->rmap->n || !B->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  if (add && !f->nnz) PetscFunctionReturn(PETSC_SUCCESS); /* e.g. the off-diagonal block on one rank: spare the staging */
  flops = 2.0 * (PetscLogDouble)f->nnz * (PetscLogDouble)B->cmap->n;
  if (on_device) {
#if GPUMATS_HAVE_CUDA
    PetscCall(GpuMatsFormatSpMMDevice(A, B, C, add, flops));
#endif
  } else PetscCall(GpuMatsFormatSpMMHost(A, B, C, add, flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Another product type with a dense B: PETSc's code for the parent type
   ("seqaij" or "mpiaij"), which the dense B carries as a composed function. */
PetscErrorCode GpuMatsProductSetFromOptions_Parent(Mat C, const char *parent)
{
  Mat_Product *product = C->product;
  char         name[256];
  PetscErrorCode (*f)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", parent, ((PetscObject)product->B)->type_name));
  PetscCall(PetscObjectQueryFunction((PetscObject)product->B, name, &f));
  if (f) PetscCall((*f)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sizes C if it has no sizes yet and, if it is not dense yet, makes it the
   dense type of B.  C may be the user's (MatProductCreateWithMat), with its
   own array, leading dimension and column layout: those are kept. */
PetscErrorCode GpuMatsProductSetUpDense(Mat C, PetscErrorCode (*symbolic)(Mat))
{
  Mat       A = C->product->A, B = C->product->B;
  PetscBool isdense;

  PetscFunctionBegin;
  if (C->rmap->n < 0 || C->cmap->n < 0 || C->rmap->N < 0 || C->cmap->N < 0) PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
  PetscCheck(C->rmap->n == A->rmap->n && C->cmap->N == B->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "C with %" PetscInt_FMT " local rows and %" PetscInt_FMT " columns cannot hold A B: %" PetscInt_FMT " local rows and %" PetscInt_FMT " columns", C->rmap->n, C->cmap->N, A->rmap->n, B->cmap->N);
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C, &isdense, MATSEQDENSE, MATMPIDENSE, ""));
  if (!isdense) {
    PetscCall(MatSetType(C, ((PetscObject)B)->type_name));
    C->ops->productsymbolic = symbolic; /* MatSetType cleared the ops; MatProductReplaceMats looks at it */
  }
  PetscCall(MatSetUp(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_GpuMatsFormat_SeqDense(Mat C)
{
  Mat_Product *product = C->product;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCall(GpuMatsFormatSpMM(product->A, product->B, C, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_GpuMatsFormat_SeqDense(Mat C)
{
  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCall(GpuMatsProductSetUpDense(C, MatProductSymbolic_GpuMatsFormat_SeqDense));
  C->ops->productnumeric = MatProductNumeric_GpuMatsFormat_SeqDense;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSetFromOptions_GpuMatsFormat_SeqDense(Mat C)
{
  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  if (C->product->type == MATPRODUCT_AB) C->ops->productsymbolic = MatProductSymbolic_GpuMatsFormat_SeqDense;
  else {
    PetscBool aij;

    /* an AIJ shadow has AIJ's code for the other products; a type of its own has none (PETSc then says so) */
    PetscCall(PetscStrbeginswith(((PetscObject)C->product->A)->type_name, MATSEQAIJ, &aij));
    if (aij) PetscCall(GpuMatsProductSetFromOptions_Parent(C, MATSEQAIJ));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
