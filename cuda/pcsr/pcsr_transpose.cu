/* PCSR transposed product y = A^T x (+ y0), PCSRDeviceMultTranspose.

   ATOMIC: y is set to y0 (or 0), then each thread block takes one of the adaptive
   kernel's row blocks (a window of short rows, or a chunk of a long row: balanced
   whatever the row lengths) and scatters a_ij x_i into y_j with atomicAdd: no extra
   memory, but the order of the additions into y_j varies from run to run (results
   agree to rounding, not bit for bit).

   COPY: A^T in CSR (ncols rows), made by cusparseCsr2cscEx2 on first use and kept,
   with its own row blocks; the product is the ADAPTIVE kernel on it (deterministic,
   no atomics, and fast where A has dense columns, which are long rows of A^T).  After
   PCSRDeviceCopyValues the copy is stale and its values are remade on its next use. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "pcsr_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The PCSR CUDA kernels are written for real double-precision PetscScalar"
#endif

#define PCSR_ATOMIC_THREADS 256

#define PCSRCallCUSPARSE(call) \
  do { \
    const cusparseStatus_t _st = (call); \
    PetscCheck(_st == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSPARSE error %d (%s) in %s", (int)_st, cusparseGetErrorString(_st), #call); \
  } while (0)

/* ------------------------------------------------------------------------------------- */
/* ATOMIC */

/* Over the adaptive kernel's row blocks, so that work is balanced whatever the row
   lengths: a block of short rows strides its nonzeros (at most a window of them) and
   finds each one's row by bisection of the block's row pointers; a chunk of a long row
   strides the chunk. */
__global__ void __launch_bounds__(PCSR_ATOMIC_THREADS) PCSRSpMVTransposeAtomic(const int32_t *ptr, const int32_t *col, const double *val, const int32_t *block_row, const int32_t *block_chunk, const double *__restrict__ x, double *y)
{
  const int b = blockIdx.x, r0 = block_row[b], chunk = block_chunk[b];

  if (chunk >= 0) {
    const int    row_begin = ptr[r0], row_end = ptr[r0 + 1];
    const int    lo = row_begin + chunk * PCSR_ADAPTIVE_LONG_CHUNK, hi = min(row_end, lo + PCSR_ADAPTIVE_LONG_CHUNK);
    const double xr = x[r0];

    for (int k = lo + (int)threadIdx.x; k < hi; k += PCSR_ATOMIC_THREADS) atomicAdd(y + col[k], val[k] * xr);
  } else {
    const int r1 = block_row[b + 1], hi = ptr[r1];

    for (int k = ptr[r0] + (int)threadIdx.x; k < hi; k += PCSR_ATOMIC_THREADS) {
      int a = r0, z = r1; /* ptr[a] <= k < ptr[z]: ends with k in row a */

      while (z - a > 1) {
        const int mid = a + (z - a) / 2;

        if (__ldg(ptr + mid) <= k) a = mid;
        else z = mid;
      }
      atomicAdd(y + col[k], val[k] * x[a]);
    }
  }
}

static PetscErrorCode PCSRDeviceMultTransposeAtomic(PCSRDevice dev, cudaStream_t stream, const double *x, double *y)
{
  PetscFunctionBegin;
  if (!dev->nrows || !dev->nnz) PetscFunctionReturn(0);
  PetscCheck(dev->blocks.row, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCSR atomic transposed product: the row blocks of the %d-row matrix were not made", (int)dev->nrows);
  PCSRSpMVTransposeAtomic<<<(unsigned)dev->blocks.nblocks, PCSR_ATOMIC_THREADS, 0, stream>>>(dev->ptr, dev->col, dev->val, dev->blocks.row, dev->blocks.chunk, x, y);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------- */
/* COPY */

/* (Re)makes the transposed copy: arrays allocated the first time, structure and values
   computed by cuSPARSE each time (a refresh after new values costs the same as a build;
   the temporary buffer is freed at once), row blocks the first time. */
static PetscErrorCode PCSRDeviceTransposeBuild(PCSRDevice dev, cudaStream_t stream)
{
  const size_t   nnz = (size_t)dev->nnz;
  void          *buffer = NULL;
  size_t         buffer_bytes = 0;
  char           what[128];
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  /* each array allocated once (a failed build may have left some of them) */
  snprintf(what, sizeof(what), "PCSR transposed row pointers (%d rows)", (int)dev->ncols);
  if (!dev->t_ptr) PetscCall(PCSRDeviceAllocate(dev, (void **)&dev->t_ptr, ((size_t)dev->ncols + 1) * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "PCSR transposed columns (%zu nonzeros)", nnz);
  if (!dev->t_col) PetscCall(PCSRDeviceAllocate(dev, (void **)&dev->t_col, nnz * sizeof(int32_t), what));
  snprintf(what, sizeof(what), "PCSR transposed values (%zu nonzeros)", nnz);
  if (!dev->t_val) PetscCall(PCSRDeviceAllocate(dev, (void **)&dev->t_val, nnz * sizeof(double), what));
  if (!nnz || !dev->nrows) { /* no entries: every row of A^T is empty (cuSPARSE is not asked about empty shapes) */
    PetscCall(GpuMatsCUDAMemset(dev->t_ptr, 0, ((size_t)dev->ncols + 1) * sizeof(int32_t)));
  } else {
    cusparseHandle_t handle;

    if (!dev->cusparse) {
      PCSRCallCUSPARSE(cusparseCreate(&handle));
      dev->cusparse = (void *)handle;
    }
    handle = (cusparseHandle_t)dev->cusparse;
    PCSRCallCUSPARSE(cusparseSetStream(handle, stream));
    PCSRCallCUSPARSE(cusparseCsr2cscEx2_bufferSize(handle, dev->nrows, dev->ncols, dev->nnz, dev->val, dev->ptr, dev->col, dev->t_val, dev->t_ptr, dev->t_col, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &buffer_bytes));
    snprintf(what, sizeof(what), "cuSPARSE csr2csc work buffer for the PCSR transposed copy (%d x %d, %zu nonzeros)", (int)dev->nrows, (int)dev->ncols, nnz);
    PetscCall(GpuMatsCUDAMalloc(&buffer, buffer_bytes, what));
    {
      const cusparseStatus_t st = cusparseCsr2cscEx2(handle, dev->nrows, dev->ncols, dev->nnz, dev->val, dev->ptr, dev->col, dev->t_val, dev->t_ptr, dev->t_col, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer);

      if (st != CUSPARSE_STATUS_SUCCESS) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_GPU, PETSC_ERROR_INITIAL, "cuSPARSE error %d (%s) in cusparseCsr2cscEx2 for the PCSR transposed copy", (int)st, cusparseGetErrorString(st));
    }
    if (!ierr) ierr = GpuMatsCUDACheck((int)cudaStreamSynchronize(stream), "cudaStreamSynchronize()", PETSC_FUNCTION_NAME, __FILE__, __LINE__); /* the buffer is in use until then */
    PetscCall(GpuMatsCUDAFree(buffer));
    PetscCall(ierr);
  }
  if (!dev->t_blocks.row) PetscCall(PCSRRowBlocksCreate(dev, dev->ncols, dev->t_ptr, &dev->t_blocks));
  dev->t_built = PETSC_TRUE;
  dev->t_stale = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSRDeviceTransposeDestroy(PCSRDevice dev)
{
  PetscFunctionBegin;
  PetscCall(PCSRDeviceRelease(dev, (void **)&dev->t_ptr, ((size_t)dev->ncols + 1) * sizeof(int32_t)));
  PetscCall(PCSRDeviceRelease(dev, (void **)&dev->t_col, (size_t)dev->nnz * sizeof(int32_t)));
  PetscCall(PCSRDeviceRelease(dev, (void **)&dev->t_val, (size_t)dev->nnz * sizeof(double)));
  PetscCall(PCSRRowBlocksDestroy(dev, &dev->t_blocks));
  if (dev->cusparse) PCSRCallCUSPARSE(cusparseDestroy((cusparseHandle_t)dev->cusparse));
  dev->cusparse = NULL;
  dev->t_built  = PETSC_FALSE;
  dev->t_stale  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------- */

PetscErrorCode PCSRDeviceMultTranspose(PCSRDevice dev, MatPCSRTranspose mode, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const size_t  ybytes = (size_t)(dev ? dev->ncols : 0) * sizeof(PetscScalar);
  void         *s;
  cudaStream_t  stream;
  PCSRDeviceCSR At;

  PetscFunctionBegin;
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSR device copy is NULL: create it with PCSRDeviceCreateFromCSR first");
  PetscCheck(mode == MAT_PCSR_TRANSPOSE_ATOMIC || mode == MAT_PCSR_TRANSPOSE_COPY, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSR transpose mode %d: give MAT_PCSR_TRANSPOSE_ATOMIC or MAT_PCSR_TRANSPOSE_COPY", (int)mode);
  if (!dev->ncols) PetscFunctionReturn(0); /* y is empty */
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  if (mode == MAT_PCSR_TRANSPOSE_ATOMIC || !dev->nrows || !dev->nnz) { /* y = y0 or 0, then the scatter (nothing for an empty matrix) */
    PetscCall(GpuMatsCUDAStartSum(y, y0, ybytes));
    PetscCall(PCSRDeviceMultTransposeAtomic(dev, stream, x, y));
    PetscFunctionReturn(0);
  }
  if (!dev->t_built || dev->t_stale) PetscCall(PCSRDeviceTransposeBuild(dev, stream));
  PetscCall(PCSRDeviceGetCSR(dev, PETSC_TRUE, &At));
  PetscCall(PCSRDeviceCSRMultAdaptive(&At, &dev->t_blocks, x, y0, y));
  PetscFunctionReturn(0);
}
