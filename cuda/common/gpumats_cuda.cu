/* The gpumats device context: which device, which stream, checked
   allocation and copies, pinned staging buffers.

   With a CUDA-enabled PETSc, PETSc owns the device and the stream (its
   current device context's stream), so gpumats kernels are ordered with
   PETSc's own vector operations.  Without it (Debian's PETSc), gpumats
   chooses the device itself and owns one non-blocking stream. */
#include <petscsys.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif
#include <cuda_runtime.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
extern "C" {
#include "gpumats_cuda.h"
}

static struct {
  PetscBool    checked; /* the device probe below ran (reset by PetscFinalize) */
  PetscBool    avail;
  char         why[256];
  int          device;
  int          ndevices; /* GpuMatsCUDACountDevices: 0 not counted yet, -1 none usable or disabled */
  cudaError_t  count_error; /* what cudaGetDeviceCount said */
  PetscBool    disabled;    /* -device_enable none */
  cudaStream_t stream; /* only when PETSc has no CUDA: ours, created on first use */
} GpuMatsCUDA;

/* Not wrapped in PetscFunctionBegin: the error must carry the caller's
   function, file and line, which the macro GpuMatsCallCUDA passes in. */
PetscErrorCode GpuMatsCUDACheck(int err, const char *call, const char *func, const char *file, int line)
{
  const cudaError_t cerr = (cudaError_t)err;

  if (PetscLikely(cerr == cudaSuccess)) return 0;
  if (cerr == cudaErrorMemoryAllocation) { /* a launch or copy that needed device memory: out of memory, as a failed allocation says it */
    size_t free_bytes = 0, total_bytes = 0;

    (void)cudaGetLastError();
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
    return PetscError(PETSC_COMM_SELF, line, func, file, PETSC_ERR_MEM, PETSC_ERROR_INITIAL, "Out of GPU memory in %s: %zu bytes (%.1f MiB) free of %zu bytes on device %d", call, free_bytes, free_bytes / 1048576.0, total_bytes, GpuMatsCUDA.device);
  }
  return PetscError(PETSC_COMM_SELF, line, func, file, PETSC_ERR_GPU, PETSC_ERROR_INITIAL, "CUDA error %d (%s): %s, in %s", err, cudaGetErrorName(cerr), cudaGetErrorString(cerr), call);
}

static PetscErrorCode GpuMatsCUDAFinalize(void)
{
  PetscFunctionBegin;
  if (GpuMatsCUDA.stream) GpuMatsCallCUDA(cudaStreamDestroy(GpuMatsCUDA.stream));
  memset(&GpuMatsCUDA, 0, sizeof(GpuMatsCUDA));
  PetscFunctionReturn(0);
}

static void GpuMatsCUDASetUnavailable(const char *reason, cudaError_t cerr)
{
  if (cerr != cudaSuccess) snprintf(GpuMatsCUDA.why, sizeof(GpuMatsCUDA.why), "%s: %s (%s)", reason, cudaGetErrorString(cerr), cudaGetErrorName(cerr));
  else snprintf(GpuMatsCUDA.why, sizeof(GpuMatsCUDA.why), "%s", reason);
  (void)cudaGetLastError(); /* a failed probe must not be reported by a later, unrelated check */
  GpuMatsCUDA.avail = PETSC_FALSE;
}

#if defined(PETSC_HAVE_CUDA)
/* PETSc errors out (instead of falling back) when asked for a device the user
   disabled, so honour -device_enable[_cuda] none before asking it. */
static PetscErrorCode GpuMatsCUDADisabledInPETSc(PetscBool *disabled)
{
  const char *names[] = {"-device_enable", "-device_enable_cuda"};
  char        value[64];
  PetscBool   set;

  PetscFunctionBegin;
  *disabled = PETSC_FALSE;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    PetscCall(PetscOptionsGetString(NULL, NULL, names[i], value, sizeof(value), &set));
    if (set) {
      PetscBool none;

      PetscCall(PetscStrcasecmp(value, "none", &none));
      if (none) *disabled = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(0);
}

/* PETSc chooses and initialises the device; called only when one is present,
   because PETSc raises an error (not a fallback) when it finds none. */
static PetscErrorCode GpuMatsCUDASelectDevice(int ndevices)
{
  PetscFunctionBegin;
  (void)ndevices; /* PETSc counts them itself */
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  if (!PetscDeviceInitialized(PETSC_DEVICE_CUDA)) {
    GpuMatsCUDASetUnavailable("PETSc did not initialise a CUDA device", cudaSuccess);
    PetscFunctionReturn(0);
  }
  GpuMatsCallCUDA(cudaGetDevice(&GpuMatsCUDA.device));
  GpuMatsCUDA.avail = PETSC_TRUE;
  PetscFunctionReturn(0);
}
#else
/* Node-local rank: from the launcher's environment, because the first probe
   happens inside a product that need not be collective (a matrix on
   PETSC_COMM_SELF), so MPI_Comm_split_type could hang. Falls back to the
   global rank. */
static int GpuMatsCUDALocalRank(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK"};
  PetscMPIInt rank = 0;

  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return atoi(v);
  }
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &rank) != MPI_SUCCESS) rank = 0;
  return (int)rank;
}

/* PETSc's rule: node-local rank modulo the number of devices, unless -gpumats_device is given. */
static PetscErrorCode GpuMatsCUDAChooseDevice(int ndevices, int *device)
{
  PetscInt  id = -1;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gpumats_device", &id, &set));
  if (set) {
    PetscCheck(id >= 0 && id < ndevices, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-gpumats_device %d: this node has %d CUDA device(s), give an id in 0..%d", (int)id, ndevices, ndevices - 1);
    *device = (int)id;
    PetscFunctionReturn(0);
  }
  *device = GpuMatsCUDALocalRank() % ndevices;
  PetscFunctionReturn(0);
}

static PetscErrorCode GpuMatsCUDASelectDevice(int ndevices)
{
  cudaError_t cerr;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAChooseDevice(ndevices, &GpuMatsCUDA.device));
  GpuMatsCallCUDA(cudaSetDevice(GpuMatsCUDA.device));
  cerr = cudaFree(NULL); /* creates the context now: an exclusive or broken device is "unavailable", not an error later */
  if (cerr != cudaSuccess) {
    GpuMatsCUDASetUnavailable("cannot create a context on the CUDA device", cerr);
    PetscFunctionReturn(0);
  }
  GpuMatsCUDA.avail = PETSC_TRUE;
  PetscFunctionReturn(0);
}
#endif

/* The devices counted once, without making a context (GpuMatsCUDA.ndevices: -1 when none is
   usable, or when the user disabled them with -device_enable none: PETSc, asked for a device
   then, raises an error instead of falling back). */
static PetscErrorCode GpuMatsCUDACountDevices(void)
{
  PetscFunctionBegin;
  if (GpuMatsCUDA.ndevices) PetscFunctionReturn(0);
  GpuMatsCUDA.count_error = cudaGetDeviceCount(&GpuMatsCUDA.ndevices);
  if (GpuMatsCUDA.count_error != cudaSuccess || GpuMatsCUDA.ndevices <= 0) {
    (void)cudaGetLastError();
    GpuMatsCUDA.ndevices = -1;
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(GpuMatsCUDADisabledInPETSc(&GpuMatsCUDA.disabled));
  if (GpuMatsCUDA.disabled) GpuMatsCUDA.ndevices = -1;
#endif
  PetscFunctionReturn(0);
}

/* No device or no driver is an answer (avail = false), never an error. */
static PetscErrorCode GpuMatsCUDAProbe(void)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsCUDACountDevices());
  if (GpuMatsCUDA.disabled) GpuMatsCUDASetUnavailable("CUDA devices are disabled by -device_enable none", cudaSuccess);
  else if (GpuMatsCUDA.ndevices <= 0) GpuMatsCUDASetUnavailable("no usable CUDA device", GpuMatsCUDA.count_error);
  else PetscCall(GpuMatsCUDASelectDevice(GpuMatsCUDA.ndevices));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAInitialize(PetscBool *avail, const char **why)
{
  PetscFunctionBegin;
  if (!GpuMatsCUDA.checked) {
    PetscLogDouble t0, t1;

    PetscCall(PetscRegisterFinalize(GpuMatsCUDAFinalize));
    GpuMatsCUDA.checked = PETSC_TRUE;
    PetscCall(PetscTime(&t0));
    PetscCall(GpuMatsCUDAProbe());
    PetscCall(PetscTime(&t1));
    if (GpuMatsCUDA.avail) {
      PetscCall(PetscInfo(NULL, "gpumats uses CUDA device %d (its context made in %.3g s)\n", GpuMatsCUDA.device, t1 - t0));
      PetscCall(GpuMatsCUDATransferSetUp());
      PetscCall(GpuMatsCUDACOOMapSetUp());
    }
    else PetscCall(PetscInfo(NULL, "gpumats runs on the host: %s\n", GpuMatsCUDA.why));
  }
  if (avail) *avail = GpuMatsCUDA.avail;
  if (why) *why = GpuMatsCUDA.avail ? "" : GpuMatsCUDA.why;
  PetscFunctionReturn(0);
}

static PetscErrorCode GpuMatsCUDAStream(cudaStream_t *stream)
{
  PetscBool   avail;
  const char *why;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "gpumats was asked for a CUDA stream but has no device: %s", why);
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscGetCurrentCUDAStream(stream));
#else
  if (!GpuMatsCUDA.stream) GpuMatsCallCUDA(cudaStreamCreateWithFlags(&GpuMatsCUDA.stream, cudaStreamNonBlocking));
  *stream = GpuMatsCUDA.stream;
#endif
  PetscFunctionReturn(0);
}

/* Is there a CUDA device, without making its context?  The matrices' default vector type is
   set while they are made, and the context (made by GpuMatsCUDAInitialize, a large part of a short program)
   then waits for their first product, as aijcusparse's does; a device present that turns out
   unusable then leaves the products on the host and says so. */
PetscErrorCode GpuMatsCUDADevicePresent(PetscBool *present)
{
  PetscFunctionBegin;
  if (GpuMatsCUDA.checked) {
    *present = GpuMatsCUDA.avail;
    PetscFunctionReturn(0);
  }
  PetscCall(GpuMatsCUDACountDevices());
  *present = (PetscBool)(GpuMatsCUDA.ndevices > 0);
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDADeviceUUID(unsigned char uuid[16])
{
  cudaDeviceProp prop;
  cudaStream_t   s;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAStream(&s)); /* the context made, its device chosen */
  GpuMatsCallCUDA(cudaGetDeviceProperties(&prop, GpuMatsCUDA.device));
  memcpy(uuid, prop.uuid.bytes, 16);
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDADeviceAttribute(int attr, int *value)
{
  static struct {
    int attr, value;
  } known[8];          /* asked before: a process keeps its device, and launches ask for every product */
  static int   nknown = 0;
  cudaStream_t s;

  PetscFunctionBegin;
  for (int a = 0; a < nknown; a++)
    if (known[a].attr == attr) {
      *value = known[a].value;
      PetscFunctionReturn(0);
    }
  PetscCall(GpuMatsCUDAStream(&s)); /* the context made, its device chosen */
  GpuMatsCallCUDA(cudaDeviceGetAttribute(value, (cudaDeviceAttr)attr, GpuMatsCUDA.device));
  if (nknown < 8) known[nknown].attr = attr, known[nknown++].value = *value;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAGetStream(void **stream)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAStream(&s));
  *stream = (void *)s;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDASynchronize(void)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAStream(&s));
  GpuMatsCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDATryMalloc(void **ptr, size_t bytes, PetscBool *ok)
{
  cudaError_t cerr;

  PetscFunctionBegin;
  *ptr = NULL;
  *ok  = PETSC_TRUE;
  if (!bytes) PetscFunctionReturn(0);
  cerr = cudaMalloc(ptr, bytes);
  if (cerr == cudaErrorMemoryAllocation) {
    *ptr = NULL;
    *ok  = PETSC_FALSE;
    (void)cudaGetLastError(); /* clear it, so the next checked call does not report this failure again */
    PetscFunctionReturn(0);
  }
  GpuMatsCallCUDA(cerr);
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAMalloc(void **ptr, size_t bytes, const char *what)
{
  PetscBool ok;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDATryMalloc(ptr, bytes, &ok));
  if (!ok) {
    size_t free_bytes = 0, total_bytes = 0;

    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot allocate %s on the GPU: %zu bytes (%.1f MiB) requested, %.1f MiB free of %.1f MiB on device %d", what, bytes, bytes / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0, GpuMatsCUDA.device);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAFree(void *ptr)
{
  PetscFunctionBegin;
  if (ptr) GpuMatsCallCUDA(cudaFree(ptr));
  PetscFunctionReturn(0);
}

/* Copies of up to 64 KiB go through the command stream; a larger one waits for the copy engine,
   which stays busy for a while after a large cudaFree (measured with CUDA 13: a 69 KB upload of
   the DIAG plan after a large product was freed took fifty times longer in one piece than in two).
   Small uploads go in such pieces; from 1 MiB the one copy's wait is the lesser cost. */
#define GPUMATS_INLINE_COPY_BYTES ((size_t)64 << 10)
#define GPUMATS_PIECEWISE_COPY_MAX ((size_t)1 << 20)

/* Returns when 'src' may be reused, whatever kind of host memory it is. */
PetscErrorCode GpuMatsCUDACopyToDevice(void *dst, const void *src, size_t bytes)
{
  cudaStream_t s;
  const size_t piece = bytes <= GPUMATS_PIECEWISE_COPY_MAX ? GPUMATS_INLINE_COPY_BYTES : bytes;
  PetscBool    staged;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAStream(&s));
  PetscCall(GpuMatsCUDATransferLarge(dst, src, bytes, PETSC_TRUE, &staged));
  if (staged) PetscFunctionReturn(0);
  for (size_t at = 0; at < bytes; at += piece) GpuMatsCallCUDA(cudaMemcpyAsync((char *)dst + at, (const char *)src + at, PetscMin(piece, bytes - at), cudaMemcpyHostToDevice, s));
  GpuMatsCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDACopyToHost(void *dst, const void *src, size_t bytes)
{
  cudaStream_t s;
  PetscBool    staged;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAStream(&s));
  PetscCall(GpuMatsCUDATransferLarge(dst, src, bytes, PETSC_FALSE, &staged));
  if (staged) PetscFunctionReturn(0);
  GpuMatsCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
  GpuMatsCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(0);
}

/* device to device, ordered on the stream (no wait) */
PetscErrorCode GpuMatsCUDACopyOnDevice(void *dst, const void *src, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAStream(&s));
  GpuMatsCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAMemset(void *dst, int value, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAStream(&s));
  GpuMatsCallCUDA(cudaMemsetAsync(dst, value, bytes, s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsCUDAStartSum(void *y, const void *y0, size_t bytes)
{
  PetscFunctionBegin;
  if (!y0) PetscCall(GpuMatsCUDAMemset(y, 0, bytes));
  else if (y0 != y) PetscCall(GpuMatsCUDACopyOnDevice(y, y0, bytes));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageFree(GpuMatsStage *stage)
{
  PetscFunctionBegin;
  if (stage->pinned || stage->device) PetscCall(GpuMatsCUDASynchronize()); /* a copy may still read them */
  if (stage->pinned) GpuMatsCallCUDA(cudaFreeHost(stage->pinned));
  PetscCall(GpuMatsCUDAFree(stage->device));
  stage->pinned = NULL;
  stage->device = NULL;
  stage->bytes  = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageReserve(GpuMatsStage *stage, size_t bytes)
{
  cudaError_t cerr;

  PetscFunctionBegin;
  if (bytes <= stage->bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsStageFree(stage));
  cerr = cudaMallocHost(&stage->pinned, bytes);
  if (cerr == cudaErrorMemoryAllocation) {
    stage->pinned = NULL;
    (void)cudaGetLastError();
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot allocate a pinned host staging buffer of %zu bytes (%.1f MiB)", bytes, bytes / 1048576.0);
  }
  GpuMatsCallCUDA(cerr);
  {
    PetscErrorCode ierr = GpuMatsCUDAMalloc(&stage->device, bytes, "a device staging buffer");

    if (ierr) { /* leave the stage empty, not half allocated */
      (void)cudaFreeHost(stage->pinned);
      stage->pinned = NULL;
    }
    PetscCall(ierr);
  }
  stage->bytes = bytes;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageUpload(GpuMatsStage *stage, const void *host, size_t bytes, void **dev)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(GpuMatsStageReserve(stage, bytes));
  *dev = stage->device;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAStream(&s));
  GpuMatsCallCUDA(cudaStreamSynchronize(s)); /* an earlier upload may still be reading the pinned buffer */
  memcpy(stage->pinned, host, bytes);
  GpuMatsCallCUDA(cudaMemcpyAsync(stage->device, stage->pinned, bytes, cudaMemcpyHostToDevice, s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageDownload(GpuMatsStage *stage, void *host, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCheck(bytes <= stage->bytes, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Download of %zu bytes from a staging buffer of %zu bytes", bytes, stage->bytes);
  PetscCall(GpuMatsCUDAStream(&s));
  GpuMatsCallCUDA(cudaMemcpyAsync(stage->pinned, stage->device, bytes, cudaMemcpyDeviceToHost, s));
  GpuMatsCallCUDA(cudaStreamSynchronize(s));
  memcpy(host, stage->pinned, bytes);
  PetscFunctionReturn(0);
}
