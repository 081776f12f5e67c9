/* MATSEQAIJCIHYBRID assembled on the device (MatCIHybridAssembleOnDevice): the entries live in
   the device arrays only, and the host AIJ, the master copy of every other cihybrid matrix,
   stays empty until a host operation needs it.

   While the matrix is device-only its ops table holds what needs no host copy (the multiplies,
   and what solvers do to an operator: cihybrid_device_algebra.c) and, for the other host
   operations, wrappers that make the host copy first and then run AIJ's operation; every other
   op is NULL, so PETSc answers "no method" instead of reading the empty AIJ.  Making the host
   copy downloads the arrays, fills the AIJ with them and restores AIJ's table: the matrix is
   then an ordinary cihybrid matrix whose device copy is current.  The host copy changes no
   value and no pattern, so it leaves the object state and the nonzero state as they were: code
   that caches on them (SLEPc's ST, PCSetUp) must not see a change that did not happen. */
#include "cihybrid/cihybrid_impl.h"

PetscErrorCode CIHybridMakeHostCopy(Mat A, const char *why)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
#if GPUMATS_HAVE_CUDA
  CIHybridFormat  *f = &h->fmt;
  PetscInt        *rowptr, *cols;
  PetscScalar     *vals;
  PetscLogDouble   t0, t1;
  PetscInt64       nnz = 0;
  PetscBool3       symmetric, hermitian, structurally_symmetric, spd;
  PetscBool        eternal[3];
  PetscObjectState state, nonzerostate;
#endif

  PetscFunctionBegin;
  if (!h->device_only) PetscFunctionReturn(PETSC_SUCCESS);
#if GPUMATS_HAVE_CUDA
  PetscCall(PetscTime(&t0));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  nonzerostate    = A->nonzerostate;
  *A->ops         = h->host_ops;
  h->device_only  = PETSC_FALSE;
  PetscCall(CIHybridDeviceDownload(h->dev, f));
  PetscCall(PetscMalloc3(f->nrows + 1, &rowptr, f->nnz, &cols, f->nnz, &vals));
  rowptr[0] = 0;
  for (PetscInt i = 0; i < f->nrows; i++) {
    const PetscInt s = f->ell_len[i];

    for (PetscInt p = 0; p < s; p++, nnz++) {
      cols[nnz] = f->ell_col[(size_t)i * f->pitch + p];
      vals[nnz] = f->ell_val[(size_t)i * f->pitch + p];
    }
    for (PetscInt k = f->csr_start[i]; k < f->csr_start[i + 1]; k++, nnz++) {
      cols[nnz] = f->csr_col[k];
      vals[nnz] = f->csr_val[k];
    }
    rowptr[i + 1] = (PetscInt)nnz;
  }
  CIHybridFormatFreeArrays(f);
  /* the AIJ fill forgets what is known of the symmetry */
  symmetric              = A->symmetric;
  hermitian              = A->hermitian;
  structurally_symmetric = A->structurally_symmetric;
  spd                    = A->spd;
  eternal[0]             = A->symmetry_eternal;
  eternal[1]             = A->structural_symmetry_eternal;
  eternal[2]             = A->spd_eternal;
  PetscCall(MatSeqAIJSetPreallocationCSR(A, rowptr, cols, vals));
  A->symmetric                   = symmetric;
  A->hermitian                   = hermitian;
  A->structurally_symmetric      = structurally_symmetric;
  A->spd                         = spd;
  A->symmetry_eternal            = eternal[0];
  A->structural_symmetry_eternal = eternal[1];
  A->spd_eternal                 = eternal[2];
  PetscCall(PetscFree3(rowptr, cols, vals));
  /* the device build fixed no preallocation the user asked for: new nonzeros may be added, as
     into an AIJ matrix that was never preallocated */
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  /* the same values and pattern: the states the fill advanced go back */
  PetscCall(PetscObjectStateSet((PetscObject)A, state));
  A->nonzerostate = nonzerostate;
  /* the device copy holds these very values */
  PetscCall(GpuMatsShadowMarkCurrent(A, &h->shadow));
  h->host_current = PETSC_FALSE;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(A, "Host AIJ copy of the device-built matrix made for %s: %" PetscInt64_FMT " nonzeros, %.1f MB, %g s\n", why, nnz, (double)nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) / 1e6, t1 - t0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridMakeHostCopy_SeqAIJCIHybrid(Mat A)
{
  PetscFunctionBegin;
  PetscCall(CIHybridMakeHostCopy(A, "MatCIHybridMakeHostCopy()"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridMakeHostCopy(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscTryMethod(A, "MatCIHybridMakeHostCopy_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridFactorPrepare(Mat A, const char *why)
{
  PetscFunctionBegin;
  PetscCall(MatCIHybridMakeHostCopy(A)); /* a matrix made on the device has no host AIJ yet */
  PetscCall(GpuMatsShadowMarkHostReaders(A, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridIsDeviceOnly_SeqAIJCIHybrid(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((Mat_SeqAIJCIHybrid *)A->spptr)->device_only;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridIsDeviceOnly(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  *flg = PETSC_FALSE;
  PetscTryMethod(A, "MatCIHybridIsDeviceOnly_C", (Mat, PetscBool *), (A, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridAssembleOnDevice(Mat A, const MatCIHybridDeviceRows *rows)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridAssembleOnDevice_C", (Mat, const MatCIHybridDeviceRows *), (A, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the ops of a device-only matrix ------------------------------------------------------- */

/* An op that reads the host AIJ: make the host copy, which restores AIJ's table, then run it. */
#define CIHYBRID_HOST_OP(op, params, args) \
  static PetscErrorCode CIHybridHostOp_##op params \
  { \
    PetscFunctionBegin; \
    PetscCall(CIHybridMakeHostCopy(A, "the host operation '" #op "'")); \
    PetscCall((*A->ops->op) args); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

CIHYBRID_HOST_OPS(CIHYBRID_HOST_OP)
CIHYBRID_HOST_OP(getrowij, (Mat A, PetscInt shift, PetscBool symmetric, PetscBool compressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done), (A, shift, symmetric, compressed, n, ia, ja, done))
CIHYBRID_HOST_OP(getcolumnij, (Mat A, PetscInt shift, PetscBool symmetric, PetscBool compressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done), (A, shift, symmetric, compressed, n, ia, ja, done))

/* MatProduct with A first: only C = A * dense runs on the device copy, which the dense-product
   code (dense_product.c) reaches through A's update; other products read the AIJ. */
static PetscErrorCode CIHybridDeviceOnly_ProductSetFromOptions(Mat C)
{
  Mat A = C->product->A;

  PetscFunctionBegin;
  PetscCall(CIHybridMakeHostCopy(A, "a MatProduct with a sparse or host operand"));
  PetscCall((*A->ops->productsetfromoptions)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridDeviceOnly_GetInfo(Mat A, MatInfoType flag, MatInfo *info)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*h->host_ops.getinfo)(A, flag, info));
  info->nz_allocated = (PetscLogDouble)h->fmt.nnz;
  info->nz_used      = (PetscLogDouble)h->fmt.nnz;
  info->nz_unneeded  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CIHybridDeviceOnly_View(Mat A, PetscViewer viewer)
{
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "built on the device: no host AIJ copy (made when a host operation asks for it)\n"));
    PetscCall(MatCIHybridView_Info(A, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CIHybridMakeHostCopy(A, "MatView in full"));
  PetscCall((*A->ops->view)(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}


#define CIHYBRID_SET_HOST_OP(op, params, args) ops->op = CIHybridHostOp_##op;

/* The table of a device-only matrix, from AIJ's (+ the shadow's) table 'full'. */
static void CIHybridDeviceOnlyOps(const struct _MatOps *full, struct _MatOps *ops)
{
  PetscMemzero(ops, sizeof(*ops));
  /* no host copy needed */
  CIHYBRID_KEPT_OPS(CIHYBRID_KEEP_OP)
  ops->getinfo          = CIHybridDeviceOnly_GetInfo;
  ops->view             = CIHybridDeviceOnly_View;
  ops->productsetfromoptions = CIHybridDeviceOnly_ProductSetFromOptions;
#if GPUMATS_HAVE_CUDA
  /* on the device copy (cihybrid_device_algebra.c), the host copy only when they must */
  ops->getdiagonal   = CIHybridDeviceOnly_GetDiagonal;
  ops->shift         = CIHybridDeviceOnly_Shift;
  ops->scale         = CIHybridDeviceOnly_Scale;
  ops->diagonalset   = CIHybridDeviceOnly_DiagonalSet;
  ops->axpy          = CIHybridDeviceOnly_AXPY;
  ops->copy          = CIHybridDeviceOnly_Copy;
  ops->duplicate     = CIHybridDeviceOnly_Duplicate;
  ops->zeroentries   = CIHybridDeviceOnly_ZeroEntries;
  ops->norm          = CIHybridDeviceOnly_Norm;
  ops->setvalues     = CIHybridDeviceOnly_SetValues;
  ops->setoption     = CIHybridDeviceOnly_SetOption;
  ops->assemblybegin = CIHybridDeviceOnly_AssemblyBegin;
  ops->assemblyend   = CIHybridDeviceOnly_AssemblyEnd;
#endif
  /* the host copy first */
  CIHYBRID_HOST_OPS(CIHYBRID_SET_HOST_OP)
  ops->getrowij            = CIHybridHostOp_getrowij;
  ops->getcolumnij         = CIHybridHostOp_getcolumnij;
}

/* ---- the assembly ---------------------------------------------------------------------------- */

/* A's device copy (h->dev, with the layout h->fmt) is now the only copy of its entries, and its
   host AIJ is empty and assembled. */
PetscErrorCode CIHybridBecomeDeviceOnly(Mat A)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  PetscCall(GpuMatsShadowMarkCurrentAhead(A, &h->shadow, 0));
  h->shadow.base.nnz   = h->fmt.nnz;
  h->host_current = PETSC_FALSE;
  h->device_only  = PETSC_TRUE;
  h->host_ops     = *A->ops;
  CIHybridDeviceOnlyOps(&h->host_ops, A->ops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CIHybridDeviceAssemblyCheck(Mat A, GpuMatsBackend backend, MatCIHybridSplit split, const MatCIHybridDeviceRows *rows)
{
  PetscBool on_device;

  PetscFunctionBegin;
  PetscCall(GpuMatsBackendUsesDevice(A, backend, &on_device));
  PetscCheck(on_device, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCIHybridAssembleOnDevice: the products of this matrix run on the host (no usable GPU, -mat_gpumats_backend host, or gpumats built without CUDA): assemble it with MatSetValues instead");
  PetscCheck(split == MAT_CIHYBRID_SPLIT_ENTRIES, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCIHybridAssembleOnDevice: only the 'entries' split (the default) is built on the device; -mat_cihybrid_split columns needs the host assembly");
  PetscCheck(rows->count && rows->fill, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MatCIHybridAssembleOnDevice: the generator needs both its count and its fill function");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridAssembleOnDevice_SeqAIJCIHybrid(Mat A, const MatCIHybridDeviceRows *rows)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  PetscCall(CIHybridDeviceAssemblyCheck(A, h->shadow.base.backend, h->settings.split, rows));
#if GPUMATS_HAVE_CUDA
  {
    const PetscInt         m = A->rmap->n;
    const PetscObjectState nonzerostate = A->nonzerostate;
    const PetscBool        was_device_only = h->device_only;
    PetscInt              *len, *rowptr;
    PetscInt64             nnz  = 0;
    PetscBool              same = PETSC_FALSE;
    CIHybridDevice         old;
    PetscLogDouble         t0, t1, t2;
    PetscErrorCode         ierr;

    PetscCall(PetscTime(&t0));
    PetscCall(PetscMalloc2(m, &len, m + 1, &rowptr));
    PetscCall(CIHybridDeviceCountRows(m, rows, len));
    rowptr[0] = 0;
    for (PetscInt i = 0; i < m; i++) {
      PetscCheck(len[i] <= A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatCIHybridAssembleOnDevice: row %" PetscInt_FMT " has %" PetscInt_FMT " entries, more than the %" PetscInt_FMT " columns", i, len[i], A->cmap->n);
      nnz += len[i];
      PetscCheck(nnz <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCIHybridAssembleOnDevice: more than %" PetscInt_FMT " nonzeros on one process (row %" PetscInt_FMT "): beyond the 32-bit device indices; use more processes", (PetscInt)PETSC_MAX_INT, i);
      rowptr[i + 1] = (PetscInt)nnz;
    }
    PetscCall(PetscTime(&t1));
    if (h->device_only) { /* assembled again: the old entries go, no host copy of them is needed */
      *A->ops        = h->host_ops;
      h->device_only = PETSC_FALSE;
    }
    /* the old device copy stays until the new pattern is compared with it */
    old    = h->dev;
    h->dev = NULL;
    /* the host AIJ: empty and assembled */
    PetscCall(MatSeqAIJSetPreallocation(A, 0, NULL));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscLogEventBegin(GPUMATS_FormatBuild, A, 0, 0, 0));
    ierr = CIHybridLayout(A, h, rowptr, NULL, PETSC_FALSE); /* the counts are on the host already */
    if (!ierr) ierr = CIHybridDeviceCreateFromRows(&h->fmt, rows, &h->dev);
    if (!ierr && old) ierr = CIHybridDeviceSamePattern(old, h->dev, &same);
    PetscCall(PetscFree2(len, rowptr));
    PetscCall(CIHybridDeviceDestroy(&old));
    if (ierr) { /* no entries anywhere: unassembled, so that no product can read the empty AIJ */
      PetscCall(MatCIHybridFreeFormat_SeqAIJCIHybrid(A));
      A->assembled = PETSC_FALSE;
    }
    PetscCall(ierr);
    PetscCall(PetscLogEventEnd(GPUMATS_FormatBuild, A, 0, 0, 0));
    /* New values on the pattern the device held alone: the pattern did not change.  Otherwise
       it did, also when only a host copy (a factorization's, say) is gone. */
    if (same && was_device_only) A->nonzerostate = nonzerostate;
    else A->nonzerostate = PetscMax(A->nonzerostate, nonzerostate + 1);
    PetscCall(CIHybridBecomeDeviceOnly(A));
    PetscCall(PetscTime(&t2));
    PetscCall(PetscInfo(A, "Assembled on the device: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros, %s; counting %g s, layout + fill + check %g s; no host copy\n", m, A->cmap->n, nnz, same ? "the pattern of before" : "a new pattern", t1 - t0, t2 - t1));
    if (h->settings.compress != MAT_CIHYBRID_COMPRESS_NONE) PetscCall(PetscInfo(A, "-mat_cihybrid_compress: a matrix assembled on the device is not compressed yet; it keeps the plain form\n"));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridComposeDeviceOnly(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridAssembleOnDevice_C", set ? MatCIHybridAssembleOnDevice_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridMakeHostCopy_C", set ? MatCIHybridMakeHostCopy_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridIsDeviceOnly_C", set ? MatCIHybridIsDeviceOnly_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GPUMATS_FACTOR_PREPARE, set ? CIHybridFactorPrepare : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
