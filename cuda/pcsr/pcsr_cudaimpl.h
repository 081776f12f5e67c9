/* Private to cuda/pcsr/: the device copy of a PCSR matrix (plain CSR with int32
   indices, rebased so that ptr[0] == 0) and what its kernels build on first use.
   Plain C, shared by the .cu files of this folder. */
#pragma once
#include "pcsr_cuda.h"

/* Launch shapes (Hopper: 228 KB of shared memory and 2048 threads per SM; 8 blocks of
   256 threads with a 16 KB window each keep every thread slot busy with room to spare). */
#define PCSR_PAPER_THREADS        256  /* the paper's threadsPerBlock: rows per block of kernel 2 */
#define PCSR_PAPER_WINDOW         2048 /* the paper's sizeSharedMemory: doubles staged at a time (16 KB) */
#define PCSR_ADAPTIVE_THREADS     256
#define PCSR_ADAPTIVE_WINDOW      2048  /* nonzeros of a short-row block, staged in shared memory (16 KB) */
#define PCSR_ADAPTIVE_MAX_ROWS    2048  /* rows of a short-row block (runs of empty rows) */
#define PCSR_ADAPTIVE_LONG_CHUNK  16384 /* nonzeros per thread block of a long row: 64 per thread */

/* Nonzeros at most 2^31 - 2^20: the kernels step int32 offsets past the end of a row
   by up to a few thousand without overflowing.  The host check (PCSRFitsDeviceIndices,
   src/pcsr/pcsr_format.h) uses the same limit, PCSR_MAX_DEVICE_NNZ. */
#define PCSR_MAX_NNZ ((int32_t)(INT32_MAX - (1 << 20)))

/* A CSR matrix on the device as the SpMV kernels read it: the matrix itself, or
   its transposed copy (MAT_PCSR_TRANSPOSE_COPY). */
typedef struct {
  int32_t        nrows, ncols;
  int32_t        nnz;
  const int32_t *ptr; /* nrows + 1, ptr[0] == 0 */
  const int32_t *col; /* nnz */
  const double  *val; /* nnz */
} PCSRDeviceCSR;

/* Row blocks of MAT_PCSR_KERNEL_ADAPTIVE for a CSR matrix, made on the host from its row
   pointers.  Block b covers rows [row[b], row[b + 1]) when chunk[b] < 0 (several rows
   whose nonzeros fit one shared-memory window); when chunk[b] >= 0 it is chunk number
   chunk[b] of the single row row[b] (a long row is cut into chunks of
   PCSR_ADAPTIVE_LONG_CHUNK nonzeros, one thread block each).  The partial sums and
   arrival counters of the chunked rows are indexed by block number. */
typedef struct {
  int32_t  nblocks;
  int32_t *row;     /* nblocks + 1 */
  int32_t *chunk;   /* nblocks */
  double  *partial; /* nblocks, only when some row has several chunks */
  int32_t *arrived; /* nblocks, zero between products; same condition */
} PCSRRowBlocks;

struct _n_PCSRDevice {
  int32_t  nrows, ncols, nnz;
  PCSRRowStats stats;   /* of the rows, from the device row pointers (PCSRDeviceRowPointers) */
  int32_t *ptr;         /* nrows + 1 (NULL when nrows == 0) */
  int32_t *col;         /* nnz */
  double  *val;         /* nnz */

  /* MAT_PCSR_KERNEL_PAPER: the middle array v[k] = val[k] x[col[k]], allocated on first use */
  double *v;

  PCSRRowBlocks blocks; /* MAT_PCSR_KERNEL_ADAPTIVE and the atomic transposed product: made at creation */

  /* MAT_PCSR_TRANSPOSE_COPY: A^T in CSR (ncols rows), built on first use; t_stale after
     PCSRDeviceCopyValues until the next transposed product refreshes it. */
  int32_t  *t_ptr; /* ncols + 1 */
  int32_t  *t_col; /* nnz */
  double   *t_val; /* nnz */
  PCSRRowBlocks t_blocks; /* of the transposed copy, which the adaptive kernel multiplies */
  PetscBool     t_built, t_stale;
  void     *cusparse; /* cusparseHandle_t, created with the transposed copy */

  size_t bytes; /* device memory held by every array above */
};

/* ai (host, nrows + 1, from ai[0]) into dev->ptr from 0, checked nondecreasing, and the
   rows' statistics into dev->stats (pcsr_rows.cu). */
PetscErrorCode PCSRDeviceRowPointers(PCSRDevice dev, const PetscInt *ai);

/* The matrix, or its transposed copy, as the kernels read it. */
PetscErrorCode PCSRDeviceGetCSR(PCSRDevice dev, PetscBool transposed, PCSRDeviceCSR *A);

/* y = A x (+ y0) with a group of lanes per row (MAT_PCSR_KERNEL_VECTOR). */
PetscErrorCode PCSRDeviceCSRMultVector(const PCSRDeviceCSR *A, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* Row blocks of the CSR matrix whose device row pointers (from 0) are ptr, made on the
   device and counted in dev->bytes; and their release (pcsr_rows.cu). */
PetscErrorCode PCSRRowBlocksCreate(PCSRDevice dev, int32_t nrows, const int32_t *ptr, PCSRRowBlocks *rb);
PetscErrorCode PCSRRowBlocksDestroy(PCSRDevice dev, PCSRRowBlocks *rb);

/* y = A x (+ y0) with the adaptive kernel on any CSR and its row blocks: the transposed
   product runs it on the transposed copy. */
PetscErrorCode PCSRDeviceCSRMultAdaptive(const PCSRDeviceCSR *A, const PCSRRowBlocks *rb, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* Frees the transposed copy and its cuSPARSE handle (pcsr_transpose.cu). */
PetscErrorCode PCSRDeviceTransposeDestroy(PCSRDevice dev);

/* Checked allocation that adds to dev->bytes; 'what' names the array in errors. */
PetscErrorCode PCSRDeviceAllocate(PCSRDevice dev, void **ptr, size_t bytes, const char *what);
PetscErrorCode PCSRDeviceRelease(PCSRDevice dev, void **ptr, size_t bytes);
