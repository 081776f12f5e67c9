/* The operations every format shares, reading only the GpuMatsFormat at the start of its context
   (gpumats_impl.h): the four multiplies on the host or the device (vectors staged when they live
   on the host), the backend setters, BindToCPU, and installing them on a matrix.  A times a dense
   matrix: dense_product.c. */
#include "common/gpumats_impl.h"

PetscErrorCode GpuMatsLogFlops(PetscBool on_device, PetscLogDouble flops)
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
static PetscErrorCode GpuMatsFormatApplyDevice(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsFormat   *f  = GpuMatsFormatOf(A);
  const PetscInt   ny = transpose ? A->cmap->n : A->rmap->n;
  GpuMatsDeviceVec dx, dy0, dy;

  PetscFunctionBegin;
  PetscCall(GpuMatsVecGetDeviceArray(x, GPUMATS_READ, &f->stage_x, &dx));
  if (y0 && y0 != y) PetscCall(GpuMatsVecGetDeviceArray(y0, GPUMATS_READ, &f->stage_z, &dy0));
  PetscCall(GpuMatsVecGetDeviceArray(y, y0 == y ? GPUMATS_READ_WRITE : GPUMATS_WRITE, &f->stage_y, &dy));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeBegin());
  #endif
  if (ny > 0) PetscCall((*f->ops->mult_device)(A, transpose, dx.device, y0 ? (y0 == y ? dy.device : dy0.device) : NULL, dy.device));
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuTimeEnd());
  #endif
  PetscCall(GpuMatsVecRestoreDeviceArray(&dy));
  if (y0 && y0 != y) PetscCall(GpuMatsVecRestoreDeviceArray(&dy0));
  PetscCall(GpuMatsVecRestoreDeviceArray(&dx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode GpuMatsFormatApplyHost(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsFormat     *f = GpuMatsFormatOf(A);
  const PetscScalar *xa, *y0a = NULL;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  if (y0 && y0 != y) PetscCall(VecGetArrayRead(y0, &y0a));
  if (y0 == y) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
  if (y0 == y) y0a = ya;
  PetscCall((*f->ops->mult_host)(A, transpose, xa, y0a, ya));
  if (y0 == y) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  if (y0 && y0 != y) PetscCall(VecRestoreArrayRead(y0, &y0a));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x + y0, y0 NULL or possibly equal to y: the one routine behind the four ops. */
static PetscErrorCode GpuMatsFormatApply(Mat A, PetscBool transpose, Vec x, Vec y0, Vec y)
{
  GpuMatsFormat *f = GpuMatsFormatOf(A);
  PetscBool      on_device;

  PetscFunctionBegin;
  PetscCall((*f->ops->update)(A, &on_device));
#if GPUMATS_HAVE_CUDA
  if (on_device) PetscCall(GpuMatsFormatApplyDevice(A, transpose, x, y0, y));
  else PetscCall(GpuMatsFormatApplyHost(A, transpose, x, y0, y));
#else
  PetscCall(GpuMatsFormatApplyHost(A, transpose, x, y0, y));
#endif
  PetscCall(GpuMatsLogFlops(on_device, 2.0 * (PetscLogDouble)f->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_GpuMatsFormat(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsFormatApply(A, PETSC_FALSE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_GpuMatsFormat(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsFormatApply(A, PETSC_FALSE, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_GpuMatsFormat(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsFormatApply(A, PETSC_TRUE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_GpuMatsFormat(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsFormatApply(A, PETSC_TRUE, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsFormatSetBackend(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  GpuMatsFormatOf(A)->backend = backend;
  PetscCall(GpuMatsSetDefaultVecType(A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_GpuMatsFormat(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = GpuMatsFormatOf(A)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DEVICE)
static PetscErrorCode MatBindToCPU_GpuMatsFormat(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, flg ? GPUMATS_BACKEND_HOST : GpuMatsFormatOf(A)->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode GpuMatsFormatCompose(Mat A, const char *seqtype, PetscBool set)
{
  char name[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsSetBackend_C", set ? GpuMatsFormatSetBackend : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_GpuMatsFormat : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_Backend : NULL));
  /* A * dense B: one SpMM (dense_product.c); sparse products keep AIJ's ops->productsetfromoptions */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_seqdense_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_GpuMatsFormat_SeqDense : NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_seqdensecuda_C", seqtype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? MatProductSetFromOptions_GpuMatsFormat_SeqDense : NULL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsInstallMultiplies(Mat B, const GpuMatsFormatOps *ops, const char *seqtype)
{
  GpuMatsFormat *f = GpuMatsFormatOf(B);

  PetscFunctionBegin;
  f->ops     = ops;
  f->backend = GPUMATS_BACKEND_AUTO;

  B->ops->mult             = MatMult_GpuMatsFormat;
  B->ops->multadd          = MatMultAdd_GpuMatsFormat;
  B->ops->multtranspose    = MatMultTranspose_GpuMatsFormat;
  B->ops->multtransposeadd = MatMultTransposeAdd_GpuMatsFormat;
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  B->ops->getcurrentmemtype = MatGetCurrentMemType_GpuMats;
#endif
#if defined(PETSC_HAVE_DEVICE)
  B->ops->bindtocpu = MatBindToCPU_GpuMatsFormat;
  B->boundtocpu     = PETSC_FALSE; /* MatCreate() binds every matrix; a GPU type starts unbound */
#endif
  PetscCall(GpuMatsFormatCompose(B, seqtype, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, seqtype));
  PetscCall(GpuMatsSetDefaultVecType(B, f->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsUninstallMultiplies(Mat B, const char *seqtype)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsFormatCompose(B, seqtype, PETSC_FALSE));
#if GPUMATS_HAVE_CUDA
  PetscCall(GpuMatsStageFree(&GpuMatsFormatOf(B)->stage_x));
  PetscCall(GpuMatsStageFree(&GpuMatsFormatOf(B)->stage_y));
  PetscCall(GpuMatsStageFree(&GpuMatsFormatOf(B)->stage_z));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
