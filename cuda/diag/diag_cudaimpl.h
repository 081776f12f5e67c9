/* Private to cuda/diag/: the device copy of a DiagFormat and the device product plan.
   Plain C. */
#pragma once
#include "diag_cuda.h"

struct _n_DiagDevice {
  DiagScheme scheme;
  int        nrows, ncols, ndiag;
  int       *offset; /* ndiag */
  long long *start;  /* ndiag + 1 */
  double    *val;    /* start[ndiag] */
  long long  nval;
};

/* C = A B on the device (DiagDeviceProductCreate): device arrays */
struct _n_DiagDeviceProduct {
  DiagScheme scheme;            /* A's, B's and C's when they share one (the paper's and the banded kernels), else C's */
  PetscBool  one_scheme;        /* A, B and C of one scheme */
  int        nrows, ncols, inner, ndiag_c, max_len;
  int        ndiag_a, ndiag_b;  /* of the A and B it was made for (checked by the tiled product) */
  long long  npairs, flops;
  /* the plan (DiagProductPlan): pairs of entry diagonals grouped by C's diagonal; the arrays
     below lie in plan_block, one device allocation */
  void      *plan_block;
  int       *pair_start;        /* ndiag_c + 1 */
  int       *pair_a, *pair_b;   /* entry diagonals of A and B */
  int       *ea_d, *eb_d;       /* their offsets j - i */
  long long *ea_base, *eb_base; /* value index of row i: base + i */
  int        nea, neb;
  void      *plan_scratch;      /* what the plan made on the device used (DiagDeviceProductPlan), freed with
                                   the product: a cudaFree there was a sixth of a first product */
  /* the staged kernel: per pair its rows [rec_lo, rec_hi) and B's value index of row i, rec_b + i
     (made on the device at its first use, one allocation at rec_b) */
  long long *rec_b;
  int       *rec_lo, *rec_hi;
  /* the banded CDM kernel: pairs of stored diagonals (k_a + k_b) mod n = k_c, each pair once */
  int       *band_pair_start, *band_pair_a, *band_pair_b;
  int       *a_signed;          /* CDM, A banded: ndiag_a, each compact diagonal as the offset d = k or
                                   k - n of the one part it holds; NULL when A is not banded */
  int        band_p, band_q;    /* A's offsets lie in [-band_p, band_q] */
  /* the blocks kernel (diag_product_blocks.cu): C's sums in windows and the chunks of A's and B's
     entry diagonals staged for each, one device allocation; made by DiagDeviceProductCreate where
     DiagDeviceProductNumeric takes the kernel, else NULL until DiagDeviceProductBlocksCreate */
  void      *blocks;
  int        blocks_nwin, blocks_nsum, blocks_nchunk;
  PetscBool  blocks_preferred;  /* DiagDeviceProductNumeric runs it (DiagBlocksPreferred) */
  /* the sweep kernel (diag_product_sweep.cu), banded operands: A's offsets a_lo .. a_lo + sa - 1,
     B's b_lo .. b_lo + sb - 1, C's sums sc; the value bases of A's, B's and C's diagonals by
     offset, one device allocation; NULL where the kernel does not apply */
  long long *sweep_base;
  int        sweep_a_lo, sweep_sa, sweep_b_lo, sweep_sb, sweep_sc;
  /* the paper's kernels, made on the device at their first use */
  int       *c_index;           /* HM: m + n - 1, C's diagonal of offset d at d + m - 1, or -1 */
  int       *b_index;           /* CDM: n, B's stored diagonal of compact offset k at k, or -1 */
};

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

/* does DiagDeviceProductNumeric take the blocks kernel for these operands (banded, DIAG_BLOCKS_MIN_DIAGONALS)? */
PetscBool DiagBlocksPreferred(const DiagProductPlan *plan);

/* the operands of a numeric product are those the product p was made for (non-NULL, their sizes,
   C's diagonals and scheme); kernel names the caller in the messages */
PetscErrorCode DiagDeviceProductCheckOperands(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C, const char *kernel);

/* the sweep kernel's bases where it applies (DiagDeviceProductCreate), else nothing */
PetscErrorCode DiagDeviceProductSweepCreate(DiagDeviceProduct p, const DiagProductPlan *plan, const DiagFormat *C);

/* the staged kernel's per-pair records (made at its first use) */
PetscErrorCode DiagDeviceProductRecordsCreate(DiagDeviceProduct p);

/* index[offset[t] + shift] = t for t < ndiag, -1 elsewhere (range entries), on the device */
PetscErrorCode DiagDeviceIndexOffsets(int ndiag, const int *offset, int shift, int range, int **index);

/* the banded kernel's tile of rows for these operands' bands (0: none fits), whether or not the
   lists of banded pairs were made */
PetscErrorCode DiagDeviceProductBandedTile(DiagDeviceProduct p, int *T);
