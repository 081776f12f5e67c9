/* The device side of a ghost exchange through pinned host buffers (gpumats_ghosts.cu), for
   src/common/mpighosts.c.  Plain C.
     Create:     nsend local indices of x whose values go to other processes, nrecv ghosts.
     Pack:       gathers those values of x (device) and copies them to the pinned send buffer,
                 queued on GpuMatsCUDAGetStream(); what is queued after it may still run when
     WaitPacked: returns, with the pinned send and receive buffers (at once where there are
                 neither values to send nor ghosts).
     Unpack:     the receive buffer to 'ghosts' (device, nrecv values), queued on the stream. */
#pragma once
#include <petscsys.h>

typedef struct _n_GpuMatsGhostCopies *GpuMatsGhostCopies;

PetscErrorCode GpuMatsGhostCopiesCreate(PetscInt nsend, const PetscInt idx[], PetscInt nrecv, GpuMatsGhostCopies *copies);
PetscErrorCode GpuMatsGhostCopiesDestroy(GpuMatsGhostCopies *copies);
PetscErrorCode GpuMatsGhostCopiesPack(GpuMatsGhostCopies copies, const PetscScalar *x);
PetscErrorCode GpuMatsGhostCopiesWaitPacked(GpuMatsGhostCopies copies, PetscScalar **send, PetscScalar **recv);
PetscErrorCode GpuMatsGhostCopiesUnpack(GpuMatsGhostCopies copies, PetscScalar *ghosts);
