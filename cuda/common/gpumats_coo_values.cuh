/* A COO value by its place (common/gpumats_coo.h): v[p] for p >= 0, for p < 0 the -p - 1st of the
   values other processes sent (an MPI matrix's block, common/mpicoo.c), so that a block reads its
   values where they are instead of from a copy gathered first.  CUDA C++. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

__device__ __forceinline__ PetscScalar GpuMatsCOOValue(const PetscScalar *__restrict__ v, const PetscScalar *__restrict__ recv, int32_t p)
{
  return p >= 0 ? v[p] : recv[-(int64_t)p - 1];
}
