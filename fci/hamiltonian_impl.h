/* Private to the FCI builders: the per-string excitation tables and the row generator behind
   hamiltonian.h, shared by the host rows (hamiltonian.c) and the device rows
   (hamiltonian_device.cu).  Plain C. */
#pragma once
#include "hamiltonian.h"

typedef struct {
  PetscInt       n;          /* electrons */
  PetscInt       nstr, nsgl; /* strings; singles per string n*(norb-n) */
  PetscInt      *sgl_target; /* [nstr*nsgl] target string */
  unsigned char *sgl_i, *sgl_a;
  PetscReal     *sgl_sign;   /* +-1 */
  PetscReal     *sgl_val;    /* phase * (h_ia + same-spin two-electron part) */
  PetscInt      *dbl_start;  /* [nstr+1] nonzero same-spin doubles of each string */
  PetscInt      *dbl_target;
  PetscReal     *dbl_val;    /* phase * ((ia|jb) - (ib|ja)) */
  PetscReal     *energy;     /* [nstr] sum h_ii + 1/2 sum [(ii|jj) - (ij|ji)] over the string */
} FCIStringTable;

struct _n_FCIRowGenerator {
  const FCIIntegrals *ints;
  const FCIDetSpace  *sp;
  PetscReal           droptol;
  FCIStringTable      ta, tb;
  const FCIStringTable *pa, *pb; /* pb == pa when both spins have the same electron count */
  PetscBool          *pair_nz;   /* [norb*norb]: some (ia|jb) != 0 */
  PetscReal          *J;         /* (ii|jj) */
  PetscInt            maxlen;
  int                 nthreads; /* of the row sweeps (FCIForEachRow) */
  PetscInt           *wcols;    /* work row of FCIRowGeneratorGetRow for the excitation ordering */
  PetscScalar        *wvals;
  unsigned char      *wlev;
};
