/* The exit status of a test program whose own main (Main) returns a PETSc error code from
   PetscCall: meson reads 77, PETSC_ERR_PLIB, the code of the tests' checks, as 'skipped', so any
   error becomes 1, and a process that stopped with MPI still running aborts the others.  A test
   that is skipped returns TEST_EXIT_SKIP from Main. */
#pragma once
#include <mpi.h>

#define TEST_EXIT_SKIP (-77)

static inline int TestExitStatus(int status)
{
  int finalized = 1;

  if (status == TEST_EXIT_SKIP) return 77;
  if (status && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  return status ? 1 : 0;
}
