/* COO values straight into a PCSR device copy: each stored entry p of the CSR (AIJ's order)
   is the sum of the COO values at the places perm[q], jmap[p] <= q < jmap[p+1] (duplicates summed,
   ignored entries absent; only perm where each stored entry has one COO entry, neither where that
   is place p; an MPI block's places include the values received: gpumats_coo_values.cuh), so
   MatSetValuesCOO with values in device memory is one kernel; the host AIJ master gets the new
   values by one copy back, at once or when it needs them. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}
#include "../common/gpumats_coo_values.cuh"

#define PCSR_COO_THREADS 256

struct _n_PCSRDeviceCOO {
  int32_t  nnz;  /* stored entries the map covers */
  int32_t *jmap; /* nnz + 1; NULL: one COO entry a stored entry, perm[p] */
  int32_t *perm; /* jmap[nnz]: the COO entries of each stored entry, stored entries in order; NULL (with jmap): entry p */
};

PetscErrorCode PCSRDeviceCOOCreate(int32_t nnz, int32_t *jmap, int32_t *perm, PCSRDeviceCOO *coo)
{
  PCSRDeviceCOO  c;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *coo = NULL;
  ierr = PetscNew(&c);
  if (ierr) {
    PetscCall(GpuMatsCUDAFree(jmap));
    PetscCall(GpuMatsCUDAFree(perm));
    PetscCall(ierr);
  }
  c->nnz  = nnz;
  c->jmap = jmap;
  c->perm = perm;
  *coo    = c;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceCOODestroy(PCSRDeviceCOO *coo)
{
  PetscFunctionBegin;
  if (!*coo) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->perm));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

__global__ void PCSRCOOSum(int32_t nnz, const int32_t *jmap, const int32_t *perm, const PetscScalar *v, const PetscScalar *recv, int add, PetscScalar *val)
{
  for (int32_t p = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x); p < nnz; p += (int32_t)(gridDim.x * blockDim.x)) {
    PetscScalar s = add ? val[p] : 0.0;

    if (!jmap) s += GpuMatsCOOValue(v, recv, perm ? perm[p] : p);
    else
      for (int32_t q = jmap[p]; q < jmap[p + 1]; q++) s += GpuMatsCOOValue(v, recv, perm[q]);
    val[p] = s;
  }
}

PetscErrorCode PCSRDeviceCOOSetValues(PCSRDevice dev, PCSRDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add)
{
  void          *stream;
  const unsigned blocks = (unsigned)PetscMin(((int64_t)coo->nnz + PCSR_COO_THREADS - 1) / PCSR_COO_THREADS, (int64_t)1 << 16);

  PetscFunctionBegin;
  PetscCheck(dev->nnz == coo->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCSR COO map of %d stored entries for a device copy of %d", (int)coo->nnz, (int)dev->nnz);
  if (!coo->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PCSRCOOSum<<<blocks, PCSR_COO_THREADS, 0, (cudaStream_t)stream>>>(coo->nnz, coo->jmap, coo->perm, v, recv, add ? 1 : 0, dev->val);
  GpuMatsCallCUDA(cudaGetLastError());
  if (dev->t_built) dev->t_stale = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceDownloadValues(PCSRDevice dev, PetscScalar *host_values)
{
  PetscFunctionBegin;
  /* on the stream of the kernels that wrote them */
  if (dev->nnz) PetscCall(GpuMatsCUDACopyToHost(host_values, dev->val, (size_t)dev->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
