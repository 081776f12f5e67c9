/* The full-CI Hamiltonian in the Slater-determinant basis of an FCIDetSpace,
   row by row (Slater-Condon rules, table driven), and assembled into a PETSc
   Mat of any type.

   A row is generated from its determinant's excitations, never by testing
   pairs: the diagonal, the alpha and beta single excitations, the
   alpha-alpha and beta-beta doubles and the alpha-beta doubles.  Per-string
   tables made once (each string's single excitations with target string,
   phase and same-spin part of the element; each string's nonzero same-spin
   doubles with their full element) turn a row into table look-ups; the
   column of a target determinant is its lexical index (string ranks plus an
   offset, O(1)) mapped through the ordering permutation.  Entries whose
   value is exactly zero (|v| <= droptol) are dropped, except the diagonal,
   which is always stored; the core energy is on the diagonal.  The dropping
   rule is symmetric, so the matrix is exactly symmetric.

   Memory of the tables: about 16 bytes x (strings x (singles + nonzero
   doubles)) per spin, e.g. 6 MB for H2O/6-31G (13 orbitals, 5+5 electrons). */
#pragma once
#include <petscmat.h>
#include "determinants.h"

typedef struct _n_FCIRowGenerator *FCIRowGenerator;

PetscErrorCode FCIRowGeneratorCreate(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, FCIRowGenerator *gen);
PetscErrorCode FCIRowGeneratorDestroy(FCIRowGenerator *gen);
/* Most entries a row can have (a bound for the cols/vals arrays). */
PetscErrorCode FCIRowGeneratorGetMaxRowLength(FCIRowGenerator gen, PetscInt *maxlen);
/* Row 'row' (basis index of the space's ordering): nz entries, columns
   ascending, into cols[] and vals[] of FCIRowGeneratorGetMaxRowLength entries. */
PetscErrorCode FCIRowGeneratorGetRow(FCIRowGenerator gen, PetscInt row, PetscInt *nz, PetscInt cols[], PetscScalar vals[]);
/* The same row, callable from several threads at once on one generator (e.g. an
   OpenMP loop over rows): plain C, no PETSc error or stack handling (row must
   be in 0..ndet-1), and the work arrays the excitation ordering needs come
   from the caller, maxlen entries each, one set per thread (with the lexical
   ordering they are not touched and may be NULL).  Returns the number of
   entries written to cols[] and vals[]. */
PetscInt FCIRowGeneratorGetRowThreadSafe(FCIRowGenerator gen, PetscInt row, PetscInt cols[], PetscScalar vals[], PetscInt wcols[], PetscScalar wvals[], unsigned char wlev[]);

/* Fills A with the Hamiltonian.  A comes from MatCreate (+ MatSetType or
   MatSetFromOptions: any type that accepts MatSetValues, e.g. aij, sbaij,
   dense, cihybrid); if its sizes are not set they become
   PETSC_DECIDE x PETSC_DECIDE of ndet x ndet, else they must be ndet x ndet
   with equal row and column layouts.  Each rank generates only the rows it
   owns (two sweeps: exact counts for MatXAIJSetPreallocation, then one
   MatSetValues per row); no communication beyond the assembly.  For SBAIJ
   only the upper triangle is kept.  A is assembled and marked symmetric.
   Save it with MatView on a binary viewer if wanted. */
PetscErrorCode FCIHamiltonianAssemble(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, Mat A);
/* MatCreate + MatSetSizes + MatSetFromOptions (options prefix 'prefix', may be NULL) + FCIHamiltonianAssemble. */
PetscErrorCode FCIHamiltonianCreate(MPI_Comm comm, const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, const char prefix[], Mat *A);
