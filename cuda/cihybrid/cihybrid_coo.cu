/* COO values straight into a CIHYBRID device copy: stored entry q of the AIJ master (row i, the
   p-th of its row) is the sum of the COO values v[perm[k]], jmap[q] <= k < jmap[q+1] (v[perm[q]]
   where jmap is NULL, v[q] where perm is too), and lives in the ELLPACK slot i*pitch + p when
   p < ell_len[i], else in remainder slot csr_start[i] + p - ell_len[i] (the builder keeps AIJ's
   order within each row).  A thread a stored entry, its row read from an array made with the map
   (4 bytes an entry).  Found at each update instead (H100, 7-point 160^3), by a binary search over
   every row in each block's first thread, its block waiting, the row took about half of the
   update; by a search among the block's rows, found once, the update still took 1.7x pcsr's. */
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
  int32_t     *row;    /* nnz: the row of each stored entry */
  int32_t     *jmap;   /* nnz + 1; NULL: one COO entry a stored entry, perm[q] */
  int32_t     *perm;   /* jmap[nnz]; NULL (with jmap): COO entry q */
  PetscScalar *values; /* nnz: the values in AIJ's order, gathered for the copy back */
};

/* row[q] = i for the stored entries q of row i, a thread a row */
__global__ void CIHybridCOORows(int32_t nrows, const int32_t *__restrict__ rowptr, int32_t *row)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += (long long)gridDim.x * blockDim.x)
    for (int32_t q = rowptr[i]; q < rowptr[i + 1]; q++) row[q] = (int32_t)i;
}

static unsigned CIHybridCOOBlocks(int64_t n)
{
  return (unsigned)PetscMax(1, PetscMin((n + CIHYBRID_COO_THREADS - 1) / CIHYBRID_COO_THREADS, (int64_t)1 << 20));
}

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
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->row, ((size_t)nnz + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->values, ((size_t)nnz + 1) * sizeof(PetscScalar), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(c->rowptr, rowptr, ((size_t)nrows + 1) * sizeof(int32_t));
  if (!ierr && nnz) {
    void *stream;

    ierr = GpuMatsCUDAGetStream(&stream);
    if (!ierr) {
      CIHybridCOORows<<<CIHybridCOOBlocks(nrows), CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(nrows, c->rowptr, c->row);
      ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridCOORows", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
    }
  }
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
  PetscCall(GpuMatsCUDAFree((*coo)->row));
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->perm));
  PetscCall(GpuMatsCUDAFree((*coo)->values));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

/* A thread a stored entry (coalesced reads of the rows and jmap, writes of a row's slots next to
   each other).  to_slots: the sum of its COO values (AIJ's arithmetic: summed, then added to the
   old value or put in its place) into its slot; else the slot's value into values[q], AIJ's order. */
__global__ void CIHybridCOOEntries(int to_slots, int32_t nnz, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ row, const int32_t *__restrict__ jmap, const int32_t *__restrict__ perm, const PetscScalar *__restrict__ v, int add, PetscInt pitch,
                                   const int32_t *__restrict__ ell_len, const int32_t *__restrict__ csr_start, PetscScalar *ell_val, PetscScalar *csr_val, PetscScalar *values)
{
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) {
    const int32_t i = row[q], p = (int32_t)q - rowptr[i], s = ell_len ? ell_len[i] : 0;
    PetscScalar  *slot = p < s ? ell_val + (size_t)i * (size_t)pitch + p : csr_val + csr_start[i] + (p - s);

    if (to_slots) {
      PetscScalar sum = 0.0;

      if (!jmap) sum = v[perm ? perm[q] : q];
      else
        for (int32_t k = jmap[q]; k < jmap[q + 1]; k++) sum += v[perm[k]];
      *slot = add ? *slot + sum : sum;
    } else values[q] = *slot;
  }
}

static PetscErrorCode CIHybridCOOLaunch(CIHybridDevice dev, CIHybridDeviceCOO coo, int to_slots, const PetscScalar *v, int add)
{
  void          *stream;
  const unsigned blocks = CIHybridCOOBlocks(coo->nnz);

  PetscFunctionBegin;
  PetscCheck(dev->nrows == coo->nrows && dev->nnz == coo->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO map of %d rows, %d stored entries for a device copy of %" PetscInt_FMT " rows, %" PetscInt64_FMT " entries", (int)coo->nrows, (int)coo->nnz, dev->nrows, dev->nnz);
  if (!coo->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  CIHybridCOOEntries<<<blocks, CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(to_slots, coo->nnz, coo->rowptr, coo->row, coo->jmap, coo->perm, v, add, dev->pitch, dev->ell_len, dev->csr_start, dev->ell_val, dev->csr_val, coo->values);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOOSetValues(CIHybridDevice dev, CIHybridDeviceCOO coo, const PetscScalar *v, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(CIHybridCOOLaunch(dev, coo, 1, v, add ? 1 : 0));
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOODownloadValues(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscScalar *host_values)
{
  PetscFunctionBegin;
  PetscCall(CIHybridCOOLaunch(dev, coo, 0, NULL, 0)); /* the slots' values in AIJ's order, on the stream the copy uses */
  if (coo->nnz) PetscCall(GpuMatsCUDACopyToHost(host_values, coo->values, (size_t)coo->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
