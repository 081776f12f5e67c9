/* MATSEQAIJPCSR: bringing the device copy up to date, and the products on either
   side.  The host multiplies the AIJ arrays themselves (PCSR is CSR kept intact). */
#include "pcsr/pcsr_impl.h"

static PetscErrorCode PCSRGetCSR(Mat A, const PetscInt **ai, const PetscInt **aj, PetscScalar **aa)
{
  PetscMemType mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, ai, aj, aa, &mtype));
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr expects the AIJ master copy on the host");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy freed: rebuilt at the next product on the device */
PetscErrorCode MatPCSRFreeDevice_SeqAIJPCSR(Mat A)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(PCSRDeviceDestroy(&p->dev));
#endif
  p->shadow.device_current = PETSC_FALSE;
  p->shadow.built          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Says the statistics of a new structure (p->stats), and the kernel auto takes for it. */
static PetscErrorCode PCSRStatsInfo(Mat A, Mat_SeqAIJPCSR *p, const char *where, PetscLogDouble seconds)
{
  const PCSRRowStats *s = &p->stats;

  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "PCSR %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros; row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt64_FMT ", %" PetscInt64_FMT " empty (made on the %s in %.3g ms)\n", s->nrows, s->ncols, s->nnz, s->mean_row_len, s->stddev_row_len, s->max_row_len, s->empty_rows, where, seconds * 1e3));
  if (p->settings.kernel == MAT_PCSR_KERNEL_AUTO) {
    const char *why;
    MatPCSRKernel choice = PCSRChooseKernel(s, &why);

    PetscCall(PetscInfo(A, "PCSR automatic kernel: %s (%s)\n", MatPCSRKernels[choice], why));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Refuse, before any device allocation, a block whose sizes do not fit the device copy's
   32-bit indices (the limits of PCSRFitsDeviceIndices), saying how many processes would. */
PetscErrorCode PCSRCheckDeviceSize(const PCSRRowStats *s)
{
  const PetscInt64 max = 2147483646; /* rows and columns per process */
  PetscInt64       ranks;

  PetscFunctionBegin;
  if (PCSRFitsDeviceIndices(s)) PetscFunctionReturn(PETSC_SUCCESS);
  ranks = PetscMax((s->nnz + PCSR_MAX_DEVICE_NNZ - 1) / PCSR_MAX_DEVICE_NNZ, ((PetscInt64)s->nrows + max - 1) / max);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "pcsr: a %" PetscInt_FMT " x %" PetscInt_FMT " block with %" PetscInt64_FMT " nonzeros on this process does not fit the 32-bit indices of the device copy (fewer than 2147483647 rows and columns, at most %" PetscInt64_FMT " nonzeros per process): use more MPI processes (%" PetscInt64_FMT " times as many or more, one GPU each), or -mat_gpumats_backend host",
          s->nrows, s->ncols, s->nnz, (PetscInt64)PCSR_MAX_DEVICE_NNZ, PetscMax(ranks, (PetscInt64)2));
}

/* Bring the device copy up to date with the AIJ master when the products run on the
   device, and tell where they run.  A structure change rebuilds it, a value change
   refreshes the values only. */
PetscErrorCode MatPCSRUpdate_SeqAIJPCSR(Mat A, PetscBool *on_device)
{
  Mat_SeqAIJPCSR     *p = (Mat_SeqAIJPCSR *)A->spptr;
  GpuMatsShadowChange change;
  const PetscInt     *ai, *aj;
  PetscScalar        *aa;
  PetscBool           skipped;

  PetscFunctionBegin;
  PetscCall(GpuMatsBackendUsesDevice(A, p->shadow.base.backend, on_device));
  PetscCall(GpuMatsShadowCheck(A, &p->shadow, &change));
  /* a device copy ahead of the host: the host arrays are read below or by the host product */
  if (!*on_device || change != GPUMATS_SHADOW_CURRENT) PetscCall(GpuMatsShadowAheadSync(A, *on_device ? "a new device copy" : "products on the host"));
  if (change == GPUMATS_SHADOW_CURRENT && (!*on_device || p->shadow.device_current)) PetscFunctionReturn(PETSC_SUCCESS);
  /* a device copy without entries takes no values; products on the host still need their host side */
  PetscCall(GpuMatsShadowSkipEmpty(A, &p->shadow, change, (PetscBool)(*on_device && p->dev != NULL), &skipped));
  if (skipped) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRGetCSR(A, &ai, &aj, &aa));
  if (change == GPUMATS_SHADOW_STRUCTURE) {
    PCSRRowStats *st = &p->stats;

    PetscCall(MatPCSRFreeDevice_SeqAIJPCSR(A));
    /* the sizes now; the rest of the statistics from the pass that makes the copy, host or device */
    PetscCall(PetscMemzero(st, sizeof(*st)));
    st->nrows     = A->rmap->n;
    st->ncols     = A->cmap->n;
    st->nnz       = A->rmap->n ? (PetscInt64)ai[A->rmap->n] - ai[0] : 0;
    p->shadow.base.nnz = st->nnz;
    if (!*on_device) {
      PetscLogDouble t0, t1;

      PetscCall(PetscTime(&t0));
      PCSRRowStatsFromCSR(A->rmap->n, A->cmap->n, ai, st);
      PetscCall(PetscTime(&t1));
      PetscCall(PCSRStatsInfo(A, p, "host", t1 - t0));
    }
  }
  if (change != GPUMATS_SHADOW_CURRENT) {
    p->shadow.device_current = PETSC_FALSE;
    PetscCall(GpuMatsShadowMarkCurrent(A, &p->shadow));
  }
  if (!*on_device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCSRCheckDeviceSize(&p->stats));
#if GPUMATS_HAVE_CUDA
  PetscCall(PetscLogEventBegin(GPUMATS_FormatUpload, A, 0, 0, 0));
  if (!p->dev) {
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    PetscCall(PCSRDeviceCreateFromCSR(A->rmap->n, A->cmap->n, ai, aj, aa, &p->dev));
    PetscCall(PetscTime(&t1));
    PetscCall(PCSRDeviceGetRowStats(p->dev, &p->stats));
    PetscCall(PCSRStatsInfo(A, p, "device with the copy", t1 - t0));
    PetscCall(PetscInfo(A, "PCSR copied to the device (%.1f MB)\n", (double)p->stats.nnz * (sizeof(int32_t) + sizeof(PetscScalar)) / 1048576.0));
  } else PetscCall(PCSRDeviceCopyValues(p->dev, ai, aa));
  p->shadow.device_current = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(GPUMATS_FormatUpload, A, 0, 0, 0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRMultHostOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;

  PetscFunctionBegin;
  PetscCall(PCSRGetCSR(A, &ai, &aj, &aa));
  if (transpose) PCSRMultTransposeHost(A->rmap->n, A->cmap->n, ai, aj, aa, x, y0, y);
  else PCSRMultHost(A->rmap->n, ai, aj, aa, x, y0, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRSpMMHostOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;

  PetscFunctionBegin;
  PetscCall(PCSRGetCSR(A, &ai, &aj, &aa));
  PCSRSpMMHost(A->rmap->n, ai, aj, aa, k, B, ldb, add, C, ldc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode PCSRMultDeviceOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  /* the device layer takes the public values; auto is resolved for the current structure */
  if (transpose) PetscCall(PCSRDeviceMultTranspose(p->dev, p->settings.transpose, x, y0, y));
  else PetscCall(PCSRDeviceMult(p->dev, PCSRResolveKernel(p->settings.kernel, &p->stats), x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSRSpMMDeviceOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  PetscCall(PCSRDeviceSpMM(((Mat_SeqAIJPCSR *)A->spptr)->dev, k, B, ldb, add, C, ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy (in AIJ's order) changed as AIJ changed the host arrays */
static PetscErrorCode PCSRValuesDeviceOp(Mat A, const GpuMatsValuesChange *c, PetscBool *done)
{
  PCSRDevice dev = ((Mat_SeqAIJPCSR *)A->spptr)->dev;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  switch (c->op) {
  case GPUMATS_VALUES_SCALE:
    PetscCall(PCSRDeviceScaleValues(dev, c->a));
    break;
  case GPUMATS_VALUES_SHIFT:
    PetscCall(PCSRDeviceUpdateDiagonal(dev, c->a, NULL, PETSC_FALSE));
    break;
  case GPUMATS_VALUES_DIAGONAL_SET:
  case GPUMATS_VALUES_DIAGONAL_ADD:
    PetscCall(PCSRDeviceUpdateDiagonal(dev, 0.0, c->d, (PetscBool)(c->op == GPUMATS_VALUES_DIAGONAL_ADD)));
    break;
  case GPUMATS_VALUES_AXPY:
  case GPUMATS_VALUES_COPY:
    PetscCall(PCSRDeviceAXPYValues(dev, c->a, ((Mat_SeqAIJPCSR *)c->X->spptr)->dev, (PetscBool)(c->op == GPUMATS_VALUES_COPY), done));
    PetscFunctionReturn(PETSC_SUCCESS);
  case GPUMATS_VALUES_ZERO:
    PetscCall(PCSRDeviceZeroValues(dev));
    break;
  }
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if GPUMATS_HAVE_CUDA
/* The device copy's values (AIJ's order) into the host master */
static PetscErrorCode PCSRValuesDownloadOp(Mat A)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;

  PetscFunctionBegin;
  PetscCall(PCSRGetCSR(A, &ai, &aj, &aa));
  PetscCall(PCSRDeviceDownloadValues(((Mat_SeqAIJPCSR *)A->spptr)->dev, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

const GpuMatsFormatOps PCSRShadowOps = {
  MatPCSRUpdate_SeqAIJPCSR, PCSRMultHostOp, PCSRSpMMHostOp,
#if GPUMATS_HAVE_CUDA
  PCSRMultDeviceOp, PCSRSpMMDeviceOp, PCSRValuesDeviceOp, PCSRValuesDownloadOp,
#endif
};
