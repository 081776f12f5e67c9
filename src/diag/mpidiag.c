/* MATMPIDIAG, the MPI class of diag: rows distributed as PETSc does; each process holds its diagonal block
   (local rows x local columns) as a seqdiag and the rest of its rows (the columns of
   other processes, compacted to the ones present) as a seqaijpcsr, with the ghost
   values of x brought by a VecScatter, like MPIAIJ.  Until the first assembly the
   entries are staged (mpidiag_assembly.c; any process may set any row) in an MPIAIJ whose
   pattern decides the diagonals and the ghost columns.  After it, each process sets entries
   of its own rows on the stored diagonals and ghost columns. */
#include "diag/mpidiag_impl.h"

PetscErrorCode MPIDiagCheckAssembled(Mat M, const char *op)
{
  PetscFunctionBegin;
  PetscCheck(MPIDiagOf(M)->A, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_WRONGSTATE, "mpidiag %s: assemble the matrix first", op);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks, the ghost columns and the scatter from the assembled MPIAIJ P. */
PetscErrorCode MPIDiagBuildFromMPIAIJ(Mat M, Mat P)
{
  Mat_MPIDiag    *c = MPIDiagOf(M);
  Mat             Ad, Ao;
  const PetscInt *garray;
  IS              is;
  Vec             x;
  VecType         vtype = VECSEQ;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&c->A));
  PetscCall(MatDestroy(&c->B));
  PetscCall(VecDestroy(&c->lvec));
  PetscCall(VecScatterDestroy(&c->Mvctx));
  PetscCall(PetscFree(c->garray));
  PetscCall(MatMPIAIJGetSeqAIJ(P, &Ad, &Ao, &garray));
  /* the diagonal block: its diagonals found with this matrix's settings */
  PetscCall(MatCreate(PETSC_COMM_SELF, &c->A));
  PetscCall(MatSetSizes(c->A, Ad->rmap->n, Ad->cmap->n, Ad->rmap->n, Ad->cmap->n));
  PetscCall(MatSetType(c->A, MATSEQDIAG));
  ((Mat_SeqDiag *)c->A->spptr)->settings = c->settings;
  PetscCall(GpuMatsShadowSetBackend(c->A, c->backend));
  PetscCall(PetscLayoutSetUp(c->A->rmap));
  PetscCall(PetscLayoutSetUp(c->A->cmap));
  c->A->preallocated = PETSC_TRUE;
  PetscCall(MatDiagBuildFromAIJ_SeqDiag(c->A, Ad));
  c->A->assembled = PETSC_TRUE;
  /* the off-process block as it is (few entries, any columns): CSR on the pcsr kernels */
  c->nghost = Ao->cmap->n;
  PetscCall(PetscMalloc1(PetscMax(c->nghost, 1), &c->garray));
  PetscCall(PetscArraycpy(c->garray, garray, c->nghost));
  PetscCall(MatDuplicate(Ao, MAT_COPY_VALUES, &c->B));
  PetscCall(MatConvert(c->B, MATSEQAIJPCSR, MAT_INPLACE_MATRIX, &c->B));
  PetscCall(MatSetOption(c->B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE)); /* the ghost pattern is fixed too */
  PetscCall(MatGpuMatsSetBackend(c->B, c->backend));
  /* ghost values of x: a scatter from x to lvec, on the device when x lives there */
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool uses;

    PetscCall(MatGpuMatsUsesDevice(c->A, &uses));
    if (uses) vtype = VECSEQCUDA;
  }
#endif
  PetscCall(VecCreate(PETSC_COMM_SELF, &c->lvec));
  PetscCall(VecSetSizes(c->lvec, c->nghost, c->nghost));
  PetscCall(VecSetType(c->lvec, vtype));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, c->nghost, c->garray, PETSC_USE_POINTER, &is));
  PetscCall(MatCreateVecs(M, &x, NULL));
  PetscCall(VecScatterCreate(x, is, c->lvec, NULL, &c->Mvctx));
  PetscCall(VecDestroy(&x));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscInfo(M, "MPIDIAG: diagonal block %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " ghost columns\n", Ad->rmap->n, Ad->cmap->n, c->nghost));
  M->nonzerostate++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIDiagGetLocalBlocks(Mat M, Mat *A, Mat *B, VecScatter *scatter, Vec *lvec)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatMPIDiagGetLocalBlocks"));
  *A = c->A, *B = c->B, *scatter = c->Mvctx, *lvec = c->lvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- MatSetUp, MatSetValues, assembly: mpidiag_assembly.c ------------------- */

/* ---- the multiplies: diagonal block while the ghosts travel, then the rest ---- */

static PetscErrorCode MatMultAdd_MPIDiag(Mat M, Vec x, Vec y0, Vec y)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatMult"));
  if (c->backend == GPUMATS_BACKEND_CUDA) { /* refuse before the scatter begins: an error in the block's product would leave it outstanding */
    PetscBool uses;

    PetscCall(GpuMatsBackendUsesDevice(M, c->backend, &uses));
  }
  PetscCall(VecScatterBegin(c->Mvctx, x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (y0) PetscCall((*c->A->ops->multadd)(c->A, x, y0, y));
  else PetscCall((*c->A->ops->mult)(c->A, x, y));
  PetscCall(VecScatterEnd(c->Mvctx, x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (c->nghost) PetscCall((*c->B->ops->multadd)(c->B, c->lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIDiag(Mat M, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_MPIDiag(M, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIDiag(Mat M, Vec x, Vec y0, Vec y)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatMultTranspose"));
  if (c->nghost) PetscCall((*c->B->ops->multtranspose)(c->B, x, c->lvec));
  else PetscCall(VecSet(c->lvec, 0.0));
  if (y0) PetscCall((*c->A->ops->multtransposeadd)(c->A, x, y0, y));
  else PetscCall((*c->A->ops->multtranspose)(c->A, x, y));
  PetscCall(VecScatterBegin(c->Mvctx, c->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(c->Mvctx, c->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIDiag(Mat M, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_MPIDiag(M, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the algebra: mpidiag_algebra.c; the solvers' operations: mpidiag_solverops.c ---- */

/* ---- conversion, load, duplicate, copy, transpose, view ------------------------ */

/* An MPIAIJ with M's entries */
PetscErrorCode MPIDiagToMPIAIJ(Mat M, Mat *P)
{
  PetscInt *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatConvert"));
  PetscCall(PetscCalloc2(M->rmap->n + 1, &dnz, M->rmap->n + 1, &onz));
  for (PetscInt row = M->rmap->rstart; row < M->rmap->rend; row++) {
    PetscInt        nz;
    const PetscInt *cols;

    PetscCall(MatGetRow(M, row, &nz, &cols, NULL));
    for (PetscInt k = 0; k < nz; k++) {
      if (cols[k] >= M->cmap->rstart && cols[k] < M->cmap->rend) dnz[row - M->rmap->rstart]++;
      else onz[row - M->rmap->rstart]++;
    }
    PetscCall(MatRestoreRow(M, row, &nz, &cols, NULL));
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), P));
  PetscCall(MatSetSizes(*P, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(*P, MATMPIAIJ));
  PetscCall(MatMPIAIJSetPreallocation(*P, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt row = M->rmap->rstart; row < M->rmap->rend; row++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(M, row, &nz, &cols, &vals));
    PetscCall(MatSetValues(*P, 1, &row, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(M, row, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIDiag(Mat M, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       P;
  PetscBool aij, mpiaij;

  PetscFunctionBegin;
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(PetscStrcmp(type, MATAIJ, &aij));
  PetscCall(PetscStrcmp(type, MATMPIAIJ, &mpiaij));
  if (!aij && !mpiaij) {
    Mat Q;

    PetscCall(MatConvert(P, type, MAT_INITIAL_MATRIX, &Q));
    PetscCall(MatDestroy(&P));
    P = Q;
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(P, *newmat, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&P));
  } else if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(M, &P));
  else *newmat = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJ_MPIDiag(Mat P, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat M;

  PetscFunctionBegin;
  PetscCheck(reuse != MAT_REUSE_MATRIX, PetscObjectComm((PetscObject)P), PETSC_ERR_SUP, "MatConvert to mpidiag with MAT_REUSE_MATRIX: use MatCopy");
  PetscCall(MatCreate(PetscObjectComm((PetscObject)P), &M));
  PetscCall(MatSetSizes(M, P->rmap->n, P->cmap->n, P->rmap->N, P->cmap->N));
  PetscCall(MatSetType(M, MATMPIDIAG));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)M, ((PetscObject)P)->prefix));
  PetscCall(MatSetFromOptions(M));
  PetscCall(MPIDiagSetUpLayout(M));
  PetscCall(MPIDiagBuildFromMPIAIJ(M, P));
  M->assembled = PETSC_TRUE;
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(P, &M));
  else *newmat = M;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLoad_MPIDiag(Mat M, PetscViewer viewer)
{
  Mat P;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), &P));
  if (M->rmap->n >= 0 || M->rmap->N >= 0) PetscCall(MatSetSizes(P, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(P, MATMPIAIJ));
  PetscCall(MatLoad(P, viewer));
  PetscCall(PetscLayoutDestroy(&M->rmap));
  PetscCall(PetscLayoutDestroy(&M->cmap));
  PetscCall(PetscLayoutReference(P->rmap, &M->rmap));
  PetscCall(PetscLayoutReference(P->cmap, &M->cmap));
  PetscCall(MPIDiagSetUpLayout(M));
  PetscCall(MPIDiagBuildFromMPIAIJ(M, P));
  PetscCall(MatDestroy(&P));
  M->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIDiag(Mat M, MatDuplicateOption op, Mat *N)
{
  Mat P;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatDuplicate"));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  if (op != MAT_COPY_VALUES) PetscCall(MatZeroEntries(P));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)M), N));
  PetscCall(MatSetSizes(*N, M->rmap->n, M->cmap->n, M->rmap->N, M->cmap->N));
  PetscCall(MatSetType(*N, MATMPIDIAG));
  MPIDiagOf(*N)->settings = MPIDiagOf(M)->settings;
  MPIDiagOf(*N)->backend  = MPIDiagOf(M)->backend;
  PetscCall(MPIDiagSetUpLayout(*N));
  PetscCall(MPIDiagBuildFromMPIAIJ(*N, P));
  PetscCall(MatDestroy(&P));
  (*N)->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operations that may change which diagonals and ghost columns exist go through
   MPIAIJ (none of them is on a solver's path): the result rebuilds the matrix. */
PetscErrorCode MPIDiagRebuildFrom(Mat M, Mat P)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagBuildFromMPIAIJ(M, P));
  PetscCall(MatDestroy(&P));
  M->assembled = PETSC_TRUE;
  PetscCall(PetscObjectStateIncrease((PetscObject)M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCopy_MPIDiag(Mat M, Mat N, MatStructure str)
{
  PetscBool same;
  Mat       P;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatCopy"));
  PetscCall(PetscObjectTypeCompare((PetscObject)N, MATMPIDIAG, &same));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  if (same) PetscCall(MPIDiagRebuildFrom(N, P));
  else {
    PetscCall(MatCopy(P, N, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&P));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatTranspose_MPIDiag(Mat M, MatReuse reuse, Mat *T)
{
  Mat P, Pt, N;

  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatTranspose"));
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &Pt));
  PetscCall(MatDestroy(&P));
  if (reuse == MAT_REUSE_MATRIX) N = *T;
  else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)M), &N));
    PetscCall(MatSetSizes(N, Pt->rmap->n, Pt->cmap->n, Pt->rmap->N, Pt->cmap->N));
    PetscCall(MatSetType(N, MATMPIDIAG));
    MPIDiagOf(N)->settings = MPIDiagOf(M)->settings;
    MPIDiagOf(N)->backend  = MPIDiagOf(M)->backend;
    PetscCall(MPIDiagSetUpLayout(N));
  }
  PetscCall(MPIDiagRebuildFrom(N, Pt));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(M, &N));
  else *T = N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIDiag(Mat M, PetscViewer viewer)
{
  Mat_MPIDiag      *c = MPIDiagOf(M);
  PetscBool         ascii;
  PetscViewerFormat format = PETSC_VIEWER_DEFAULT;
  Mat               P;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    MatDiagInfo info;
    PetscMPIInt rank;

    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)M), &rank));
    if (!c->A) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "MPIDIAG: not assembled yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatDiagGetInfo_SeqDiag(c->A, &info));
    PetscCall(PetscViewerASCIIPrintf(viewer, "MPIDIAG: diagonal blocks in diag, the other columns in pcsr; per process:\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] %s, %" PetscInt_FMT " diagonals, %" PetscInt64_FMT " entries, %" PetscInt64_FMT " padding; %" PetscInt_FMT " ghost columns\n", rank, info.scheme == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", info.ndiag, info.entries, info.padding, c->nghost));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(PetscObjectSetName((PetscObject)P, ((PetscObject)M)->name));
  PetscCall((*P->ops->view)(P, viewer));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- options, settings, backend ---------------------------------------------- */

static PetscErrorCode MatSetFromOptions_MPIDiag(Mat M, GPUMATS_OPTIONS_ARG)
{
  Mat_MPIDiag   *c = MPIDiagOf(M);
  GpuMatsBackend backend;

  PetscFunctionBegin;
  PetscCall(DiagSetFromOptions(M, &c->settings, PetscOptionsObject));
  PetscCall(MatGpuMatsGetBackend(M, &backend));
  PetscCall(GpuMatsBackendFromOptions(&backend, PetscOptionsObject));
  PetscCall(MatGpuMatsSetBackend(M, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsSetBackend_MPIDiag(Mat M, GpuMatsBackend backend)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  c->backend = backend;
  PetscCall(GpuMatsSetDefaultVecType(M, backend));
  if (c->A) {
    PetscCall(MatGpuMatsSetBackend(c->A, backend));
    PetscCall(MatGpuMatsSetBackend(c->B, backend));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_MPIDiag(Mat M, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = MPIDiagOf(M)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagSetScheme_MPIDiag(Mat M, MatDiagScheme scheme)
{
  PetscFunctionBegin;
  MPIDiagOf(M)->settings.scheme = scheme;
  if (MPIDiagOf(M)->A) PetscCall(MatDiagSetScheme(MPIDiagOf(M)->A, scheme));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetScheme_MPIDiag(Mat M, MatDiagScheme *scheme)
{
  PetscFunctionBegin;
  if (MPIDiagOf(M)->A) PetscCall(MatDiagGetScheme(MPIDiagOf(M)->A, scheme));
  else *scheme = MPIDiagOf(M)->settings.scheme;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settings are the MPI matrix's (the blocks built at each assembly take them) and, once
   assembled, its diagonal block's too */
static PetscErrorCode MatDiagSetMaxFill_MPIDiag(Mat M, PetscReal max_fill)
{
  PetscFunctionBegin;
  MPIDiagOf(M)->settings.max_fill = max_fill;
  if (MPIDiagOf(M)->A) PetscCall(MatDiagSetMaxFill(MPIDiagOf(M)->A, max_fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetMaxFill_MPIDiag(Mat M, PetscReal *max_fill)
{
  PetscFunctionBegin;
  *max_fill = MPIDiagOf(M)->settings.max_fill;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagSetProductKernel_MPIDiag(Mat M, MatDiagProductKernel kernel)
{
  PetscFunctionBegin;
  MPIDiagOf(M)->settings.product = kernel;
  if (MPIDiagOf(M)->A) PetscCall(MatDiagSetProductKernel(MPIDiagOf(M)->A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetProductKernel_MPIDiag(Mat M, MatDiagProductKernel *kernel)
{
  PetscFunctionBegin;
  *kernel = MPIDiagOf(M)->settings.product;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetInfo_MPIDiag(Mat M, MatDiagInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MPIDiagCheckAssembled(M, "MatDiagGetInfo"));
  PetscCall(MatDiagGetInfo_SeqDiag(MPIDiagOf(M)->A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DEVICE)
static PetscErrorCode MatBindToCPU_MPIDiag(Mat M, PetscBool flg)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(M, flg ? GPUMATS_BACKEND_HOST : c->backend));
  if (c->A) {
    PetscCall(MatBindToCPU(c->A, flg));
    PetscCall(MatBindToCPU(c->B, flg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MPIDiagCompose(Mat M, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatGpuMatsSetBackend_C", set ? MatGpuMatsSetBackend_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_Backend : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetScheme_C", set ? MatDiagSetScheme_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetScheme_C", set ? MatDiagGetScheme_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetMaxFill_C", set ? MatDiagSetMaxFill_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetMaxFill_C", set ? MatDiagGetMaxFill_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagSetProductKernel_C", set ? MatDiagSetProductKernel_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetProductKernel_C", set ? MatDiagGetProductKernel_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatDiagGetInfo_C", set ? MatDiagGetInfo_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatConvert_mpiaij_mpidiag_C", set ? MatConvert_MPIAIJ_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatConvert_mpiaij_diag_C", set ? MatConvert_MPIAIJ_MPIDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatAXPYGetPreallocation_C", set ? MatAXPYGetPreallocation_MPIDiag : NULL));
  PetscCall(MPIDiagComposeAssembly(M, set));
  PetscCall(MatDiagComposeAIJProducts(M, set)); /* sparse products through MPIAIJ (diag_product_aij.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIDiag(Mat M)
{
  Mat_MPIDiag *c = MPIDiagOf(M);

  PetscFunctionBegin;
  PetscCall(MPIDiagCompose(M, PETSC_FALSE));
  PetscCall(MatDestroy(&c->A));
  PetscCall(MatDestroy(&c->B));
  PetscCall(MPIDiagStageDestroy(M));
  PetscCall(VecDestroy(&c->lvec));
  PetscCall(VecScatterDestroy(&c->Mvctx));
  PetscCall(PetscFree(c->garray));
  PetscCall(PetscFree2(c->row_cols, c->row_vals));
  PetscCall(PetscFree(M->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIDIAG - "mpidiag" - the parallel diag matrix: each process's diagonal block
   stored by its diagonals (MATSEQDIAG), the columns of other processes in CSR (the
   pcsr kernels), ghost values of x by a VecScatter.

   Level: beginner
M*/
PetscErrorCode MatCreate_MPIDiag(Mat M)
{
  Mat_MPIDiag *c;

  PetscFunctionBegin;
  PetscCall(PetscNew(&c));
  c->settings.scheme   = MAT_DIAG_SCHEME_AUTO;
  c->settings.max_fill = 3;
  c->backend           = GPUMATS_BACKEND_AUTO;
  M->data              = c;
  if (M->rmap->n >= 0 || M->rmap->N >= 0) PetscCall(PetscLayoutSetUp(M->rmap)); /* as for seqdiag */
  if (M->cmap->n >= 0 || M->cmap->N >= 0) PetscCall(PetscLayoutSetUp(M->cmap));
  M->ops->setup            = MatSetUp_MPIDiag;
  M->ops->setvalues        = MatSetValues_MPIDiag;
  M->ops->assemblybegin    = MatAssemblyBegin_MPIDiag;
  M->ops->assemblyend      = MatAssemblyEnd_MPIDiag;
  M->ops->mult             = MatMult_MPIDiag;
  M->ops->multadd          = MatMultAdd_MPIDiag;
  M->ops->multtranspose    = MatMultTranspose_MPIDiag;
  M->ops->multtransposeadd = MatMultTransposeAdd_MPIDiag;
  M->ops->getdiagonal      = MatGetDiagonal_MPIDiag;
  M->ops->getdiagonalblock = MatGetDiagonalBlock_MPIDiag;
  M->ops->scale            = MatScale_MPIDiag;
  M->ops->shift            = MatShift_MPIDiag;
  M->ops->zeroentries      = MatZeroEntries_MPIDiag;
  M->ops->getrow           = MatGetRow_MPIDiag;
  M->ops->restorerow       = MatRestoreRow_MPIDiag;
  M->ops->norm             = MatNorm_MPIDiag;
  M->ops->getinfo          = MatGetInfo_MPIDiag;
  M->ops->convert          = MatConvert_MPIDiag;
  M->ops->load             = MatLoad_MPIDiag;
  M->ops->duplicate        = MatDuplicate_MPIDiag;
  M->ops->copy             = MatCopy_MPIDiag;
  M->ops->transpose        = MatTranspose_MPIDiag;
  M->ops->view             = MatView_MPIDiag;
  M->ops->setfromoptions   = MatSetFromOptions_MPIDiag;
  M->ops->setoption        = MatSetOption_MPIDiag;
  M->ops->destroy          = MatDestroy_MPIDiag;
  M->ops->fdcoloringcreate = MatFDColoringCreate_Diag;
  M->ops->fdcoloringsetup  = MatFDColoringSetUp_Diag;
  M->ops->fdcoloringapply  = MatFDColoringApply_Diag;
  M->ops->productsetfromoptions = MatProductSetFromOptions_Diag_ThroughAIJ; /* mpidiag x mpidiag: through MPIAIJ */
#if defined(PETSC_HAVE_DEVICE)
  M->ops->bindtocpu = MatBindToCPU_MPIDiag;
  M->boundtocpu     = PETSC_FALSE;
#endif
  PetscCall(MatMPIDiagInstallOps(M)); /* SOR, zero rows, diagonal scale/set, AXPY, submatrices: mpidiag_solverops.c */
  PetscCall(MPIDiagCompose(M, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)M, MATMPIDIAG));
  PetscCall(GpuMatsSetDefaultVecType(M, c->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
