/* The CIHYBRID storage format and its builder: plain C, PETSc types only.

   Installed with gpumats.h for programs that build or measure the format without a Mat
   (benchmarks/src/ci_memory.c, the builder's unit test); a Mat of type cihybrid builds it
   by itself and needs none of this.

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
   warp's 32 column loads are one line; measured 7% faster than 32-byte
   alignment on a 950-nonzero-a-row matrix), or of 8 (a 32-byte sector) for
   narrow blocks, where 32 would multiply the block's memory.  Slots p >= s_i (padding) hold column
   -1 and value 0: kernels skip them, so Inf/NaN in x never leaks into y.
   Device-side indices are int32: the builder refuses matrices whose
   nrows*pitch or remainder nonzeros do not fit. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

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

const char *CIHybridStatusString(CIHybridStatus);
/* The build in two steps.  Layout: sizes, statistics, ell_len and csr_start (O(nrows)
   work and memory, reading only the ELL prefix of each row); the big arrays stay NULL.
   Fill: checks every column (in range, ascending) and allocates and fills ell_col,
   ell_val, csr_col and csr_val on the host.  A device copy can be made from the layout
   and the CSR arrays directly (CIHybridDeviceCreateFromCSR), with no host arrays.
   Build: Layout then Fill; on failure only the sizes stay.  The entries split reads no column
   (colidx may be NULL: a layout from the row lengths alone). */
CIHybridStatus CIHybridLayoutFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt);
/* The layout of src (sizes, statistics, ell_len, csr_start) into dst, without the big arrays. */
CIHybridStatus CIHybridLayoutCopy(const CIHybridFormat *src, CIHybridFormat *dst);
CIHybridStatus CIHybridFillFromCSR(const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridFormat *fmt);
CIHybridStatus CIHybridBuildFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt);
CIHybridStatus CIHybridRefreshValues(const PetscInt *rowptr, const PetscScalar *vals, CIHybridFormat *fmt); /* needs the filled arrays */
void           CIHybridFormatFree(CIHybridFormat *fmt);
void           CIHybridFormatFreeArrays(CIHybridFormat *fmt); /* the four big arrays only: the layout stays */
PetscInt       CIHybridChooseBoundary(PetscInt nrows, const PetscInt *rowptr, double *bytes_model);
double         CIHybridBytesPerMult(const CIHybridFormat *fmt);

/* host kernels on the format: y = A x (+ y0),  y = A^T x (+ y0); y0 may be NULL or alias y */
void CIHybridMultHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
void CIHybridMultTransposeHost(const CIHybridFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

#if defined(__cplusplus)
}
#endif
