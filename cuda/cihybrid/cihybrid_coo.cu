/* COO values straight into a CIHYBRID device copy: stored entry q of the AIJ master (row i, the
   p-th of its row) is the sum of the COO values at the places perm[k], jmap[q] <= k < jmap[q+1]
   (perm[q] where jmap is NULL, q where perm is too; an MPI block's places include the values
   received: gpumats_coo_values.cuh), and lives in the ELLPACK slot i*pitch + p when
   p < ell_len[i], else in remainder slot csr_start[i] + p - ell_len[i] (the builder keeps AIJ's
   order within each row).  Each stored entry's slot is found once for the device copy's layout
   (4 bytes an entry).  Where each stored entry has one COO value (no jmap: a DMDA's, most
   assemblers' patterns) the map is then turned around once for the layout: the place of each slot's
   value (4 bytes a slot, padding included), and a thread a slot writes the slots in order, as
   pcsr writes its values; the thread a stored entry that read its slot (kept where entries have
   several values, or the device lacks the memory) was clearly slower than pcsr's update (a
   7-point stencil).  Found at each update instead: by a binary search over every row in each
   block's first thread, its block waiting, the row took about half of the update; by a search
   among the block's rows, found once, or from each entry's row, the update was slower still. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "cihybrid_cudaimpl.h"
}
#include "../common/gpumats_coo_values.cuh"

#define CIHYBRID_COO_THREADS 256

struct _n_CIHybridDeviceCOO {
  int32_t            nrows, nnz;
  int32_t           *slot;      /* nnz: each stored entry's slot, ELLPACK's (>= 0) or -1 - the remainder's */
  unsigned long long slots_for; /* the layout (CIHybridDevice's number) of the slots; 0: none yet */
  int32_t           *by_slot;   /* where jmap is NULL: the place of each slot's value, ELLPACK's slots then the
                                   remainder's (GPUMATS_COO_NO_PLACE: none), for the layout slots_for; NULL: not made */
  int32_t           *jmap;      /* nnz + 1; NULL: one COO entry a stored entry, perm[q] */
  int32_t           *perm;      /* jmap[nnz]; NULL (with jmap): COO entry q */
  PetscScalar       *values;    /* nnz: the values in AIJ's order, gathered for the copy back */
};

/* The slots of row i's stored entries, a thread a row (rowptr: the device copy's AIJ row starts) */
__global__ void CIHybridCOOSlotsOfRows(int32_t nrows, const PetscInt *__restrict__ rowptr, PetscInt pitch, const int32_t *__restrict__ ell_len, const int32_t *__restrict__ csr_start, int32_t *slot)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += (long long)gridDim.x * blockDim.x) {
    const int32_t s = ell_len ? ell_len[i] : 0;

    for (PetscInt q = rowptr[i], p = 0; q < rowptr[i + 1]; q++, p++) slot[q] = (int32_t)(p < s ? i * pitch + p : -1 - (csr_start[i] + p - s));
  }
}

extern "C" PetscErrorCode CIHybridDeviceCOOCreate(int32_t nrows, int32_t nnz, int32_t *jmap, int32_t *perm, CIHybridDeviceCOO *coo)
{
  CIHybridDeviceCOO c;
  PetscErrorCode    ierr;
  char              what[128];

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
  ierr = GpuMatsCUDAMalloc((void **)&c->slot, ((size_t)nnz + 1) * sizeof(int32_t), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&c->values, ((size_t)nnz + 1) * sizeof(PetscScalar), what);
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
  PetscCall(GpuMatsCUDAFree((*coo)->slot));
  PetscCall(GpuMatsCUDAFree((*coo)->by_slot));
  PetscCall(GpuMatsCUDAFree((*coo)->jmap));
  PetscCall(GpuMatsCUDAFree((*coo)->perm));
  PetscCall(GpuMatsCUDAFree((*coo)->values));
  PetscCall(PetscFree(*coo));
  PetscFunctionReturn(0);
}

/* Slot t of a stored entry in ell (ELLPACK's slots, t >= 0) or rem (the remainder's, -1 - t) */
template <typename T>
static __device__ __forceinline__ T *CIHybridCOOSlotAt(int32_t t, T *ell, T *rem)
{
  return t >= 0 ? ell + t : rem + (-1 - (long long)t);
}

/* A thread a stored entry.  to_slots: the sum of its COO values (AIJ's arithmetic: summed, then
   added to the old value or put in its place) into its slot; else the slot's value into
   values[q], AIJ's order. */
__global__ void CIHybridCOOEntries(int to_slots, int32_t nnz, const int32_t *__restrict__ slot, const int32_t *__restrict__ jmap, const int32_t *__restrict__ perm, const PetscScalar *__restrict__ v, const PetscScalar *__restrict__ recv, int add, PetscScalar *ell_val, PetscScalar *csr_val, PetscScalar *values)
{
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) {
    PetscScalar *dst = CIHybridCOOSlotAt(slot[q], ell_val, csr_val);

    if (to_slots) {
      PetscScalar sum = 0.0;

      if (!jmap) sum = GpuMatsCOOValue(v, recv, perm ? perm[q] : (int32_t)q);
      else
        for (int32_t k = jmap[q]; k < jmap[q + 1]; k++) sum += GpuMatsCOOValue(v, recv, perm[k]);
      *dst = add ? *dst + sum : sum;
    } else values[q] = *dst;
  }
}

/* by_slot[s] = none for the nslots slots */
__global__ void CIHybridCOOBySlotClear(long long nslots, int32_t *by_slot)
{
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (long long)gridDim.x * blockDim.x) by_slot[s] = GPUMATS_COO_NO_PLACE;
}

/* Each stored entry's value place (perm[q], or q) at its slot (the remainder's after ELLPACK's nell) */
__global__ void CIHybridCOOBySlotFill(int32_t nnz, const int32_t *__restrict__ slot, const int32_t *__restrict__ perm, long long nell, int32_t *by_slot)
{
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) *CIHybridCOOSlotAt(slot[q], by_slot, by_slot + nell) = perm ? perm[q] : (int32_t)q;
}

/* A thread a slot, in order: its value (or the old one plus it) where it has one */
__global__ void CIHybridCOOSlots(long long nslots, long long nell, const int32_t *__restrict__ by_slot, const PetscScalar *__restrict__ v, const PetscScalar *__restrict__ recv, int add, PetscScalar *ell_val, PetscScalar *csr_val)
{
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (long long)gridDim.x * blockDim.x) {
    const int32_t t = by_slot[s];

    if (t != GPUMATS_COO_NO_PLACE) {
      PetscScalar      *dst = s < nell ? ell_val + s : csr_val + (s - nell);
      const PetscScalar x   = GpuMatsCOOValue(v, recv, t);

      *dst = add ? *dst + x : x;
    }
  }
}

/* ELLPACK's slots in dev's layout (nrows x pitch), then the remainder's: the slots a map by slot covers */
static inline long long CIHybridCOONell(CIHybridDevice dev)
{
  return (long long)dev->nrows * dev->pitch;
}

static inline long long CIHybridCOONslots(CIHybridDevice dev)
{
  return CIHybridCOONell(dev) + dev->nnz_csr;
}

/* Where jmap is NULL, the map by slot for dev's layout (whose slots are made), unless the device
   lacks the memory: then the map by stored entry serves */
static PetscErrorCode CIHybridCOOBySlot(CIHybridDevice dev, CIHybridDeviceCOO coo, cudaStream_t stream)
{
  const long long nell = CIHybridCOONell(dev), nslots = CIHybridCOONslots(dev);
  PetscBool       ok   = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAFree(coo->by_slot));
  coo->by_slot = NULL;
  if (coo->jmap || !coo->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDATryMalloc((void **)&coo->by_slot, (size_t)nslots * sizeof(int32_t), &ok));
  if (!ok) {
    PetscCall(PetscInfo(NULL, "CIHYBRID COO: no device memory for the map by slot (%lld slots): the map by stored entry serves\n", nslots));
    PetscFunctionReturn(0);
  }
  CIHybridCOOBySlotClear<<<GpuMatsCUDAGridBlocks(nslots, CIHYBRID_COO_THREADS), CIHYBRID_COO_THREADS, 0, stream>>>(nslots, coo->by_slot);
  GpuMatsCallCUDA(cudaGetLastError());
  CIHybridCOOBySlotFill<<<GpuMatsCUDAGridBlocks(coo->nnz, CIHYBRID_COO_THREADS), CIHYBRID_COO_THREADS, 0, stream>>>(coo->nnz, coo->slot, coo->perm, nell, coo->by_slot);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* Whether the slots of dev's layout fit 32 bits; if so, made for it unless they are */
static PetscErrorCode CIHybridCOOSlotsFor(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscBool *fit)
{
  void *stream;

  PetscFunctionBegin;
  PetscCheck(dev->nrows == coo->nrows && dev->nnz == coo->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO map of %d rows, %d stored entries for a device copy of %" PetscInt_FMT " rows, %" PetscInt64_FMT " entries", (int)coo->nrows, (int)coo->nnz, dev->nrows, dev->nnz);
  *fit = (PetscBool)(CIHybridCOONell(dev) <= INT32_MAX && dev->nnz_csr < INT32_MAX);
  if (!*fit || coo->slots_for == dev->layout) PetscFunctionReturn(0);
  if (coo->nrows) {
    PetscCheck(dev->aij_rowptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO: a device copy without AIJ's row starts");
    PetscCall(GpuMatsCUDAGetStream(&stream));
    CIHybridCOOSlotsOfRows<<<GpuMatsCUDAGridBlocks(coo->nrows, CIHYBRID_COO_THREADS), CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(coo->nrows, dev->aij_rowptr, dev->pitch, dev->ell_len, dev->csr_start, coo->slot);
    GpuMatsCallCUDA(cudaGetLastError());
    PetscCall(CIHybridCOOBySlot(dev, coo, (cudaStream_t)stream));
  }
  coo->slots_for = dev->layout;
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridCOOLaunch(CIHybridDevice dev, CIHybridDeviceCOO coo, int to_slots, const PetscScalar *v, const PetscScalar *recv, int add)
{
  void *stream;

  PetscFunctionBegin;
  if (!coo->nnz) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  CIHybridCOOEntries<<<GpuMatsCUDAGridBlocks(coo->nnz, CIHYBRID_COO_THREADS), CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(to_slots, coo->nnz, coo->slot, coo->jmap, coo->perm, v, recv, add, dev->ell_val, dev->csr_val, coo->values);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOOSlotsFit(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscBool *fit)
{
  PetscFunctionBegin;
  PetscCall(CIHybridCOOSlotsFor(dev, coo, fit));
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOOSetValues(CIHybridDevice dev, CIHybridDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add)
{
  PetscBool fit;

  PetscFunctionBegin;
  PetscCall(CIHybridCOOSlotsFor(dev, coo, &fit));
  PetscCheck(fit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO: device values for a layout whose slots do not fit 32 bits");
  if (coo->by_slot) { /* made for dev's layout (CIHybridCOOSlotsFor): its slots */
    const long long nell = CIHybridCOONell(dev), nslots = CIHybridCOONslots(dev);
    void           *stream;

    PetscCall(GpuMatsCUDAGetStream(&stream));
    CIHybridCOOSlots<<<GpuMatsCUDAGridBlocks(nslots, CIHYBRID_COO_THREADS), CIHYBRID_COO_THREADS, 0, (cudaStream_t)stream>>>(nslots, nell, coo->by_slot, v, recv, add ? 1 : 0, dev->ell_val, dev->csr_val);
    GpuMatsCallCUDA(cudaGetLastError());
  } else PetscCall(CIHybridCOOLaunch(dev, coo, 1, v, recv, add ? 1 : 0));
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode CIHybridDeviceCOODownloadValues(CIHybridDevice dev, CIHybridDeviceCOO coo, PetscScalar *host_values)
{
  PetscBool fit;

  PetscFunctionBegin;
  PetscCall(CIHybridCOOSlotsFor(dev, coo, &fit));
  PetscCheck(fit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CIHYBRID COO: device values to bring back from a layout whose slots do not fit 32 bits");
  PetscCall(CIHybridCOOLaunch(dev, coo, 0, NULL, NULL, 0)); /* the slots' values in AIJ's order, on the stream the copy uses */
  if (coo->nnz) PetscCall(GpuMatsCUDACopyToHost(host_values, coo->values, (size_t)coo->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
