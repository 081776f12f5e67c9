/* COO assembly of the AIJ subclasses (cihybrid, pcsr; seq and MPI).  AIJ's own COO functions do the
   work (MatSetPreallocationCOO_SeqAIJ/_MPIAIJ, found as the composed MatSetPreallocationCOO_C and
   MatSetValuesCOO_C); wrapped here so that
   - arrays on the device (a PETSc with CUDA) are copied to the host first: AIJ's host functions
     would read them from the host;
   - indices past the matrix are refused with PETSC_ERR_ARG_OUTOFRANGE on every process together
     (PETSc 3.18's AIJ, built without debugging, does not check and writes past its arrays);
   - the format follows: the shadow's object state moves with the new values, and the MPI blocks
     (which MPIAIJ's COO preallocation may recreate as plain SeqAIJ) are the format again;
   - values in device memory go straight into a format that takes them (common/coo.c for a
     sequential block, common/mpicoo.c for the MPI types).
   AIJ's functions stay composed under other names while the type is installed. */
#include "common/gpumats_coo.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType */
#endif

#define COO_PARENT_PREALLOCATION "GpuMatsCOOParentSetPreallocation_C"
#define COO_PARENT_VALUES        "GpuMatsCOOParentSetValues_C"

typedef PetscErrorCode (*COOPreallocationFn)(Mat, PetscCount, const PetscInt[], const PetscInt[]);
typedef PetscErrorCode (*COOValuesFn)(Mat, const PetscScalar[], InsertMode);

/* Whether A is of an MPI type: those hosted by MPIAIJ are named after it (mpiaijpcsr, mpiaijcihybrid) */
static PetscErrorCode COOIsMPI(Mat A, PetscBool *mpi)
{
  PetscFunctionBegin;
  PetscCall(PetscStrncmp(((PetscObject)A)->type_name, "mpiaij", 6, mpi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI type's blocks are the format, and their shadows see new values. */
static PetscErrorCode COOFollowAIJ(Mat A)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(COOIsMPI(A, &mpi));
  if (mpi) {
    Mat Ad, Ao;

    PetscCall(GpuMatsMPIUpdateBlocks(A));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    if (Ad) PetscCall(PetscObjectStateIncrease((PetscObject)Ad));
    if (Ao) PetscCall(PetscObjectStateIncrease((PetscObject)Ao));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* After AIJ's preallocation (host indices, in range): a sequential type maps the entries itself
   (the nonzero state is raised once more by MatSetPreallocationCOO()); an MPI type's blocks map
   theirs (common/mpicoo.c) */
static PetscErrorCode COOMapDevice(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[])
{
  PetscBool mpi, has;

  PetscFunctionBegin;
  PetscCall(COOIsMPI(A, &mpi));
  if (!mpi) PetscCall(GpuMatsCOOBlockMap(A, n, ci, cj, NULL, 1, &has));
  else {
    GpuMatsCOOSplit split;
    Mat             Ad, Ao;
    const PetscInt *garray;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    /* MPIAIJ's COO preallocation leaves A unassembled, its new blocks plain SeqAIJ: the format now */
    PetscCall(GpuMatsMPIConvertBlocks(A, Ad, Ao));
    PetscCall(GpuMatsCOOSplitCreate(A, n, ci, cj, &split));
    PetscCall(GpuMatsMPICOOSetUp(A, &split, Ad, Ao, garray));
    PetscCall(GpuMatsCOOSplitDestroy(&split));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatSetPreallocationCOO_AIJShadow(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[])
{
  COOPreallocationFn parent;
  const void        *hi = NULL, *hj = NULL;
  PetscInt          *ci = NULL, *cj = NULL;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(GpuMatsShadowAheadSyncOperand(A)); /* AIJ's preallocation starts from the host values */
  PetscCall(PetscObjectQueryFunction((PetscObject)A, COO_PARENT_PREALLOCATION, &parent));
  PetscCheck(parent, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s has lost AIJ's MatSetPreallocationCOO", ((PetscObject)A)->type_name);
  PetscCall(GpuMatsCOOGetHost(A, coo_i, (size_t)n * sizeof(PetscInt), "row indices", &hi));
  PetscCall(GpuMatsCOOGetHost(A, coo_j, (size_t)n * sizeof(PetscInt), "column indices", &hj));
  ierr = GpuMatsCOOCheckRange(A, n, (const PetscInt *)hi, (const PetscInt *)hj);
  if (!ierr) {
    /* AIJ may reorder the arrays it is given (PETSc >= 3.20): its own copies, never the caller's device arrays */
    ierr = PetscMalloc2(n, &ci, n, &cj);
    if (!ierr) ierr = PetscArraycpy(ci, (const PetscInt *)hi, n);
    if (!ierr) ierr = PetscArraycpy(cj, (const PetscInt *)hj, n);
    if (!ierr) ierr = (*parent)(A, n, ci, cj);
    if (ci) PetscCall(PetscFree2(ci, cj));
  }
  if (!ierr) ierr = GpuMatsCOOSetCount(A, n);
  if (!ierr) ierr = COOFollowAIJ(A); /* the MPI blocks are the format from here */
#if GPUMATS_HAVE_CUDA
  /* a format that takes device values straight in maps the entries now */
  if (!ierr) ierr = COOMapDevice(A, n, (const PetscInt *)hi, (const PetscInt *)hj);
#endif
  PetscCall(GpuMatsCOORestoreHost(coo_i, &hi));
  PetscCall(GpuMatsCOORestoreHost(coo_j, &hj));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesCOO_AIJShadow(Mat A, const PetscScalar v[], InsertMode mode)
{
  COOValuesFn    parent;
  const void    *hv = NULL;
  PetscCount     n;
  PetscBool      found;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, COO_PARENT_VALUES, &parent));
  PetscCheck(parent, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s has lost AIJ's MatSetValuesCOO", ((PetscObject)A)->type_name);
  PetscCall(GpuMatsCOOGetCount(A, &n, &found));
  /* a MatDuplicate of a COO matrix: PETSc 3.18's AIJ does not copy its COO maps and would read
     them from NULL; refused on every process alike */
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MatSetValuesCOO on a %s matrix without MatSetPreallocationCOO on it (a MatDuplicate does not carry the COO preallocation): call MatSetPreallocationCOO on it first", ((PetscObject)A)->type_name);
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  { /* values in device memory, a format that takes them there: no host round trip */
    PetscBool done = PETSC_FALSE, mpi;

    PetscCall(COOIsMPI(A, &mpi));
    if (mpi) {
      Mat Ad, Ao;

      PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
      PetscCall(GpuMatsMPICOOSetValues(A, Ad, Ao, v, mode, &done));
    }
    else {
      PetscMemType mtype = PETSC_MEMTYPE_HOST;

      if (v) PetscCall(PetscGetMemType(v, &mtype));
      if (PetscMemTypeDevice(mtype)) PetscCall(GpuMatsCOOBlockReady(A, &done));
      if (done) PetscCall(GpuMatsCOOBlockWrite(A, v, NULL, mode, 1, PETSC_TRUE)); /* raised once by the assembly that follows */
    }
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(GpuMatsShadowAheadSyncOperand(A)); /* AIJ's COO assembly writes (and adds to) the host values */
  PetscCall(GpuMatsCOOGetHost(A, v, (size_t)n * sizeof(PetscScalar), "values", &hv));
  ierr = (*parent)(A, (const PetscScalar *)hv, mode);
  PetscCall(GpuMatsCOORestoreHost(v, &hv));
  PetscCall(ierr);
  PetscCall(COOFollowAIJ(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOComposeAIJ(Mat A, PetscBool set)
{
  COOPreallocationFn prealloc = NULL;
  COOValuesFn        values   = NULL;

  PetscFunctionBegin;
  if (set) {
    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &prealloc));
    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetValuesCOO_C", &values));
    if (prealloc == MatSetPreallocationCOO_AIJShadow) PetscFunctionReturn(PETSC_SUCCESS); /* installed already */
    PetscCheck(prealloc && values, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no AIJ COO functions to wrap", ((PetscObject)A)->type_name);
    PetscCall(PetscObjectComposeFunction((PetscObject)A, COO_PARENT_PREALLOCATION, prealloc));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, COO_PARENT_VALUES, values));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_AIJShadow));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", MatSetValuesCOO_AIJShadow));
  } else {
    PetscCall(PetscObjectQueryFunction((PetscObject)A, COO_PARENT_PREALLOCATION, &prealloc));
    PetscCall(PetscObjectQueryFunction((PetscObject)A, COO_PARENT_VALUES, &values));
    if (!prealloc) PetscFunctionReturn(PETSC_SUCCESS); /* never installed */
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", prealloc));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", values));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, COO_PARENT_PREALLOCATION, NULL));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, COO_PARENT_VALUES, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
