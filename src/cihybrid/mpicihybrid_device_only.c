/* MATMPIAIJCIHYBRID assembled on the device (MatCIHybridAssembleOnDevice on an MPI matrix): each
   process makes its own rows on its device, straight into its two blocks, which become device-only
   sequential cihybrid matrices (cihybrid_device_only.c): no host matrix, no upload.

   The rows are made once with global columns (cuda/cihybrid/cihybrid_split.cu), which finds the
   off-process columns they hold (MPIAIJ's garray).  MPIAIJ then sets up its scatter of the ghost
   values from a host skeleton that holds just those columns (one zero each, in the first local
   row), and each block is filled on the device in place of the skeleton's.

   MPIAIJ reads its blocks' host arrays directly in many operations (MatShift, MatNorm,
   MatSetValues, MatGetLocalMat, ...), which would find them empty.  While the blocks are
   device-only, the MPI matrix's table therefore holds what reaches the blocks only through their
   own ops (products, diagonal, scale, ...) and, for every other operation it keeps, a wrapper that
   first makes both blocks' host copies and puts the full table back; the ops it does not keep
   are NULL, so that PETSc says "no method" rather than read the empty blocks.  The host copies
   change no value and no pattern: the object and nonzero states stay. */
#include "cihybrid/cihybrid_impl.h"

typedef struct {
  struct _MatOps full; /* the table put back when the host copies are made */
} MPICIHybridDeviceOnly;

#define MPICIHYBRID_DEVICE_ONLY "MatMPICIHybridDeviceOnly"

static PetscErrorCode MPICIHybridGetDeviceOnly(Mat A, MPICIHybridDeviceOnly **d)
{
  PetscContainer container;

  PetscFunctionBegin;
  *d = NULL;
  PetscCall(PetscObjectQuery((PetscObject)A, MPICIHYBRID_DEVICE_ONLY, (PetscObject *)&container));
  if (container) PetscCall(PetscContainerGetPointer(container, (void **)d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The full table back; the blocks' host copies made first when 'why' is given (else the blocks'
   entries are about to be replaced) */
static PetscErrorCode MPICIHybridLeaveDeviceOnly(Mat A, const char *why)
{
  MPICIHybridDeviceOnly *d;
  Mat                    Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MPICIHybridGetDeviceOnly(A, &d));
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  *A->ops = d->full;
  PetscCall(PetscObjectCompose((PetscObject)A, MPICIHYBRID_DEVICE_ONLY, NULL));
  if (!why) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(CIHybridMakeHostCopy(Ad, why));
  PetscCall(CIHybridMakeHostCopy(Ao, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An op of the full table, after the host copies */
#define MPICIHYBRID_HOST_OP(op, params, args) \
  static PetscErrorCode MPICIHybridHostOp_##op params \
  { \
    PetscFunctionBegin; \
    PetscCall(MPICIHybridLeaveDeviceOnly(A, "the MPI operation '" #op "'")); \
    PetscCall((*A->ops->op) args); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

MPICIHYBRID_HOST_OP(setvalues, (Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode), (A, m, im, n, in, v, mode))
CIHYBRID_HOST_OPS(MPICIHYBRID_HOST_OP)
MPICIHYBRID_HOST_OP(diagonalset, (Mat A, Vec D, InsertMode mode), (A, D, mode))
MPICIHYBRID_HOST_OP(convert, (Mat A, MatType type, MatReuse reuse, Mat *B), (A, type, reuse, B))
#undef MPICIHYBRID_HOST_OP

/* MatProductSetFromOptions is called on the product C: A is C->product->A */
static PetscErrorCode MPICIHybridDeviceOnly_ProductSetFromOptions(Mat C)
{
  Mat A = C->product->A;

  PetscFunctionBegin;
  PetscCall(MPICIHybridLeaveDeviceOnly(A, "a MatProduct"));
  PetscCall((*A->ops->productsetfromoptions)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The info formats read no entries */
static PetscErrorCode MPICIHybridDeviceOnly_View(Mat A, PetscViewer viewer)
{
  MPICIHybridDeviceOnly *d;
  PetscBool              ascii;
  PetscViewerFormat      format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    PetscCall(MPICIHybridGetDeviceOnly(A, &d));
    PetscCall(PetscViewerASCIIPrintf(viewer, "built on the device by each process: no host AIJ copies (made when a host operation asks for them)\n"));
    PetscCall((*d->full.view)(A, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPICIHybridLeaveDeviceOnly(A, "MatView in full"));
  PetscCall((*A->ops->view)(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Frobenius norm from the blocks' on the device; the others need the host copies */
static PetscErrorCode MPICIHybridDeviceOnly_Norm(Mat A, NormType type, PetscReal *nrm)
{
  Mat       Ad, Ao;
  PetscReal nd, no, sum;

  PetscFunctionBegin;
  if (type != NORM_FROBENIUS) {
    PetscCall(MPICIHybridLeaveDeviceOnly(A, "MatNorm other than NORM_FROBENIUS"));
    PetscCall((*A->ops->norm)(A, type, nrm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatNorm(Ad, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ao, NORM_FROBENIUS, &no));
  sum = nd * nd + no * no;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)A)));
  *nrm = PetscSqrtReal(sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With congruent layouts the diagonal lies in the diagonal block, which shifts it on the device */
static PetscErrorCode MPICIHybridDeviceOnly_Shift(Mat A, PetscScalar a)
{
  Mat       Ad;
  PetscBool congruent;

  PetscFunctionBegin;
  PetscCall(MatHasCongruentLayouts(A, &congruent));
  if (!congruent) {
    PetscCall(MPICIHybridLeaveDeviceOnly(A, "MatShift with row and column layouts that differ"));
    PetscCall((*A->ops->shift)(A, a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatShift(Ad, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X and Y both device-only with the same ghost columns on every process: blockwise on the device */
static PetscErrorCode MPICIHybridDeviceOnlyAlike(Mat Y, Mat X, PetscBool *alike)
{
  MPICIHybridDeviceOnly *dx;
  Mat                    Yo, Xo;
  const PetscInt        *gy, *gx;

  PetscFunctionBegin;
  PetscCall(MPICIHybridGetDeviceOnly(X, &dx));
  *alike = PETSC_FALSE;
  if (dx && X->rmap->n == Y->rmap->n && X->cmap->n == Y->cmap->n) {
    PetscCall(MatMPIAIJGetSeqAIJ(Y, NULL, &Yo, &gy));
    PetscCall(MatMPIAIJGetSeqAIJ(X, NULL, &Xo, &gx));
    *alike = (PetscBool)(Yo->cmap->n == Xo->cmap->n);
    if (*alike) PetscCall(PetscArraycmp(gy, gx, Yo->cmap->n, alike));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, alike, 1, GPUMATS_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridDeviceOnly_AXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat       Yd, Yo, Xd, Xo;
  PetscBool alike;

  PetscFunctionBegin;
  PetscCall(MPICIHybridDeviceOnlyAlike(Y, X, &alike));
  if (alike && str == SAME_NONZERO_PATTERN) {
    PetscCall(MatMPIAIJGetSeqAIJ(Y, &Yd, &Yo, NULL));
    PetscCall(MatMPIAIJGetSeqAIJ(X, &Xd, &Xo, NULL));
    PetscCall(MatAXPY(Yd, a, Xd, str));
    PetscCall(MatAXPY(Yo, a, Xo, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPICIHybridLeaveDeviceOnly(X, "MatAXPY with X of another pattern or structure flag"));
  PetscCall(MPICIHybridLeaveDeviceOnly(Y, "MatAXPY with X of another pattern or structure flag"));
  PetscCall((*Y->ops->axpy)(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridDeviceOnly_Copy(Mat A, Mat B, MatStructure str)
{
  Mat       Ad, Ao, Bd, Bo;
  PetscBool alike;

  PetscFunctionBegin;
  PetscCall(MPICIHybridDeviceOnlyAlike(A, B, &alike));
  if (alike && str == SAME_NONZERO_PATTERN) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Bd, &Bo, NULL));
    PetscCall(MatCopy(Ad, Bd, str));
    PetscCall(MatCopy(Ao, Bo, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPICIHybridLeaveDeviceOnly(B, "MatCopy into a matrix of another pattern"));
  PetscCall(MPICIHybridLeaveDeviceOnly(A, "MatCopy into a matrix of another pattern"));
  PetscCall((*A->ops->copy)(A, B, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICIHybridBecomeDeviceOnly(Mat A);

/* MPIAIJ duplicates the blocks through their ops (device-only duplicates of device-only blocks):
   the duplicate is device-only too */
static PetscErrorCode MPICIHybridDeviceOnly_Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  MPICIHybridDeviceOnly *d;
  Mat                    Bd;
  PetscBool              device_only;

  PetscFunctionBegin;
  PetscCall(MPICIHybridGetDeviceOnly(A, &d));
  PetscCall((*d->full.duplicate)(A, op, B));
  PetscCall(MatMPIAIJGetSeqAIJ(*B, &Bd, NULL, NULL));
  PetscCall(MatCIHybridIsDeviceOnly(Bd, &device_only));
  if (device_only) PetscCall(MPICIHybridBecomeDeviceOnly(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MPICIHYBRID_SET_HOST_OP(op, params, args) ops->op = MPICIHybridHostOp_##op;

/* The table of a device-only MPI matrix, from its full table */
static void MPICIHybridDeviceOnlyOps(const struct _MatOps *full, struct _MatOps *ops)
{
  PetscMemzero(ops, sizeof(*ops));
  /* through the blocks' own ops, or no entries read */
  CIHYBRID_KEPT_OPS(CIHYBRID_KEEP_OP)
  ops->getdiagonal      = full->getdiagonal;
  ops->scale            = full->scale;
  ops->zeroentries      = full->zeroentries;
  ops->getinfo          = full->getinfo;
  ops->assemblybegin    = full->assemblybegin;
  ops->assemblyend      = full->assemblyend;
  ops->getghosts        = full->getghosts;
  /* on the device where they can be, else after the host copies */
  ops->view                  = MPICIHybridDeviceOnly_View;
  ops->norm                  = MPICIHybridDeviceOnly_Norm;
  ops->shift                 = MPICIHybridDeviceOnly_Shift;
  ops->axpy                  = MPICIHybridDeviceOnly_AXPY;
  ops->copy                  = MPICIHybridDeviceOnly_Copy;
  ops->duplicate             = MPICIHybridDeviceOnly_Duplicate;
  ops->productsetfromoptions = MPICIHybridDeviceOnly_ProductSetFromOptions;
  /* after the host copies */
  CIHYBRID_HOST_OPS(MPICIHYBRID_SET_HOST_OP)
  ops->setvalues           = MPICIHybridHostOp_setvalues;
  ops->restorerow          = full->restorerow; /* after a getrow, which made the host copies */
  ops->diagonalset         = MPICIHybridHostOp_diagonalset;
  ops->convert             = MPICIHybridHostOp_convert;
}

/* A's blocks are device-only (each process's own, or a duplicate's): so is A */
static PetscErrorCode MPICIHybridBecomeDeviceOnly(Mat A)
{
  MPICIHybridDeviceOnly *d;
  PetscContainer         container;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  d->full = *A->ops;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, d));
  PetscCall(GpuMatsContainerSetDestroy(container, GpuMatsContainerFree));
  PetscCall(PetscObjectCompose((PetscObject)A, MPICIHYBRID_DEVICE_ONLY, (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  MPICIHybridDeviceOnlyOps(&d->full, A->ops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridMakeHostCopy_MPIAIJCIHybrid(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MPICIHybridLeaveDeviceOnly(A, "MatCIHybridMakeHostCopy()"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCIHybridIsDeviceOnly_MPIAIJCIHybrid(Mat A, PetscBool *flg)
{
  MPICIHybridDeviceOnly *d;

  PetscFunctionBegin;
  PetscCall(MPICIHybridGetDeviceOnly(A, &d));
  *flg = (PetscBool)!!d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* MPIAIJ's scatter of the ghost values for the columns garray: a skeleton that holds one zero in
   each, in the first local row, assembled by MPIAIJ (which finds garray again, and checks it) */
static PetscErrorCode MPICIHybridSetUpGhosts(Mat A, PetscInt ngarray, const PetscInt garray[])
{
  PetscInt        m = A->rmap->n, *ii, nghost;
  PetscScalar    *zeros;
  const PetscInt *ghosts;
  Mat             Ao;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCheck(m || !ngarray, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Off-process columns in no row");
  PetscCall(PetscMalloc1(m + 1, &ii));
  PetscCall(PetscCalloc1(ngarray, &zeros));
  ii[0] = 0;
  for (PetscInt i = 1; i <= m; i++) ii[i] = ngarray;
  PetscCall(MatMPIAIJSetPreallocationCSR(A, ii, garray, zeros));
  PetscCall(PetscFree(ii));
  PetscCall(PetscFree(zeros));
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &ghosts));
  nghost = Ao->cmap->n;
  same   = (PetscBool)(nghost == ngarray);
  if (same && ngarray) PetscCall(PetscArraycmp(ghosts, garray, ngarray, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ made %" PetscInt_FMT " ghost columns of the %" PetscInt_FMT " the device rows hold, or others", nghost, ngarray);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatCIHybridAssembleOnDevice_MPIAIJCIHybrid(Mat A, const MatCIHybridDeviceRows *rows)
{
  const CIHybridSettings *settings;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  PetscCall(GpuMatsMPIGetSettings(A, (void **)&settings));
  PetscCall(CIHybridDeviceAssemblyCheck(A, GpuMatsMPIOf(A)->backend, settings->split, rows));
#if GPUMATS_HAVE_CUDA
  {
    CIHybridProcessRows         split = NULL;
    MatCIHybridDeviceRows block;
    PetscInt              ngarray;
    const PetscInt       *garray;
    Mat                   Ad, Ao;
    PetscObjectState      state, nonzerostate = A->nonzerostate;
    PetscLogDouble        t0, t1, t2, t3;
    PetscErrorCode        ierr;

    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    PetscCall(PetscTime(&t0));
    PetscCall(MPICIHybridLeaveDeviceOnly(A, NULL)); /* the old entries go: the blocks are made anew */
    PetscCall(CIHybridProcessRowsCreate(A->rmap->n, A->cmap->N, A->cmap->rstart, A->cmap->rend, rows, &split));
    PetscCall(CIHybridProcessRowsGetGarray(split, &ngarray, &garray));
    PetscCall(PetscTime(&t1));
    ierr = MPICIHybridSetUpGhosts(A, ngarray, garray);
    if (!ierr) ierr = PetscTime(&t2);
    if (!ierr) ierr = MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL);
    if (!ierr) ierr = CIHybridProcessRowsGetBlockRows(split, PETSC_FALSE, &block);
    if (!ierr) ierr = MatCIHybridAssembleOnDevice_SeqAIJCIHybrid(Ad, &block);
    if (!ierr) ierr = CIHybridProcessRowsGetBlockRows(split, PETSC_TRUE, &block);
    if (!ierr) ierr = MatCIHybridAssembleOnDevice_SeqAIJCIHybrid(Ao, &block);
    PetscCall(CIHybridProcessRowsDestroy(&split));
    PetscCall(ierr);
    /* new entries, a new pattern (the skeleton's assembly already advanced the states) */
    PetscCall(PetscObjectStateSet((PetscObject)A, PetscMax(state + 1, ((PetscObject)A)->state + 1)));
    A->nonzerostate = PetscMax(A->nonzerostate + 1, nonzerostate + 1);
    PetscCall(MPICIHybridBecomeDeviceOnly(A));
    PetscCall(PetscTime(&t3));
    PetscCall(PetscInfo(A, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " assembled on the device: %" PetscInt_FMT " ghost columns; rows made, checked and split %g s, MPIAIJ's scatter %g s, both blocks filled %g s; no host copies\n", A->rmap->rstart, A->rmap->rend, ngarray, t1 - t0, t2 - t1, t3 - t2));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridComposeDeviceOnlyMPI(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridAssembleOnDevice_C", set ? MatCIHybridAssembleOnDevice_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridMakeHostCopy_C", set ? MatCIHybridMakeHostCopy_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridIsDeviceOnly_C", set ? MatCIHybridIsDeviceOnly_MPIAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GPUMATS_FACTOR_PREPARE, set ? CIHybridFactorPrepare : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
