/* COO values straight into a CIHYBRID device copy: stored entry q of the AIJ master (row i, the
   p-th of its row) is the sum of the COO values v[perm[k]], jmap[q] <= k < jmap[q+1], and lives in
   the ELLPACK slot i*pitch + p when p < ell_len[i], else in remainder slot csr_start[i] + p -
   ell_len[i] (the builder keeps AIJ's order within each row).  A thread a stored entry finds its
   row among its block's, which are found once, when the map is made: a binary search over every
   row at each update, by one thread while its block waited, took about half of the update. */
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
  int32_t     *rowptr;     /* nrows + 1: AIJ's row starts */
  int32_t     *block_rows; /* blocks + 1: the row of each block's first stored entry, then nrows - 1 */
  int32_t     *jmap;       /* nnz + 1; NULL: stored entry q is COO entry q */
  int32_t     *perm;       /* jmap[nnz] */
  PetscScalar *values;     /* nnz: the values in AIJ's order, gathered for the copy back */
};

/* The row of stored entry q: the last i in [lo, hi] with rowptr[i] <= q (an empty row's start
   equals the next row's) */
__device__ static int32_t CIHybridCOORow(const int32_t *__restrict__ rowptr, int32_t lo, int32_t hi, int32_t q)
{
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;

    if (rowptr[mid] <= q) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* block_rows[b]: the row of stored entry b * CIHYBRID_COO_THREADS (b < blocks), nrows - 1 for
   b = blocks; so block b's entries lie in rows block_rows[b] .. block_rows[b + 1] */
__global__ void CIHybridCOOBlockRows(int32_t nrows, int32_t blocks, const int32_t *__restrict__ rowptr, int32_t *block_rows)
{
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b <= blocks; b += (long long)gridDim.x * blockDim.x) block_rows[b] = b < blocks ? CIHybridCOORow(rowptr, 0, nrows - 1, (int32_t)(b * CIHYBRID_COO_THREADS)) : nrows - 1;
}

static unsigned CIHybridCOOBlocks(int32_t nnz)
{
  return (unsigned)(((int64_t)nnz + CIHYBRID_COO_THREADS - 1) / CIHYBRID_COO_THREADS);
}

extern "C" PetscErrorCode CIHybridDeviceCOOCreate(int32_t nrows, const int32_t *rowptr, int32_t *jmap, int32_t *perm, CIHybridDeviceCOO *coo)
{
  CIHybridDeviceCOO c;
  PetscErrorCode    ierr;
  char              what[128];
  const int32_t     nnz = rowptr[nrows];
  const unsigned    blocks = CIHybridCOOBlocks(nnz);

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
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->block_rows, ((size_t)blocks + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->values, ((size_t)nnz + 1) * sizeof(PetscScalar), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(c->rowptr, rowptr, ((size_t)nrows + 1) * sizeof(int32_t));
  if (!ierr && nnz) {
    void *stream;

    ierr = GpuMatsCUDAGetStream(&stream);
    if (!ierr) {
      CIHybridCOOBlockRows<<<(blocks + CIHYBRID_COO_THREADS) / CIHYBRID_COO_THREADS, CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(nrows, (int32_t)blocks, c->rowptr, c->block_rows);
      ierr = GpuMatsCUDACheck((int)cudaGetLastError(), "CIHybridCOOBlockRows", PETSC_FUNCTION_NAME, __FILE__, __LINE__);
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
  PetscCall(GpuMatsCUDAFree((*coo)->block_rows));
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->perm));
  PetscCall(GpuMatsCUDAFree((*coo)->values));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

/* A thread a stored entry, a block CIHYBRID_COO_THREADS consecutive ones (coalesced reads of
   jmap and writes of a row's slots): its row found among the block's rows, then its slot.
   to_slots: the sum of its COO values (AIJ's arithmetic: summed, then added to the old value or
   put in its place) into the slot; else the slot's value into values[q], AIJ's order. */
__global__ void CIHybridCOOEntries(int to_slots, int32_t nnz, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ block_rows, const int32_t *__restrict__ jmap, const int32_t *__restrict__ perm, const PetscScalar *__restrict__ v, int add, PetscInt pitch,
                                   const int32_t *__restrict__ ell_len, const int32_t *__restrict__ csr_start, PetscScalar *ell_val, PetscScalar *csr_val, PetscScalar *values)
{
  const long long q = (long long)blockIdx.x * CIHYBRID_COO_THREADS + threadIdx.x; /* 64-bit: nnz may come near 2^31 */

  if (q < nnz) {
    const int32_t i = CIHybridCOORow(rowptr, block_rows[blockIdx.x], block_rows[blockIdx.x + 1], (int32_t)q), p = (int32_t)q - rowptr[i], s = ell_len ? ell_len[i] : 0;
    PetscScalar  *slot = p < s ? ell_val + (size_t)i * (size_t)pitch + p : csr_val + csr_start[i] + (p - s);

    if (to_slots) {
      PetscScalar sum = 0.0;

      if (!jmap) sum = v[q];
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
  CIHybridCOOEntries<<<blocks, CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(to_slots, coo->nnz, coo->rowptr, coo->block_rows, coo->jmap, coo->perm, v, add, dev->pitch, dev->ell_len, dev->csr_start, dev->ell_val, dev->csr_val, coo->values);
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
