/* COO assembly of the AIJ subclasses (cihybrid, pcsr; seq and MPI).  AIJ's own COO functions do the
   work (MatSetPreallocationCOO_SeqAIJ/_MPIAIJ, found as the composed MatSetPreallocationCOO_C and
   MatSetValuesCOO_C); wrapped here so that
   - arrays on the device (a PETSc with CUDA) are copied to the host first: AIJ's host functions
     would read them from the host;
   - indices past the matrix are refused with PETSC_ERR_ARG_OUTOFRANGE on every process together
     (PETSc 3.18's AIJ, built without debugging, does not check and writes past its arrays);
   - the format follows: the shadow's object state moves with the new values, and the MPI blocks
     (which MPIAIJ's COO preallocation may recreate as plain SeqAIJ) are the format again.
   AIJ's functions stay composed under other names while the type is installed.
   Also the pieces diag/diag_coo.c shares: host copies, range check, the entry count. */
#include "common/gpumats_coo.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType */
#endif

#define COO_PARENT_PREALLOCATION "GpuMatsCOOParentSetPreallocation_C"
#define COO_PARENT_VALUES        "GpuMatsCOOParentSetValues_C"
#define COO_COUNT                "GpuMatsCOOCount"

typedef PetscErrorCode (*COOPreallocationFn)(Mat, PetscCount, const PetscInt[], const PetscInt[]);
typedef PetscErrorCode (*COOValuesFn)(Mat, const PetscScalar[], InsertMode);

PetscErrorCode GpuMatsCOOGetHost(Mat A, const void *array, size_t bytes, const char *what, const void **host)
{
  PetscFunctionBegin;
  *host = array;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscMemType mtype = PETSC_MEMTYPE_HOST;

    if (array) PetscCall(PetscGetMemType(array, &mtype));
    if (PetscMemTypeDevice(mtype)) {
  #if GPUMATS_HAVE_CUDA
      void *copy;

      PetscCall(PetscInfo(A, "%s: the COO %s are in device memory: copied to the host (%zu bytes), then assembled on the host\n", ((PetscObject)A)->type_name, what, bytes));
      PetscCall(PetscMalloc(bytes ? bytes : 1, &copy));
      PetscCall(GpuMatsCUDACopyToHost(copy, array, bytes));
      *host = copy;
  #else
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: the COO %s are in device memory, and this gpumats was built without CUDA: give host arrays, or build gpumats with CUDA", ((PetscObject)A)->type_name, what);
  #endif
    }
  }
#else
  (void)A;
  (void)bytes;
  (void)what;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOORestoreHost(const void *array, const void **host)
{
  PetscFunctionBegin;
  if (*host && *host != array) {
    void *copy = (void *)*host;

    PetscCall(PetscFree(copy));
  }
  *host = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOCheckRange(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[])
{
  PetscInt    M, N;
  PetscCount  bad = -1;
  PetscMPIInt any, mine;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  for (PetscCount k = 0; k < n && bad < 0; k++)
    if (coo_i[k] >= 0 && coo_j[k] >= 0 && (coo_i[k] >= M || coo_j[k] >= N)) bad = k;
  mine = bad >= 0;
  /* together: AIJ's MPI preallocation communicates, a process that stopped alone would hang the others */
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(bad < 0 || coo_i[bad] < M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO row index %" PetscInt_FMT " (entry %" PetscCount_FMT ") is >= the matrix row size %" PetscInt_FMT ": indices are 0 to %" PetscInt_FMT ", negative ones are ignored", coo_i[bad], bad, M, M - 1);
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO column index %" PetscInt_FMT " (entry %" PetscCount_FMT ") is >= the matrix column size %" PetscInt_FMT ": indices are 0 to %" PetscInt_FMT ", negative ones are ignored", coo_j[bad], bad, N, N - 1);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A COO index given on another process is out of range (this process's are fine)");
}

static PetscErrorCode COOCountDestroy(void *arg)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(GpuMatsContainerCtx(arg)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOSetCount(Mat A, PetscCount n)
{
  PetscContainer c;
  PetscCount    *count;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  if (!c) {
    PetscCall(PetscNew(&count));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, count));
    PetscCall(GpuMatsContainerSetDestroy(c, COOCountDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, COO_COUNT, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
    PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  }
  PetscCall(PetscContainerGetPointer(c, (void **)&count));
  *count = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOGetCount(Mat A, PetscCount *n, PetscBool *found)
{
  PetscContainer c;
  PetscCount    *count;

  PetscFunctionBegin;
  *n     = 0;
  *found = PETSC_FALSE;
  PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscContainerGetPointer(c, (void **)&count));
  *n     = *count;
  *found = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  #define COO_BLOCK_MAP   "GpuMatsCOOMap_C"
  #define COO_BLOCK_READY "GpuMatsCOODeviceReady_C"
  #define COO_BLOCK_WRITE "GpuMatsCOODeviceWrite_C"

PetscErrorCode GpuMatsCOOComposeBlock(Mat X, GpuMatsCOOMapFn map, GpuMatsCOOReadyFn ready, GpuMatsCOOWriteFn write)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_MAP, map));
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_READY, ready));
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_WRITE, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockMap(Mat X, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt raises, PetscBool *has)
{
  GpuMatsCOOMapFn map = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_MAP, &map));
  *has = (PetscBool)(map != NULL);
  if (map) PetscCall((*map)(X, n, ci, cj, place, raises));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockReady(Mat X, PetscBool *ready)
{
  GpuMatsCOOReadyFn f = NULL;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_READY, &f));
  if (f) PetscCall((*f)(X, ready));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockWrite(Mat X, const PetscScalar v[], const PetscScalar recv[], InsertMode mode, PetscInt raises, PetscBool may_run_ahead)
{
  GpuMatsCOOWriteFn f = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_WRITE, &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: device COO values for a matrix that does not take them", ((PetscObject)X)->type_name);
  PetscCall((*f)(X, v, recv, mode, raises, may_run_ahead));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

#if GPUMATS_HAVE_CUDA
PetscErrorCode GpuMatsCOOStoredMap(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt64 *nnz, int32_t **jmap, int32_t **perm, PetscBool *mapped)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscCount      bad;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  *jmap = *perm = NULL;
  *mapped       = PETSC_FALSE;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  *nnz = A->rmap->n ? ai[A->rmap->n] : 0;
  if (n > INT32_MAX || *nnz >= INT32_MAX) {
    PetscCall(PetscInfo(A, "%s COO: %" PetscCount_FMT " entries, %" PetscInt64_FMT " stored: more than 32-bit device indices hold, the values go through the host\n", ((PetscObject)A)->type_name, n, *nnz));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCall(GpuMatsCUDACOOStoredMap(A->rmap->n, ai, aj, n, ci, cj, place, jmap, perm, mapped, &bad));
  PetscCall(PetscTime(&t1));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s COO: entry %" PetscCount_FMT " (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the pattern AIJ made of the COO entries", ((PetscObject)A)->type_name, bad, ci[bad], cj[bad]);
  if (!*mapped) PetscCall(PetscInfo(A, "%s COO: no map of the %" PetscCount_FMT " entries on the device (its memory is short, or the sort failed): the values go through the host\n", ((PetscObject)A)->type_name, n));
  else PetscCall(PetscInfo(A, "%s COO: the map of %" PetscCount_FMT " entries to %" PetscInt64_FMT " stored ones made on the device in %g s (%s): values in device memory go straight into the device copy\n", ((PetscObject)A)->type_name, n, *nnz, t1 - t0, *jmap ? "some stored entries have several or none" : *perm ? "one entry a stored entry" : "the stored entries in AIJ's order, no map kept"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

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

PetscErrorCode GpuMatsCOOPatternRecord(Mat A, PetscInt raises, GpuMatsCOOPattern *pattern)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  /* MatSetPreallocationCOO() raises the nonzero state of the matrix it is called on once more
     after this (PETSc 3.18 to 3.22), not its blocks', and AIJ's arrays are these until a change
     of pattern reallocates them */
  pattern->nonzerostate = A->nonzerostate + raises;
  pattern->columns      = aj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOPatternSame(Mat A, const GpuMatsCOOPattern *pattern, const char *type, PetscBool *same)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  *same = (PetscBool)(pattern->nonzerostate == A->nonzerostate && pattern->columns == aj);
  if (!*same) PetscCall(PetscInfo(A, "%s COO: the pattern changed since MatSetPreallocationCOO: the values go through the host\n", type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
PetscErrorCode GpuMatsCOODeviceValuesSet(Mat A, GpuMatsShadow *shadow, PetscInt raises, PetscBool may_run_ahead)
{
  PetscBool ahead = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  /* the device copy holds these values already: current after the assemblies to come */
  PetscCall(GpuMatsShadowMarkCurrentAhead(A, shadow, raises));
  if (may_run_ahead) PetscCall(GpuMatsShadowAheadBegin(A, &ahead));
  if (!ahead) PetscCall((*shadow->ops->values_download)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
