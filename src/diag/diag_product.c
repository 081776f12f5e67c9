/* MATSEQDIAG products of two diag matrices: C = A B, A^T B, A B^T, whatever the operands'
   schemes (HM, CDM or one of each: the plan multiplies across, see <gpumats_diag_format.h>; C
   is CDM when both operands are, else HM).  The symbolic phase makes the plan on the host
   (C's diagonals and, per diagonal of C, the pairs of diagonals meeting on it, by counting:
   no work proportional to n times the pairs) and gives C its diagonals without values:
   they are allocated where the numeric phase runs (on the device, nothing n-long on the
   host).  The numeric phase, again whenever A's or B's values change, runs on the device
   or the host; when A's or B's diagonals changed it makes the plan again first (-info says
   so).  A transposed operand is A's diagonals with negated offsets (HM: each diagonal's
   values as they are; CDM: reversed and shifted), refreshed at each numeric phase.  A dense
   B goes through the common SpMM (dense_product.c); AIJ operands through diag_product_aij.c. */
#include "diag/diag_impl.h"

typedef struct {
  DiagFormat       left_t, right_t; /* A^T (AtB) or B^T (ABt), else unused */
  PetscBool        transpose_left, transpose_right;
  DiagProductPlan  plan;
  DiagFormat       shape_a, shape_b; /* A's and B's diagonals when the plan was made (no values) */
#if GPUMATS_HAVE_CUDA
  DiagDevice        left_t_dev, right_t_dev;
  DiagDeviceProduct dprod;
#endif
} DiagProductData;

static PetscErrorCode DiagProductDataReset(DiagProductData *pd)
{
  PetscFunctionBegin;
  DiagFormatFree(&pd->left_t);
  DiagFormatFree(&pd->right_t);
  DiagProductPlanFree(&pd->plan);
  DiagFormatFree(&pd->shape_a);
  DiagFormatFree(&pd->shape_b);
#if GPUMATS_HAVE_CUDA
  PetscCall(DiagDeviceDestroy(&pd->left_t_dev));
  PetscCall(DiagDeviceDestroy(&pd->right_t_dev));
  PetscCall(DiagDeviceProductDestroy(&pd->dprod));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductDataDestroy_SeqDiag(void *arg)
{
  DiagProductData *pd = (DiagProductData *)GpuMatsProductCtx(arg);

  PetscFunctionBegin;
  PetscCall(DiagProductDataReset(pd));
  PetscCall(PetscFree(pd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *DiagSchemeName(DiagScheme s)
{
  return s == DIAG_SCHEME_HM ? "HM" : "CDM";
}

/* The transposed operand with M's current values (same structure as at the symbolic phase). */
static PetscErrorCode DiagProductRefreshTranspose(Mat M, DiagFormat *t)
{
  DiagFormat fresh;

  PetscFunctionBegin;
  PetscCall(MatDiagSyncHost_SeqDiag(M));
  PetscCall(DiagCheckStatus(DiagFormatTranspose(&((Mat_SeqDiag *)M->spptr)->fmt, &fresh), M, "MatProduct: the transpose"));
  PetscCheck(fresh.start[fresh.ndiag] == t->start[t->ndiag], PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatProductNumeric: the transpose of an operand has other diagonals than at the plan");
  PetscCall(PetscArraycpy(t->val, fresh.val, t->start[t->ndiag]));
  DiagFormatFree(&fresh);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the symbolic phase runs: the host unless the product runs on the device and
   -mat_diag_product_plan asks for the device, or (auto) the pairs may be many and the device's
   walk over A's entry diagonals for each sum, nea x (span of B's offsets) steps, is not too long.
   Measured on the paper's tables: the device's plan takes about the same time whatever the
   size, the host's grows with the combinations of entry diagonals; they are even at about
   200 x 200 diagonals, the device ahead from 300 x 300 */
#define DIAG_PLAN_DEVICE_MIN_COMBINATIONS ((PetscInt64)1 << 17)
#define DIAG_PLAN_DEVICE_MAX_STEPS        ((PetscInt64)1 << 28)
static PetscErrorCode DiagProductPlanOnDevice(Mat A, const DiagFormat *left, const DiagFormat *right, PetscBool *on_device)
{
  Mat_SeqDiag *da = (Mat_SeqDiag *)A->spptr;
  PetscInt64   nea = 2 * (PetscInt64)left->ndiag, neb = 2 * (PetscInt64)right->ndiag, span;

  PetscFunctionBegin;
  *on_device = PETSC_FALSE;
  if (da->settings.plan == DIAG_PLAN_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GpuMatsBackendUsesDevice(A, da->base.backend, on_device));
  if (!*on_device || da->settings.plan == DIAG_PLAN_DEVICE) PetscFunctionReturn(PETSC_SUCCESS);
  /* upper bounds: a CDM diagonal holds up to two entry diagonals, B's offsets span at most rows + columns */
  span       = (PetscInt64)right->nrows + right->ncols;
  *on_device = (PetscBool)(nea * neb >= DIAG_PLAN_DEVICE_MIN_COMBINATIONS && nea * span <= DIAG_PLAN_DEVICE_MAX_STEPS);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The plan and C's diagonals (no values) from A's and B's current diagonals */
static PetscErrorCode DiagProductMakePlan(Mat C)
{
  Mat_Product      *product = C->product;
  Mat               A = product->A, B = product->B;
  Mat_SeqDiag      *da = (Mat_SeqDiag *)A->spptr, *db = (Mat_SeqDiag *)B->spptr;
  DiagProductData  *pd = (DiagProductData *)product->data;
  const DiagFormat *left, *right;
  DiagFormat        cf;
  PetscLogDouble    t0, t1;
  PetscBool         on_device;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(DiagProductDataReset(pd));
  /* a transposed operand needs A's values on the host; otherwise only the diagonals are read */
  if (pd->transpose_left) PetscCall(MatDiagSyncHost_SeqDiag(A));
  if (pd->transpose_right) PetscCall(MatDiagSyncHost_SeqDiag(B));
  if (pd->transpose_left) PetscCall(DiagCheckStatus(DiagFormatTranspose(&da->fmt, &pd->left_t), A, "MatProduct AtB: the transpose"));
  if (pd->transpose_right) PetscCall(DiagCheckStatus(DiagFormatTranspose(&db->fmt, &pd->right_t), B, "MatProduct ABt: the transpose"));
  left  = pd->transpose_left ? &pd->left_t : &da->fmt;
  right = pd->transpose_right ? &pd->right_t : &db->fmt;
  PetscCheck(left->ncols == right->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MatProduct %s of diag matrices: op(A) is %" PetscInt_FMT " x %" PetscInt_FMT ", op(B) %" PetscInt_FMT " x %" PetscInt_FMT ": the inner sizes differ", MatProductTypes[product->type], left->nrows, left->ncols, right->nrows, right->ncols);
  PetscCall(DiagProductPlanOnDevice(A, left, right, &on_device));
  if (on_device) {
#if GPUMATS_HAVE_CUDA
    PetscCall(DiagDeviceProductPlan(left, right, &pd->plan, &cf, &pd->dprod));
#endif
  } else PetscCall(DiagCheckStatus(DiagProductPlanCreate(left, right, &pd->plan, &cf), A, "MatProductSymbolic"));
  PetscCall(DiagCheckStatus(DiagFormatCopyStructure(&da->fmt, &pd->shape_a), A, "MatProductSymbolic"));
  PetscCall(DiagCheckStatus(DiagFormatCopyStructure(&db->fmt, &pd->shape_b), B, "MatProductSymbolic"));
  PetscCall(PetscTime(&t1));
  if (left->scheme != right->scheme) PetscCall(PetscInfo(C, "DIAG product %s of an %s and a %s matrix: multiplied across the schemes (pairs of diagonals of each), C stored HM\n", MatProductTypes[product->type], DiagSchemeName(left->scheme), DiagSchemeName(right->scheme)));
  PetscCall(PetscInfo(C, "DIAG product %s: %" PetscInt_FMT " x %" PetscInt_FMT " diagonals give %" PetscInt_FMT " (%s, %" PetscInt64_FMT " values), %" PetscInt64_FMT " pairs, %.3g Gflop a numeric phase; plan made %s in %.3g ms\n", MatProductTypes[product->type], left->ndiag, right->ndiag, cf.ndiag, DiagSchemeName(cf.scheme), cf.start[cf.ndiag], pd->plan.npairs, (double)pd->plan.flops * 1e-9, on_device ? "on the device" : "on the host", (t1 - t0) * 1e3));
  if (C->assembled && ((Mat_SeqDiag *)C->spptr)->has_format) PetscCall(MatDiagSetFormat_SeqDiag(C, &cf)); /* again, after a change of A's or B's diagonals */
  else {
    PetscCall(MatSetSizes(C, left->nrows, right->ncols, left->nrows, right->ncols));
    PetscCall(MatSetType(C, MATSEQDIAG));
    ((Mat_SeqDiag *)C->spptr)->settings = da->settings;
    PetscCall(GpuMatsFormatSetBackend(C, da->base.backend));
    PetscCall(PetscLayoutSetUp(C->rmap));
    PetscCall(PetscLayoutSetUp(C->cmap));
    C->preallocated = PETSC_TRUE;
    PetscCall(MatDiagSetFormat_SeqDiag(C, &cf));
    C->assembled = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode DiagProductNumericDevice(Mat C)
{
  Mat_Product     *product = C->product;
  Mat              A = product->A, B = product->B;
  Mat_SeqDiag     *da = (Mat_SeqDiag *)A->spptr, *db = (Mat_SeqDiag *)B->spptr, *dc = (Mat_SeqDiag *)C->spptr;
  DiagProductData *pd = (DiagProductData *)product->data;
  const DiagFormat *left = pd->transpose_left ? &pd->left_t : &da->fmt, *right = pd->transpose_right ? &pd->right_t : &db->fmt;
  DiagDevice       dl, dr;
  PetscBool        paper = (PetscBool)(da->settings.product == DIAG_PRODUCT_PAPER), first = PETSC_FALSE;

  PetscFunctionBegin;
  /* before any device allocation: every operand and C must fit the 32-bit device indices */
  PetscCall(DiagCheckDeviceSize(left));
  PetscCall(DiagCheckDeviceSize(right));
  PetscCall(DiagCheckDeviceSize(&dc->fmt));
  /* a transposed operand goes up from the host, where its values were refreshed */
  if (pd->transpose_left && !pd->left_t_dev) PetscCall(DiagDeviceCreate(&pd->left_t, &pd->left_t_dev));
  else if (pd->transpose_left) PetscCall(DiagDeviceCopyValues(pd->left_t_dev, &pd->left_t));
  else PetscCall(MatDiagSyncDevice_SeqDiag(A));
  if (pd->transpose_right && !pd->right_t_dev) PetscCall(DiagDeviceCreate(&pd->right_t, &pd->right_t_dev));
  else if (pd->transpose_right) PetscCall(DiagDeviceCopyValues(pd->right_t_dev, &pd->right_t));
  else PetscCall(MatDiagSyncDevice_SeqDiag(B));
  dl = pd->transpose_left ? pd->left_t_dev : da->dev;
  dr = pd->transpose_right ? pd->right_t_dev : db->dev;
  if (!dc->dev || !pd->dprod) { /* the first numeric phase: C's values allocated on the device only (the
                                   numeric phase writes every one), the plan uploaded */
    PetscLogDouble t0, t1, t2;

    PetscCall(PetscTime(&t0));
    if (!dc->dev) {
      DiagFormat skeleton = dc->fmt;

      skeleton.val = NULL;
      PetscCall(DiagDeviceCreate(&skeleton, &dc->dev));
    }
    PetscCall(PetscTime(&t1));
    if (!pd->dprod) { /* else made on the device by the symbolic phase */
      PetscCall(DiagDeviceProductCreate(&pd->plan, left, right, &dc->fmt, &pd->dprod));
      PetscCall(PetscTime(&t2));
      PetscCall(PetscInfo(C, "DIAG product: C's %" PetscInt64_FMT " values allocated on the device in %.3g ms, the plan (%" PetscInt64_FMT " pairs) uploaded in %.3g ms\n", dc->fmt.start[dc->fmt.ndiag], (t1 - t0) * 1e3, pd->plan.npairs, (t2 - t1) * 1e3));
    } else PetscCall(PetscInfo(C, "DIAG product: C's %" PetscInt64_FMT " values allocated on the device in %.3g ms\n", dc->fmt.start[dc->fmt.ndiag], (t1 - t0) * 1e3));
    first = PETSC_TRUE;
  }
  if (paper && !(left->scheme == right->scheme && right->scheme == dc->fmt.scheme)) {
    PetscCall(PetscInfo(C, "DIAG product: -mat_diag_product paper needs operands of one scheme (%s and %s here): our kernel runs instead\n", DiagSchemeName(left->scheme), DiagSchemeName(right->scheme)));
    paper = PETSC_FALSE;
  }
  if (first && !paper) {
    const char *kernel;

    PetscCall(DiagDeviceProductKernelName(pd->dprod, &kernel));
    PetscCall(PetscInfo(C, "DIAG product on the device: the %s kernel, %" PetscInt64_FMT " pairs of diagonals on C's %" PetscInt_FMT " (-mat_diag_product paper for the paper's)\n", kernel, pd->plan.npairs, dc->fmt.ndiag));
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (paper && dc->fmt.scheme == DIAG_SCHEME_CDM) PetscCall(DiagDeviceProductNumericTiled(pd->dprod, dl, dr, dc->dev));
  else if (paper) PetscCall(DiagDeviceProductNumericAtomic(pd->dprod, dl, dr, dc->dev));
  else PetscCall(DiagDeviceProductNumeric(pd->dprod, dl, dr, dc->dev));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)pd->plan.flops));
  dc->values_at = DIAG_VALUES_DEVICE;
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

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
  { /* the plan holds while A's and B's diagonals are those it was made for (a MatAXPY, MatShift,
       MatSetValues into a CDM padding part or a MatHeaderReplace may have changed them) */
    const PetscBool same_a = DiagFormatSameStructure(&da->fmt, &pd->shape_a), same_b = DiagFormatSameStructure(&db->fmt, &pd->shape_b);

    if (!same_a || !same_b) {
      PetscCall(PetscInfo(C, "DIAG product %s: the diagonals of %s changed since the symbolic phase: the symbolic phase again\n", MatProductTypes[product->type], !same_a ? (!same_b ? "A and B" : "A") : "B"));
      PetscCall(DiagProductMakePlan(C));
    }
  }
  if (pd->transpose_left) PetscCall(DiagProductRefreshTranspose(A, &pd->left_t));
  if (pd->transpose_right) PetscCall(DiagProductRefreshTranspose(B, &pd->right_t));
  PetscCall(GpuMatsBackendUsesDevice(A, da->base.backend, &on_device));
  if (on_device) {
#if GPUMATS_HAVE_CUDA
    PetscCall(DiagProductNumericDevice(C));
#endif
  } else {
    PetscCall(MatDiagSyncHost_SeqDiag(A));
    PetscCall(MatDiagSyncHost_SeqDiag(B));
    if (!dc->fmt.val) PetscCall(MatDiagSyncHost_SeqDiag(C)); /* allocates C's host values */
    PetscCall(DiagCheckStatus(DiagProductPlanPairs(&pd->plan), A, "MatProductNumeric: the lists of pairs on the host")); /* a plan made on the device has them there only */
    DiagProductPlanNumericHost(&pd->plan, pd->transpose_left ? &pd->left_t : &da->fmt, pd->transpose_right ? &pd->right_t : &db->fmt, &dc->fmt);
    PetscCall(PetscLogFlops((PetscLogDouble)pd->plan.flops));
    PetscCall(MatDiagHostChanged_SeqDiag(C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SeqDiag_SeqDiag(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;
  Mat_SeqDiag *da = (Mat_SeqDiag *)A->spptr, *db = (Mat_SeqDiag *)B->spptr;
  DiagProductData *pd;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "Product data not empty");
  PetscCheck(da->has_format && db->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatProduct of diag matrices: assemble A and B first");
  PetscCall(PetscNew(&pd));
  product->data       = pd;
  product->destroy    = MatProductDataDestroy_SeqDiag;
  pd->transpose_left  = (PetscBool)(product->type == MATPRODUCT_AtB);
  pd->transpose_right = (PetscBool)(product->type == MATPRODUCT_ABt);
  PetscCall(DiagProductMakePlan(C));
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
    PetscCall(MatProductSetFromOptions_Diag_ThroughAIJ(C)); /* PtAP, RARt: through AIJ, C is AIJ */
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
