/* DIAG on the host: y = A x, y = A^T x (+ y0) and C = A B with a dense B.

   Every stored diagonal (every present part of a CDM compact diagonal) is a run of
   consecutive outputs o in [lo, hi) with y[o] += v[o + voff] * x[o + xoff]: contiguous in y,
   v and x, no index arrays, no per-entry branch or modulo, so the compiler vectorises it
   (this file is built with -O3, see meson.build).  The outputs are taken a block at a time,
   each block through all runs, so that its part of y stays in the first-level cache while the
   runs stream their values and x: y is read and written once, not once per diagonal. */
#include "diag_format.h"
#include <stdlib.h>

#define DIAG_HOST_BLOCK 1024 /* outputs a block: 8 KiB of y */

typedef struct {
  PetscInt   lo, hi;     /* the outputs o the run reaches */
  PetscInt64 voff, xoff; /* value o + voff, input o + xoff */
} DiagRun;

static void DiagRunAdd(PetscScalar *restrict y, const PetscScalar *restrict v, const PetscScalar *restrict x, PetscInt len)
{
  for (PetscInt k = 0; k < len; k++) y[k] += v[k] * x[k];
}

/* The runs of A x (transpose 0) or A^T x (1); absent CDM parts hold padding only: skipped.
   Returns how many (at most 2 ndiag). */
static PetscInt DiagRuns(const DiagFormat *f, int transpose, DiagRun *run)
{
  PetscInt nrun = 0;

  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt   d     = f->offset[t];
    const PetscInt64 start = f->start[t];

    if (f->scheme == DIAG_SCHEME_HM) {
      const PetscInt lo = DiagHMFirstRow(d), hi = lo + (PetscInt)(f->start[t + 1] - start); /* rows of diagonal d */

      if (hi <= lo) continue;
      if (!transpose) run[nrun].lo = lo, run[nrun].hi = hi, run[nrun].voff = start - lo, run[nrun].xoff = d;
      else run[nrun].lo = lo + d, run[nrun].hi = hi + d, run[nrun].voff = start - lo - d, run[nrun].xoff = -d;
      nrun++;
    } else {
      const PetscInt n = f->ncols;

      if (f->part[t] & DIAG_PART_UPPER) { /* rows [0, n - d): column i + d */
        if (!transpose) run[nrun].lo = 0, run[nrun].hi = n - d, run[nrun].voff = start, run[nrun].xoff = d;
        else run[nrun].lo = d, run[nrun].hi = n, run[nrun].voff = start - d, run[nrun].xoff = -d;
        nrun++;
      }
      if (d && (f->part[t] & DIAG_PART_LOWER)) { /* rows [n - d, n): column i + d - n */
        if (!transpose) run[nrun].lo = n - d, run[nrun].hi = n, run[nrun].voff = start, run[nrun].xoff = d - n;
        else run[nrun].lo = 0, run[nrun].hi = d, run[nrun].voff = start + n - d, run[nrun].xoff = n - d;
        nrun++;
      }
    }
  }
  return nrun;
}

static void DiagApplyRuns(const DiagFormat *f, PetscInt ny, PetscInt nrun, const DiagRun *run, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  for (PetscInt b0 = 0; b0 < ny; b0 += DIAG_HOST_BLOCK) {
    const PetscInt b1 = PetscMin(b0 + DIAG_HOST_BLOCK, ny);

    if (y0 != y)
      for (PetscInt o = b0; o < b1; o++) y[o] = y0 ? y0[o] : 0;
    for (PetscInt r = 0; r < nrun; r++) {
      const PetscInt lo = PetscMax(run[r].lo, b0), hi = PetscMin(run[r].hi, b1);

      if (lo < hi) DiagRunAdd(y + lo, f->val + lo + run[r].voff, x + lo + run[r].xoff, hi - lo);
    }
  }
}

/* y = A x or A^T x (+ y0); the runs on the stack for up to 64 diagonals */
static void DiagApplyHost(const DiagFormat *f, int transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  DiagRun        stack[128], *run = f->ndiag <= 64 ? stack : (DiagRun *)malloc(sizeof(DiagRun) * 2 * (size_t)f->ndiag);
  const PetscInt ny = transpose ? f->ncols : f->nrows;

  if (!run) { /* no memory for the runs: one diagonal at a time */
    for (PetscInt o = 0; o < ny && y0 != y; o++) y[o] = y0 ? y0[o] : 0;
    for (PetscInt t = 0; t < f->ndiag; t++) {
      DiagFormat one = *f;
      DiagRun    pair[2];

      one.ndiag = 1, one.offset = f->offset + t, one.start = f->start + t, one.part = f->part ? f->part + t : NULL;
      DiagApplyRuns(f, ny, DiagRuns(&one, transpose, pair), pair, x, y, y);
    }
    return;
  }
  DiagApplyRuns(f, ny, DiagRuns(f, transpose, run), run, x, y0, y);
  if (run != stack) free(run);
}

void DiagMultHost(const DiagFormat *f, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  DiagApplyHost(f, 0, x, y0, y);
}

void DiagMultTransposeHost(const DiagFormat *f, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  DiagApplyHost(f, 1, x, y0, y);
}

void DiagSpMMHost(const DiagFormat *f, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  for (PetscInt c = 0; c < k; c++) DiagApplyHost(f, 0, B + (size_t)c * ldb, add ? C + (size_t)c * ldc : NULL, C + (size_t)c * ldc);
}
