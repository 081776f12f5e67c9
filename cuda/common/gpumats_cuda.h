/* Device context shared by all formats: device choice, the stream every
   kernel runs on, checked allocation and copies, pinned staging buffers.
   C interface; the implementation (gpumats_cuda.cu) is the only place that
   includes cuda_runtime.h for the common machinery. */
#pragma once
#include <petscsys.h>
#include <stdint.h>
#include <gpumats_cuda_context.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* GpuMatsCUDAInitialize (is a device usable? selects it) and GpuMatsCUDAGetStream (the stream
   all gpumats kernels and copies use: PETSc's current CUDA stream when PETSc has CUDA, else one
   owned by gpumats) are exported for the kernel interfaces' callers: <gpumats_cuda_context.h>. */
PetscErrorCode GpuMatsCUDASynchronize(void);
/* Is a device there (counted, its context not made)? */
PetscErrorCode GpuMatsCUDADevicePresent(PetscBool *present);
/* The UUID of the device this process uses (its context made), which tells whether processes share it */
PetscErrorCode GpuMatsCUDADeviceUUID(unsigned char uuid[16]);
/* An attribute of the device this process uses, attr a cudaDeviceAttr (its SMs, the shared memory a
   block may opt in to): the kernels' launch shapes */
PetscErrorCode GpuMatsCUDADeviceAttribute(int attr, int *value);

/* A slot that no COO value reaches (ELLPACK's padding, a stored value no entry names), in the
   maps by slot of the COO values' places (cuda/common/gpumats_coo_values.cuh): no place is this */
#define GPUMATS_COO_NO_PLACE INT32_MIN

/* Blocks of 'threads' threads for a grid-stride loop over n items: one item a thread up to 2^20
   blocks (the loop strides over the rest), at least one block */
static inline unsigned GpuMatsCUDAGridBlocks(long long n, int threads)
{
  const long long blocks = (n + threads - 1) / threads;

  return (unsigned)(blocks < 1 ? 1 : blocks > (1LL << 20) ? (1LL << 20) : blocks);
}

/* Allocation errors are PETSc errors naming 'what', the bytes asked and the bytes free. */
PetscErrorCode GpuMatsCUDAMalloc(void **ptr, size_t bytes, const char *what);
/* The same, but a lack of device memory is no error: *ptr NULL and *ok false (for
   callers with a way round it); other CUDA failures are errors. */
PetscErrorCode GpuMatsCUDATryMalloc(void **ptr, size_t bytes, PetscBool *ok);
PetscErrorCode GpuMatsCUDAFree(void *ptr);
PetscErrorCode GpuMatsCUDACopyToDevice(void *dst, const void *src, size_t bytes);
/* dst <- src, to or from the device, by several host threads through pinned chunks
   (gpumats_transfer.cu), returning when done; *staged false when the copy should go as one
   plain copy instead: small, the host side pinned already, or one thread.  The two copies
   above take this way when they can. */
PetscErrorCode GpuMatsCUDATransferSetUp(void); /* its threads and pinned chunks, once a process */
PetscErrorCode GpuMatsCUDATransferLarge(void *dst, const void *src, size_t bytes, PetscBool to_device, PetscBool *staged);
PetscErrorCode GpuMatsCUDACopyToHost(void *dst, const void *src, size_t bytes);
PetscErrorCode GpuMatsCUDAMemset(void *dst, int value, size_t bytes);
PetscErrorCode GpuMatsCUDACopyOnDevice(void *dst, const void *src, size_t bytes);
/* y = y0 (nothing where y0 is y), or 0 without y0: where a product that adds into y starts (a
   transpose's atomic scatter); queued on the stream */
PetscErrorCode GpuMatsCUDAStartSum(void *y, const void *y0, size_t bytes);

/* A pinned host buffer and a device buffer of the same size, grown on demand:
   how host vectors reach the device when PETSc has no CUDA vectors. */
typedef struct {
  void  *pinned;
  void  *device;
  size_t bytes;
} GpuMatsStage;

PetscErrorCode GpuMatsStageReserve(GpuMatsStage *stage, size_t bytes);
/* device <- host through the pinned buffer; returns the device pointer */
PetscErrorCode GpuMatsStageUpload(GpuMatsStage *stage, const void *host, size_t bytes, void **dev);
/* host <- device buffer of the stage (synchronises the stream) */
PetscErrorCode GpuMatsStageDownload(GpuMatsStage *stage, void *host, size_t bytes);
PetscErrorCode GpuMatsStageFree(GpuMatsStage *stage);

/* A host column-major block (m x k, leading dimension lda) on the device
   through a stage, with leading dimension m there.  Upload copies it and
   returns the device pointer; Reserve only sizes the stage (for a block the
   kernel will overwrite); Download copies the device block back into the
   host block, leaving the rows between m and lda untouched. */
PetscErrorCode GpuMatsStageDenseUpload(GpuMatsStage *stage, const PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda, PetscScalar **dev);
PetscErrorCode GpuMatsStageDenseReserve(GpuMatsStage *stage, PetscInt m, PetscInt k, PetscScalar **dev);
PetscErrorCode GpuMatsStageDenseDownload(GpuMatsStage *stage, PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda);

/* The COO map of an AIJ subclass (common/coo.c) made on the device from AIJ's host CSR (ai, aj,
   nrows rows) and the COO indices (ci, cj, n entries, host arrays): stored entry p sums the COO
   values at the places perm[q], jmap[p] <= q < jmap[p + 1], entries in ascending order within a
   stored entry (entry k's place: place[k], a host array, or k where place is NULL; places as in
   gpumats_coo_values.cuh); jmap (ai[nrows] + 1) and perm (n) are device arrays the caller frees
   with GpuMatsCUDAFree, where *mapped: jmap NULL when every stored entry p has one COO entry,
   perm[p]; perm NULL too when that is place p.  No map (*mapped false) with *bad = -1: the device lacks the memory (or CUB's sort
   failed); with *bad >= 0: COO entry *bad is not in AIJ's pattern.  SetUp, at the context's
   creation: what CUB's sort caches about the device, asked while the device has memory. */
PetscErrorCode GpuMatsCUDACOOMapSetUp(void);
PetscErrorCode GpuMatsCUDACOOStoredMap(PetscInt nrows, const PetscInt *ai, const PetscInt *aj, PetscCount n, const PetscInt *ci, const PetscInt *cj, const int32_t *place, int32_t **jmap, int32_t **perm, PetscBool *mapped, PetscCount *bad);

/* AIJ row pointers ai (device, nrows + 1) of stats->nnz entries in one pass (gpumats_rows.cu):
   checked to be nondecreasing (first_bad: the first row whose pointers decrease, -1 if none),
   the longest row, the empty rows, the spread of the lengths; with out (device, nrows + 1), ai -
   base written there as int32 (out may be ai itself where PetscInt is int32 and base 0). */
typedef struct {
  PetscInt64 nnz; /* given: ai[nrows] - ai[0] */
  PetscInt64 first_bad, max_len, empty;
  double     stddev_row_len;
} GpuMatsRowStats;
PetscErrorCode GpuMatsCUDARowPointers(PetscInt nrows, const PetscInt *ai, PetscInt base, int32_t *out, GpuMatsRowStats *stats);

/* Turns a cudaError_t (passed as int) into a PETSc error. */
PetscErrorCode GpuMatsCUDACheck(int err, const char *call, const char *func, const char *file, int line);
#define GpuMatsCallCUDA(call) PetscCall(GpuMatsCUDACheck((int)(call), #call, PETSC_FUNCTION_NAME, __FILE__, __LINE__))

#if defined(__cplusplus)
}
#endif
