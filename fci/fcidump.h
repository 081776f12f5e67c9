/* One- and two-electron integrals of a Configuration-Interaction problem:
   read from an FCIDUMP file (Knowles & Handy, Comput. Phys. Commun. 54, 75
   (1989)) or made in memory for the Hubbard model.

   Orbitals are numbered from 0 in memory (1 in the file).  Real orbitals:
     h[i*norb + j]                      = h_ij = h_ji
     eri[((i*norb + j)*norb + k)*norb + l] = (ij|kl), chemists' notation, all
                                           8 permutations filled
   The Hamiltonian is
     H = ecore + sum_ij h_ij sum_s a+_is a_js
               + 1/2 sum_ijkl (ij|kl) sum_st a+_is a+_kt a_lt a_js.
   eri is dense (norb^4 doubles: 6.5 MB at norb = 30). */
#pragma once
#include <petscsys.h>
#include <petscviewer.h>

typedef struct {
  PetscInt   norb;   /* spatial orbitals, 1..64 */
  PetscInt   nelec;  /* electrons */
  PetscInt   ms2;    /* 2*S_z = n_alpha - n_beta */
  PetscInt   isym;   /* irrep of the wanted state, 1..8 (FCIDUMP ISYM; 1 if absent; 0 where the file says 0: -fci_sector isym refuses it) */
  PetscInt  *orbsym; /* irrep of each orbital, 1..8 (FCIDUMP ORBSYM; all 1 if absent) */
  PetscReal  ecore;  /* constant: nuclear repulsion + frozen core */
  PetscReal *h;      /* norb x norb */
  PetscReal *eri;    /* norb^4 */
} FCIIntegrals;

/* Index of (ij|kl) in eri; i, j, k, l from 0. */
#define FCI_ERI_INDEX(n, i, j, k, l) ((((size_t)(i) * (size_t)(n) + (size_t)(j)) * (size_t)(n) + (size_t)(k)) * (size_t)(n) + (size_t)(l))

/* Zeroed integrals for norb orbitals: nelec 0, ms2 0, isym 1, orbsym all 1, ecore 0. */
PetscErrorCode FCIIntegralsCreate(PetscInt norb, FCIIntegrals **ints);
PetscErrorCode FCIIntegralsDestroy(FCIIntegrals **ints);
/* Sets (ij|kl) and its 7 symmetric partners (indices from 0). */
PetscErrorCode FCIIntegralsSetERI(FCIIntegrals *ints, PetscInt i, PetscInt j, PetscInt k, PetscInt l, PetscReal value);
/* Sets h_ij and h_ji (indices from 0). */
PetscErrorCode FCIIntegralsSetOneElectron(FCIIntegrals *ints, PetscInt i, PetscInt j, PetscReal value);
/* Number of alpha and beta electrons, (NELEC +- MS2)/2, checked against norb. */
PetscErrorCode FCIIntegralsGetElectrons(const FCIIntegrals *ints, PetscInt *nalpha, PetscInt *nbeta);
PetscErrorCode FCIIntegralsView(const FCIIntegrals *ints, PetscViewer viewer);

/* Reads an FCIDUMP file.  Collective: rank 0 reads the file, every rank
   parses the same bytes, so every rank returns the same integrals or the same
   error.  Header: a Fortran namelist '&FCI ... /' or '&FCI ... &END' read as
   free-form 'KEY=value[,value...]' tokens, any line breaks and commas
   (Molpro, CheMPS2, psi4, PySCF, HANDE, NECI styles).  Keys:
     NORB (1..64), NELEC        required
     MS2 (0), ISYM (1), ORBSYM  (all 1) optional
     UHF, IUHF, TREL            must be false: spin-orbital and relativistic
                                integrals are refused
     SYMLZ, NPROP, FROZEN       refused unless trivial (all 0, all <= 1,
                                all <= 0): Lz sectors, k-points and frozen
                                orbitals change the problem
     SYML, OCC, CLOSED,         harmless labels, ignored (-info says so)
     PROPBITLEN
   any other key is an error unless the option -fcidump_ignore_keys K1,K2,...
   names it, and so is a key given twice.  Body: lines 'value i j k l'
   (Fortran D exponents accepted):
     i j k l > 0     (ij|kl), any of the 8 equivalent orders
     i j > 0, k=l=0  h_ij
     i > 0, j=k=l=0  orbital energy, ignored
     0 0 0 0         core energy
   Any malformed input is an error of class PETSC_ERR_FILE_UNEXPECTED (or
   PETSC_ERR_FILE_OPEN) whose message starts with 'FCIDUMP <file>, line <n>:'. */
PetscErrorCode FCIDumpRead(MPI_Comm comm, const char filename[], FCIIntegrals **ints);
/* The same from len bytes in memory (every rank passes the same bytes; no NUL needed at the end);
   name stands for the file in messages.  For tests and fuzzing. */
PetscErrorCode FCIDumpReadBytes(MPI_Comm comm, const char name[], const char bytes[], size_t len, FCIIntegrals **ints);

/* Hubbard model on an nx x ny lattice (ny = 1: a chain), site s = x + nx*y:
   h_ij = -t for each nearest-neighbour bond, (ii|ii) = U, nup/ndown
   electrons.  Periodic boundaries add the wrap-around hop; the two ways codes
   write it differ only on a periodic side of length 1 or 2:
     FCI_HUBBARD_WRAP_BOND (default)  each pair of neighbouring sites is bonded
                                      once: a side of length 2 has the one bond
                                      h_01 = -t, a side of length 1 none;
     FCI_HUBBARD_WRAP_SUM             H = -t sum_x (c+_{x+1 mod L} c_x + h.c.)
                                      term by term: on a side of length 2 the
                                      pair is bonded twice (h_01 = -2t), on a
                                      side of length 1 each site hops onto
                                      itself (h_ss = -2t).
   Sides of length 3 and more are the same in both. */
typedef enum {
  FCI_HUBBARD_WRAP_BOND,
  FCI_HUBBARD_WRAP_SUM
} FCIHubbardWrap;

typedef struct {
  PetscInt       nx, ny;
  PetscBool      periodic_x, periodic_y;
  PetscReal      t, U;
  PetscInt       nup, ndown;
  FCIHubbardWrap wrap; /* only matters on periodic sides of length 1 or 2 */
} FCIHubbardSpec;

/* "bond" / "sum", as -hubbard_wrap takes them */
extern const char *const FCIHubbardWraps[];
/* Whether the lattice has a periodic side of length 1 or 2, where the wrap conventions differ. */
PetscBool FCIHubbardWrapMatters(const FCIHubbardSpec *spec);
PetscErrorCode FCIHubbardCreate(const FCIHubbardSpec *spec, FCIIntegrals **ints);
