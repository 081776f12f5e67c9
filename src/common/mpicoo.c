/* MatSetValuesCOO with values in device memory on an MPI matrix whose blocks take them on the
   device: mpipcsr and mpicihybrid (MPIAIJ's diagonal and off-process blocks), mpidiag (its seqdiag
   and seqaijpcsr blocks).  The host way copies v to the host, assembles there and uploads both
   blocks again; here nothing of v goes to the host but the values other processes own.

   At MatSetPreallocationCOO, once the pattern is made: this process's entries, its own and those
   received from other processes (GpuMatsCOOSplit), go to the block of their column in local
   indices, and each block maps its list to its stored values (GpuMatsCOOBlockMap), each entry by
   the place of its value: in v, or among the values received.
   At each MatSetValuesCOO, every process first agrees that all can take the values on the device
   (else all take the host way, before anything is written); then the values for other processes
   are gathered on the device and exchanged through pinned host buffers (MPI is not assumed to be
   GPU-aware), and each block reads its values from v and those received as its map says, into its
   device copy: one pass over the entries, as on one process (a gather of each block's values
   first, then the block's pass, was measured slower than aijcusparse's MatSetValuesCOO).
   Whether a block's host values follow at once or later is the MPI matrix's choice, asked before
   the blocks take values ("GpuMatsMPIAheadBegin_C"; without it they follow at once).  MPIAIJ's
   own operations read the blocks' host arrays without an operation of the block: mpipcsr's and
   mpicihybrid's blocks run ahead because the MPI matrix syncs them before its operations
   (common/mpishadow.c).  mpidiag's pcsr block runs ahead too; mpidiag syncs it where it edits
   that host array itself (diag/mpidiag.c, MPIDiagAheadBegin). */
#include "common/gpumats_coo.h"

#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType */
  #include "cuda/common/gpumats_cuda.h"
  #include "cuda/common/gpumats_ghosts.h"

  #define MPI_COO "GpuMatsMPICOO"

typedef struct {
  GpuMatsCOOSplit    counts;   /* the split's counts (entries given, to and from each process), not its entries */
  PetscBool          mapped;   /* every block with entries has a map */
  PetscObjectId      block[2]; /* the blocks mapped: the diagonal one, the off-process one */
  PetscCount         nb[2];    /* their entries */
  PetscBool          exchange; /* some process sends values to another */
  PetscScalar       *recv;     /* device: the values received */
  GpuMatsGhostCopies copies; /* the values sent gathered to, the values received taken from, pinned buffers */
} MPICOO;

static PetscErrorCode MPICOODestroy(void *arg)
{
  MPICOO *c = (MPICOO *)GpuMatsContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAFree(c->recv));
  PetscCall(GpuMatsGhostCopiesDestroy(&c->copies));
  PetscCall(GpuMatsCOOSplitDestroy(&c->counts));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block (0 diagonal, 1 off-process) and local column of global column j */
static PetscErrorCode MPICOOColumn(Mat M, PetscInt j, PetscInt nghost, const PetscInt garray[], int *block, PetscInt *col)
{
  PetscFunctionBegin;
  if (j >= M->cmap->rstart && j < M->cmap->rend) {
    *block = 0;
    *col   = j - M->cmap->rstart;
  } else {
    *block = 1;
    PetscCall(PetscFindInt(j, nghost, garray, col));
    PetscCheck(*col >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s COO: column %" PetscInt_FMT " is not among the off-process block's columns", ((PetscObject)M)->type_name, j);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each block's entries (local row and column, the place of its value) and its map */
static PetscErrorCode MPICOOMapBlocks(Mat M, const GpuMatsCOOSplit *s, Mat X[2], const PetscInt garray[], MPICOO *c)
{
  const PetscInt   nghost = X[1] ? X[1]->cmap->n : 0;
  const PetscCount nent   = s->nown + s->nrecv;
  PetscInt        *bi[2], *bj[2], *ecol;
  int32_t         *bplace[2];
  int             *eb;
  PetscCount       next[2] = {0, 0};
  PetscErrorCode   ierr    = PETSC_SUCCESS;

  PetscFunctionBegin;
  /* each entry's block and local column, found once for the count and the fill (off-process: a search of garray) */
  PetscCall(PetscMalloc2(nent, &eb, nent, &ecol));
  for (PetscCount k = 0; k < nent; k++) {
    PetscCall(MPICOOColumn(M, k < s->nown ? s->own_j[k] : s->recv_j[k - s->nown], nghost, garray, &eb[k], &ecol[k]));
    c->nb[eb[k]]++;
  }
  for (int b = 0; b < 2; b++) PetscCall(PetscMalloc3(c->nb[b], &bi[b], c->nb[b], &bj[b], c->nb[b], &bplace[b]));
  for (PetscCount k = 0; k < nent; k++) {
    const PetscBool own = (PetscBool)(k < s->nown);
    const int       b   = eb[k];

    bi[b][next[b]]     = (own ? s->own_i[k] : s->recv_i[k - s->nown]) - M->rmap->rstart;
    bj[b][next[b]]     = ecol[k];
    bplace[b][next[b]] = own ? (int32_t)s->own_k[k] : (int32_t)(-(k - s->nown) - 1);
    next[b]++;
  }
  PetscCall(PetscFree2(eb, ecol));
  c->mapped = PETSC_TRUE;
  for (int b = 0; b < 2 && !ierr; b++) {
    PetscBool has;

    if (!c->nb[b]) continue;
    PetscCheck(X[b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s COO: entries for a block the matrix does not have", ((PetscObject)M)->type_name);
    ierr = GpuMatsCOOBlockMap(X[b], c->nb[b], bi[b], bj[b], bplace[b], 0, &has); /* the blocks' nonzero states are not raised after this */
    if (!ierr && !has) c->mapped = PETSC_FALSE;
  }
  for (int b = 0; b < 2; b++) PetscCall(PetscFree3(bi[b], bj[b], bplace[b]));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICOOSetUp(Mat M, const GpuMatsCOOSplit *s, Mat Ad, Mat Ao, const PetscInt garray[])
{
  MPICOO        *c;
  Mat            X[2] = {Ad, Ao};
  PetscContainer container;
  PetscInt      *send_k;
  PetscBool      device;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectCompose((PetscObject)M, MPI_COO, NULL));
  PetscCall(PetscNew(&c));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, c));
  PetscCall(GpuMatsContainerSetDestroy(container, MPICOODestroy));
  PetscCall(PetscObjectCompose((PetscObject)M, MPI_COO, (PetscObject)container)); /* on every process: SetValues is collective */
  PetscCall(PetscContainerDestroy(&container));
  c->counts.n    = s->n;
  c->counts.size = s->size;
  for (int b = 0; b < 2; b++) c->block[b] = X[b] ? ((PetscObject)X[b])->id : 0;
  c->exchange = (PetscBool)(s->nsend > 0); /* agreed on before any process returns early */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &c->exchange, 1, GPUMATS_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)M)));
  if (s->n >= INT32_MAX || s->nrecv >= INT32_MAX) {
    PetscCall(PetscInfo(M, "%s COO: %" PetscCount_FMT " entries, %" PetscCount_FMT " received: more than 32-bit device indices hold, the values go through the host\n", ((PetscObject)M)->type_name, s->n, s->nrecv));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGpuMatsUsesDevice(M, &device));
  if (!device) { /* nothing to make on a device: a CUDA build on a machine without a usable GPU */
    PetscCall(PetscInfo(M, "%s COO: the products run on the host: the values go through the host\n", ((PetscObject)M)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPICOOMapBlocks(M, s, X, garray, c));
  if (!c->mapped) {
    PetscCall(PetscInfo(M, "%s COO: a block takes no device values (%s, %s): the values go through the host\n", ((PetscObject)M)->type_name, Ad ? ((PetscObject)Ad)->type_name : "none", Ao ? ((PetscObject)Ao)->type_name : "none"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the caller frees s: the counts GpuMatsCOOSplitExchange needs are copied */
  PetscCall(PetscMalloc4(s->size, &c->counts.scount, s->size, &c->counts.sdispl, s->size, &c->counts.rcount, s->size, &c->counts.rdispl));
  PetscCall(PetscArraycpy(c->counts.scount, s->scount, s->size));
  PetscCall(PetscArraycpy(c->counts.sdispl, s->sdispl, s->size));
  PetscCall(PetscArraycpy(c->counts.rcount, s->rcount, s->size));
  PetscCall(PetscArraycpy(c->counts.rdispl, s->rdispl, s->size));
  PetscCall(PetscMalloc1(s->nsend, &send_k));
  for (PetscCount k = 0; k < s->nsend; k++) send_k[k] = (PetscInt)s->send_k[k];
  ierr = GpuMatsGhostCopiesCreate((PetscInt)s->nsend, send_k, (PetscInt)s->nrecv, &c->copies);
  PetscCall(PetscFree(send_k));
  PetscCall(ierr);
  PetscCall(GpuMatsCUDAMalloc((void **)&c->recv, (size_t)PetscMax(s->nrecv, 1) * sizeof(PetscScalar), "the COO values received from other processes"));
  PetscCall(PetscInfo(M, "%s COO: %" PetscCount_FMT " entries here, %" PetscCount_FMT " sent, %" PetscCount_FMT " received; %" PetscCount_FMT " for the diagonal block, %" PetscCount_FMT " for the off-process block, mapped on the device: values in device memory go to the blocks' device copies\n", ((PetscObject)M)->type_name, s->n, s->nsend, s->nrecv, c->nb[0], c->nb[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this process can take v on the device: its map made for these blocks, v in device
   memory (or no entries), each block with entries ready */
static PetscErrorCode MPICOOReady(Mat M, MPICOO *c, Mat X[2], const PetscScalar v[], PetscBool *ready)
{
  PetscMemType mtype = PETSC_MEMTYPE_HOST;

  PetscFunctionBegin;
  *ready = c->mapped;
  for (int b = 0; b < 2 && *ready; b++) {
    if (c->block[b] != (X[b] ? ((PetscObject)X[b])->id : 0)) {
      PetscCall(PetscInfo(M, "%s COO: the blocks changed since MatSetPreallocationCOO: the values go through the host\n", ((PetscObject)M)->type_name));
      *ready = PETSC_FALSE;
    }
  }
  if (*ready && c->counts.n) {
    if (v) PetscCall(PetscGetMemType(v, &mtype));
    *ready = PetscMemTypeDevice(mtype);
  }
  for (int b = 0; b < 2 && *ready; b++)
    if (c->nb[b]) PetscCall(GpuMatsCOOBlockReady(X[b], ready));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICOOSetValues(Mat M, Mat Ad, Mat Ao, const PetscScalar v[], InsertMode mode, PetscBool *done)
{
  PetscContainer container;
  MPICOO        *c;
  Mat            X[2] = {Ad, Ao};
  PetscBool      ready, ahead = PETSC_FALSE;
  PetscScalar   *send, *recv;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(PetscObjectQuery((PetscObject)M, MPI_COO, (PetscObject *)&container));
  if (!container) PetscFunctionReturn(PETSC_SUCCESS); /* on no process */
  PetscCall(PetscContainerGetPointer(container, (void **)&c));
  PetscCall(MPICOOReady(M, c, X, v, &ready));
  PetscCallMPI(MPI_Allreduce(&ready, done, 1, GPUMATS_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)M)));
  if (!*done) {
    if (ready) PetscCall(PetscInfo(M, "%s COO: another process takes these values on the host: so does this one\n", ((PetscObject)M)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  { /* the blocks' host values may follow later where the MPI matrix syncs them (mpishadow.c, mpidiag.c) */
    PetscErrorCode (*begin)(Mat, PetscBool *) = NULL;

    PetscCall(PetscObjectQueryFunction((PetscObject)M, "GpuMatsMPIAheadBegin_C", &begin));
    if (begin) PetscCall((*begin)(M, &ahead));
  }
  if (c->exchange) { /* else each process's entries are in its own rows (a DMDA's, most assemblers') */
    PetscCall(GpuMatsGhostCopiesPack(c->copies, v));
    PetscCall(GpuMatsGhostCopiesWaitPacked(c->copies, &send, &recv));
    PetscCall(GpuMatsCOOSplitExchange(M, &c->counts, send, recv));
    PetscCall(GpuMatsGhostCopiesUnpack(c->copies, c->recv));
  }
  for (int b = 0; b < 2; b++) { /* the MPI assembly that ends MatSetValuesCOO() assembles each block once */
    if (c->nb[b]) PetscCall(GpuMatsCOOBlockWrite(X[b], v, c->recv, mode, 1, ahead));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)M));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#elif GPUMATS_HAVE_CUDA /* a PETSc without CUDA: no values are known to be on the device */
PetscErrorCode GpuMatsMPICOOSetUp(Mat M, const GpuMatsCOOSplit *s, Mat Ad, Mat Ao, const PetscInt garray[])
{
  PetscFunctionBegin;
  (void)M;
  (void)s;
  (void)Ad;
  (void)Ao;
  (void)garray;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICOOSetValues(Mat M, Mat Ad, Mat Ao, const PetscScalar v[], InsertMode mode, PetscBool *done)
{
  PetscFunctionBegin;
  (void)M;
  (void)Ad;
  (void)Ao;
  (void)v;
  (void)mode;
  *done = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
