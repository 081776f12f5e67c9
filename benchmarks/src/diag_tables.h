/* The structured-sparse products of Haque, Parvez and Hossain (Algorithms 2024, 17(1):31),
   Tables 1-2 (/work/shared/data/papers/diag-products-tables.md), and the banded products of
   its Figures 6-7, as the DIAG product benchmarks run them: C = A B, n x n, A and B with
   dgA and dgB full diagonals at distinct random offsets spread over [-n/4, n/4] (the main
   diagonal among them), or bands of w diagonals around the main one.  Plain C. */
#pragma once
#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct {
  const char *name;     /* "t1-1000", "t2-200x200", "band-10240-5", ... */
  PetscInt    n, dga, dgb;
  PetscBool   banded;   /* w = dga = dgb diagonals around the main one */
  PetscInt64  nza, nzb, nzc; /* the paper's nonzeros (0: not published) */
  double      cpu_ms, cuda_ms; /* the paper's times (0: not published) */
} DiagTableRow;

/* The rows: Table 1 (10), Table 2 (5), bands at n = 10,240 (w = 5, 11, 21, 51, 101, 201, 401) and at
   n = 10^6 (w = 5, 21, 101).  *nrows set; the array is static. */
const DiagTableRow *DiagTableRows(PetscInt *nrows);
/* The offsets of A (which = 0) or B (which = 1) of a row, ascending: off holds dga or dgb */
PetscErrorCode DiagTableOffsets(const DiagTableRow *row, int which, PetscInt *noff, PetscInt *off);
/* An n x n CSR (PetscMalloc'd, sorted rows) with every entry of the given diagonals, random
   values in [1, 2) from 'seed' */
PetscErrorCode DiagTableCSR(PetscInt n, PetscInt noff, const PetscInt *off, unsigned long long seed, PetscInt **ai, PetscInt **aj, PetscScalar **aa);

#if defined(__cplusplus)
}
#endif
