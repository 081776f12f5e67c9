/* COO values straight into a CIHYBRID device copy: stored entry q of the AIJ master (row i, the
   p-th of its row) is the sum of the COO values v[perm[k]], jmap[q] <= k < jmap[q+1], and lives in
   the ELLPACK slot i*pitch + p when p < ell_len[i], else in remainder slot csr_start[i] + p -
   ell_len[i] (the builder keeps AIJ's order within each row).  One kernel writes both the slot
   and the value in AIJ's order, which one copy takes back to the host master. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}

#define CIHYBRID_COO_THREADS 256

struct _n_CIHybridDeviceCOO {
  int32_t      nrows, nnz;
  int32_t     *rowptr; /* nrows + 1: AIJ's row starts */
  int32_t     *jmap;   /* nnz + 1 */
  int32_t     *perm;   /* jmap[nnz] */
  PetscScalar *values; /* nnz: the new values in AIJ's order, for the copy back */
};

extern "C" PetscErrorCode CIHybridDeviceCOOCreate(int32_t nrows, const int32_t *rowptr, int32_t *jmap, int32_t *perm, CIHybridDeviceCOO *coo)
{
  CIHybridDeviceCOO c;
  PetscErrorCode    ierr;
  char              what[128];
  const int32_t     nnz = rowptr[nrows];

  PetscFunctionBegin;
  *coo = NULL;
  ierr = PetscNew(&c);
  if (ierr) {
    PetscCall(GpuMatsCUDAFree(jmap));
    PetscCall(GpuMatsCUDAFree(perm));
    PetscCall(ierr);
  }
  c->nrows = nrows;
  c->nnz   = nnz;
  c->jmap  = jmap;
  c->perm  = perm;
  snprintf(what, sizeof(what), "CIHYBRID COO map of %d stored entries", (int)nnz);
  ierr = GpuMatsCUDAMalloc((void **)&c->rowptr, ((size_t)nrows + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->values, ((size_t)nnz + 1) * sizeof(PetscScalar), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(c->rowptr, rowptr, ((size_t)nrows + 1) * sizeof(int32_t));
  if (ierr) {
    (void)CIHybridDeviceCOODestroy(&c);
    PetscCall(ierr);
  }
  *coo = c;
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOODestroy(CIHybridDeviceCOO *coo)
{
  PetscFunctionBegin;
  if (!*coo) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*coo)->rowptr));
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->perm));
  PetscCall(GpuMatsCUDAFree((*coo)->values));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

/* a thread a row: the sums of its entries (AIJ's arithmetic: the COO values summed, then added to
   the old value or put in its place) into their slots and into 'values' */
__global__ void CIHybridCOOSum(int32_t nrows, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ jmap, const int32_t *__restrict__ perm, const PetscScalar *__restrict__ v, int add, PetscInt pitch, const int32_t *__restrict__ ell_len,
                               const int32_t *__restrict__ csr_start, PetscScalar *ell_val, PetscScalar *csr_val, PetscScalar *values)
{
  for (int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x); i < nrows; i += (int32_t)(gridDim.x * blockDim.x)) {
    const int32_t s = ell_len ? ell_len[i] : 0;

    for (int32_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
      const int32_t p    = q - rowptr[i];
      PetscScalar  *slot = p < s ? ell_val + (size_t)i * (size_t)pitch + p : csr_val + csr_start[i] + (p - s);
      PetscScalar   sum  = 0.0;

      for (int32_t k = jmap[q]; k < jmap[q + 1]; k++) sum += v[perm[k]];
      sum       = add ? *slot + sum : sum;
      *slot     = sum;
      values[q] = sum;
    }
  }
}

extern "C" PetscErrorCode CIHybridDeviceCOOSetValues(CIHybridDevice dev, CIHybridDeviceCOO coo, const PetscScalar *v, PetscBool add)
{
  void          *stream;
  const unsigned blocks = (unsigned)PetscMin(((int64_t)coo->nrows + CIHYBRID_COO_THREADS - 1) / CIHYBRID_COO_THREADS, (int64_t)1 << 16);

  PetscFunctionBegin;
  PetscCheck(dev->nrows == coo->nrows && dev->nnz == coo->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO map of %d rows, %d stored entries for a device copy of %" PetscInt_FMT " rows, %" PetscInt64_FMT " entries", (int)coo->nrows, (int)coo->nnz, dev->nrows, dev->nnz);
  if (!coo->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  CIHybridCOOSum<<<blocks, CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(coo->nrows, coo->rowptr, coo->jmap, coo->perm, v, add ? 1 : 0, dev->pitch, dev->ell_len, dev->csr_start, dev->ell_val, dev->csr_val, coo->values);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOODownloadValues(CIHybridDeviceCOO coo, PetscScalar *host_values)
{
  PetscFunctionBegin;
  /* on the stream of the kernel that wrote them */
  if (coo->nnz) PetscCall(GpuMatsCUDACopyToHost(host_values, coo->values, (size_t)coo->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
