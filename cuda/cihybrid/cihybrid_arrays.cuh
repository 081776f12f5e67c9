/* What the CIHYBRID kernels (SpMV, SpMM) read of the device copy, passed to
   them by value, and how the row-wise kernels of cuda/cihybrid/ are launched and checked.
   CUDA C++, private to cuda/cihybrid/. */
#pragma once
#include <stdint.h>
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"

/* The blocks of 'block' threads that give each of nrows rows one warp */
static inline unsigned CIHybridRowWarpGrid(PetscInt nrows, int block)
{
  return (unsigned)(((size_t)nrows * 32 + block - 1) / block);
}

/* The launch of 'kernel' just queued, as a PETSc error if it failed */
static inline PetscErrorCode CIHybridLaunched(const char *kernel)
{
  return GpuMatsCUDACheck((int)cudaGetLastError(), kernel, PETSC_FUNCTION_NAME, __FILE__, __LINE__);
}

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
