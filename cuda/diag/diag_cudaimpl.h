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
  DiagScheme scheme;
  int        nrows, ncols, inner, ndiag_c, max_len;
  int        ndiag_a, ndiag_b;  /* of the A and B it was made for (checked by the tiled product) */
  int       *pair_start;        /* ndiag_c + 1 */
  int       *pair_a, *pair_b;   /* indices of A's and B's diagonals */
  int       *c_index;           /* HM: m + n - 1, C's diagonal of offset d at d + m - 1, or -1 */
  int       *b_index;           /* CDM: n, B's stored diagonal of compact offset k at k, or -1
                                   (the tiled product, the paper's Algorithm 1) */
  int       *a_signed;          /* CDM, A banded: ndiag_a, each compact diagonal as the offset d = k or
                                   k - n of the one part it holds; NULL when A is not banded */
  int        band_p, band_q;    /* A's offsets lie in [-band_p, band_q] */
};
