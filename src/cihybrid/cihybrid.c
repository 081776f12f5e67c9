/* MATSEQAIJCIHYBRID: the type itself — conversion from and to MATSEQAIJ,
   creation, destruction, duplication, the ops it overrides, the factorizations it registers. */
#include "cihybrid/cihybrid_impl.h"

static PetscErrorCode CIHybridContextDestroy(Mat A)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCIHybridFreeFormat_SeqAIJCIHybrid(A));
  PetscCall(CIHybridStashFree(&h->stash));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridComposeAll(Mat A, PetscBool set);

static PetscErrorCode MatDestroy_SeqAIJCIHybrid(Mat A)
{
  Mat_SeqAIJCIHybrid *h      = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscErrorCode (*destroy)(Mat) = h->shadow.parent.destroy;

  PetscFunctionBegin;
  PetscCall(CIHybridComposeAll(A, PETSC_FALSE));
  PetscCall(GpuMatsShadowUninstall(A, MATSEQAIJCIHYBRID));
  PetscCall(CIHybridContextDestroy(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const CIHybridSettings CIHybridSettingsDefault = {MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_ENTRIES, MAT_CIHYBRID_KERNEL_TUNED, MAT_CIHYBRID_COMPRESS_NONE};

PetscErrorCode MatCIHybridApplySettings_SeqAIJCIHybrid(Mat A, const CIHybridSettings *s)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->settings.boundary != s->boundary || h->settings.split != s->split) { /* a new layout is made from the host AIJ */
    PetscCall(CIHybridMakeHostCopy(A, "a new BOUNDARY or split (the layout is made from the host AIJ)"));
    h->shadow.built = PETSC_FALSE;
  }
  if (h->settings.compress != s->compress) { /* the form is made (or dropped) from the host arrays at the next product */
    PetscCall(GpuMatsShadowAheadSync(A, "a new compression setting"));
    PetscCall(CIHybridCompressedFreeAll(h));
    h->host_current          = PETSC_FALSE;
    h->shadow.device_current = (PetscBool)(h->device_only && h->shadow.device_current); /* a device-only matrix stays plain */
  }
  h->settings = *s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetSettings_SeqAIJCIHybrid(Mat A, CIHybridSettings *s)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  *s = h->settings;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqAIJCIHybrid(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  CIHybridSettings    s;

  PetscFunctionBegin;
  /* MatDuplicate_SeqAIJ creates B with A's type name, so B is already a cihybrid */
  PetscCall((*h->shadow.parent.duplicate)(A, op, B));
  PetscCall(MatCIHybridGetSettings_SeqAIJCIHybrid(A, &s));
  PetscCall(MatCIHybridApplySettings_SeqAIJCIHybrid(*B, &s));
  PetscCall(GpuMatsFormatSetBackend(*B, h->shadow.base.backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqAIJCIHybrid_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(CIHybridMakeHostCopy(A, "MatConvert to AIJ"));
  PetscCall(GpuMatsShadowAheadSync(A, "MatConvert to AIJ"));
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CIHybridComposeAll(B, PETSC_FALSE));
  PetscCall(GpuMatsShadowUninstall(B, MATSEQAIJCIHYBRID));
  PetscCall(CIHybridContextDestroy(B));
  PetscCall(GpuMatsBecomeAIJ(B, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode MatSetFromOptions_SeqAIJCIHybrid(Mat, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatView_SeqAIJCIHybrid(Mat, PetscViewer);
/* MatCIHybridSet/GetBoundary, Set/GetSplit, Set/GetKernel on A (cihybrid_options.c) */
PETSC_INTERN PetscErrorCode MatCIHybridComposeSettings_SeqAIJCIHybrid(Mat, PetscBool set);

/* AIJ's axpy and equal read the other matrix's host arrays directly when both have this type:
   a device-only X (or B) would look empty, so it gets its host copy first. */
static PetscErrorCode MatAXPY_SeqAIJCIHybrid(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  PetscCall(MatCIHybridMakeHostCopy(X));
  PetscCall(GpuMatsShadowAXPY(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEqual_SeqAIJCIHybrid(Mat A, Mat B, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(MatCIHybridMakeHostCopy(B));
  PetscCall((*GpuMatsShadowOf(A)->parent.equal)(A, B, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridComposeAll(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  /* the names MatConvert() looks for, with the type's full and root name */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaijcihybrid_seqaij_C", set ? MatConvert_SeqAIJCIHybrid_SeqAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_seqaijcihybrid_C", set ? MatConvert_SeqAIJ_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_cihybrid_C", set ? MatConvert_SeqAIJ_SeqAIJCIHybrid : NULL));
  PetscCall(MatCIHybridComposeSettings_SeqAIJCIHybrid(A, set));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetInfo_C", set ? MatCIHybridGetInfo_SeqAIJCIHybrid : NULL));
  PetscCall(MatCIHybridComposeDeviceOnly(A, set));
  PetscCall(MatCIHybridComposeCOO(A, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_SeqAIJ_SeqAIJCIHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_SeqAIJCIHybrid *h;
  PetscBool           already;

  PetscFunctionBegin;
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCIHYBRID, &already));
  if (already) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a %s to %s: only plain MATSEQAIJ can be converted", ((PetscObject)B)->type_name, MATSEQAIJCIHYBRID);

  PetscCall(PetscNew(&h));
  h->settings = CIHybridSettingsDefault;
  B->spptr = h;
  PetscCall(GpuMatsShadowInstall(B, &CIHybridShadowOps, MATSEQAIJCIHYBRID));
  B->ops->destroy        = MatDestroy_SeqAIJCIHybrid;
  B->ops->duplicate      = MatDuplicate_SeqAIJCIHybrid;
  B->ops->setfromoptions = MatSetFromOptions_SeqAIJCIHybrid;
  B->ops->view           = MatView_SeqAIJCIHybrid;
  B->ops->axpy           = MatAXPY_SeqAIJCIHybrid;
  B->ops->equal          = MatEqual_SeqAIJCIHybrid;
  PetscCall(CIHybridComposeAll(B, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQAIJCIHYBRID - "seqaijcihybrid" - a MATSEQAIJ whose products run on an
   ELLPACK+CSR hybrid copy (Mahmoud, Hoffmann, Reza, Computation 2018, 6(3):45):
   the first BOUNDARY nonzeros of each row in row-major ELLPACK, the rest in
   CSR, one warp per row on the GPU.

   Options Database Keys:
+  -mat_type cihybrid - with -dll_append libgpumats.so
.  -mat_cihybrid_boundary <n|auto> - ELLPACK width (auto: least bytes moved)
.  -mat_cihybrid_split <entries|columns> - split by position in the row or by column index
.  -mat_cihybrid_kernel <tuned|paper> - CUDA SpMV kernel
-  -mat_gpumats_backend <auto|host|cuda> - where the products run

   Level: beginner
M*/
PetscErrorCode MatCreate_SeqAIJCIHybrid(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(B, MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqAIJCIHybrid(B, MATSEQAIJCIHYBRID, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatCreateSeqAIJCIHybrid - a sequential cihybrid matrix, preallocated like MatCreateSeqAIJ()
@*/
PetscErrorCode MatCreateSeqAIJCIHybrid(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCreateSeqAIJShadow(comm, MATSEQAIJCIHYBRID, m, n, nz, nnz, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* factorizations: on the GPU through an aijcusparse twin where the products run there (common/twin_factor.c) */
static PetscErrorCode CIHybridHostAIJ(Mat A, Mat *aij)
{
  PetscFunctionBegin;
  PetscCall(MatCIHybridMakeHostCopy(A)); /* a matrix made on the device has no host AIJ yet */
  PetscCall(GpuMatsShadowHostAIJ(A, aij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqAIJCIHybrid(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsTwinFactorWhereProducts(A, ftype, CIHybridHostAIJ, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridRegisterFactors(void)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsRegisterTwinFactors(MATSEQAIJCIHYBRID, MatGetFactor_SeqAIJCIHybrid));
  PetscFunctionReturn(PETSC_SUCCESS);
}
