/* A process's COO entries split by the owner of their row (diag's COO, and the device values of
   the MPI types, common/mpicoo.c): the entries of its own rows are kept with their place in the
   value array; those of other processes' rows are sent to their owner once, as indices, so that
   each MatSetValuesCOO sends only values. */
#include "common/gpumats_coo.h"

PetscErrorCode GpuMatsCOOSplitCreate(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], GpuMatsCOOSplit *s)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt rank, *next;
  PetscInt   *send_ij;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCallMPI(MPI_Comm_size(comm, &s->size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  s->n = n;
  PetscCall(PetscCalloc4(s->size, &s->scount, s->size, &s->sdispl, s->size, &s->rcount, s->size, &s->rdispl));
  for (PetscCount k = 0; k < n; k++) {
    PetscMPIInt owner;

    if (ci[k] < 0 || cj[k] < 0) continue;
    PetscCall(PetscLayoutFindOwner(A->rmap, ci[k], &owner));
    if (owner == rank) s->nown++;
    else {
      s->scount[owner]++;
      s->nsend++;
    }
  }
  PetscCall(PetscMalloc3(s->nown, &s->own_i, s->nown, &s->own_j, s->nown, &s->own_k));
  PetscCall(PetscMalloc1(s->nsend, &s->send_k));
  PetscCall(PetscMalloc1(s->size, &next));
  for (PetscMPIInt p = 1; p < s->size; p++) s->sdispl[p] = s->sdispl[p - 1] + s->scount[p - 1];
  for (PetscMPIInt p = 0; p < s->size; p++) next[p] = s->sdispl[p];
  PetscCall(PetscMalloc1(2 * s->nsend, &send_ij));
  s->nown = 0;
  for (PetscCount k = 0; k < n; k++) {
    PetscMPIInt owner;

    if (ci[k] < 0 || cj[k] < 0) continue;
    PetscCall(PetscLayoutFindOwner(A->rmap, ci[k], &owner));
    if (owner == rank) {
      s->own_i[s->nown] = ci[k];
      s->own_j[s->nown] = cj[k];
      s->own_k[s->nown] = k;
      s->nown++;
    } else {
      s->send_k[next[owner]]       = k;
      send_ij[2 * next[owner]]     = ci[k];
      send_ij[2 * next[owner] + 1] = cj[k];
      next[owner]++;
    }
  }
  PetscCall(PetscFree(next));
  if (s->size > 1) {
    PetscMPIInt *s2, *sd2, *r2, *rd2;
    PetscInt    *recv_ij;

    PetscCallMPI(MPI_Alltoall(s->scount, 1, MPI_INT, s->rcount, 1, MPI_INT, comm));
    for (PetscMPIInt p = 1; p < s->size; p++) s->rdispl[p] = s->rdispl[p - 1] + s->rcount[p - 1];
    s->nrecv = (PetscCount)s->rdispl[s->size - 1] + s->rcount[s->size - 1];
    PetscCall(PetscMalloc2(s->nrecv, &s->recv_i, s->nrecv, &s->recv_j));
    PetscCall(PetscMalloc1(2 * s->nrecv, &recv_ij));
    PetscCall(PetscMalloc4(s->size, &s2, s->size, &sd2, s->size, &r2, s->size, &rd2));
    for (PetscMPIInt p = 0; p < s->size; p++) {
      s2[p]  = 2 * s->scount[p];
      sd2[p] = 2 * s->sdispl[p];
      r2[p]  = 2 * s->rcount[p];
      rd2[p] = 2 * s->rdispl[p];
    }
    PetscCallMPI(MPI_Alltoallv(send_ij, s2, sd2, MPIU_INT, recv_ij, r2, rd2, MPIU_INT, comm));
    PetscCall(PetscFree4(s2, sd2, r2, rd2));
    for (PetscCount k = 0; k < s->nrecv; k++) {
      s->recv_i[k] = recv_ij[2 * k];
      s->recv_j[k] = recv_ij[2 * k + 1];
    }
    PetscCall(PetscFree(recv_ij));
  } else {
    PetscCall(PetscMalloc2(0, &s->recv_i, 0, &s->recv_j));
  }
  PetscCall(PetscFree(send_ij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOSplitExchange(Mat A, const GpuMatsCOOSplit *s, const PetscScalar sendbuf[], PetscScalar recvbuf[])
{
  PetscFunctionBegin;
  if (s->size > 1) PetscCallMPI(MPI_Alltoallv(sendbuf, s->scount, s->sdispl, MPIU_SCALAR, recvbuf, s->rcount, s->rdispl, MPIU_SCALAR, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOSplitDestroy(GpuMatsCOOSplit *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(s->own_i, s->own_j, s->own_k));
  PetscCall(PetscFree(s->send_k));
  PetscCall(PetscFree4(s->scount, s->sdispl, s->rcount, s->rdispl));
  PetscCall(PetscFree2(s->recv_i, s->recv_j));
  PetscFunctionReturn(PETSC_SUCCESS);
}
