/* MATSEQDIAG products of two diag matrices: C = A B, A^T B, A B^T, all giving a diag
   matrix in the scheme of A and B.  The symbolic phase finds C's diagonals from the two
   offset sets on the host and allocates C once (and the device's pair lists); the
   numeric phase, again whenever A's or B's values change, runs on the device or the
   host.  A transposed operand is A's diagonals with negated offsets (HM: each
   diagonal's values as they are; CDM: reversed and shifted), refreshed at each numeric
   phase.  A dense B goes through the common SpMM (dense_product.c). */
#include "diag/diag_impl.h"

typedef struct {
  DiagFormat left_t, right_t; /* A^T (AtB) or B^T (ABt), else unused */
  PetscBool  transpose_left, transpose_right;
#if GPUMATS_HAVE_CUDA
  DiagDevice        left_t_dev, right_t_dev;
  DiagDeviceProduct dprod;
#endif
} DiagProductData;

PetscErrorCode MatProductDataDestroy_SeqDiag(void *ptr)
{
  DiagProductData *pd = (DiagProductData *)ptr;

  PetscFunctionBegin;
  DiagFormatFree(&pd->left_t);
  DiagFormatFree(&pd->right_t);
#if GPUMATS_HAVE_CUDA
  PetscCall(DiagDeviceDestroy(&pd->left_t_dev));
  PetscCall(DiagDeviceDestroy(&pd->right_t_dev));
  PetscCall(DiagDeviceProductDestroy(&pd->dprod));
#endif
  PetscCall(PetscFree(pd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transposed operand with M's current values (same structure as at the symbolic phase). */
static PetscErrorCode DiagProductRefreshTranspose(Mat M, DiagFormat *t)
{
  DiagFormat fresh;

  PetscFunctionBegin;
  PetscCall(MatDiagSyncHost_SeqDiag(M));
  PetscCall(DiagCheckStatus(DiagFormatTranspose(&((Mat_SeqDiag *)M->spptr)->fmt, &fresh), M, "MatProduct: the transpose"));
  PetscCheck(fresh.start[fresh.ndiag] == t->start[t->ndiag], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatProductNumeric: the diagonals of an operand changed since MatProductSymbolic");
  PetscCall(PetscArraycpy(t->val, fresh.val, t->start[t->ndiag]));
  DiagFormatFree(&fresh);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SeqDiag_SeqDiag(Mat C)
{
  Mat_Product     *product = C->product;
  Mat              A = product->A, B = product->B;
  Mat_SeqDiag     *da = (Mat_SeqDiag *)A->spptr, *db = (Mat_SeqDiag *)B->spptr, *dc = (Mat_SeqDiag *)C->spptr;
  DiagProductData *pd = (DiagProductData *)product->data;
  PetscBool        on_device;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(da->has_format && db->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatProductNumeric of diag matrices: assemble A and B first");
  if (pd->transpose_left) PetscCall(DiagProductRefreshTranspose(A, &pd->left_t));
  if (pd->transpose_right) PetscCall(DiagProductRefreshTranspose(B, &pd->right_t));
  PetscCall(GpuMatsBackendUsesDevice(A, da->shadow.backend, &on_device));
  if (on_device) {
#if GPUMATS_HAVE_CUDA
    DiagDevice left, right;

    /* a transposed operand goes up from the host, where its values were refreshed above */
    /* before any device allocation: every operand and C must fit the 32-bit device indices */
    PetscCall(DiagCheckDeviceSize(pd->transpose_left ? &pd->left_t : &da->fmt));
    PetscCall(DiagCheckDeviceSize(pd->transpose_right ? &pd->right_t : &db->fmt));
    PetscCall(DiagCheckDeviceSize(&dc->fmt));
    if (pd->transpose_left && !pd->left_t_dev) PetscCall(DiagDeviceCreate(&pd->left_t, &pd->left_t_dev));
    else if (pd->transpose_left) PetscCall(DiagDeviceCopyValues(pd->left_t_dev, &pd->left_t));
    else PetscCall(MatDiagSyncDevice_SeqDiag(A));
    if (pd->transpose_right && !pd->right_t_dev) PetscCall(DiagDeviceCreate(&pd->right_t, &pd->right_t_dev));
    else if (pd->transpose_right) PetscCall(DiagDeviceCopyValues(pd->right_t_dev, &pd->right_t));
    else PetscCall(MatDiagSyncDevice_SeqDiag(B));
    left  = pd->transpose_left ? pd->left_t_dev : da->dev;
    right = pd->transpose_right ? pd->right_t_dev : db->dev;
    if (!dc->dev) PetscCall(DiagDeviceCreate(&dc->fmt, &dc->dev));
    if (!pd->dprod) PetscCall(DiagDeviceProductCreate(pd->transpose_left ? &pd->left_t : &da->fmt, pd->transpose_right ? &pd->right_t : &db->fmt, &dc->fmt, &pd->dprod));
    PetscCall(PetscLogGpuTimeBegin());
    if (da->settings.product == DIAG_PRODUCT_PAPER) {
      if (dc->fmt.scheme == DIAG_SCHEME_CDM) PetscCall(DiagDeviceProductNumericTiled(pd->dprod, left, right, dc->dev));
      else PetscCall(DiagDeviceProductNumericAtomic(pd->dprod, left, right, dc->dev));
    } else PetscCall(DiagDeviceProductNumeric(pd->dprod, left, right, dc->dev));
    PetscCall(PetscLogGpuTimeEnd());
    dc->values_at = DIAG_VALUES_DEVICE;
    PetscCall(PetscObjectStateIncrease((PetscObject)C));
#endif
  } else {
    PetscCall(MatDiagSyncHost_SeqDiag(A));
    PetscCall(MatDiagSyncHost_SeqDiag(B));
    DiagProductNumericHost(pd->transpose_left ? &pd->left_t : &da->fmt, pd->transpose_right ? &pd->right_t : &db->fmt, &dc->fmt);
    PetscCall(MatDiagHostChanged_SeqDiag(C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SeqDiag_SeqDiag(Mat C)
{
  Mat_Product      *product = C->product;
  Mat               A = product->A, B = product->B;
  Mat_SeqDiag      *da = (Mat_SeqDiag *)A->spptr, *db = (Mat_SeqDiag *)B->spptr;
  DiagProductData  *pd;
  const DiagFormat *left, *right;
  DiagFormat        cf;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "Product data not empty");
  PetscCheck(da->has_format && db->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatProduct of diag matrices: assemble A and B first");
  PetscCheck(da->fmt.scheme == db->fmt.scheme, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MatProduct of a diag matrix stored %s and one stored %s: give both the same -mat_diag_scheme (or MatDiagSetScheme())", da->fmt.scheme == DIAG_SCHEME_HM ? "HM" : "CDM", db->fmt.scheme == DIAG_SCHEME_HM ? "HM" : "CDM");
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscCall(MatDiagSyncHost_SeqDiag(B));
  PetscCall(PetscNew(&pd));
  product->data        = pd;
  product->destroy     = MatProductDataDestroy_SeqDiag;
  pd->transpose_left  = (PetscBool)(product->type == MATPRODUCT_AtB);
  pd->transpose_right = (PetscBool)(product->type == MATPRODUCT_ABt);
  if (pd->transpose_left) PetscCall(DiagCheckStatus(DiagFormatTranspose(&da->fmt, &pd->left_t), A, "MatProduct AtB: the transpose"));
  if (pd->transpose_right) PetscCall(DiagCheckStatus(DiagFormatTranspose(&db->fmt, &pd->right_t), B, "MatProduct ABt: the transpose"));
  left  = pd->transpose_left ? &pd->left_t : &da->fmt;
  right = pd->transpose_right ? &pd->right_t : &db->fmt;
  PetscCheck(left->ncols == right->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MatProduct %s of diag matrices: op(A) is %" PetscInt_FMT " x %" PetscInt_FMT ", op(B) %" PetscInt_FMT " x %" PetscInt_FMT ": the inner sizes differ", MatProductTypes[product->type], left->nrows, left->ncols, right->nrows, right->ncols);
  PetscCall(DiagCheckStatus(DiagProductSymbolic(left, right, &cf), A, "MatProductSymbolic"));
  PetscCall(PetscInfo(C, "DIAG product %s: %" PetscInt_FMT " x %" PetscInt_FMT " diagonals give %" PetscInt_FMT " (%" PetscInt64_FMT " values)\n", MatProductTypes[product->type], left->ndiag, right->ndiag, cf.ndiag, cf.start[cf.ndiag]));

  PetscCall(MatSetSizes(C, left->nrows, right->ncols, left->nrows, right->ncols));
  PetscCall(MatSetType(C, MATSEQDIAG));
  ((Mat_SeqDiag *)C->spptr)->settings = da->settings;
  PetscCall(GpuMatsShadowSetBackend(C, da->shadow.backend));
  PetscCall(PetscLayoutSetUp(C->rmap));
  PetscCall(PetscLayoutSetUp(C->cmap));
  C->preallocated = PETSC_TRUE;
  PetscCall(MatDiagSetFormat_SeqDiag(C, &cf));
  C->assembled = PETSC_TRUE;

  C->ops->productnumeric = MatProductNumeric_SeqDiag_SeqDiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSetFromOptions_SeqDiag(Mat C)
{
  Mat_Product *product = C->product;
  PetscBool    isdiag;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)product->B, MATSEQDIAG, &isdiag));
  if (!isdiag) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc reports the product as unsupported */
  switch (product->type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_AtB:
  case MATPRODUCT_ABt:
    C->ops->productsymbolic = MatProductSymbolic_SeqDiag_SeqDiag;
    break;
  default:
    break; /* PtAP, RARt, ABC: unsupported, PETSc says so */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
