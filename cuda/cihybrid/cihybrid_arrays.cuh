/* What the CIHYBRID kernels (SpMV, SpMM) read of the device copy, passed to
   them by value. CUDA C++, private to cuda/cihybrid/. */
#pragma once
#include <stdint.h>
#include "cihybrid_cudaimpl.h"

struct CIHybridArrays {
  int            nrows, width, pitch;
  const int32_t *ell_col;
  const double  *ell_val;
  const int32_t *ell_len; /* NULL: every row has s_i = 0 */
  const int32_t *csr_start;
  const int32_t *csr_col;
  const double  *csr_val;
};

static inline CIHybridArrays CIHybridArraysOf(CIHybridDevice d)
{
  CIHybridArrays A;

  A.nrows     = (int)d->nrows;
  A.width     = (int)d->width;
  A.pitch     = (int)d->pitch;
  A.ell_col   = d->ell_col;
  A.ell_val   = d->ell_val;
  A.ell_len   = d->ell_len;
  A.csr_start = d->csr_start;
  A.csr_col   = d->csr_col;
  A.csr_val   = d->csr_val;
  return A;
}
