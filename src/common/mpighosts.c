/* The ghost values of an MPI matrix (hosted by MATMPIAIJ, mpishadow.c, or owning its blocks,
   mpiblocks.c: mpidiag), exchanged through pinned host buffers of the matrix's own when its
   vectors are on the device and MPI is not GPU-aware (-use_gpu_aware_mpi 0).  PETSc's scatter
   then copies them through unpinned host buffers, and begins it before the diagonal block's
   product; here the values to send are gathered and
   copied first, the diagonal block's product is queued behind them and runs while the host
   waits for the copy and exchanges the values with MPI, then the ghosts go up and the
   off-process block adds its part.  The processes to exchange with, and what, are found once
   per pattern from the storage's ghost columns (MPIAIJ's garray, ascending: the values from each
   owner arrive in the order of the ghosts).

   By default (-mat_gpumats_pinned_ghosts auto) the exchange is taken where each process has a
   GPU of its own, and where processes share one, only if the ghosts are many: on some process at
   least GPUMATS_PINNED_GHOSTS_FRACTION of its rows.  Measured (README,
   -mat_gpumats_pinned_ghosts): on a CI Hamiltonian (which couples nearly every column) it cut
   the exchange's share of MatMult on ranks sharing one GPU; on a 7-point stencil on 2 ranks
   (ghosts 1.3% of the rows) it was faster with a GPU each and slower than PETSc's scatter on
   one shared GPU.

   The exchange knows no MPI class: the MPI mechanism keeps each matrix's (mpiclass.c) and gives
   it the choice, the backend and the storage's blocks and ghost columns (mpighosts.h). */
#include "common/gpumats_impl.h"
#include "common/mpighosts.h"

#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  #include "cuda/common/gpumats_cuda.h" /* GpuMatsCUDADeviceUUID */
  #include "cuda/common/gpumats_ghosts.h"

struct _n_GpuMatsGhosts {
  PetscObjectId      Ao;             /* the off-process block it was made for (its id: a new block may */
  PetscObjectState   Ao_nonzerostate; /*   take the old one's address), that block's pattern, */
  PetscInt           nghost;         /*   its columns, */
  PetscObjectState   nonzerostate;   /*   and the MPI matrix's pattern */
  PetscBool          pinned;         /* the exchange below is taken (else PETSc's scatter: nothing more is made) */
  PetscMPIInt        nto, nfrom, tag;
  PetscMPIInt       *to, *from;      /* the ranks sent to and received from */
  PetscInt          *tostart, *fromstart; /* nto + 1, nfrom + 1 offsets into the send and receive buffers */
  MPI_Request       *requests;       /* nto + nfrom */
  MPI_Status        *statuses;       /* theirs: GCC takes MPICH's MPI_STATUSES_IGNORE for an array of size 0 */
  GpuMatsGhostCopies copies;
  Vec                lvec;           /* the ghost values on the device */
};

PetscErrorCode GpuMatsGhostsDestroy(GpuMatsGhosts *ghosts)
{
  GpuMatsGhosts g = *ghosts;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4(g->to, g->from, g->tostart, g->fromstart));
  PetscCall(PetscFree2(g->requests, g->statuses));
  PetscCall(GpuMatsGhostCopiesDestroy(&g->copies));
  PetscCall(VecDestroy(&g->lvec));
  PetscCall(PetscFree(*ghosts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GpuMatsGhostsShareGPU's answer, which cannot change within a run, kept on the communicator as
   an attribute (a PetscBool, freed with the communicator); the keyval is made at the first question */
static PetscMPIInt GpuMatsGhostsShareGPUKeyval = MPI_KEYVAL_INVALID;

static PetscMPIInt MPIAPI GpuMatsGhostsShareGPUDelete(MPI_Comm comm, PetscMPIInt keyval, void *shared, void *extra)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(shared));
  PetscFunctionReturn(MPI_SUCCESS);
}

static PetscErrorCode GpuMatsGhostsFinalize(void)
{
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_free_keyval(&GpuMatsGhostsShareGPUKeyval)); /* the attributes set stay until their communicators go */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether two processes of A's communicator use the same GPU (collective).  The attribute is set
   on every process of comm at once, after the reductions, so every process finds it or none does. */
static PetscErrorCode GpuMatsGhostsShareGPU(MPI_Comm comm, PetscBool *shared)
{
  MPI_Comm      node;
  PetscMPIInt   n, found;
  PetscBool    *cached;
  unsigned char mine[16], *all;

  PetscFunctionBegin;
  if (GpuMatsGhostsShareGPUKeyval == MPI_KEYVAL_INVALID) {
    PetscCallMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, GpuMatsGhostsShareGPUDelete, &GpuMatsGhostsShareGPUKeyval, NULL));
    PetscCall(PetscRegisterFinalize(GpuMatsGhostsFinalize));
  }
  PetscCallMPI(MPI_Comm_get_attr(comm, GpuMatsGhostsShareGPUKeyval, &cached, &found));
  if (found) {
    *shared = *cached;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *shared = PETSC_FALSE;
  PetscCall(GpuMatsCUDADeviceUUID(mine));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &n));
  PetscCall(PetscMalloc1(16 * (size_t)n, &all));
  PetscCallMPI(MPI_Allgather(mine, 16, MPI_UNSIGNED_CHAR, all, 16, MPI_UNSIGNED_CHAR, node));
  for (PetscMPIInt a = 0; a < n && !*shared; a++)
    for (PetscMPIInt b = a + 1; b < n && !*shared; b++) PetscCall(PetscMemcmp(all + 16 * a, all + 16 * b, 16, shared));
  PetscCall(PetscFree(all));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, shared, 1, GPUMATS_MPI_BOOL, MPI_LOR, comm));
  PetscCall(PetscNew(&cached));
  *cached = *shared;
  PetscCallMPI(MPI_Comm_set_attr(comm, GpuMatsGhostsShareGPUKeyval, cached));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each ghost column's owner is found and told which of its values this process needs; each
   process keeps the lists of its own values that the others need */
static PetscErrorCode GpuMatsGhostsCreate(Mat A, Mat Ao, const PetscInt garray[], PetscBool3 use, GpuMatsGhosts *ghosts)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt  nghost = Ao->cmap->n;
  const PetscInt *ranges;
  PetscMPIInt     size, *nrecv, *nsend, *rdispl, *sdispl, p = 0;
  PetscInt       *sendidx, nsendall = 0;
  GpuMatsGhosts   g;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  *ghosts            = g;
  g->Ao              = ((PetscObject)Ao)->id;
  g->Ao_nonzerostate = Ao->nonzerostate;
  g->nghost          = nghost;
  g->nonzerostate    = A->nonzerostate;
  g->pinned          = (PetscBool)(use == PETSC_BOOL3_TRUE);
  if (use == PETSC_BOOL3_UNKNOWN) { /* the same choice on every process: the exchanges must match */
    PetscReal most = (PetscReal)nghost / (PetscReal)PetscMax(A->rmap->n, 1);
    PetscBool shared;

    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCall(GpuMatsGhostsShareGPU(comm, &shared));
    g->pinned = (PetscBool)(!shared || most >= GPUMATS_PINNED_GHOSTS_FRACTION);
    PetscCall(PetscInfo(A, "Ghost values %s: %s, at most %.3g ghosts a row on a process (pinned buffers on a GPU a process, or from %g ghosts a row; -mat_gpumats_pinned_ghosts chooses)\n", g->pinned ? "through pinned buffers" : "by PETSc's scatter", shared ? "processes share a GPU" : "a GPU a process", (double)most, (double)GPUMATS_PINNED_GHOSTS_FRACTION));
  }
  if (!g->pinned) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLayoutGetRanges(A->cmap, &ranges));
  PetscCall(PetscCalloc4(size, &nrecv, size, &nsend, size + 1, &rdispl, size + 1, &sdispl));
  for (PetscInt k = 0; k < nghost; k++) {
    while (garray[k] >= ranges[p + 1]) p++;
    nrecv[p]++;
  }
  PetscCallMPI(MPI_Alltoall(nrecv, 1, MPI_INT, nsend, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    rdispl[r + 1] = rdispl[r] + nrecv[r];
    sdispl[r + 1] = sdispl[r] + nsend[r];
  }
  nsendall = sdispl[size];
  PetscCall(PetscMalloc1(nsendall, &sendidx));
  PetscCallMPI(MPI_Alltoallv(garray, nrecv, rdispl, MPIU_INT, sendidx, nsend, sdispl, MPIU_INT, comm));
  for (PetscInt k = 0; k < nsendall; k++) sendidx[k] -= A->cmap->rstart;

  for (PetscMPIInt r = 0; r < size; r++) {
    if (nsend[r]) g->nto++;
    if (nrecv[r]) g->nfrom++;
  }
  PetscCall(PetscMalloc4(g->nto, &g->to, g->nfrom, &g->from, g->nto + 1, &g->tostart, g->nfrom + 1, &g->fromstart));
  PetscCall(PetscMalloc2(g->nto + g->nfrom, &g->requests, g->nto + g->nfrom, &g->statuses));
  g->nto = g->nfrom = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    if (nsend[r]) {
      g->to[g->nto]        = r;
      g->tostart[g->nto++] = sdispl[r];
    }
    if (nrecv[r]) {
      g->from[g->nfrom]        = r;
      g->fromstart[g->nfrom++] = rdispl[r];
    }
  }
  g->tostart[g->nto]     = nsendall;
  g->fromstart[g->nfrom] = nghost;
  PetscCall(PetscCommGetNewTag(comm, &g->tag));
  PetscCall(GpuMatsGhostCopiesCreate(nsendall, sendidx, nghost, &g->copies));
  PetscCall(PetscFree(sendidx));
  PetscCall(PetscFree4(nrecv, nsend, rdispl, sdispl));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, nghost, &g->lvec));
  PetscCall(PetscInfo(A, "Ghost values through pinned buffers: %" PetscInt_FMT " received from %d processes, %" PetscInt_FMT " sent to %d\n", nghost, g->nfrom, nsendall, g->nto));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x (+ y0) with the exchange above; *done false (nothing done) where it does not apply:
   host vectors, one process, GPU-aware MPI, products on the host.  The same on every process. */
PetscErrorCode GpuMatsGhostsMult(GpuMatsGhosts *ghosts, PetscBool3 use, GpuMatsBackend backend, PetscErrorCode (*get_blocks)(Mat, Mat *, Mat *), PetscErrorCode (*get_ghost_columns)(Mat, const PetscInt *[]), Mat A, Vec x, Vec y0, Vec y, PetscBool *done)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad, Ao;
  const PetscInt    *garray;
  const PetscScalar *xa;
  PetscScalar       *send, *recv, *la;
  PetscMemType       mtype;
  PetscMPIInt        size;
  PetscBool          cuda, device, stale;
  GpuMatsGhosts      g;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1 || use_gpu_aware_mpi || !A->assembled || use == PETSC_BOOL3_FALSE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECMPICUDA, VECSEQCUDA, ""));
  PetscCall(GpuMatsBackendUsesDevice(A, backend, &device));
  if (!cuda || !device) PetscFunctionReturn(PETSC_SUCCESS);
  /* PETSc's scatter chosen and A's nonzero state unchanged: no reduction.  Every process takes
     this branch or none: g and g->pinned were made together, and A->nonzerostate is the same on
     every process (PETSc sets it by a reduction or raises it in collective calls).  A change it
     misses only leaves the choice by the ghost count as it was: the scatter is right for any
     pattern. */
  g = *ghosts;
  if (g && !g->pinned && g->nonzerostate == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  /* Else made again on every process when it is stale on one: the making is collective and the
     pinned exchange needs every process's ghosts.  A->nonzerostate alone would miss changes (a
     new preallocation can bring it back to its value with other ghosts), and one process's
     off-diagonal block can change alone without raising it (a new entry in a ghost column where
     the diagonal block may not allocate): only the reduction makes the processes agree. */
  PetscCall((*get_blocks)(A, &Ad, &Ao));
  PetscCall((*get_ghost_columns)(A, &garray));
  stale = (PetscBool)(!g || g->Ao != ((PetscObject)Ao)->id || g->Ao_nonzerostate != Ao->nonzerostate || g->nghost != Ao->cmap->n || g->nonzerostate != A->nonzerostate);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &stale, 1, GPUMATS_MPI_BOOL, MPI_LOR, comm));
  if (stale) {
    PetscCall(GpuMatsGhostsDestroy(ghosts));
    PetscCall(GpuMatsGhostsCreate(A, Ao, garray, use, ghosts));
  }
  g = *ghosts;
  if (!g->pinned) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mtype));
  PetscCall(GpuMatsGhostCopiesPack(g->copies, xa));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (y0) PetscCall((*Ad->ops->multadd)(Ad, x, y0, y));
  else PetscCall((*Ad->ops->mult)(Ad, x, y));
  /* the diagonal block's product runs on the device while the values travel */
  PetscCall(GpuMatsGhostCopiesWaitPacked(g->copies, &send, &recv));
  for (PetscMPIInt i = 0; i < g->nfrom; i++) PetscCallMPI(MPI_Irecv(recv + g->fromstart[i], (PetscMPIInt)(g->fromstart[i + 1] - g->fromstart[i]), MPIU_SCALAR, g->from[i], g->tag, comm, &g->requests[i]));
  for (PetscMPIInt i = 0; i < g->nto; i++) PetscCallMPI(MPI_Isend(send + g->tostart[i], (PetscMPIInt)(g->tostart[i + 1] - g->tostart[i]), MPIU_SCALAR, g->to[i], g->tag, comm, &g->requests[g->nfrom + i]));
  PetscCallMPI(MPI_Waitall(g->nfrom + g->nto, g->requests, g->statuses));
  if (g->nghost) {
    PetscCall(VecGetArrayWriteAndMemType(g->lvec, &la, &mtype));
    PetscCall(GpuMatsGhostCopiesUnpack(g->copies, la));
    PetscCall(VecRestoreArrayWriteAndMemType(g->lvec, &la));
    PetscCall((*Ao->ops->multadd)(Ao, g->lvec, y, y));
  }
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
