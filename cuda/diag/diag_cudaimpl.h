/* Private to cuda/diag/: the device copy of a DiagFormat.  Plain C. */
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
