/* The ghost values of an MPI matrix through pinned buffers of the matrix's own (mpighosts.c,
   CUDA).  The exchange knows no MPI class: whoever keeps it (the MPI mechanism, mpiclass.h, one
   for each matrix) gives it the choice, the backend and how to find the matrix's blocks. */
#pragma once
#include <gpumats.h>
#include "gpumats_config.h"

typedef struct _n_GpuMatsGhosts *GpuMatsGhosts;

#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
/* y = A x (+ y0 when not NULL) with the exchange in *ghosts, made (again) when A's pattern
   changed; *done false, nothing done, where it does not apply (host vectors, one process,
   GPU-aware MPI, products on the host: 'backend') or is not taken ('use' false, or unknown (auto)
   with processes sharing a GPU and the ghosts few: GPUMATS_PINNED_GHOSTS_FRACTION): the same
   answer on every process.  get_blocks gives A's diagonal and off-process blocks, and
   get_ghost_columns the global column of each column of the off-process block (ascending); both
   are asked only where the exchange applies. */
#define GPUMATS_PINNED_GHOSTS_FRACTION 0.1
PETSC_INTERN PetscErrorCode GpuMatsGhostsMult(GpuMatsGhosts *ghosts, PetscBool3 use, GpuMatsBackend backend, PetscErrorCode (*get_blocks)(Mat, Mat *, Mat *), PetscErrorCode (*get_ghost_columns)(Mat, const PetscInt *[]), Mat A, Vec x, Vec y0, Vec y, PetscBool *done);
PETSC_INTERN PetscErrorCode GpuMatsGhostsDestroy(GpuMatsGhosts *);
#endif
