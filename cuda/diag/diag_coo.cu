/* COO values straight into a DIAG device copy (diag/diag_coo.c on one process): each COO entry's
   value slot found once at MatSetPreallocationCOO; MatSetValuesCOO with values in device memory
   is then one kernel, and the device copy holds the newer values.  The kernel adds atomically
   where two entries share a slot (duplicates); where none do, as a DMDA's or an assembler's entries
   once each, it stores (no atomics), reads the values in order when the entries are in the
   array's order, and clears the value array first only where some slot has no entry. */
#include <petscsys.h>
#include <petscbt.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_COO_THREADS 256

struct _n_DiagDeviceCOO {
  int32_t   n;        /* entries of this process's rows */
  int32_t  *slot;     /* n: the value slot of each */
  int32_t  *k;        /* n: its place in the caller's value array (NULL: k[t] = t) */
  PetscBool distinct; /* no two entries on one slot */
  PetscBool covers;   /* every one of the nval slots has an entry */
};

/* Do the entries' slots (in [0, nval)) differ, and do they cover every slot?  Is k the identity? */
static PetscErrorCode DiagCOOShape(int32_t n, const int32_t *slot, const int32_t *k, long long nval, PetscBool *distinct, PetscBool *covers, PetscBool *identity)
{
  PetscBT   seen;
  long long count = 0;

  PetscFunctionBegin;
  *distinct = PETSC_TRUE;
  *identity = PETSC_TRUE;
  PetscCall(PetscBTCreate((PetscInt)nval, &seen));
  for (int32_t t = 0; t < n; t++) {
    if (k[t] != t) *identity = PETSC_FALSE;
    if (PetscBTLookupSet(seen, slot[t])) *distinct = PETSC_FALSE;
    else count++;
  }
  PetscCall(PetscBTDestroy(&seen));
  *covers = (PetscBool)(count == nval);
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceCOOCreate(int32_t n, const int32_t *slot, const int32_t *k, long long nval, DiagDeviceCOO *coo)
{
  DiagDeviceCOO  c;
  PetscErrorCode ierr;
  PetscBool      identity;
  char           what[128];

  PetscFunctionBegin;
  *coo = NULL;
  PetscCall(PetscNew(&c));
  c->n = n;
  PetscCall(DiagCOOShape(n, slot, k, nval, &c->distinct, &c->covers, &identity));
  snprintf(what, sizeof(what), "DIAG COO map of %d entries", (int)n);
  ierr = GpuMatsCUDAMalloc((void **)&c->slot, ((size_t)n + 1) * sizeof(int32_t), what);
  if (!ierr && !identity) ierr = GpuMatsCUDAMalloc((void **)&c->k, ((size_t)n + 1) * sizeof(int32_t), what);
  if (!ierr && n) ierr = GpuMatsCUDACopyToDevice(c->slot, slot, (size_t)n * sizeof(int32_t));
  if (!ierr && n && !identity) ierr = GpuMatsCUDACopyToDevice(c->k, k, (size_t)n * sizeof(int32_t));
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

/* distinct: each slot written by one entry (stored, or added to when add); else added atomically */
__global__ void DiagCOOSet(int32_t n, const int32_t *__restrict__ slot, const int32_t *__restrict__ k, const PetscScalar *__restrict__ v, int distinct, int add, PetscScalar *val)
{
  for (int32_t t = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x); t < n; t += (int32_t)(gridDim.x * blockDim.x)) {
    const PetscScalar value = v[k ? k[t] : t];

    if (!distinct) atomicAdd(&val[slot[t]], value);
    else if (add) val[slot[t]] += value;
    else val[slot[t]] = value;
  }
}

PetscErrorCode DiagDeviceCOOSetValues(DiagDevice dev, DiagDeviceCOO coo, const PetscScalar *v, PetscBool add)
{
  void          *stream;
  const unsigned blocks = (unsigned)PetscMin(((int64_t)coo->n + DIAG_COO_THREADS - 1) / DIAG_COO_THREADS, (int64_t)1 << 16);

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  /* INSERT: the slots without an entry become 0, and the summed ones start from 0 */
  if (!add && dev->nval && !(coo->distinct && coo->covers)) GpuMatsCallCUDA(cudaMemsetAsync(dev->val, 0, (size_t)dev->nval * sizeof(PetscScalar), (cudaStream_t)stream));
  if (coo->n) {
    DiagCOOSet<<<blocks, DIAG_COO_THREADS, 0, (cudaStream_t)stream>>>(coo->n, coo->slot, coo->k, v, coo->distinct ? 1 : 0, add ? 1 : 0, dev->val);
    GpuMatsCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}
