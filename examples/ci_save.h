/* -save FILE of the main job (ci_save.c): the matrix written so that FILE is never half written. */
#pragma once
#include <petscmat.h>

/* Before any work: FILE must not be a directory, and its directory must let rank 0 create the
   temporary.  Collective. */
PetscErrorCode CISaveCheckTarget(MPI_Comm comm, const char file[]);
/* Writes A as PETSc binary to FILE through a temporary renamed onto it once complete (with PETSc's
   FILE.info); an error, a fatal signal, SIGINT or SIGTERM before the rename removes the temporary.
   Collective. */
PetscErrorCode CISaveMatrix(Mat A, const char file[]);
