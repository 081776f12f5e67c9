/* The CIHYBRID storage format and its builder: plain C, PETSc types only.

   The kernel interface of the cihybrid format, installed with gpumats.h for programs that
   build or measure the format without a Mat (benchmarks/src/ci_memory.c, bench_cihybrid.cu,
   the builder's unit test): the builder and the host kernels (plain C, any build), then the
   device copy and its launchers (CUDA builds of libgpumats only; <gpumats_cuda_context.h> gives
   the device and stream they run on).  A Mat of type cihybrid builds all of it by itself and
   needs none of this.  The library's own code declares nothing of this again: the private
   headers (src/cihybrid/, cuda/cihybrid/) include this one.

   Each row i of a CSR matrix is split after its first s_i nonzeros (columns
   stay sorted): the "Reference region" entries go to a row-major ELLPACK block
   of width W = max_i s_i, the "Expansion space" entries to a CSR remainder.
     split = ENTRIES: s_i = min(len_i, BOUNDARY)       (the paper's BOUNDARY)
     split = COLUMNS: s_i = #{ j in row i : j < BOUNDARY } (a column boundary)
   Because AIJ rows are sorted, both are a per-row prefix, so AIJ value k of
   row i at position p = k - rowptr[i] lives at
     p <  s_i: ell_val[i*pitch + p]
     p >= s_i: csr_val[csr_start[i] + p - s_i]
   and a value refresh needs no permutation array.

   ELL rows are 'pitch' entries apart: W rounded up to a multiple of
   CIHYBRID_PITCH_ALIGN (32 entries: every row starts on a 128-byte line, so a
   warp's 32 column loads are one line; measured faster than 32-byte
   alignment on a 950-nonzero-a-row matrix), or of 8 (a 32-byte sector) for
   narrow blocks, where 32 would multiply the block's memory.  Slots p >= s_i (padding) hold column
   -1 and value 0: kernels skip them, so Inf/NaN in x never leaks into y.
   Device-side indices are int32: the builder refuses matrices whose
   nrows*pitch or remainder nonzeros do not fit. */
#pragma once
#include <petscsys.h>
#include <stdint.h>
#include <gpumats.h> /* MatCIHybridDeviceArrays */
#include <gpumats_cuda_context.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define CIHYBRID_PITCH_ALIGN        32
#define CIHYBRID_PITCH_ALIGN_NARROW 8

typedef enum {
  CIHYBRID_SPLIT_ENTRIES = 0,
  CIHYBRID_SPLIT_COLUMNS = 1
} CIHybridSplit;

typedef enum {
  CIHYBRID_OK = 0,
  CIHYBRID_ERR_MEMORY,         /* host malloc failed */
  CIHYBRID_ERR_INDEX_OVERFLOW, /* a size does not fit the int32 device indices */
  CIHYBRID_ERR_ARGUMENT        /* negative sizes or boundary, column out of range, unsorted row */
} CIHybridStatus;

typedef struct {
  PetscInt     nrows, ncols;
  CIHybridSplit split;
  PetscInt     boundary;  /* as requested (entries or column), after clamping */
  PetscInt     width;     /* W = max_i s_i */
  PetscInt     pitch;     /* W rounded up to CIHYBRID_PITCH_ALIGN */
  int32_t     *ell_col;   /* nrows*pitch, -1 for padding */
  PetscScalar *ell_val;   /* nrows*pitch */
  int32_t     *csr_start; /* nrows+1: remainder of row i is [csr_start[i], csr_start[i+1]) */
  int32_t     *csr_col;   /* nnz_csr */
  PetscScalar *csr_val;   /* nnz_csr */
  int32_t     *ell_len;   /* nrows: s_i, used by value refresh and the transpose kernels */
  /* statistics */
  PetscInt64 nnz, nnz_ell, nnz_csr, padding, rows_with_csr, max_row_len;
} CIHybridFormat;

PETSC_EXTERN const char *CIHybridStatusString(CIHybridStatus);
/* The build in two steps.  Layout: sizes, statistics, ell_len and csr_start (O(nrows)
   work and memory, reading only the ELL prefix of each row); the big arrays stay NULL.
   Fill: checks every column (in range, ascending) and allocates and fills ell_col,
   ell_val, csr_col and csr_val on the host.  A device copy can be made from the layout
   and the CSR arrays directly (CIHybridDeviceCreateFromCSR), with no host arrays.
   Build: Layout then Fill; on failure only the sizes stay.  The entries split reads no column
   (colidx may be NULL: a layout from the row lengths alone). */
PETSC_EXTERN CIHybridStatus CIHybridLayoutFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt);
/* The layout of src (sizes, statistics, ell_len, csr_start when src has them) into dst, without
   the big arrays. */
PETSC_EXTERN CIHybridStatus CIHybridLayoutCopy(const CIHybridFormat *src, CIHybridFormat *dst);
PETSC_EXTERN CIHybridStatus CIHybridFillFromCSR(const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridFormat *fmt);
PETSC_EXTERN CIHybridStatus CIHybridBuildFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt);
PETSC_EXTERN CIHybridStatus CIHybridRefreshValues(const PetscInt *rowptr, const PetscScalar *vals, CIHybridFormat *fmt); /* needs the filled arrays */
PETSC_EXTERN void           CIHybridFormatFree(CIHybridFormat *fmt);
PETSC_EXTERN void           CIHybridFormatFreeArrays(CIHybridFormat *fmt); /* the four big arrays only: the layout stays */
PETSC_EXTERN PetscInt       CIHybridChooseBoundary(PetscInt nrows, const PetscInt *rowptr, double *bytes_model);
/* The same from the histogram of the row lengths (hist[len], len = 0..maxlen). */
PETSC_EXTERN PetscInt CIHybridChooseBoundaryFromHistogram(const PetscInt64 *hist, PetscInt maxlen, PetscInt nrows, double *bytes_model);
/* The layout of the entries split from its sums over the rows (made on the device): sizes and
   statistics as CIHybridLayoutFromCSR gives them; ell_len and csr_start stay NULL (on the device
   only, until the host makes its own). */
PETSC_EXTERN CIHybridStatus CIHybridLayoutFromSums(PetscInt nrows, PetscInt ncols, PetscInt boundary, PetscInt64 nnz, PetscInt64 width, PetscInt64 nnz_ell, PetscInt64 rows_with_csr, PetscInt64 max_row_len, CIHybridFormat *fmt);
PETSC_EXTERN double         CIHybridBytesPerMult(const CIHybridFormat *fmt);

/* host kernels on the format: y = A x (+ y0),  y = A^T x (+ y0); y0 may be NULL or alias y */
PETSC_EXTERN void CIHybridMultHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
PETSC_EXTERN void CIHybridMultTransposeHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* ------------------------------------------------------------------------ */
/* The device copy and its launchers: defined only in a libgpumats built with CUDA.  Pointers
   to vectors and blocks are device memory; every launcher queues its work on
   GpuMatsCUDAGetStream() and returns without waiting, except where it says so. */

typedef enum {
  CIHYBRID_KERNEL_PAPER = 0, /* transcription of the paper's warp-per-row kernel */
  CIHYBRID_KERNEL_TUNED = 1  /* ours (cuda/cihybrid/cihybrid_spmv.cu): what MAT_CIHYBRID_KERNEL_TUNED runs */
} CIHybridKernel;

typedef struct _n_CIHybridDevice *CIHybridDevice;

/* The device copy of the format whose layout is 'layout' (CIHybridLayoutFromCSR or a full
   build: its host arrays need not exist), filled on the device from the CSR arrays ai, aj, aa
   (host memory) uploaded a chunk at a time; columns out of range or not ascending are an
   error, as are allocations that fail (the message names the array and the sizes). */
PETSC_EXTERN PetscErrorCode CIHybridDeviceCreateFromCSR(const CIHybridFormat *layout, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, CIHybridDevice *dev);
/* New values from aa, same structure (the layout the copy was made from). */
PETSC_EXTERN PetscErrorCode CIHybridDeviceCopyValuesFromCSR(CIHybridDevice dev, const CIHybridFormat *layout, const PetscInt *ai, const PetscScalar *aa);
PETSC_EXTERN PetscErrorCode CIHybridDeviceDestroy(CIHybridDevice *dev);
/* Device memory held by the format's arrays. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceBytes(CIHybridDevice dev, size_t *bytes);
/* The device arrays themselves (sizes, ELLPACK block, remainder), for a program that checks
   them against a host build; they stay the device copy's. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceGetArrays(CIHybridDevice dev, MatCIHybridDeviceArrays *arrays);

/* y = A x (+ y0) with 'kernel'; y0 may be NULL or equal y. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceMult(CIHybridDevice dev, CIHybridKernel kernel, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* y = A^T x (+ y0) */
PETSC_EXTERN PetscErrorCode CIHybridDeviceMultTranspose(CIHybridDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C(:, 0:k) = A B (+ C when add) for a block of k dense columns, the matrix read once for
   all of them.  B (ncols x k, leading dimension ldb) and C (nrows x k, leading dimension
   ldc) are column-major. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceSpMM(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* The variants of CIHYBRID_KERNEL_TUNED, reachable so that benchmarks/src/bench_cihybrid can
   time them against each other; CIHYBRID_TUNED_DEFAULT is what CIHYBRID_KERNEL_TUNED runs.
   CIHybridTunedVariantNames[v] names variant v. */
typedef enum {
  CIHYBRID_TUNED_SCALAR = 0, /* L1::no_allocate loads, 4 in flight per lane; faster than the others measured */
  CIHYBRID_TUNED_NUM_VARIANTS
} CIHybridTunedVariant;
#define CIHYBRID_TUNED_DEFAULT CIHYBRID_TUNED_SCALAR

PETSC_EXTERN const char *const CIHybridTunedVariantNames[];

/* Lanes per row (4, 8, 16 or 32) the variant uses on this matrix when not forced. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceTunedLanesPerRow(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt *lanes);
/* y = A x (+ y0) with one variant; lanes_per_row 0 chooses from the average row length. */
PETSC_EXTERN PetscErrorCode CIHybridDeviceMultTuned(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt lanes_per_row, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* CIHybridDeviceSpMM with the choice of reading B as it is (rowmajor_copy false) or, from 8
   columns on (CIHYBRID_SPMM_ROWMAJOR_MIN_K in cihybrid_spmm.cu), through a row-major copy
   (true: what CIHybridDeviceSpMM does). */
PETSC_EXTERN PetscErrorCode CIHybridDeviceSpMMLayout(CIHybridDevice dev, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool rowmajor_copy, PetscBool add, PetscScalar *C, PetscInt ldc);

#if defined(__cplusplus)
}
#endif
