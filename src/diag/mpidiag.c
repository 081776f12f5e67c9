/* MATMPIDIAG, the MPI type of diag: rows distributed as PETSc does; each process holds its diagonal block
   (local rows x local columns) as a seqdiag and the rest of its rows (the columns of
   other processes, compacted to the ones present) as a seqaijpcsr, with the ghost
   values of x brought by a VecScatter, like MPIAIJ, or through pinned buffers
   (src/common/mpighosts.c, -mat_gpumats_pinned_ghosts).  Its class (mpidiag_class.c) goes
   through the common MPI mechanism (src/common/mpiclass.h): settings, backend, options,
   the view of the blocks; this file is its storage (the blocks and the scatter it owns,
   multiplied by src/common/mpiblocks.c), creation, conversion and copies.  Until the first assembly the
   entries are staged (mpidiag_assembly.c; any process may set any row) in an MPIAIJ whose
   pattern decides the diagonals and the ghost columns.  After it, each process sets entries
   of its own rows on the stored diagonals and ghost columns. */
#include "diag/mpidiag_impl.h"
#include "common/gpumats_coo.h"

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
  /* the blocks of the class (mpidiag_class.c): a seqdiag whose diagonals are found with this
     matrix's settings, the off-process block as it is (few entries, any columns) on the pcsr kernels */
  c->nghost = Ao->cmap->n;
  PetscCall(PetscMalloc1(PetscMax(c->nghost, 1), &c->garray));
  PetscCall(PetscArraycpy(c->garray, garray, c->nghost));
  PetscCall(GpuMatsMPICreateBlocks(M, Ad, Ao, &c->A, &c->B));
  PetscCall(MatSetOption(c->B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE)); /* the ghost pattern is fixed too */
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

/* ---- the storage: the blocks and the scatter, for the common mechanism ---------- */

static PetscErrorCode MPIDiagGetBlocks(Mat M, Mat *A, Mat *B)
{
  PetscFunctionBegin;
  *A = MPIDiagOf(M)->A; /* NULL before the first assembly */
  *B = MPIDiagOf(M)->B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIDiagGetScatter(Mat M, VecScatter *scatter, Vec *lvec)
{
  PetscFunctionBegin;
  *scatter = MPIDiagOf(M)->Mvctx;
  *lvec    = MPIDiagOf(M)->lvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIDiagGetGhostColumns(Mat M, const PetscInt *garray[])
{
  PetscFunctionBegin;
  *garray = MPIDiagOf(M)->garray;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the multiplies: src/common/mpiblocks.c, the diagonal block while the ghosts travel */
static const GpuMatsMPIStorage MPIDiagStorage = {MPIDiagGetBlocks, MPIDiagGetScatter, MPIDiagGetGhostColumns};

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

PetscErrorCode MatConvert_MPIAIJ_MPIDiag(Mat P, MatType type, MatReuse reuse, Mat *newmat)
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
  PetscCall(GpuMatsMPICopySettings(M, *N));
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
    PetscCall(GpuMatsMPICopySettings(M, N));
    PetscCall(MPIDiagSetUpLayout(N));
  }
  PetscCall(MPIDiagRebuildFrom(N, Pt));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(M, &N));
  else *T = N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ASCII info: the section of the blocks (src/common/mpiclass.c); any other viewer sees
   the entries as MPIAIJ shows them */
static PetscErrorCode MatView_MPIDiag(Mat M, PetscViewer viewer)
{
  PetscBool         ascii;
  PetscViewerFormat format = PETSC_VIEWER_DEFAULT;
  Mat               P;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    PetscCall(GpuMatsMPIViewBlocks(M, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPIDiagToMPIAIJ(M, &P));
  PetscCall(PetscObjectSetName((PetscObject)P, ((PetscObject)M)->name));
  PetscCall((*P->ops->view)(P, viewer));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the blocks take values in device memory (common/mpicoo.c): they may keep them on the
   device only, unlike MPIAIJ's blocks (mpishadow.c), whose host arrays MPIAIJ's own ops read.
   mpidiag reads its blocks through their ops, which bring their host values up to date first;
   where it reads or writes the pcsr block's host array itself (mpidiag_solverops.c's edits,
   diag_fdcoloring.c), it brings them up to date before (GpuMatsAheadSync).  The seqdiag
   block's host values follow when read. */
static PetscErrorCode MPIDiagAheadBegin(Mat M, PetscBool *ahead)
{
  PetscFunctionBegin;
  (void)M;
  *ahead = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The common MPI functions (backend, MatGpuMatsUsesDevice_C, conversion from MPIAIJ, the
   class's settings: src/common/mpiclass.c), then the type's own */
static PetscErrorCode MPIDiagCompose(Mat M, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsMPICompose(M, set));
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "MatAXPYGetPreallocation_C", set ? MatAXPYGetPreallocation_MPIDiag : NULL));
  PetscCall(MPIDiagComposeAssembly(M, set));
  PetscCall(MatDiagComposeAIJProducts(M, set)); /* sparse products through MPIAIJ (diag_product_aij.c) */
  PetscCall(MatDiagComposeCOO(M, set));          /* COO assembly (diag_coo.c) */
  PetscCall(PetscObjectComposeFunction((PetscObject)M, "GpuMatsMPIAheadBegin_C", set ? MPIDiagAheadBegin : NULL));
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
  PetscCall(GpuMatsMPIFinalize(GpuMatsMPIOf(M)));
  PetscCall(PetscFree(M->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIDIAG - "mpidiag" - the parallel diag matrix: each process's diagonal block
   stored by its diagonals (MATSEQDIAG), the columns of other processes in CSR (the
   pcsr kernels), ghost values of x by a VecScatter or through pinned buffers
   (-mat_gpumats_pinned_ghosts).

   Level: beginner
M*/
PetscErrorCode MatCreate_MPIDiag(Mat M)
{
  Mat_MPIDiag *c;
  GpuMatsMPI  *mpi;

  PetscFunctionBegin;
  PetscCall(PetscNew(&c));
  PetscCall(PetscNew(&mpi));
  PetscCall(GpuMatsMPIInitialize(mpi, &DiagMPIClass, &MPIDiagStorage));
  M->data  = c;
  M->spptr = mpi;
  if (M->rmap->n >= 0 || M->rmap->N >= 0) PetscCall(PetscLayoutSetUp(M->rmap)); /* as for seqdiag */
  if (M->cmap->n >= 0 || M->cmap->N >= 0) PetscCall(PetscLayoutSetUp(M->cmap));
  M->ops->setup            = MatSetUp_MPIDiag;
  M->ops->setvalues        = MatSetValues_MPIDiag;
  M->ops->assemblybegin    = MatAssemblyBegin_MPIDiag;
  M->ops->assemblyend      = MatAssemblyEnd_MPIDiag;
  M->ops->mult             = MatMult_GpuMatsMPIBlocks;
  M->ops->multadd          = MatMultAdd_GpuMatsMPIBlocks;
  M->ops->multtranspose    = MatMultTranspose_GpuMatsMPIBlocks;
  M->ops->multtransposeadd = MatMultTransposeAdd_GpuMatsMPIBlocks;
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
  M->ops->creategraph      = MatCreateGraph_MPIDiag; /* GAMG (diag_graph.c) */
  M->ops->load             = MatLoad_MPIDiag;
  M->ops->duplicate        = MatDuplicate_MPIDiag;
  M->ops->copy             = MatCopy_MPIDiag;
  M->ops->transpose        = MatTranspose_MPIDiag;
  M->ops->view             = MatView_MPIDiag;
  M->ops->setfromoptions   = GpuMatsMPISetFromOptions;
  M->ops->setoption        = MatSetOption_MPIDiag;
  M->ops->destroy          = MatDestroy_MPIDiag;
  M->ops->fdcoloringcreate = MatFDColoringCreate_Diag;
  M->ops->fdcoloringsetup  = MatFDColoringSetUp_Diag;
  M->ops->fdcoloringapply  = MatFDColoringApply_Diag;
  M->ops->productsetfromoptions = MatProductSetFromOptions_Diag_ThroughAIJ; /* mpidiag x mpidiag: through MPIAIJ */
#if defined(PETSC_HAVE_DEVICE)
  M->ops->bindtocpu = MatBindToCPU_GpuMatsMPI;
  M->boundtocpu     = PETSC_FALSE;
#endif
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  M->ops->getcurrentmemtype = MatGetCurrentMemType_GpuMats;
#endif
  PetscCall(MatMPIDiagInstallOps(M)); /* SOR, zero rows, diagonal scale/set, AXPY, submatrices: mpidiag_solverops.c */
  PetscCall(MPIDiagCompose(M, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)M, MATMPIDIAG));
  PetscCall(GpuMatsSetDefaultVecType(M, mpi->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}
