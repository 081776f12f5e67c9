/* A deterministic generator of paper-like CI matrices (Mahmoud, Hoffmann,
   Reza 2018, Tables 3-4): every row has 'ref_density' of its entries in the
   first ref_fraction*n columns (the reference block) and 'density' elsewhere;
   a dominant, increasing diagonal makes it Hamiltonian-like. Row i depends
   only on (spec, i), so any rank can build any row. Plain C, PETSc types. */
#pragma once
#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct {
  PetscInt      n;            /* rows = columns */
  double        ref_fraction; /* width of the reference block, e.g. 0.10 */
  double        ref_density;  /* density inside it, e.g. 0.20 */
  double        density;      /* density elsewhere, e.g. 0.01 */
  PetscBool     symmetric;    /* if true, row i returns only columns j >= i (mirror them) */
  unsigned long seed;
} CISyntheticSpec;

/* Upper bound on the entries CISyntheticRow can return for any row. */
PetscInt CISyntheticMaxRowLength(const CISyntheticSpec *spec);
/* Row i, columns sorted ascending, diagonal included; cols/vals hold CISyntheticMaxRowLength entries. */
void     CISyntheticRow(const CISyntheticSpec *spec, PetscInt i, PetscInt *nz, PetscInt *cols, PetscScalar *vals);

#if defined(__cplusplus)
}
#endif
