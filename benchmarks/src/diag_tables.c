/* The product tables of the DIAG paper as benchmark cases (diag_tables.h). */
#include "diag_tables.h"

static const DiagTableRow Rows[] = {
  /* Table 1: n and the diagonal counts varied */
  {"t1-1000", 1000, 9, 5, PETSC_FALSE, 7446, 3968, 33824, 4.33, 0.16},
  {"t1-2000", 2000, 9, 15, PETSC_FALSE, 15003, 25201, 203935, 2.12, 0.21},
  {"t1-3000", 3000, 29, 15, PETSC_FALSE, 75336, 39207, 990791, 11.66, 0.39},
  {"t1-4000", 4000, 29, 35, PETSC_FALSE, 97958, 120652, 2816485, 38.60, 0.88},
  {"t1-5000", 5000, 59, 35, PETSC_FALSE, 256918, 150005, 6625325, 99.52, 1.89},
  {"t1-6000", 6000, 89, 75, PETSC_FALSE, 473743, 381842, 17999054, 440.61, 6.78},
  {"t1-7000", 7000, 99, 75, PETSC_FALSE, 615376, 451559, 23585358, 560.69, 8.92},
  {"t1-8000", 8000, 109, 35, PETSC_FALSE, 767508, 247865, 18893371, 307.67, 5.26},
  {"t1-9000", 9000, 59, 75, PETSC_FALSE, 470354, 593612, 24161386, 444.00, 7.09},
  {"t1-10000", 10000, 109, 35, PETSC_FALSE, 938979, 310455, 24738090, 365.51, 6.34},
  /* Table 2: n = 10,000.  Row 3 as printed: dgB 200, although nzB (3,499,657) needs about 400 */
  {"t2-200x200", 10000, 200, 200, PETSC_FALSE, 1746454, 1734514, 69689071, 4812.40, 66.62},
  {"t2-300x300", 10000, 300, 300, PETSC_FALSE, 2574174, 2599683, 76317794, 11031.72, 141.86},
  {"t2-400x200", 10000, 400, 200, PETSC_FALSE, 3462833, 3499657, 75463181, 19733.96, 241.23},
  {"t2-500x500", 10000, 500, 500, PETSC_FALSE, 4358737, 4372825, 75504513, 31817.91, 358.39},
  {"t2-600x600", 10000, 600, 600, PETSC_FALSE, 5237042, 5233209, 75281188, 46549.84, 468.83},
  /* banded (the paper's Figure 7: n = 10,240, the band varied; no table) */
  {"band-10240-5", 10240, 5, 5, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-11", 10240, 11, 11, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-21", 10240, 21, 21, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-51", 10240, 51, 51, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-101", 10240, 101, 101, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-201", 10240, 201, 201, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-10240-401", 10240, 401, 401, PETSC_TRUE, 0, 0, 0, 0, 0},
  /* banded at n = 10^6 */
  {"band-1e6-5", 1000000, 5, 5, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-1e6-21", 1000000, 21, 21, PETSC_TRUE, 0, 0, 0, 0, 0},
  {"band-1e6-101", 1000000, 101, 101, PETSC_TRUE, 0, 0, 0, 0, 0},
};

const DiagTableRow *DiagTableRows(PetscInt *nrows)
{
  *nrows = (PetscInt)(sizeof(Rows) / sizeof(Rows[0]));
  return Rows;
}

static unsigned long long DiagTableRandom(unsigned long long *state) /* xorshift64* */
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}

PetscErrorCode DiagTableOffsets(const DiagTableRow *row, int which, PetscInt *noff, PetscInt *off)
{
  const PetscInt     want = which ? row->dgb : row->dga, n = row->n, half = n / 4;
  unsigned long long state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(n * 7 + which * 1000003 + row->dga * 31 + row->dgb);
  char              *used;

  PetscFunctionBegin;
  *noff = 0;
  if (row->banded) {
    for (PetscInt d = -(want - 1) / 2; d <= want / 2; d++) off[(*noff)++] = d;
    PetscFunctionReturn(0);
  }
  PetscCheck(want <= 2 * half + 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %" PetscInt_FMT " diagonals do not fit in [-n/4, n/4] for n = %" PetscInt_FMT, row->name, want, n);
  PetscCall(PetscCalloc1(2 * half + 1, &used));
  off[(*noff)++] = 0, used[half] = 1;
  while (*noff < want) {
    const PetscInt d = (PetscInt)(DiagTableRandom(&state) % (unsigned long long)(2 * half + 1)) - half;

    if (!used[d + half]) used[d + half] = 1, off[(*noff)++] = d;
  }
  PetscCall(PetscFree(used));
  PetscCall(PetscSortInt(*noff, off));
  PetscFunctionReturn(0);
}

PetscErrorCode DiagTableCSR(PetscInt n, PetscInt noff, const PetscInt *off, unsigned long long seed, PetscInt **ai, PetscInt **aj, PetscScalar **aa)
{
  PetscInt64         nnz = 0;
  unsigned long long state = seed | 1;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < noff; t++) nnz += n - PetscAbsInt(off[t]) > 0 ? n - PetscAbsInt(off[t]) : 0;
  PetscCheck(nnz <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt64_FMT " nonzeros: more than PetscInt indexes", nnz);
  PetscCall(PetscMalloc1(n + 1, ai));
  PetscCall(PetscMalloc1(nnz + 1, aj));
  PetscCall(PetscMalloc1(nnz + 1, aa));
  nnz = 0;
  for (PetscInt i = 0; i < n; i++) { /* off ascending: columns ascending */
    (*ai)[i] = (PetscInt)nnz;
    for (PetscInt t = 0; t < noff; t++) {
      const PetscInt j = i + off[t];

      if (j >= 0 && j < n) (*aj)[nnz] = j, (*aa)[nnz++] = 1.0 + (double)(DiagTableRandom(&state) >> 11) / 9007199254740992.0;
    }
  }
  (*ai)[n] = (PetscInt)nnz;
  PetscFunctionReturn(0);
}
