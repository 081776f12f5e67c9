/* MATSEQAIJCIHYBRID compressed (MatCIHybridSetCompress, issue 49): the compressed form of the
   filled host arrays, its device copy, and the products on either.  The form is made again from
   the host arrays whenever they are filled again (cihybrid_ops.c): a change of the values on the
   device is not applied to it, the values go up again. */
#include "cihybrid/cihybrid_impl.h"

PetscErrorCode CIHybridCompressedFreeAll(Mat_SeqAIJCIHybrid *h)
{
  PetscFunctionBegin;
  CIHybridCompressedFree(&h->cmp);
  h->cmp_made = PETSC_FALSE;
#if GPUMATS_HAVE_CUDA
  PetscCall(CIHybridCompressedDeviceDestroy(&h->cdev));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridCompressedCheckStatus(Mat A, CIHybridCompressStatus status)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  switch (status) {
  case CIHYBRID_COMPRESS_OK:
    break;
  case CIHYBRID_COMPRESS_ERR_MEMORY:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "cihybrid: out of host memory compressing a %" PetscInt_FMT " x %" PetscInt_FMT " matrix (%" PetscInt64_FMT " nonzeros, ELLPACK %" PetscInt_FMT " x %" PetscInt_FMT ")", A->rmap->n, A->cmap->n, h->fmt.nnz, h->fmt.nrows, h->fmt.pitch);
  case CIHYBRID_COMPRESS_ERR_UNSUPPORTED:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid: -mat_cihybrid_compress full needs real double-precision scalars; use -mat_cihybrid_compress none with this PETSc");
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cihybrid: compressing a %" PetscInt_FMT " x %" PetscInt_FMT " matrix (%" PetscInt64_FMT " nonzeros) failed: %s; use -mat_cihybrid_compress none", A->rmap->n, A->cmap->n, h->fmt.nnz, CIHybridCompressStatusString(status));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* h->fmt's arrays are filled with A's current values (cihybrid_ops.c frees the form whenever it
   fills them): compress them unless done, and on the device put the compressed copy in place of
   the plain one unless there */
PetscErrorCode CIHybridCompressedMake(Mat A, Mat_SeqAIJCIHybrid *h, PetscBool on_device)
{
  CIHybridCompressStats st;
  PetscLogDouble        t0, t1;

  PetscFunctionBegin;
  if (!h->cmp_made) {
    PetscCall(CIHybridCompressedFreeAll(h));
    PetscCall(PetscTime(&t0));
    PetscCall(CIHybridCompressedCheckStatus(A, CIHybridCompress(&h->fmt, NULL, &h->cmp)));
    h->cmp_made = PETSC_TRUE;
    PetscCall(PetscTime(&t1));
    CIHybridCompressedGetStats(&h->cmp, &st);
    PetscCall(PetscInfo(A, "CIHYBRID compressed in %.3g ms: %.2f bytes a nonzero (plain %.2f), dictionary of %" PetscInt_FMT " values covering %.1f%% of the %" PetscInt64_FMT " nonzeros, %" PetscInt64_FMT " escaped columns\n", (t1 - t0) * 1e3, st.bytes_per_nonzero, st.plain_bytes_per_nonzero, st.dict_count, 100.0 * st.dict_coverage, st.nnz, st.escapes));
  }
#if GPUMATS_HAVE_CUDA
  if (on_device && !h->cdev) {
    size_t bytes;

    PetscCall(CIHybridDeviceDestroy(&h->dev));
    PetscCall(CIHybridCompressedDeviceCreate(&h->cmp, &h->cdev));
    PetscCall(CIHybridCompressedDeviceBytes(h->cdev, &bytes));
    PetscCall(PetscInfo(A, "CIHYBRID compressed copy uploaded: %.1f MB on the device\n", (double)bytes / 1048576.0));
  }
#else
  (void)on_device;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridCompressedMultOp(Mat A, PetscBool on_device, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (on_device) {
#if GPUMATS_HAVE_CUDA
    if (transpose) PetscCall(CIHybridCompressedDeviceMultTranspose(h->cdev, x, y0, y));
    else PetscCall(CIHybridCompressedDeviceMult(h->cdev, x, y0, y));
#endif
  } else if (transpose) CIHybridCompressedMultTransposeHost(&h->cmp, x, y0, y);
  else CIHybridCompressedMultHost(&h->cmp, x, y0, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C(:, 0:k) = A B (+ C when add) one column at a time: each column reads the compressed arrays,
   which are a third of the plain ones */
PetscErrorCode CIHybridCompressedSpMMOp(Mat A, PetscBool on_device, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  for (PetscInt j = 0; j < k; j++) PetscCall(CIHybridCompressedMultOp(A, on_device, PETSC_FALSE, B + (size_t)j * ldb, add ? C + (size_t)j * ldc : NULL, C + (size_t)j * ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The compressed form's part of MatCIHybridGetInfo */
PetscErrorCode CIHybridCompressedGetInfo(Mat_SeqAIJCIHybrid *h, MatCIHybridInfo *info)
{
  CIHybridCompressStats st;

  PetscFunctionBegin;
  if (!h->cmp_made) PetscFunctionReturn(PETSC_SUCCESS);
  CIHybridCompressedGetStats(&h->cmp, &st);
  info->compressed        = PETSC_TRUE;
  info->dict_count        = st.dict_count;
  info->nnz_explicit      = st.nnz_explicit;
  info->escapes           = st.escapes;
  info->bytes_per_nonzero = st.bytes_per_nonzero;
  info->bytes_host += (PetscInt64)st.matrix_bytes;
#if GPUMATS_HAVE_CUDA
  if (h->cdev) {
    size_t bytes;

    PetscCall(CIHybridCompressedDeviceBytes(h->cdev, &bytes));
    info->bytes_device = (PetscInt64)bytes;
    info->on_device    = PETSC_TRUE;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
