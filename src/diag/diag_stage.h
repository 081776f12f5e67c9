/* Entries set before the diagonals are known (before the first assembly): which diagonals
   they lie on, one mark per offset, and the values in the order they were set (triples).
   Everything grows with the entries set, never with rows x diagonals: the fill limit is
   checked against the entries before the diagonals are allocated. */
#pragma once
#include "common/gpumats_impl.h" /* PETSC_SUCCESS on PETSc 3.18 */

/* (row, column, value, mode) in the order set; the MPI staging adds a phase per flush assembly */
typedef struct {
  PetscInt64     count, capacity;
  PetscInt      *ti, *tj;
  PetscScalar   *tv;
  unsigned char *tadd; /* 1: ADD_VALUES, 0: INSERT_VALUES */
} DiagTriples;

PETSC_INTERN PetscErrorCode DiagTriplesReserve(DiagTriples *, PetscInt64 more);
PETSC_INTERN PetscErrorCode DiagTriplesAppend(DiagTriples *, PetscInt i, PetscInt j, PetscScalar v, InsertMode mode);
PETSC_INTERN PetscErrorCode DiagTriplesCopy(const DiagTriples *, DiagTriples *);
PETSC_INTERN PetscErrorCode DiagTriplesFree(DiagTriples *);

typedef struct {
  PetscInt       m, n;
  unsigned char *present;  /* m + n - 1: HM offset d = j - i marked at d + m - 1 */
  PetscInt64     nset;     /* entries set, repeats included: what the fill limit is measured by */
  DiagTriples    values;   /* every entry set, zeros included: the values and the structure */
  PetscBool      ignore_zero_entries;
} DiagStage;

PETSC_INTERN PetscErrorCode DiagStageCreate(PetscInt m, PetscInt n, DiagStage **);
PETSC_INTERN PetscErrorCode DiagStageDestroy(DiagStage **);
PETSC_INTERN PetscErrorCode DiagStageDuplicate(const DiagStage *, PetscBool values, DiagStage **);
/* MatSetValues' block, local indices (negative ones ignored, others checked against m, n) */
PETSC_INTERN PetscErrorCode DiagStageAdd(DiagStage *, PetscInt mr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], const PetscScalar v[], PetscBool column_oriented, InsertMode mode);
PETSC_INTERN PetscErrorCode DiagStageZeroEntries(DiagStage *);
