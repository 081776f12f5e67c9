/* COO values straight into a DIAG device copy (diag/diag_coo.c on one process): each COO entry's
   value slot found once at MatSetPreallocationCOO; MatSetValuesCOO with values in device memory
   is then one kernel (duplicates added atomically), and the device copy holds the newer values. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_COO_THREADS 256

struct _n_DiagDeviceCOO {
  int32_t  n;    /* entries of this process's rows */
  int32_t *slot; /* n: the value slot of each */
  int32_t *k;    /* n: its place in the caller's value array */
};

PetscErrorCode DiagDeviceCOOCreate(int32_t n, const int32_t *slot, const int32_t *k, DiagDeviceCOO *coo)
{
  DiagDeviceCOO  c;
  PetscErrorCode ierr;
  char           what[128];

  PetscFunctionBegin;
  *coo = NULL;
  PetscCall(PetscNew(&c));
  c->n = n;
  snprintf(what, sizeof(what), "DIAG COO map of %d entries", (int)n);
  ierr = GpuMatsCUDAMalloc((void **)&c->slot, ((size_t)n + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->k, ((size_t)n + 1) * sizeof(int32_t), what);
  if (!ierr && n) ierr = GpuMatsCUDACopyToDevice(c->slot, slot, (size_t)n * sizeof(int32_t));
  if (!ierr && n) ierr = GpuMatsCUDACopyToDevice(c->k, k, (size_t)n * sizeof(int32_t));
  if (ierr) {
    (void)DiagDeviceCOODestroy(&c);
    PetscCall(ierr);
  }
  *coo = c;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceCOODestroy(DiagDeviceCOO *coo)
{
  PetscFunctionBegin;
  if (!*coo) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*coo)->slot));
  PetscCall(GpuMatsCUDAFree((*coo)->k));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

__global__ void DiagCOOAdd(int32_t n, const int32_t *slot, const int32_t *k, const PetscScalar *v, PetscScalar *val)
{
  for (int32_t t = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x); t < n; t += (int32_t)(gridDim.x * blockDim.x)) atomicAdd(&val[slot[t]], v[k[t]]);
}

PetscErrorCode DiagDeviceCOOSetValues(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, PetscBool add)
{
  void          *stream;
  const unsigned blocks = (unsigned)PetscMin(((int64_t)coo->n + DIAG_COO_THREADS - 1) / DIAG_COO_THREADS, (int64_t)1 << 16);

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  if (!add && dev->nval) GpuMatsCallCUDA(cudaMemsetAsync(dev->val, 0, (size_t)dev->nval * sizeof(PetscScalar), (cudaStream_t)stream));
  if (coo->n) {
    DiagCOOAdd<<<blocks, DIAG_COO_THREADS, 0, (cudaStream_t)stream>>>(coo->n, coo->slot, coo->k, v, dev->val);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}
