/* Device loads the SpMV kernels of every format share.  CUDA C++. */
#pragma once
#include <stdint.h>

/* Matrix data is read once per product: keep it out of L1, which the gathers of x use. */
__device__ __forceinline__ int32_t GpuMatsLoadStreaming(const int32_t *p)
{
  int32_t r;
  asm("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}

__device__ __forceinline__ double GpuMatsLoadStreaming(const double *p)
{
  double r;
  asm("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(r) : "l"(p));
  return r;
}
