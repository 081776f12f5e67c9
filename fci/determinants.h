/* The Slater-determinant basis of a full CI problem.

   Strings.  An alpha (beta) string is a 64-bit word with bit p set when
   orbital p (from 0) holds an alpha (beta) electron.  The strings of n
   electrons in norb orbitals are numbered in lexical order = ascending value
   of the word (the combinatorial number system: rank = sum_k C(p_k, k+1) over
   the occupied orbitals p_0 < p_1 < ...).

   Determinants.  A determinant is a pair (alpha string, beta string), the
   state a+_{alpha occ, ascending} a+_{beta occ, ascending} |0>.  Without a
   symmetry restriction the lexical index is I = Ialpha*Nbeta + Ibeta.  With a
   restriction to one irrep (D2h and subgroups, Molpro numbering 1..8: the
   irrep of a string is the XOR of (ORBSYM-1) over its electrons, that of a
   determinant the XOR of its two strings) only the pairs of that irrep are
   kept, in the same order (by Ialpha, then Ibeta).

   Ordering.  The basis index the matrix uses is a permutation of the lexical
   index:
     FCI_ORDER_LEXICAL     the lexical index itself;
     FCI_ORDER_EXCITATION  by excitation level (number of electrons moved)
                           from a reference determinant, lexical within a
                           level: the reference first, then its singles,
                           doubles, ...: the reference block of the papers.
   The reference is the determinant with the lowest diagonal element <D|H|D>
   (first in lexical order on ties) or the aufbau determinant (the lowest
   orbitals occupied: orbitals 0..nalpha-1 and 0..nbeta-1; with a symmetry
   restriction the first determinant of the sector in lexical order).  Mind
   that FCIDUMP writers often list orbitals by irrep, not by energy (the
   H2O/6-31G and N2/STO-3G files do): the lowest diagonal is the safe choice. */
#pragma once
#include <stdint.h>
#include "fcidump.h"

typedef enum {
  FCI_ORDER_LEXICAL    = 0,
  FCI_ORDER_EXCITATION = 1
} FCIOrdering;

typedef enum {
  FCI_REFERENCE_LOWEST_DIAGONAL = 0,
  FCI_REFERENCE_AUFBAU          = 1
} FCIReference;

/* Most excitation levels (0..32 alpha + 0..32 beta electrons moved) */
#define FCI_MAX_LEVELS 65

/* Values of FCIDetSpaceOptions.sector other than an irrep 1..8 */
#define FCI_SECTOR_NONE 0  /* no symmetry restriction */
#define FCI_SECTOR_ISYM -1 /* the irrep ISYM of the FCIDUMP header */

typedef struct {
  PetscInt     sector;    /* FCI_SECTOR_NONE (default), FCI_SECTOR_ISYM or an irrep 1..8 */
  FCIOrdering  ordering;  /* default FCI_ORDER_LEXICAL */
  FCIReference reference; /* for FCI_ORDER_EXCITATION; default FCI_REFERENCE_LOWEST_DIAGONAL */
} FCIDetSpaceOptions;

typedef struct {
  PetscInt  norb, nalpha, nbeta;
  PetscInt  nstr_a, nstr_b; /* all strings of nalpha / nbeta electrons */
  uint64_t *str_a, *str_b;  /* ascending */
  int      *sym_a, *sym_b;  /* irrep of each string, 0..7 (all 0 without a restriction) */
  PetscBool restricted;     /* restricted to one irrep */
  PetscInt  sector;         /* that irrep - 1, 0..7 (0 and all sym_a, sym_b 0 when not restricted) */
  /* beta strings grouped by irrep: those of irrep g are bgroup[bgroup_start[g] .. bgroup_start[g+1]) (ascending) */
  PetscInt  bgroup_start[9];
  PetscInt *bgroup;   /* beta string indices */
  PetscInt *bpos;     /* position of beta string Ib within its irrep group */
  PetscInt *aoffset;  /* nstr_a + 1: lexical index of the first determinant of alpha string Ia */
  PetscInt  ndet;
  /* ordering: index = perm[lexical], lexical = iperm[index]; both NULL for FCI_ORDER_LEXICAL */
  FCIOrdering ordering;
  PetscInt   *perm, *iperm;
  PetscInt    ref_lex; /* lexical index of the reference determinant (-1 when none) */
  double      ref_diagonal; /* its diagonal element <D|H|D> */
  PetscInt    nlevel;  /* number of excitation levels (FCI_ORDER_EXCITATION) */
  PetscInt   *level_start; /* nlevel + 1: determinants of level L are [level_start[L], level_start[L+1]) */
} FCIDetSpace;

PetscErrorCode FCIDetSpaceOptionsDefault(FCIDetSpaceOptions *opts);
/* -<prefix>fci_sector none|isym|1..8, -<prefix>fci_ordering lexical|excitation, -<prefix>fci_reference lowest|aufbau */
PetscErrorCode FCIDetSpaceOptionsSetFromOptions(MPI_Comm comm, const char prefix[], FCIDetSpaceOptions *opts);

PetscErrorCode FCIDetSpaceCreate(const FCIIntegrals *ints, const FCIDetSpaceOptions *opts, FCIDetSpace **space);
PetscErrorCode FCIDetSpaceDestroy(FCIDetSpace **space);
PetscErrorCode FCIDetSpaceView(const FCIDetSpace *space, PetscViewer viewer);

/* Number of determinants. */
PetscErrorCode FCIDetSpaceGetSize(const FCIDetSpace *space, PetscInt *ndet);
/* The determinant of basis index idx. */
PetscErrorCode FCIDetSpaceGetDeterminant(const FCIDetSpace *space, PetscInt idx, uint64_t *alpha, uint64_t *beta);
/* Basis index of a determinant, -1 if it is not in the space. */
PetscErrorCode FCIDetSpaceGetIndex(const FCIDetSpace *space, uint64_t alpha, uint64_t beta, PetscInt *idx);

/* ---- string helpers shared with the Hamiltonian builder (plain C) ---- */
/* Rank of a string among the strings with the same number of electrons (lexical). */
PetscInt FCIStringRank(uint64_t s);
/* Irrep 0..7 of a string, orbsym from 1. */
int      FCIStringIrrep(uint64_t s, const PetscInt orbsym[]);
/* Lexical determinant index of (Ia, Ib), -1 if not in the space. */
static inline PetscInt FCIDetSpaceLexical(const FCIDetSpace *sp, PetscInt Ia, PetscInt Ib)
{
  if ((sp->sym_a[Ia] ^ sp->sym_b[Ib]) != sp->sector) return -1;
  return sp->aoffset[Ia] + sp->bpos[Ib];
}
/* Basis index of lexical index L. */
static inline PetscInt FCIDetSpaceIndexOfLexical(const FCIDetSpace *sp, PetscInt L)
{
  return sp->perm ? sp->perm[L] : L;
}
/* (Ia, Ib) of lexical index L. */
void FCIDetSpaceLexicalToStrings(const FCIDetSpace *sp, PetscInt L, PetscInt *Ia, PetscInt *Ib);
