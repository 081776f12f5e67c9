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
/* Many rows at once, in parallel where the library was compiled with OpenMP: threads of
   this process (FCIRowGeneratorSetThreads; default OpenMP's, 1 without OpenMP).
   CountRows: for each row r in rstart..rend-1, its entries with a column in
   cstart..cend-1 (dnz[r-rstart]) and outside (onz), and of those the ones with a column
   >= r (dnzu, onzu); onz, dnzu and onzu may be NULL.  With cstart 0 and cend ndet, dnz
   is the row length.
   GetRows: rows rstart..rend-1 into cols[] and vals[], row r at offset[r-rstart] -
   offset[0], its length offset[r-rstart+1] - offset[r-rstart] (rend-rstart+1 offsets),
   i.e. the prefix sums of the lengths CountRows gave; a row of another length is an
   error, never an overflow. */
PetscErrorCode FCIRowGeneratorSetThreads(FCIRowGenerator gen, PetscInt nthreads);
PetscErrorCode FCIRowGeneratorGetThreads(FCIRowGenerator gen, PetscInt *nthreads);
PetscErrorCode FCIRowGeneratorCountRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, PetscInt dnz[], PetscInt onz[], PetscInt dnzu[], PetscInt onzu[]);
PetscErrorCode FCIRowGeneratorGetRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, const PetscInt64 offset[], PetscInt cols[], PetscScalar vals[]);
/* GetSplitRows: rows rstart..rend-1 as the two CSR blocks of a process of an MPIAIJ matrix
   (MatCreateMPIAIJWithSplitArrays): the entries with a column in cstart..cend-1 go to
   dcols (as column - cstart) and dvals from doffset[r-rstart], the others to ocols (global
   columns) and ovals from ooffset[r-rstart]; the offsets are the prefix sums of CountRows'
   dnz and onz, from 0.  ooffset, ocols and ovals may be NULL when no row has entries outside
   (cstart 0, cend ndet).  A row of other lengths is an error, never an overflow. */
PetscErrorCode FCIRowGeneratorGetSplitRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, const PetscInt doffset[], PetscInt dcols[], PetscScalar dvals[], const PetscInt ooffset[], PetscInt ocols[], PetscScalar ovals[]);
/* SweepSplitRows: what CountRows' dnz and onz and then GetSplitRows give, with each row made
   once: the threads keep the two parts of the rows they make in memory blocks of their own
   (*rows); FCISplitRowsCopy (once) copies them to the slots GetSplitRows would write (offsets the
   prefix sums of dnz and onz; ooffset, ocols and ovals NULL when onz was), each thread a
   contiguous range of rows, giving each block back as soon as its rows are copied;
   FCISplitRowsDestroy frees the rest.  Until then part of the rows is in memory twice: where a
   block, or the record of where each row went, cannot be allocated, *rows is NULL, nothing is held
   and the caller can make the rows in two sweeps instead (CountRows, GetSplitRows).  onz may be
   NULL only with cstart 0 and cend ndet. */
typedef struct _n_FCISplitRows *FCISplitRows;
PetscErrorCode FCIRowGeneratorSweepSplitRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, PetscInt dnz[], PetscInt onz[], FCISplitRows *rows);
PetscErrorCode FCISplitRowsCopy(FCISplitRows rows, const PetscInt doffset[], PetscInt dcols[], PetscScalar dvals[], const PetscInt ooffset[], PetscInt ocols[], PetscScalar ovals[]);
PetscErrorCode FCISplitRowsDestroy(FCISplitRows *rows);

/* Fills A with the Hamiltonian.  A comes from MatCreate (+ MatSetType or
   MatSetFromOptions: any type that accepts MatSetValues, e.g. aij, sbaij,
   dense, cihybrid); if its sizes are not set they become
   PETSC_DECIDE x PETSC_DECIDE of ndet x ndet, else they must be ndet x ndet
   with equal row and column layouts.  Each rank generates only the rows it
   owns (two sweeps: exact counts for MatXAIJSetPreallocation, then one
   MatSetValues per row), with threads: -fci_threads <n>, else OMP_NUM_THREADS,
   else the cores shared among the ranks of the node; no communication beyond
   the assembly.  For SBAIJ
   only the upper triangle is kept.  A is assembled and marked symmetric.
   Save it with MatView on a binary viewer if wanted. */
PetscErrorCode FCIHamiltonianAssemble(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, Mat A);
/* A new matrix of the type the options give (options prefix 'prefix', may be NULL; aij by
   default), as MatCreate + MatSetSizes + MatSetFromOptions + FCIHamiltonianAssemble would make
   it.  For the AIJ family (aij and its subclasses: cihybrid, pcsr, aijcusparse, ...) made on the
   host, the threads make each row once and copy it into the CSR arrays of each process, which
   the matrix takes without a copy (MatCreateSeqAIJWithArrays / MatCreateMPIAIJWithSplitArrays,
   then converted to the type; the arrays are freed with the matrix): no MatSetValues, no
   preallocation pass.
   Other types, and the GPU build of cihybrid, as FCIHamiltonianAssemble. */
PetscErrorCode FCIHamiltonianCreate(MPI_Comm comm, const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, const char prefix[], Mat *A);
