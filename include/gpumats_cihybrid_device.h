/* For the CUDA kernels of a MatCIHybridDeviceRows generator (gpumats.h): where the p-th entry
   of a row goes in the device arrays of a cihybrid matrix.  CUDA C++ only. */
#pragma once
#include <gpumats.h>

#if defined(__CUDACC__)
/* Entry p (0-based, columns ascending) of row 'row': column 'col', value 'val'. */
static __device__ __forceinline__ void MatCIHybridDeviceSetEntry(const MatCIHybridDeviceArrays &A, PetscInt row, PetscInt p, int col, PetscScalar val)
{
  const int s = A.ell_len ? A.ell_len[row] : 0;

  if (p < s) {
    const size_t slot = (size_t)row * (size_t)A.pitch + (size_t)p;
    A.ell_col[slot]   = col;
    A.ell_val[slot]   = val;
  } else {
    const size_t slot = (size_t)A.csr_start[row] + (size_t)(p - s);
    A.csr_col[slot]   = col;
    A.csr_val[slot]   = val;
  }
}
#endif
