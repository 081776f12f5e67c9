/* The operations every format shares: the four multiplies on the host or the
   device (vectors staged when they live on the host), the backend setters,
   BindToCPU, A times a dense matrix, and installing all of it on a MATSEQAIJ
   (the shadow formats) or on a type of its own (diag). */
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"

PetscErrorCode GpuMatsShadowLogFlops(PetscBool on_device, PetscLogDouble flops)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_DEVICE)
  if (on_device) PetscCall(PetscLogGpuFlops(flops));
  else PetscCall(PetscLogFlops(flops));
#else
  PetscCall(PetscLogFlops(flops));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode GpuMatsShadowApplyDevice(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsShadow   *s  = GpuMatsShadowOf(A);
  const PetscInt   ny = transpose ? A->cmap->n : A->rmap->n;
  GpuMatsDeviceVec dx, dy0, dy;

  PetscFunctionBegin;
  PetscCall(GpuMatsVecGetDeviceArray(x, GPUMATS_READ, &s->stage_x, &dx));
  if (y0 && y0 != y) PetscCall(GpuMatsVecGetDeviceArray(y0, GPUMATS_READ, &s->stage_z, &dy0));
  PetscCall(GpuMatsVecGetDeviceArray(y, y0 == y ? GPUMATS_READ_WRITE : GPUMATS_WRITE, &s->stage_y, &dy));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeBegin());
  #endif
  if (ny > 0) PetscCall((*s->ops->mult_device)(A, transpose, dx.device, y0 ? (y0 == y ? dy.device : dy0.device) : NULL, dy.device));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeEnd());
  #endif
  PetscCall(GpuMatsVecRestoreDeviceArray(&dy));
  if (y0 && y0 != y) PetscCall(GpuMatsVecRestoreDeviceArray(&dy0));
  PetscCall(GpuMatsVecRestoreDeviceArray(&dx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode GpuMatsShadowApplyHost(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsShadow     *s = GpuMatsShadowOf(A);
  const PetscScalar *xa, *y0a = NULL;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  if (y0 && y0 != y) PetscCall(VecGetArrayRead(y0, &y0a));
  if (y0 == y) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
  if (y0 == y) y0a = ya;
  PetscCall((*s->ops->mult_host)(A, transpose, xa, y0a, ya));
  if (y0 == y) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  if (y0 && y0 != y) PetscCall(VecRestoreArrayRead(y0, &y0a));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x + y0, y0 NULL or possibly equal to y: the one routine behind the four ops. */
static PetscErrorCode GpuMatsShadowApply(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsShadow *s = GpuMatsShadowOf(A);
  PetscBool      on_device;

  PetscFunctionBegin;
  PetscCall((*s->ops->update)(A, &on_device));
#if GPUMATS_HAVE_CUDA
  if (on_device) PetscCall(GpuMatsShadowApplyDevice(A, transpose, x, y0, y));
  else PetscCall(GpuMatsShadowApplyHost(A, transpose, x, y0, y));
#else
  PetscCall(GpuMatsShadowApplyHost(A, transpose, x, y0, y));
#endif
  PetscCall(GpuMatsShadowLogFlops(on_device, 2.0 * (PetscLogDouble)s->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SeqAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowApply(A, PETSC_FALSE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqAIJShadow(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowApply(A, PETSC_FALSE, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqAIJShadow(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowApply(A, PETSC_TRUE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqAIJShadow(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowApply(A, PETSC_TRUE, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowSetBackend(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  GpuMatsShadowOf(A)->backend = backend;
  PetscCall(GpuMatsSetDefaultVecType(A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_SeqAIJShadow(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = GpuMatsShadowOf(A)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DEVICE)
static PetscErrorCode MatBindToCPU_SeqAIJShadow(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, flg ? GPUMATS_BACKEND_HOST : GpuMatsShadowOf(A)->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode GpuMatsShadowCompose(Mat A, const char *seqtype, PetscBool set)
{
  char name[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsSetBackend_C", set ? GpuMatsShadowSetBackend : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_SeqAIJShadow : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_Backend : NULL));
  /* A * dense B: one SpMM (dense_product.c); sparse products keep AIJ's ops->productsetfromoptions */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_seqdense_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_SeqAIJShadow_SeqDense : NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_seqdensecuda_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_SeqAIJShadow_SeqDense : NULL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsInstallMultiplies(Mat B, const GpuMatsShadowOps *ops, const char *seqtype)
{
  GpuMatsShadow *s = GpuMatsShadowOf(B);

  PetscFunctionBegin;
  s->ops     = ops;
  s->backend = GPUMATS_BACKEND_AUTO;

  B->ops->mult             = MatMult_SeqAIJShadow;
  B->ops->multadd          = MatMultAdd_SeqAIJShadow;
  B->ops->multtranspose    = MatMultTranspose_SeqAIJShadow;
  B->ops->multtransposeadd = MatMultTransposeAdd_SeqAIJShadow;
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  B->ops->getcurrentmemtype = MatGetCurrentMemType_GpuMats;
#endif
#if defined(PETSC_HAVE_DEVICE)
  B->ops->bindtocpu = MatBindToCPU_SeqAIJShadow;
  B->boundtocpu     = PETSC_FALSE; /* MatCreate() binds every matrix; a GPU type starts unbound */
#endif
  PetscCall(GpuMatsShadowCompose(B, seqtype, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, seqtype));
  PetscCall(GpuMatsSetDefaultVecType(B, s->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsUninstallMultiplies(Mat B, const char *seqtype)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowCompose(B, seqtype, PETSC_FALSE));
#if GPUMATS_HAVE_CUDA
  PetscCall(GpuMatsStageFree(&GpuMatsShadowOf(B)->stage_x));
  PetscCall(GpuMatsStageFree(&GpuMatsShadowOf(B)->stage_y));
  PetscCall(GpuMatsStageFree(&GpuMatsShadowOf(B)->stage_z));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowInstall(Mat B, const GpuMatsShadowOps *ops, const char *seqtype)
{
  GpuMatsShadow *s = GpuMatsShadowOf(B);

  PetscFunctionBegin;
  s->parent = *B->ops;
  s->built  = PETSC_FALSE;
  PetscCall(GpuMatsInstallMultiplies(B, ops, seqtype));
  PetscCall(GpuMatsCOOComposeAIJ(B, PETSC_TRUE));                /* AIJ's COO, wrapped: common/coo.c */
  PetscCall(GpuMatsShadowInstallValueOps(B));                    /* value changes the device copy follows */
  PetscCall(GpuMatsShadowInstallHostReaders(B, seqtype, PETSC_TRUE)); /* what reads the host AIJ unseen: shadow_ahead.c */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowUninstall(Mat B, const char *seqtype)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowAheadDrop(B)); /* destroyed, or converted after a sync */
  PetscCall(GpuMatsUninstallMultiplies(B, seqtype));
  PetscCall(GpuMatsCOOComposeAIJ(B, PETSC_FALSE));
  PetscCall(GpuMatsShadowInstallHostReaders(B, seqtype, PETSC_FALSE));
  *B->ops = GpuMatsShadowOf(B)->parent;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A shadow type's MatCreateSeqAIJ<X>(): sizes, type, preallocation. */
PetscErrorCode GpuMatsCreateSeqAIJShadow(MPI_Comm comm, MatType type, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && n >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Creating a %s matrix: rows and columns must be nonnegative, not %" PetscInt_FMT " x %" PetscInt_FMT, type, m, n);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a shadow type leaves when it converts back to plain AIJ ('aijtype', seq or MPI):
   host vectors, bound to the CPU as MatCreate leaves an AIJ matrix, the AIJ name. */
PetscErrorCode GpuMatsBecomeAIJ(Mat B, MatType aijtype)
{
  PetscFunctionBegin;
  PetscCall(MatSetVecType(B, VECSTANDARD));
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_TRUE;
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, aijtype));
  PetscFunctionReturn(PETSC_SUCCESS);
}
