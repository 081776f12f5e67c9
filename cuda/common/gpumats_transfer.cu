/* Large copies between pageable host memory (an AIJ master's columns and values) and the device.

   The driver moves pageable memory through pinned buffers of its own with one host thread, several
   times slower than the link from pinned memory.  Page-locking the array first costs more than it
   saves (registering and unregistering take longer than the copy).
   Here several host threads each own two pinned chunks: a thread copies its next chunk of the
   array into one while the other is on its way, so the host's copies run in parallel and overlap
   the link (benchmarks/src/bench_upload.cu measures it).

   The threads: -gpumats_transfer_threads <n>, by default 4 or the CPUs this process may run on if
   fewer (an MPI rank bound to one core copies alone, as the driver would).  The pinned chunks
   (2 x 4 MB a thread; page-locking them is slow) are made with the device
   context, once a process, and kept until PetscFinalize: made at the first large copy instead,
   they would be a third of the first product of a 4.1M-row stencil (issue 20), and a program
   without large copies pays them beside the far larger cost of the context itself. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <sched.h>
#include <string.h>
#include <thread>
#include <vector>
extern "C" {
#include "gpumats_cuda.h"
}

#define GPUMATS_TRANSFER_CHUNK           ((size_t)4 << 20)
#define GPUMATS_TRANSFER_DEFAULT_THREADS 4
#define GPUMATS_TRANSFER_MAX_THREADS     64

typedef struct {
  char       *chunk[2];
  cudaEvent_t done[2];
} TransferLane;

static struct {
  int          nthreads; /* 0: not set up yet; 1: the driver's own copy */
  TransferLane lane[GPUMATS_TRANSFER_MAX_THREADS];
} Transfer;

static PetscErrorCode GpuMatsTransferFinalize(void)
{
  PetscFunctionBegin;
  for (int t = 0; t < Transfer.nthreads; t++) {
    TransferLane *l = &Transfer.lane[t];

    if (l->chunk[0]) GpuMatsCallCUDA(cudaFreeHost(l->chunk[0]));
    for (int k = 0; k < 2; k++)
      if (l->done[k]) GpuMatsCallCUDA(cudaEventDestroy(l->done[k]));
  }
  memset(&Transfer, 0, sizeof(Transfer));
  PetscFunctionReturn(0);
}

static int GpuMatsTransferCPUs(void)
{
  cpu_set_t set;

  if (sched_getaffinity(0, sizeof(set), &set)) return 1;
  return CPU_COUNT(&set);
}

/* The threads and their pinned chunks; a thread whose chunks cannot be pinned is not used. */
PetscErrorCode GpuMatsCUDATransferSetUp(void)
{
  PetscInt       n = PetscMin(GPUMATS_TRANSFER_DEFAULT_THREADS, GpuMatsTransferCPUs());
  PetscBool      set;
  PetscLogDouble t0, t1;
  int            t;

  PetscFunctionBegin;
  if (Transfer.nthreads) PetscFunctionReturn(0);
  PetscCall(PetscTime(&t0));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gpumats_transfer_threads", &n, &set));
  PetscCheck(!set || (n >= 1 && n <= GPUMATS_TRANSFER_MAX_THREADS), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-gpumats_transfer_threads %" PetscInt_FMT ": give 1 to %d host threads for large copies to and from the device", n, GPUMATS_TRANSFER_MAX_THREADS);
  PetscCall(PetscRegisterFinalize(GpuMatsTransferFinalize));
  for (t = 0; n > 1 && t < n; t++) {
    TransferLane *l = &Transfer.lane[t];

    if (cudaMallocHost((void **)&l->chunk[0], 2 * GPUMATS_TRANSFER_CHUNK) != cudaSuccess) {
      (void)cudaGetLastError();
      l->chunk[0] = NULL;
      break;
    }
    l->chunk[1] = l->chunk[0] + GPUMATS_TRANSFER_CHUNK;
    GpuMatsCallCUDA(cudaEventCreateWithFlags(&l->done[0], cudaEventDisableTiming));
    GpuMatsCallCUDA(cudaEventCreateWithFlags(&l->done[1], cudaEventDisableTiming));
  }
  Transfer.nthreads = PetscMax(t, 1);
  PetscCall(PetscTime(&t1));
  if (t < n && n > 1) {
    PetscCall(PetscInfo(NULL, "Large host-device copies: %d of the %d threads asked for got their pinned chunks\n", t, (int)n));
  } else PetscCall(PetscInfo(NULL, "Large host-device copies by %d host thread(s)%s (set up in %.3g ms)\n", Transfer.nthreads, Transfer.nthreads > 1 ? ", each through two pinned chunks of 4 MB" : ": the driver's own", (t1 - t0) * 1e3));
  PetscFunctionReturn(0);
}

/* Lane t of T moves chunks t, t + T, ... of [0, bytes); the device is the caller's. */
static cudaError_t GpuMatsTransferLaneRun(int t, int T, int device, cudaStream_t s, cudaMemcpyKind kind, char *dst, const char *src, size_t bytes)
{
  TransferLane *l      = &Transfer.lane[t];
  const size_t  nchunk = (bytes + GPUMATS_TRANSFER_CHUNK - 1) / GPUMATS_TRANSFER_CHUNK;
  cudaError_t   e      = cudaSetDevice(device);
  size_t        pending[2] = {0, 0}, pending_at[2] = {0, 0}; /* downloads: bytes of chunk k still to copy out */
  int           k = 0, used = 0;

  for (size_t c = t; e == cudaSuccess && c < nchunk; c += T, k ^= 1, used++) {
    const size_t at = c * GPUMATS_TRANSFER_CHUNK, n = PetscMin(GPUMATS_TRANSFER_CHUNK, bytes - at);

    if (used >= 2) { /* this chunk buffer's previous copy must be over */
      if ((e = cudaEventSynchronize(l->done[k])) != cudaSuccess) break;
      if (pending[k]) memcpy(dst + pending_at[k], l->chunk[k], pending[k]);
      pending[k] = 0;
    }
    if (kind == cudaMemcpyHostToDevice) {
      memcpy(l->chunk[k], src + at, n);
      e = cudaMemcpyAsync(dst + at, l->chunk[k], n, kind, s);
    } else {
      e = cudaMemcpyAsync(l->chunk[k], src + at, n, kind, s);
      pending[k] = n, pending_at[k] = at;
    }
    if (e == cudaSuccess) e = cudaEventRecord(l->done[k], s);
  }
  for (int j = 0; j < 2 && e == cudaSuccess; j++) { /* the last downloads */
    const int kk = (k + j) & 1;

    if (!pending[kk]) continue;
    if ((e = cudaEventSynchronize(l->done[kk])) == cudaSuccess) memcpy(dst + pending_at[kk], l->chunk[kk], pending[kk]);
  }
  return e;
}

PetscErrorCode GpuMatsCUDATransferLarge(void *dst, const void *src, size_t bytes, PetscBool to_device, PetscBool *staged)
{
  const cudaMemcpyKind  kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  const void           *host = to_device ? src : dst;
  cudaPointerAttributes attr;
  cudaStream_t          s;
  int                   device, T;

  PetscFunctionBegin;
  *staged = PETSC_FALSE;
  if (bytes < 2 * GPUMATS_TRANSFER_CHUNK) PetscFunctionReturn(0);
  GpuMatsCallCUDA(cudaPointerGetAttributes(&attr, host));
  if (attr.type != cudaMemoryTypeUnregistered) PetscFunctionReturn(0); /* pinned: the link reads it directly */
  PetscCall(GpuMatsCUDATransferSetUp());
  T = (int)PetscMin((size_t)Transfer.nthreads, (bytes + GPUMATS_TRANSFER_CHUNK - 1) / GPUMATS_TRANSFER_CHUNK);
  if (T < 2) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream((void **)&s));
  GpuMatsCallCUDA(cudaGetDevice(&device));
  {
    std::vector<cudaError_t> err(T, cudaSuccess);
    std::vector<std::thread> helpers;

    for (int t = 1; t < T; t++) {
      try {
        helpers.emplace_back([&, t] { err[t] = GpuMatsTransferLaneRun(t, T, device, s, kind, (char *)dst, (const char *)src, bytes); });
      } catch (...) { /* no thread: this one moves the lane's chunks itself */
        err[t] = GpuMatsTransferLaneRun(t, T, device, s, kind, (char *)dst, (const char *)src, bytes);
      }
    }
    err[0] = GpuMatsTransferLaneRun(0, T, device, s, kind, (char *)dst, (const char *)src, bytes);
    for (auto &h : helpers) h.join();
    for (int t = 0; t < T; t++) GpuMatsCallCUDA(err[t]);
  }
  GpuMatsCallCUDA(cudaStreamSynchronize(s));
  *staged = PETSC_TRUE;
  PetscFunctionReturn(0);
}
