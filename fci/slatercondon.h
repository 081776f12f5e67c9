/* Matrix elements between two Slater determinants, one at a time
   (Slater-Condon rules in spin orbitals).  Independent of the table-driven
   builder in hamiltonian.c, and slower: for diagonals, checks and small
   problems.  A determinant is (alpha string, beta string), see determinants.h. */
#pragma once
#include <stdint.h>
#include "fcidump.h"

/* <D|H|D>, core energy included. */
PetscReal FCISlaterCondonDiagonal(const FCIIntegrals *ints, uint64_t alpha, uint64_t beta);
/* <D1|H|D2> for any two determinants with the same electron counts: 0 beyond
   double excitations, the core energy included on the diagonal. */
PetscReal FCISlaterCondonElement(const FCIIntegrals *ints, uint64_t alpha1, uint64_t beta1, uint64_t alpha2, uint64_t beta2);
