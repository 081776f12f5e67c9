/* The plan of a DIAG product C = A B whatever the operands' schemes (HM, CDM, mixed):
   the symbolic phase and the host numeric phase, plain C.  The device kernel
   (cuda/diag/diag_product_segments.cu) computes each pair's segment with the same inline
   function as the host (DiagPairSegment), so the host numeric is its twin.

   Both operands are seen as lists of "entry diagonals": an HM diagonal of offset d, or
   each present part of a CDM compact diagonal (the upper part is the diagonal d = k, the
   lower d = k - n).  Entry diagonal e of an m x n operand holds a(i, i + d) for the rows
   max(0, -d) <= i < min(m, n - d) at value index base_e + i (HM: base = start - first
   row; CDM: base = start).  A pair (a, b) of entry diagonals of A and B lands on C's
   diagonal dc = da + db and contributes, over a contiguous range of rows i,
     c(i, i + dc) += a(i, i + da) b(i + da, i + dc):
   one contiguous, unit-stride multiply-add of a slice of A's values and a slice of B's.

   Symbolic work: O(nea log neb + pairs) for the pairs (B's entry diagonals sorted by offset,
   those meeting each of A's a run of them; two passes: count, then place, grouped by C's
   diagonal) + O(range of the sums) for C's offsets, never O(n x pairs); C's values
   are not allocated here (the caller allocates them where the numeric phase runs). */
#pragma once
#include "diag/diag_format.h"

#if defined(__CUDACC__)
  #define DIAG_HD __host__ __device__
#else
  #define DIAG_HD
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* The rows [*i0, *i1) where the pair (da of an nrows x inner A, db of an inner x ncols B)
   meets, and the slot shift of C's diagonal dc = da + db (slot = i - shift; 0 for CDM C). */
DIAG_HD static inline void DiagPairSegment(PetscInt nrows, PetscInt inner, PetscInt ncols, int c_is_hm, PetscInt da, PetscInt db, PetscInt *i0, PetscInt *i1, PetscInt *cshift)
{
  const PetscInt dc = da + db;
  PetscInt       lo = da < 0 ? -da : 0, hi = nrows;

  if ((db < 0 ? -db : 0) - da > lo) lo = (db < 0 ? -db : 0) - da; /* B's row i + da on B's diagonal */
  if (-dc > lo) lo = -dc;                                         /* C's row on C's diagonal */
  if (inner - da < hi) hi = inner - da;                           /* A's column, B's row */
  if (ncols - dc < hi) hi = ncols - dc;                           /* C's column */
  *i0     = lo;
  *i1     = hi > lo ? hi : lo;
  *cshift = c_is_hm && dc < 0 ? -dc : 0;
}

/* The first index of the ascending v[0, n) whose value is x or more (n when none): the
   windows of the device plan and the chunks of the blocks schedule.  x is long long so
   that a sum or difference of two offsets does not overflow. */
DIAG_HD static inline int DiagLowerBound(const int *v, int n, long long x)
{
  int lo = 0, hi = n;

  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;

    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The spans of offsets [*a_lo, *a_hi] of A's entry diagonals and [*b_lo, *b_hi] of B's (nea, neb > 0),
   and whether each operand's entry diagonals fill at least half of its span (banded operands:
   the sweep and blocks kernels) */
static inline void DiagPlanSpans(const DiagProductPlan *p, PetscInt *a_lo, PetscInt *a_hi, PetscInt *b_lo, PetscInt *b_hi)
{
  *a_lo = p->ea_d[p->a_order[0]], *a_hi = p->ea_d[p->a_order[p->nea - 1]];
  *b_lo = p->eb_d[p->b_order[0]], *b_hi = p->eb_d[p->b_order[p->neb - 1]];
}

static inline int DiagPlanBanded(const DiagProductPlan *p)
{
  PetscInt a_lo, a_hi, b_lo, b_hi;

  if (!p->nea || !p->neb) return 0;
  DiagPlanSpans(p, &a_lo, &a_hi, &b_lo, &b_hi);
  return 2 * (PetscInt64)p->nea >= (PetscInt64)a_hi - a_lo + 1 && 2 * (PetscInt64)p->neb >= (PetscInt64)b_hi - b_lo + 1;
}

/* DiagProductPlanCreate, DiagProductPlanFree, DiagProductPlanNumericHost and DiagProductPlanBytes:
   <gpumats_diag_format.h> (exported). */

#if defined(__cplusplus)
}
#endif
