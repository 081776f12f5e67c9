/* MATSEQAIJCIHYBRID: bringing the shadow up to date, and the products on either side. */
#include "cihybrid/cihybrid_impl.h"

#define CIHYBRID_INT32_MAX 2147483647

static PetscErrorCode CIHybridCheckStatus(Mat A, CIHybridStatus status, const CIHybridFormat *fmt)
{
  PetscFunctionBegin;
  switch (status) {
  case CIHYBRID_OK:
    break;
  case CIHYBRID_ERR_INDEX_OVERFLOW:
    PetscCheck((PetscInt64)fmt->nrows * fmt->pitch <= CIHYBRID_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid: the ELLPACK block of %" PetscInt_FMT " rows x pitch %" PetscInt_FMT " = %" PetscInt64_FMT " slots does not fit the 32-bit device indices (at most 2147483647); use a smaller -mat_cihybrid_boundary (now %" PetscInt_FMT ", longest row %" PetscInt64_FMT ")", fmt->nrows, fmt->pitch, (PetscInt64)fmt->nrows * fmt->pitch, fmt->boundary, fmt->max_row_len);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "cihybrid: a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt64_FMT " nonzeros does not fit the 32-bit device indices (at most 2147483647 rows, columns and CSR-region nonzeros per process): use more MPI processes", A->rmap->n, A->cmap->n, fmt->nnz);
  case CIHYBRID_ERR_MEMORY:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "cihybrid: out of host memory building the format of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix (%" PetscInt64_FMT " nonzeros, ELLPACK %" PetscInt_FMT " x %" PetscInt_FMT ")", A->rmap->n, A->cmap->n, fmt->nnz, fmt->nrows, fmt->pitch);
  case CIHYBRID_ERR_ARGUMENT:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: the AIJ arrays of %s are not a valid sorted CSR matrix or its structure changed unseen", ((PetscObject)A)->name ? ((PetscObject)A)->name : "the matrix");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the host and device arrays of the format: the next product rebuilds it. */
PetscErrorCode MatCIHybridFreeFormat_SeqAIJCIHybrid(Mat A)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  CIHybridFormatFree(&h->fmt);
  PetscCall(CIHybridCompressedFreeAll(h));
#if GPUMATS_HAVE_CUDA
  PetscCall(CIHybridDeviceDestroy(&h->dev));
#endif
  h->host_current          = PETSC_FALSE;
  h->shadow.device_current = PETSC_FALSE;
  h->shadow.built          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout of the format (boundary, sizes, per-row split): O(rows) work.  The arrays are
   filled later, on the side that multiplies.  For the device, and the entries split, the
   layout is made there and its arrays stay there (in h->dev, allocated, not yet filled);
   not for a compressed matrix, whose form is made from the host arrays. */
PetscErrorCode CIHybridLayout(Mat A, Mat_SeqAIJCIHybrid *h, const PetscInt *ai, const PetscInt *aj, PetscBool on_device)
{
  const PetscInt  m = A->rmap->n, requested = h->settings.boundary;
  const PetscBool entries  = (PetscBool)(h->settings.split == MAT_CIHYBRID_SPLIT_ENTRIES);
  const PetscBool device   = (PetscBool)(GPUMATS_HAVE_CUDA && on_device && entries);
  PetscInt        boundary = requested;

  PetscFunctionBegin;
  PetscCall(MatCIHybridFreeFormat_SeqAIJCIHybrid(A));
  h->model_bytes = -1;
#if GPUMATS_HAVE_CUDA
  if (device) PetscCall(CIHybridDeviceLayout(m, A->cmap->n, ai, boundary, &h->fmt, &boundary, &h->model_bytes, &h->dev));
#endif
  if (!device) {
    CIHybridStatus status;

    if (boundary == MAT_CIHYBRID_BOUNDARY_AUTO) boundary = entries ? CIHybridChooseBoundary(m, ai, &h->model_bytes) : A->cmap->n / 10; /* columns: the paper's reference region, the first 10% of the determinants */
    status = CIHybridLayoutFromCSR(m, A->cmap->n, ai, aj, (CIHybridSplit)h->settings.split, boundary, &h->fmt);
    if (status != CIHYBRID_OK) {
      CIHybridFormat failed = h->fmt; /* sizes survive for the message */

      CIHybridFormatFree(&h->fmt);
      PetscCall(CIHybridCheckStatus(A, status, &failed));
    }
  }
  if (requested == MAT_CIHYBRID_BOUNDARY_AUTO) PetscCall(PetscInfo(A, "Automatic BOUNDARY %" PetscInt_FMT " (%s split; model: %g bytes per SpMV for the matrix arrays)%s\n", boundary, entries ? "entries" : "columns", h->model_bytes, device ? ", on the device" : ""));
  /* the ELLPACK part is as wide as the longest row */
  if (entries && requested != MAT_CIHYBRID_BOUNDARY_AUTO && requested > h->fmt.max_row_len) PetscCall(PetscInfo(A, "BOUNDARY %" PetscInt_FMT " is larger than the longest row (%" PetscInt64_FMT "): ELLPACK width %" PetscInt_FMT "\n", requested, h->fmt.max_row_len, h->fmt.width));
  if (entries) h->fmt.boundary = (PetscInt)PetscMin((PetscInt64)h->fmt.boundary, h->fmt.max_row_len);
  PetscCall(PetscInfo(A, "CIHYBRID layout %" PetscInt_FMT " x %" PetscInt_FMT ": width %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros in ELLPACK (+%" PetscInt64_FMT " padding), %" PetscInt64_FMT " in CSR%s\n", m, A->cmap->n, h->fmt.width, h->fmt.nnz_ell, h->fmt.padding, h->fmt.nnz_csr, device ? " (made on the device)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host's layout arrays (ell_len, csr_start) when the layout was made on the device: the
   same split of the same row lengths, by the builder. */
static PetscErrorCode CIHybridLayoutOnHost(Mat A, Mat_SeqAIJCIHybrid *h, const PetscInt *ai)
{
  CIHybridFormat host;
  CIHybridStatus status;

  PetscFunctionBegin;
  if (h->fmt.csr_start) PetscFunctionReturn(PETSC_SUCCESS);
  status = CIHybridLayoutFromCSR(A->rmap->n, A->cmap->n, ai, NULL, CIHYBRID_SPLIT_ENTRIES, h->fmt.boundary, &host);
  if (status != CIHYBRID_OK) {
    CIHybridFormat failed = host;

    CIHybridFormatFree(&host);
    PetscCall(CIHybridCheckStatus(A, status, &failed));
  }
  if (host.nnz_ell != h->fmt.nnz_ell || host.pitch != h->fmt.pitch) {
    CIHybridFormatFree(&host);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: the host layout (%" PetscInt64_FMT " ELLPACK entries, pitch %" PetscInt_FMT ") is not the device's (%" PetscInt64_FMT ", %" PetscInt_FMT ")", host.nnz_ell, host.pitch, h->fmt.nnz_ell, h->fmt.pitch);
  }
  h->fmt.ell_len   = host.ell_len;
  h->fmt.csr_start = host.csr_start;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring the shadow up to date with the AIJ master, and tell where to multiply.  A
   structure change redoes the layout; the arrays are (re)filled only on the side that
   multiplies: on the device straight from the AIJ arrays (no host copy of the format),
   on the host otherwise.  A compressed matrix fills the host arrays on either side and
   compresses them (cihybrid_compressed.c), then uploads the compressed form for the device. */
PetscErrorCode MatCIHybridUpdate_SeqAIJCIHybrid(Mat A, PetscBool *on_device)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  GpuMatsShadowChange change;
  const PetscInt     *ai, *aj;
  PetscScalar        *aa;
  PetscMemType        mtype;
  PetscLogDouble      t[3];
  PetscBool           skipped, compress = (PetscBool)(h->settings.compress != MAT_CIHYBRID_COMPRESS_NONE);

  PetscFunctionBegin;
  PetscCall(GpuMatsBackendUsesDevice(A, h->shadow.base.backend, on_device));
  if (h->device_only) { /* built on the device: current there; the host side needs the host copy */
    if (*on_device) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(CIHybridMakeHostCopy(A, "products on the host (no device, -mat_gpumats_backend host or MatBindToCPU)"));
  }
  PetscCall(GpuMatsShadowCheck(A, &h->shadow, &change));
  /* a device copy ahead of the host: the host arrays are read below */
  if (!*on_device || compress || change != GPUMATS_SHADOW_CURRENT) PetscCall(GpuMatsShadowAheadSync(A, *on_device && !compress ? "a new device copy" : "products on the host or a compressed copy"));
  if (change == GPUMATS_SHADOW_CURRENT && (*on_device ? h->shadow.device_current : h->host_current)) PetscFunctionReturn(PETSC_SUCCESS);
  /* a device copy without entries takes no values; products on the host still need their host side */
  PetscCall(GpuMatsShadowSkipEmpty(A, &h->shadow, change, (PetscBool)(*on_device && CIHybridHasDeviceCopy(h)), &skipped));
  if (skipped) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid expects the AIJ master copy on the host");
  PetscCall(PetscTime(&t[0]));
  if (change == GPUMATS_SHADOW_STRUCTURE) {
    PetscCall(PetscLogEventBegin(GPUMATS_FormatBuild, A, 0, 0, 0));
    PetscCall(CIHybridLayout(A, h, ai, aj, (PetscBool)(*on_device && !compress)));
    PetscCall(PetscLogEventEnd(GPUMATS_FormatBuild, A, 0, 0, 0));
  }
  PetscCall(PetscTime(&t[1]));
  if (change != GPUMATS_SHADOW_CURRENT) {
    h->host_current          = PETSC_FALSE;
    h->shadow.device_current = PETSC_FALSE;
    PetscCall(GpuMatsShadowMarkCurrent(A, &h->shadow));
    h->shadow.base.nnz = h->fmt.nnz;
  }
#if GPUMATS_HAVE_CUDA
  if (*on_device && !compress) {
    const PetscBool columns = (PetscBool)(change == GPUMATS_SHADOW_STRUCTURE || !h->dev);

    PetscCall(PetscLogEventBegin(GPUMATS_FormatUpload, A, 0, 0, 0));
    if (!h->dev) PetscCall(CIHybridDeviceCreateFromCSR(&h->fmt, ai, aj, aa, &h->dev));
    else PetscCall(CIHybridDeviceFillFromCSR(h->dev, &h->fmt, ai, aj, aa)); /* the columns too until a fill completed (after the device layout) */
    if (columns) {
      PetscCall(PetscTime(&t[2]));
      PetscCall(PetscInfo(A, "CIHYBRID filled on the device from the AIJ arrays (%.1f MB uploaded) in %.3g ms, after its layout in %.3g ms\n", (double)h->fmt.nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) / 1048576.0, (t[2] - t[1]) * 1e3, (t[1] - t[0]) * 1e3));
    }
    h->shadow.device_current = PETSC_TRUE;
    PetscCall(PetscLogEventEnd(GPUMATS_FormatUpload, A, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(PetscLogEventBegin(GPUMATS_FormatBuild, A, 0, 0, 0));
  if (!h->host_current) {
    PetscCall(CIHybridLayoutOnHost(A, h, ai));
    if (!h->fmt.ell_col) PetscCall(CIHybridCheckStatus(A, CIHybridFillFromCSR(ai, aj, aa, &h->fmt), &h->fmt));
    else PetscCall(CIHybridCheckStatus(A, CIHybridRefreshValues(ai, aa, &h->fmt), &h->fmt));
    PetscCall(CIHybridCompressedFreeAll(h)); /* made from the arrays before */
    h->host_current = PETSC_TRUE;
  }
  if (compress) PetscCall(CIHybridCompressedMake(A, h, *on_device));
  PetscCall(PetscLogEventEnd(GPUMATS_FormatBuild, A, 0, 0, 0));
  if (*on_device) h->shadow.device_current = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridMultHostOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->cmp_made) PetscCall(CIHybridCompressedMultOp(A, PETSC_FALSE, transpose, x, y0, y));
  else if (transpose) CIHybridMultTransposeHost(&h->fmt, x, y0, y);
  else CIHybridMultHost(&h->fmt, x, y0, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridSpMMHostOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->cmp_made) PetscCall(CIHybridCompressedSpMMOp(A, PETSC_FALSE, k, B, ldb, add, C, ldc));
  else CIHybridSpMMHost(&h->fmt, k, B, ldb, add, C, ldc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode CIHybridMultDeviceOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->cdev) PetscCall(CIHybridCompressedMultOp(A, PETSC_TRUE, transpose, x, y0, y));
  else if (transpose) PetscCall(CIHybridDeviceMultTranspose(h->dev, x, y0, y));
  else PetscCall(CIHybridDeviceMult(h->dev, h->settings.kernel == MAT_CIHYBRID_KERNEL_PAPER ? CIHYBRID_KERNEL_PAPER : CIHYBRID_KERNEL_TUNED, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridSpMMDeviceOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->cdev) PetscCall(CIHybridCompressedSpMMOp(A, PETSC_TRUE, k, B, ldb, add, C, ldc));
  else PetscCall(CIHybridDeviceSpMM(h->dev, k, B, ldb, add, C, ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy changed as AIJ changed the host master (the host copy of the format, if
   any, is refreshed from AIJ when the host multiplies next) */
static PetscErrorCode CIHybridValuesDeviceOp(Mat A, const GpuMatsValuesChange *c, PetscBool *done)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  CIHybridDevice      x = NULL;
  PetscInt            missing = 0;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!h->dev) PetscFunctionReturn(PETSC_SUCCESS); /* none, or compressed: the values go up again */
  if (c->op == GPUMATS_VALUES_SHIFT || c->op == GPUMATS_VALUES_DIAGONAL_SET || c->op == GPUMATS_VALUES_DIAGONAL_ADD) PetscCall(CIHybridDeviceMissingDiagonal(h->dev, &missing));
  if (missing) PetscFunctionReturn(PETSC_SUCCESS); /* AIJ left those rows alone: the values go up again */
  if (c->op == GPUMATS_VALUES_AXPY || c->op == GPUMATS_VALUES_COPY) { /* the same layout, or the values go up again */
    x = ((Mat_SeqAIJCIHybrid *)c->X->spptr)->dev;
    if (!x) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(CIHybridDeviceSamePattern(h->dev, x, done));
    if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (c->op) {
  case GPUMATS_VALUES_SCALE:
    PetscCall(CIHybridDeviceScale(h->dev, c->a));
    break;
  case GPUMATS_VALUES_SHIFT:
    PetscCall(CIHybridDeviceShiftDiagonal(h->dev, c->a));
    break;
  case GPUMATS_VALUES_DIAGONAL_SET:
  case GPUMATS_VALUES_DIAGONAL_ADD:
    PetscCall(CIHybridDeviceSetDiagonal(h->dev, c->d, (PetscBool)(c->op == GPUMATS_VALUES_DIAGONAL_ADD)));
    break;
  case GPUMATS_VALUES_AXPY:
    PetscCall(CIHybridDeviceAXPY(h->dev, c->a, x));
    break;
  case GPUMATS_VALUES_COPY:
    PetscCall(CIHybridDeviceCopyValues(h->dev, x));
    break;
  case GPUMATS_VALUES_ZERO:
    PetscCall(CIHybridDeviceZeroValues(h->dev));
    break;
  }
  h->host_current = PETSC_FALSE;
  *done           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if GPUMATS_HAVE_CUDA
/* The device copy's values into the host master, in AIJ's order: the COO map (cihybrid_coo.c),
   with which a copy runs ahead of the host, knows each stored entry's slot */
static PetscErrorCode CIHybridValuesDownloadOp(Mat A)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  const PetscInt     *ai, *aj;
  PetscScalar        *aa;
  PetscMemType        mtype;

  PetscFunctionBegin;
  PetscCheck(h->coo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: device values to bring to the host without the COO map that made them");
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCall(CIHybridDeviceCOODownloadValues(h->dev, h->coo, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

const GpuMatsFormatOps CIHybridShadowOps = {
  MatCIHybridUpdate_SeqAIJCIHybrid, CIHybridMultHostOp, CIHybridSpMMHostOp,
#if GPUMATS_HAVE_CUDA
  CIHybridMultDeviceOp, CIHybridSpMMDeviceOp, CIHybridValuesDeviceOp, CIHybridValuesDownloadOp,
#endif
};
