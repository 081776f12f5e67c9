/* The copies of a ghost exchange through pinned host buffers (src/common/mpighosts.c): the
   values other processes need gathered from x on the device and copied to a pinned buffer,
   and the ghost values received into another pinned buffer copied to the device; both on
   GpuMatsCUDAGetStream(), the gather's completion marked by an event so that the host waits
   for it alone while the kernels queued after it run. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "gpumats_cuda.h"
#include "gpumats_ghosts.h"
}

struct _n_GpuMatsGhostCopies {
  PetscInt     nsend, nrecv;
  int         *idx;          /* nsend local indices of x, device */
  PetscScalar *send_device;  /* nsend */
  PetscScalar *send_host;    /* nsend, pinned */
  PetscScalar *recv_host;    /* nrecv, pinned */
  cudaEvent_t  packed;
};

__global__ void GpuMatsGhostGather(PetscInt n, const int *idx, const PetscScalar *x, PetscScalar *buf)
{
  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) buf[k] = x[idx[k]];
}

PetscErrorCode GpuMatsGhostCopiesCreate(PetscInt nsend, const PetscInt idx[], PetscInt nrecv, GpuMatsGhostCopies *copies)
{
  GpuMatsGhostCopies g;
  int               *hidx;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  *copies  = g;
  g->nsend = nsend;
  g->nrecv = nrecv;
  GpuMatsCallCUDA(cudaEventCreateWithFlags(&g->packed, cudaEventDisableTiming));
  PetscCall(GpuMatsCUDAMalloc((void **)&g->idx, (size_t)PetscMax(nsend, 1) * sizeof(int), "the indices of the values sent to other processes"));
  PetscCall(GpuMatsCUDAMalloc((void **)&g->send_device, (size_t)PetscMax(nsend, 1) * sizeof(PetscScalar), "the values sent to other processes"));
  GpuMatsCallCUDA(cudaMallocHost((void **)&g->send_host, (size_t)PetscMax(nsend, 1) * sizeof(PetscScalar)));
  GpuMatsCallCUDA(cudaMallocHost((void **)&g->recv_host, (size_t)PetscMax(nrecv, 1) * sizeof(PetscScalar)));
  PetscCall(PetscMalloc1(nsend, &hidx));
  for (PetscInt k = 0; k < nsend; k++) hidx[k] = (int)idx[k];
  ierr = GpuMatsCUDACopyToDevice(g->idx, hidx, (size_t)nsend * sizeof(int));
  PetscCall(PetscFree(hidx));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsGhostCopiesDestroy(GpuMatsGhostCopies *copies)
{
  GpuMatsGhostCopies g = *copies;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree(g->idx));
  PetscCall(GpuMatsCUDAFree(g->send_device));
  if (g->send_host) GpuMatsCallCUDA(cudaFreeHost(g->send_host));
  if (g->recv_host) GpuMatsCallCUDA(cudaFreeHost(g->recv_host));
  if (g->packed) GpuMatsCallCUDA(cudaEventDestroy(g->packed));
  PetscCall(PetscFree(*copies));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsGhostCopiesPack(GpuMatsGhostCopies g, const PetscScalar *x)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  if (g->nsend) {
    GpuMatsGhostGather<<<(unsigned)((g->nsend + 255) / 256), 256, 0, (cudaStream_t)stream>>>(g->nsend, g->idx, x, g->send_device);
    GpuMatsCallCUDA(cudaGetLastError());
    GpuMatsCallCUDA(cudaMemcpyAsync(g->send_host, g->send_device, (size_t)g->nsend * sizeof(PetscScalar), cudaMemcpyDeviceToHost, (cudaStream_t)stream));
  }
  GpuMatsCallCUDA(cudaEventRecord(g->packed, (cudaStream_t)stream));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsGhostCopiesWaitPacked(GpuMatsGhostCopies g, PetscScalar **send, PetscScalar **recv)
{
  PetscFunctionBegin;
  /* the send buffer filled, and the receive buffer's copy of the previous exchange done: not
     waited for where neither buffer is used, so the host runs ahead of the device */
  if (g->nsend || g->nrecv) GpuMatsCallCUDA(cudaEventSynchronize(g->packed));
  *send = g->send_host;
  *recv = g->recv_host;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsGhostCopiesUnpack(GpuMatsGhostCopies g, PetscScalar *ghosts)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  if (g->nrecv) GpuMatsCallCUDA(cudaMemcpyAsync(ghosts, g->recv_host, (size_t)g->nrecv * sizeof(PetscScalar), cudaMemcpyHostToDevice, (cudaStream_t)stream));
  PetscFunctionReturn(0);
}
