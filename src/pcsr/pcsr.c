/* MATSEQAIJPCSR: the type itself — conversion from and to MATSEQAIJ, creation,
   destruction, duplication. */
#include "pcsr/pcsr_impl.h"

static PetscErrorCode PCSRComposeAll(Mat A, PetscBool set);

/* Everything the type added to A, the device copy included; A is a MATSEQAIJ after. */
static PetscErrorCode PCSRUninstall(Mat A)
{
  PetscFunctionBegin;
  PetscCall(PCSRComposeAll(A, PETSC_FALSE));
  PetscCall(MatPCSRFreeDevice_SeqAIJPCSR(A));
  PetscCall(GpuMatsShadowUninstall(A, MATSEQAIJPCSR));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqAIJPCSR(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = ((Mat_SeqAIJPCSR *)A->spptr)->shadow.parent.destroy;

  PetscFunctionBegin;
  PetscCall(PCSRUninstall(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqAIJPCSR(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  /* MatDuplicate_SeqAIJ creates B with A's type name, so B is already a pcsr */
  PetscCall((*p->shadow.parent.duplicate)(A, op, B));
  PetscCall(MatPCSRApplySettings_SeqAIJPCSR(*B, &p->settings));
  PetscCall(GpuMatsFormatSetBackend(*B, p->shadow.base.backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqAIJPCSR_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(GpuMatsShadowAheadSync(A, "MatConvert to AIJ"));
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRUninstall(B));
  PetscCall(GpuMatsBecomeAIJ(B, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRComposeAll(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  /* the names MatConvert() looks for, with the type's full and root name */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaijpcsr_seqaij_C", set ? MatConvert_SeqAIJPCSR_SeqAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_seqaijpcsr_C", set ? MatConvert_SeqAIJ_SeqAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_pcsr_C", set ? MatConvert_SeqAIJ_SeqAIJPCSR : NULL));
  PetscCall(MatPCSRComposeSettings_SeqAIJPCSR(A, set));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetInfo_C", set ? MatPCSRGetInfo_SeqAIJPCSR : NULL));
  /* before a factorization reads the host AIJ (common/aij_factors.c): marked, never ahead again */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GPUMATS_FACTOR_PREPARE, set ? GpuMatsShadowMarkHostReaders : NULL));
  PetscCall(MatPCSRComposeCOO_SeqAIJPCSR(A, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_SeqAIJ_SeqAIJPCSR(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B;
  Mat_SeqAIJPCSR *p;
  PetscBool       already;

  PetscFunctionBegin;
  PetscCall(GpuMatsConvertTarget(A, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJPCSR, &already));
  if (already) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a %s to %s: only plain MATSEQAIJ can be converted", ((PetscObject)B)->type_name, MATSEQAIJPCSR);

  PetscCall(PetscNew(&p));
  p->settings.kernel    = MAT_PCSR_KERNEL_AUTO;
  p->settings.transpose = MAT_PCSR_TRANSPOSE_ATOMIC;
  p->settings.partition = GPUMATS_PARTITION_ROWS;
  B->spptr              = p;
  PetscCall(GpuMatsShadowInstall(B, &PCSRShadowOps, MATSEQAIJPCSR));
  B->ops->destroy        = MatDestroy_SeqAIJPCSR;
  B->ops->duplicate      = MatDuplicate_SeqAIJPCSR;
  B->ops->setfromoptions = MatSetFromOptions_SeqAIJPCSR;
  B->ops->view           = MatView_SeqAIJPCSR;
  PetscCall(PCSRComposeAll(B, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQAIJPCSR - "seqaijpcsr" - a MATSEQAIJ whose products run on the GPU with
   the PCSR kernels of He and Gao (Scientific Programming, 2016): the CSR arrays
   copied to the device as they are, SpMV by one coalesced kernel for the products
   val[k] x[col[k]] and one for the per-row sums staged in shared memory, or one of
   the fused, vector and adaptive variants.

   Options Database Keys:
+  -mat_type pcsr - with -dll_append libgpumats.so
.  -mat_pcsr_kernel <auto|paper|fused|vector|adaptive> - CUDA SpMV kernel
.  -mat_pcsr_transpose <atomic|copy> - how MatMultTranspose runs on the GPU
.  -mat_pcsr_partition <rows|nnz> - MPI: rows per process when the matrix is loaded (MatLoad without local sizes)
-  -mat_gpumats_backend <auto|host|cuda> - where the products run

   Level: beginner
M*/
PetscErrorCode MatCreate_SeqAIJPCSR(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(B, MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqAIJPCSR(B, MATSEQAIJPCSR, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatCreateSeqAIJPCSR - a sequential pcsr matrix, preallocated like MatCreateSeqAIJ()
@*/
PetscErrorCode MatCreateSeqAIJPCSR(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCreateSeqAIJShadow(comm, MATSEQAIJPCSR, m, n, nz, nnz, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* factorizations: on the GPU through an aijcusparse twin where the products run there (common/twin_factor.c) */
static PetscErrorCode MatGetFactor_SeqAIJPCSR(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsTwinFactorWhereProducts(A, ftype, GpuMatsShadowHostAIJ, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRRegisterFactors(void)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsRegisterTwinFactors(MATSEQAIJPCSR, MatGetFactor_SeqAIJPCSR));
  PetscFunctionReturn(PETSC_SUCCESS);
}
