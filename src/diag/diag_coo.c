/* COO assembly of diag (seqdiag and mpidiag).  PETSc's fallback (MatSetValues for every entry,
   rows of other processes through the stash at every MatSetValuesCOO) cannot serve mpidiag, which
   takes only its own rows once assembled, and reads the arrays on the host.  Here the entries are
   sorted once, at MatSetPreallocationCOO: those of this process's rows are kept with their place
   in the value array, those of other processes' rows are sent to their owner once (indices), and
   each MatSetValuesCOO sends only values.  The pattern (the stored diagonals) is made at
   preallocation by assembling explicit zeros at every entry, as MATAIJ's COO pattern holds every
   entry; new values then go into stored diagonals (MatSetValues, O(1) an entry) and one
   assembly.  On one process (seqdiag) each entry's value slot is found once, after the pattern is
   made (again after a change of scheme), and MatSetValuesCOO is one pass of additions into the
   value array; values in device memory go into the device copy by one kernel (cuda/diag/diag_coo.cu,
   through a map by stored value made from the slots), which then holds the newer values.  On an
   mpidiag, values in device memory go to its blocks' device copies (common/mpicoo.c): the seqdiag
   diagonal block maps its entries, own and received, as a seqdiag does its own.
   Duplicates are summed, negative indices ignored, indices past the matrix refused, other arrays
   in device memory copied to the host first (common/coo.c). */
#include "common/gpumats_coo.h"
#include "diag/diag_impl.h"
#include "diag/mpidiag_impl.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType */
#endif

#define DIAG_COO "MatDiagCOO"

typedef struct {
  GpuMatsCOOSplit split;     /* this process's entries (own: row, column, place in v) and those sent and received */
  PetscCount     *own_slot;  /* seqdiag: the slot of each own entry in the stored values (found once the pattern is made) */
  PetscInt        slots_for; /*   the layout they are for (Mat_SeqDiag's count) */
#if GPUMATS_HAVE_CUDA
  DiagDeviceCOO dev;         /*   the slots on the device, where the products run there */
  int32_t      *place;       /*   an mpidiag's block: the place of each entry's value (common/gpumats_coo.h); NULL: in v */
#endif
  PetscBool    seq;          /* a seqdiag: the slots of the entries are kept (an mpidiag on one process is not one) */
  PetscScalar *sendbuf, *recvbuf; /* the values exchanged; NULL on one process */
} DiagCOO;

static PetscErrorCode DiagCOODestroy(void *arg)
{
  DiagCOO *c = (DiagCOO *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GpuMatsCOOSplitDestroy(&c->split));
  PetscCall(PetscFree(c->own_slot));
#if GPUMATS_HAVE_CUDA
  PetscCall(DiagDeviceCOODestroy(&c->dev));
  PetscCall(PetscFree(c->place));
#endif
  PetscCall(PetscFree2(c->sendbuf, c->recvbuf));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagCOOGet(Mat A, DiagCOO **c)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, DIAG_COO, (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MatSetValuesCOO on a %s matrix without MatSetPreallocationCOO on it (a MatDuplicate does not carry the COO preallocation): call MatSetPreallocationCOO on it first", ((PetscObject)A)->type_name);
  PetscCall(PetscContainerGetPointer(container, (void **)c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c kept on A (replacing an earlier one) */
static PetscErrorCode DiagCOOAttach(Mat A, DiagCOO *c)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, c));
  PetscCall(GpuMatsContainerSetDestroy(container, DiagCOODestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, DIAG_COO, (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This process's entries (host arrays, in range) split into its own and those of other processes */
static PetscErrorCode DiagCOOPlan(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], DiagCOO *c)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQDIAG, &c->seq));
  PetscCall(GpuMatsCOOSplitCreate(A, n, ci, cj, &c->split));
  /* the exchange's buffers, where there is one: not on one process (a seqdiag, an mpidiag's block) */
  if (c->split.size > 1) PetscCall(PetscMalloc2(c->split.nsend, &c->sendbuf, c->split.nrecv, &c->recvbuf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every entry of this process's rows, added: its value in v (own rows) or c->recvbuf (received),
   or zero (the pattern) when 'zeros'. */
static PetscErrorCode DiagCOOAdd(Mat A, const DiagCOO *c, const PetscScalar *v, PetscBool zeros)
{
  const PetscScalar zero = 0.0;

  PetscFunctionBegin;
  for (PetscCount k = 0; k < c->split.nown; k++) PetscCall(MatSetValues(A, 1, &c->split.own_i[k], 1, &c->split.own_j[k], zeros ? &zero : &v[c->split.own_k[k]], ADD_VALUES));
  for (PetscCount k = 0; k < c->split.nrecv; k++) PetscCall(MatSetValues(A, 1, &c->split.recv_i[k], 1, &c->split.recv_j[k], zeros ? &zero : &c->recvbuf[k], ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* seqdiag: the value slot of every entry on A's current diagonals, or *found false (and no slots)
   when an entry lies on none; used[t] (when given) collects the parts of stored diagonal t that
   the entries fall on (HM: 1) */
static PetscErrorCode DiagCOOLookupSlots(Mat A, DiagCOO *c, unsigned char *used, PetscBool *found)
{
  Mat_SeqDiag      *d = (Mat_SeqDiag *)A->spptr;
  const DiagFormat *f = &d->fmt;

  PetscFunctionBegin;
  *found = PETSC_TRUE;
  PetscCall(PetscFree(c->own_slot));
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscCall(PetscMalloc1(c->split.nown, &c->own_slot));
  for (PetscCount k = 0; k < c->split.nown; k++) {
    const PetscInt i = c->split.own_i[k], j = c->split.own_j[k];
    PetscScalar   *slot = MatDiagSlot_SeqDiag(A, i, j); /* makes d->where current */

    if (!slot) {
      *found = PETSC_FALSE;
      PetscCall(PetscFree(c->own_slot));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    c->own_slot[k] = slot - f->val;
    if (used && f->scheme == DIAG_SCHEME_HM) used[d->where[j - i + f->nrows - 1]] = 1;
    else if (used) used[d->where[j >= i ? j - i : j - i + f->ncols]] |= j >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER;
  }
  c->slots_for = d->layout;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* seqdiag, a new COO pattern on an assembled matrix: when its entries lie on exactly the stored
   diagonals (every one used, no entry off them: a DMDA's matrix given its own stencil again), the
   diagonals stay, the values are zeroed and the structure becomes the entries (*kept); else nothing */
static PetscErrorCode DiagCOOKeepDiagonals(Mat A, DiagCOO *c, PetscBool *kept)
{
  Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
  DiagFormat    *f = &d->fmt;
  unsigned char *used;
  PetscBool      found;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(f->ndiag, 1), &used));
  PetscCall(DiagCOOLookupSlots(A, c, used, &found));
  *kept = found;
  for (PetscInt t = 0; t < f->ndiag && *kept; t++) *kept = (PetscBool)(used[t] == (f->scheme == DIAG_SCHEME_HM ? 1 : f->part[t]));
  PetscCall(PetscFree(used));
  if (!*kept) {
    PetscCall(PetscFree(c->own_slot));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscArrayzero(f->val, f->start[f->ndiag]));
  PetscCall(PetscFree(d->structure));
  PetscCall(PetscCalloc1(f->start[f->ndiag] / 8 + 1, &d->structure));
  d->structure_for = f->offset;
  for (PetscCount k = 0; k < c->split.nown; k++) DiagStructureSet(d->structure, c->own_slot[k]);
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscCall(PetscInfo(A, "seqdiag COO: the %" PetscCount_FMT " entries lie on the %" PetscInt_FMT " stored diagonals: they stay, the values zeroed\n", c->split.nown, f->ndiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* The place of own entry k's value (common/gpumats_coo.h) */
static inline int32_t DiagCOOPlace(const DiagCOO *c, PetscCount k)
{
  return c->place ? c->place[c->split.own_k[k]] : (int32_t)c->split.own_k[k];
}

/* seqdiag: the device map by stored value (cuda/diag/diag_cuda.h), from the entries' slots: a
   counting sort of the entries by slot, their order kept within a slot (AIJ's order of summing);
   where no slot has two entries only each slot's entry is kept.  Each entry is known by the place
   of its value. */
static PetscErrorCode DiagCOODeviceMap(Mat A, DiagCOO *c)
{
  const DiagFormat *f       = &((Mat_SeqDiag *)A->spptr)->fmt;
  const PetscInt64  nval    = f->start[f->ndiag];
  PetscBool         several = PETSC_FALSE;
  int32_t          *jmap, *from;
  PetscErrorCode    ierr;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nval + 1, &jmap));
  for (PetscCount k = 0; k < c->split.nown; k++) {
    if (++jmap[c->own_slot[k] + 1] > 1) several = PETSC_TRUE;
  }
  if (several) {
    for (PetscInt64 s = 0; s < nval; s++) jmap[s + 1] += jmap[s];
    PetscCall(PetscMalloc1(PetscMax(c->split.nown, 1), &from));
    for (PetscCount k = 0; k < c->split.nown; k++) from[jmap[c->own_slot[k]]++] = DiagCOOPlace(c, k);
    for (PetscInt64 s = nval; s > 0; s--) jmap[s] = jmap[s - 1]; /* the starts again */
    jmap[0] = 0;
  } else {
    PetscCall(PetscFree(jmap));
    PetscCall(PetscMalloc1(PetscMax(nval, 1), &from));
    for (PetscInt64 s = 0; s < nval; s++) from[s] = GPUMATS_COO_NO_PLACE;
    for (PetscCount k = 0; k < c->split.nown; k++) from[c->own_slot[k]] = DiagCOOPlace(c, k);
  }
  ierr = DiagDeviceCOOCreate((long long)nval, jmap, (int32_t)(several ? c->split.nown : nval), from, &c->dev);
  PetscCall(PetscFree(jmap));
  PetscCall(PetscFree(from));
  PetscCall(ierr);
  PetscCall(PetscInfo(A, "seqdiag COO: the %" PetscCount_FMT " entries mapped by stored value (%" PetscInt64_FMT " values, %s) on the device: values in device memory go straight into the device copy\n", c->split.nown, nval, several ? "some summing several entries" : "at most one entry each"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* seqdiag: the value slot of every entry, on the diagonals the pattern made (found again after a
   change of layout), and their copy on the device where the products run there */
static PetscErrorCode DiagCOOFindSlots(Mat A, DiagCOO *c)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  if (!c->own_slot || c->slots_for != d->layout) {
    PetscBool found;

    PetscCall(DiagCOOLookupSlots(A, c, NULL, &found));
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqdiag COO: an entry is on no stored diagonal after its pattern was assembled");
  }
#if GPUMATS_HAVE_CUDA
  PetscCall(DiagDeviceCOODestroy(&c->dev));
  {
    PetscBool uses;

    PetscCall(GpuMatsBackendUsesDevice(A, d->base.backend, &uses));
    if (uses && c->split.nown <= INT32_MAX && c->split.n <= INT32_MAX && d->fmt.start[d->fmt.ndiag] < INT32_MAX) PetscCall(DiagCOODeviceMap(A, c));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* seqdiag: the values of the device map's entries (v in device memory) into the device copy,
   which then holds the newer values */
static PetscErrorCode DiagCOOWriteDevice(Mat A, const DiagCOO *c, const PetscScalar *v, const PetscScalar *recv, InsertMode mode)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(c->dev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqdiag COO: device values written without a device map");
  PetscCall(MatDiagSyncDevice_SeqDiag(A)); /* the device copy made, and current where values are added */
  PetscCall(DiagDeviceCOOSetValues(d->dev, c->dev, v, recv, (PetscBool)(mode == ADD_VALUES)));
  d->values_at = DIAG_VALUES_DEVICE;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* seqdiag, v in device memory: *done when the values went into the device copy */
static PetscErrorCode DiagCOOSetValuesDevice(Mat A, const DiagCOO *c, const PetscScalar *v, InsertMode mode, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  {
    PetscMemType mtype = PETSC_MEMTYPE_HOST;

    if (!c->dev || !v) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscGetMemType(v, &mtype));
    if (!PetscMemTypeDevice(mtype)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(DiagCOOWriteDevice(A, c, v, NULL, mode));
    *done = PETSC_TRUE;
  }
#else
  (void)A;
  (void)c;
  (void)v;
  (void)mode;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* seqdiag: the values added into their slots, in one pass (INSERT_VALUES: the stored values zeroed first) */
static PetscErrorCode DiagCOOSetSlots(Mat A, const DiagCOO *c, const PetscScalar *v, InsertMode mode)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;
  PetscScalar *val;

  PetscFunctionBegin;
  PetscCall(MatDiagSyncHost_SeqDiag(A));
  val = d->fmt.val;
  if (mode == INSERT_VALUES) PetscCall(PetscArrayzero(val, d->fmt.start[d->fmt.ndiag]));
  for (PetscCount k = 0; k < c->split.nown; k++) val[c->own_slot[k]] += v[c->split.own_k[k]];
  PetscCall(MatDiagHostChanged_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A second MatSetPreallocationCOO: the diagonals (and mpidiag's ghost columns), fixed at the first
   assembly, are made again from the new entries, through an AIJ matrix of their pattern (zeros). */
static PetscErrorCode DiagCOORebuildPattern(Mat A, const DiagCOO *c)
{
  Mat          P;
  PetscCount   np = c->split.nown + c->split.nrecv;
  PetscInt    *pi, *pj;
  PetscScalar *zeros;
  PetscBool    mpi;

  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "%s: a new COO pattern, the diagonals are found again\n", ((PetscObject)A)->type_name));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &P));
  PetscCall(MatSetSizes(P, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIDIAG, &mpi));
  PetscCall(MatSetType(P, mpi ? MATMPIAIJ : MATSEQAIJ)); /* an mpidiag on one process too is rebuilt from an MPIAIJ */
  PetscCall(PetscMalloc2(np, &pi, np, &pj));
  PetscCall(PetscCalloc1(np, &zeros));
  for (PetscCount k = 0; k < c->split.nown; k++) {
    pi[k] = c->split.own_i[k];
    pj[k] = c->split.own_j[k];
  }
  for (PetscCount k = 0; k < c->split.nrecv; k++) {
    pi[c->split.nown + k] = c->split.recv_i[k];
    pj[c->split.nown + k] = c->split.recv_j[k];
  }
  PetscCall(MatSetPreallocationCOO(P, np, pi, pj)); /* in range and in this process's rows: checked */
  PetscCall(MatSetValuesCOO(P, zeros, INSERT_VALUES));
  PetscCall(PetscFree2(pi, pj));
  PetscCall(PetscFree(zeros));
  if (mpi) PetscCall(MPIDiagRebuildFrom(A, P)); /* takes P */
  else {
    PetscCall(MatDiagBuildFromAIJ_SeqDiag(A, P));
    PetscCall(MatDestroy(&P));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_Diag(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[])
{
  const void    *hi = NULL, *hj = NULL;
  DiagCOO       *c;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(GpuMatsCOOGetHost(A, coo_i, (size_t)n * sizeof(PetscInt), "row indices", &hi));
  PetscCall(GpuMatsCOOGetHost(A, coo_j, (size_t)n * sizeof(PetscInt), "column indices", &hj));
  ierr = GpuMatsCOOCheckRange(A, n, (const PetscInt *)hi, (const PetscInt *)hj);
  if (!ierr) ierr = PetscNew(&c);
  if (!ierr) ierr = DiagCOOPlan(A, n, (const PetscInt *)hi, (const PetscInt *)hj, c);
  PetscCall(GpuMatsCOORestoreHost(coo_i, &hi));
  PetscCall(GpuMatsCOORestoreHost(coo_j, &hj));
  PetscCall(ierr);
  PetscCall(DiagCOOAttach(A, c));
  /* the pattern: every entry as an explicit zero, assembled (once assembled, a diag matrix keeps its
     diagonals: a second preallocation makes them again) */
  if (A->assembled) {
    PetscBool kept = PETSC_FALSE;

    if (c->seq) PetscCall(DiagCOOKeepDiagonals(A, c, &kept));
    if (!kept) PetscCall(DiagCOORebuildPattern(A, c));
  } else {
    if (!A->preallocated) PetscCall(MatSetUp(A));
    PetscCall(DiagCOOAdd(A, c, NULL, PETSC_TRUE));
  }
  if (c->seq) PetscCall(DiagCOOFindSlots(A, c));
#if GPUMATS_HAVE_CUDA
  else { /* mpidiag: its blocks map their entries, for values in device memory (common/mpicoo.c) */
    Mat_MPIDiag *m = MPIDiagOf(A);

    PetscCall(GpuMatsMPICOOSetUp(A, &c->split, m->A, m->B, m->garray));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesCOO_Diag(Mat A, const PetscScalar v[], InsertMode mode)
{
  DiagCOO       *c;
  const void    *hv = NULL;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO takes INSERT_VALUES or ADD_VALUES, not InsertMode %d", (int)mode);
  PetscCall(DiagCOOGet(A, &c));
  PetscCheck(v || !c->split.n, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MatSetValuesCOO: no values for the %" PetscCount_FMT " entries of this process", c->split.n);
  if (c->own_slot && c->slots_for != ((Mat_SeqDiag *)A->spptr)->layout) PetscCall(DiagCOOFindSlots(A, c)); /* another layout since (a change of scheme) */
  if (c->own_slot) {
    PetscBool done;

    PetscCall(DiagCOOSetValuesDevice(A, c, v, mode, &done));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
#if GPUMATS_HAVE_CUDA
  if (!c->seq) { /* mpidiag, v in device memory on every process: through its blocks' device copies */
    Mat_MPIDiag *m = MPIDiagOf(A);
    PetscBool    done;

    PetscCall(GpuMatsMPICOOSetValues(A, m->A, m->B, v, mode, &done));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(GpuMatsCOOGetHost(A, v, (size_t)c->split.n * sizeof(PetscScalar), "values", &hv));
  if (c->own_slot) {
    ierr = DiagCOOSetSlots(A, c, (const PetscScalar *)hv, mode);
    PetscCall(GpuMatsCOORestoreHost(v, &hv));
    PetscCall(ierr);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscCount k = 0; k < c->split.nsend; k++) c->sendbuf[k] = ((const PetscScalar *)hv)[c->split.send_k[k]];
  ierr = GpuMatsCOOSplitExchange(A, &c->split, c->sendbuf, c->recvbuf);
  /* INSERT_VALUES: every entry of the pattern is given (duplicates summed), so zero, then add */
  if (!ierr && mode == INSERT_VALUES) ierr = MatZeroEntries(A);
  if (!ierr) ierr = DiagCOOAdd(A, c, (const PetscScalar *)hv, PETSC_FALSE);
  PetscCall(GpuMatsCOORestoreHost(v, &hv));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
/* seqdiag as the diagonal block of an mpidiag (common/gpumats_coo.h, common/mpicoo.c): its
   entries (local indices) planned and mapped by stored value as a seqdiag's own COO is, each by
   the place of its value (kept for the maps of later layouts).  A change of diagonals shows in the
   layout's count, not in the nonzero state: 'raises' is not needed. */
static PetscErrorCode MatDiagCOOMap_SeqDiag(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt raises)
{
  DiagCOO *c;

  PetscFunctionBegin;
  (void)raises;
  PetscCall(PetscNew(&c));
  PetscCall(DiagCOOPlan(A, n, ci, cj, c));
  PetscCall(DiagCOOAttach(A, c));
  if (place) {
    PetscCall(PetscMalloc1(n, &c->place));
    PetscCall(PetscArraycpy(c->place, place, n));
  }
  PetscCall(DiagCOOFindSlots(A, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagCOODeviceReady_SeqDiag(Mat A, PetscBool *ready)
{
  PetscContainer container;
  DiagCOO       *c;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  PetscCall(PetscObjectQuery((PetscObject)A, DIAG_COO, (PetscObject *)&container));
  if (!container) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscContainerGetPointer(container, (void **)&c));
  if (!c->own_slot) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->slots_for != ((Mat_SeqDiag *)A->spptr)->layout) PetscCall(DiagCOOFindSlots(A, c)); /* another layout since */
  *ready = (PetscBool)(c->dev != NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagCOODeviceWrite_SeqDiag(Mat A, const PetscScalar v[], const PetscScalar recv[], InsertMode mode, PetscInt raises, PetscBool may_run_ahead)
{
  DiagCOO *c;

  PetscFunctionBegin;
  (void)raises;        /* seqdiag's own state tells where its values are, */
  (void)may_run_ahead; /* and its host values follow when read (MatDiagSyncHost_SeqDiag) */
  PetscCall(DiagCOOGet(A, &c));
  PetscCall(DiagCOOWriteDevice(A, c, v, recv, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatDiagComposeCOOBlock_SeqDiag(Mat A, PetscBool set)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_CUDA
  PetscCall(GpuMatsCOOComposeBlock(A, set ? MatDiagCOOMap_SeqDiag : NULL, set ? MatDiagCOODeviceReady_SeqDiag : NULL, set ? MatDiagCOODeviceWrite_SeqDiag : NULL));
#else
  (void)A;
  (void)set;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagComposeCOO(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", set ? MatSetPreallocationCOO_Diag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", set ? MatSetValuesCOO_Diag : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
