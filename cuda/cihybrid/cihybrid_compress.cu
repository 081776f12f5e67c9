/* The compressed cihybrid form on the device (issue 49): the upload of a CIHybridCompressed
   and y = A x (+ y0).  The layout is gpumats_cihybrid_compress.h's.

   The product gives each row one warp and reads the row as one stream of entries, its ELL
   slots (up to the first padding slot) then its remainder, 32 entries a step, one a lane:
   - the column of an entry is the running sum of the gaps from the row start: an inclusive
     scan of the step's gaps over the warp, segmented at the escapes (whose column is absolute:
     the next esc_col[] of the row), plus the step before's last column;
   - an escape's place in esc_col[] and an explicit value's in expl_val[] are the row's start
     (esc_start[], expl_start[]) plus the escapes (explicit values) of the row before it: the
     steps before, counted, and the lanes below, a popcount of a ballot;
   - a dictionary value is dict[code & 0x7fff] with the sign bit or-ed in (a bit operation).
   The step that reaches the ELL padding (a ballot of the padding marks gives the ELL length)
   takes the remainder's first entries in its lanes past it, so that the seam costs no step.
   Each lane sums its entries in double; a shuffle reduction, lane 0 writes y[row] (+ y0[row]).

   The grid is as many blocks as stay resident together, each looping over rows (one warp a
   row, WARPS rows a step of the block): a dictionary staged in shared memory is read from global
   memory once a block, not once for every few rows.  Larger dictionaries than
   CIHYBRID_COMPRESSED_SHARED_DICT_MAX are read from global memory through the read-only path. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include <gpumats_cihybrid_compress.h>
}
#include "../common/gpumats_loads.cuh"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The CIHYBRID CUDA kernels are written for real double-precision PetscScalar"
#endif

#define CIHYBRID_COMPRESSED_WARPS 8 /* warps (rows at a time) of a block */
#define CIHYBRID_COMPRESSED_BLOCK (32 * CIHYBRID_COMPRESSED_WARPS)
#define CIHYBRID_FULL_WARP        0xffffffffu

struct _n_CIHybridCompressedDevice {
  PetscInt    nrows, ncols, width, pitch, dict_count;
  PetscInt64  nnz, nnz_csr, nnz_explicit, escapes;
  double     *dict;                /* dict_count */
  uint16_t   *ell_code, *ell_gap;  /* nrows*pitch */
  int32_t    *csr_start;           /* nrows+1 */
  uint16_t   *csr_code, *csr_gap;  /* nnz_csr */
  int32_t    *expl_start;          /* nrows+1 */
  double     *expl_val;            /* nnz_explicit */
  int32_t    *esc_start;           /* nrows+1 */
  int32_t    *esc_col;             /* escapes */
  size_t      bytes;               /* device memory held by the arrays above */
  int         blocks_shared;       /* resident blocks of the grid, dictionary in shared memory (0: too large) */
  int         blocks_global;       /* the same, dictionary in global memory */
};

/* What the kernel reads, passed by value */
struct CIHybridCompressedArrays {
  int             nrows, width, pitch, dict_count;
  const double   *dict;
  const uint16_t *ell_code, *ell_gap;
  const int32_t  *csr_start;
  const uint16_t *csr_code, *csr_gap;
  const int32_t  *expl_start;
  const double   *expl_val;
  const int32_t  *esc_start;
  const int32_t  *esc_col;
};

/* 16-bit matrix data, read once per product: kept out of L1, which x uses */
__device__ __forceinline__ unsigned CIHybridLoadCode(const uint16_t *p)
{
  unsigned short r;
  asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(r) : "l"(p));
  return r;
}

/* the value of a dictionary code: the magnitude with the code's sign bit as bit 63 */
template <bool SHARED>
__device__ __forceinline__ double CIHybridDictValue(const double *sdict, const double *__restrict__ dict, unsigned code)
{
  const double             mag  = SHARED ? sdict[code & CIHYBRID_CODE_INDEX] : __ldg(dict + (code & CIHYBRID_CODE_INDEX));
  const unsigned long long sign = (unsigned long long)(code & CIHYBRID_CODE_SIGN) << 48;

  return __longlong_as_double((long long)((unsigned long long)__double_as_longlong(mag) | sign));
}

template <bool SHARED>
__global__ void __launch_bounds__(CIHYBRID_COMPRESSED_BLOCK) CIHybridCompressedSpMV(CIHybridCompressedArrays A, const double *__restrict__ x, const double *y0, double *y)
{
  extern __shared__ double sdict[];
  const int      lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned below = (1u << lane) - 1; /* the lanes before this one */

  if (SHARED) {
    for (int k = threadIdx.x; k < A.dict_count; k += blockDim.x) sdict[k] = __ldg(A.dict + k);
    __syncthreads();
  }
  for (long long row = (long long)blockIdx.x * CIHYBRID_COMPRESSED_WARPS + warp; row < A.nrows; row += (long long)gridDim.x * CIHYBRID_COMPRESSED_WARPS) {
    const long long ell   = row * A.pitch;
    const int       begin = __ldg(A.csr_start + row), ncsr = __ldg(A.csr_start + row + 1) - begin;
    int             e = __ldg(A.expl_start + row), q = __ldg(A.esc_start + row); /* the row's next explicit value, escape */
    int             lenA = -1;                                                  /* the ELL length, once found */
    int             carry = 0;                                                  /* the column of the step before's last entry */
    double          sum   = 0.0;

    /* warp-uniform: lenA, t0, e, q and carry are the same in every lane */
    for (int t0 = 0; lenA < 0 || t0 < lenA + ncsr; t0 += 32) {
      const int t     = t0 + lane; /* this lane's entry of the row */
      unsigned  gap   = CIHYBRID_GAP_PAD, code = CIHYBRID_CODE_NONE;
      bool      valid = false;

      if (lenA < 0) { /* still in the ELL part: slots past the width count as padding */
        if (t < A.width) {
          gap  = CIHybridLoadCode(A.ell_gap + ell + t);
          code = CIHybridLoadCode(A.ell_code + ell + t);
        }
        const unsigned pad = __ballot_sync(CIHYBRID_FULL_WARP, gap == CIHYBRID_GAP_PAD);
        if (pad) lenA = t0 + __ffs(pad) - 1;
        valid = !pad || t < lenA;
      }
      if (lenA >= 0 && t >= lenA) { /* the remainder */
        const int k = t - lenA;

        valid = k < ncsr;
        if (valid) {
          gap  = CIHybridLoadCode(A.csr_gap + begin + k);
          code = CIHybridLoadCode(A.csr_code + begin + k);
        }
      }
      const bool     esc = valid && gap == CIHYBRID_GAP_ESCAPE, expl = valid && code == CIHYBRID_CODE_EXPLICIT;
      const unsigned escs = __ballot_sync(CIHYBRID_FULL_WARP, esc), expls = __ballot_sync(CIHYBRID_FULL_WARP, expl);
      int            col  = esc ? GpuMatsLoadStreaming(A.esc_col + q + __popc(escs & below)) : (valid ? (int)gap : 0);
      bool           absolute = esc; /* col is a column, not a sum of gaps since the step began */

      /* segmented inclusive scan: a lane with an absolute column before it (or itself) adds
         the gaps from there on, the others the gaps from the step's start */
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const int  up     = __shfl_up_sync(CIHYBRID_FULL_WARP, col, d);
        const bool up_abs = __shfl_up_sync(CIHYBRID_FULL_WARP, absolute ? 1 : 0, d) != 0;

        if (lane >= d && !absolute) {
          col += up;
          absolute = up_abs;
        }
      }
      if (!absolute) col += carry;
      if (valid) {
        const double a = expl ? GpuMatsLoadStreaming(A.expl_val + e + __popc(expls & below)) : CIHybridDictValue<SHARED>(sdict, A.dict, code);

        sum = fma(a, __ldg(x + col), sum);
      }
      carry = __shfl_sync(CIHYBRID_FULL_WARP, col, 31); /* lanes past the row's end added 0 */
      e += __popc(expls);
      q += __popc(escs);
    }
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(CIHYBRID_FULL_WARP, sum, offset);
    if (lane == 0) y[row] = y0 ? y0[row] + sum : sum;
  }
}

/* y += A^T x, a fallback (a CI Hamiltonian is symmetric: its eigensolvers do not transpose):
   one thread a row decodes it in order, as the host kernel does, and scatters a_ij x_i into y_j
   with atomics */
__global__ void CIHybridCompressedSpMVTranspose(CIHybridCompressedArrays A, const double *__restrict__ x, double *y)
{
  for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < A.nrows; row += (long long)gridDim.x * blockDim.x) {
    const long long ell = row * A.pitch;
    const double    xi  = x[row];
    int             e = A.expl_start[row], q = A.esc_start[row], col = 0; /* the row's next explicit value, escape */

    for (int p = 0; p < A.width; p++) {
      const unsigned gap = A.ell_gap[ell + p], code = A.ell_code[ell + p];

      if (gap == CIHYBRID_GAP_PAD) break; /* the padding is a suffix of the slots */
      col = gap == CIHYBRID_GAP_ESCAPE ? A.esc_col[q++] : col + (int)gap;
      atomicAdd(y + col, (code == CIHYBRID_CODE_EXPLICIT ? A.expl_val[e++] : CIHybridDictValue<false>(NULL, A.dict, code)) * xi);
    }
    for (int k = A.csr_start[row]; k < A.csr_start[row + 1]; k++) {
      const unsigned gap = A.csr_gap[k], code = A.csr_code[k];

      col = gap == CIHYBRID_GAP_ESCAPE ? A.esc_col[q++] : col + (int)gap;
      atomicAdd(y + col, (code == CIHYBRID_CODE_EXPLICIT ? A.expl_val[e++] : CIHybridDictValue<false>(NULL, A.dict, code)) * xi);
    }
  }
}

/* ---- the device copy ---- */

static PetscErrorCode CIHybridCompressedDeviceAllocate(CIHybridCompressedDevice d, void **ptr, size_t count, size_t size, const char *what)
{
  char name[160];

  PetscFunctionBegin;
  snprintf(name, sizeof(name), "compressed CIHYBRID %s (%zu entries of %zu bytes)", what, count, size);
  PetscCall(GpuMatsCUDAMalloc(ptr, count * size, name));
  d->bytes += count * size;
  PetscFunctionReturn(0);
}

/* one array of cmp: allocated and uploaded */
static PetscErrorCode CIHybridCompressedDeviceUpload(CIHybridCompressedDevice d, void **ptr, const void *host, size_t count, size_t size, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(!count || host, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "compressed CIHYBRID %s: %zu entries but no host array", what, count);
  PetscCall(CIHybridCompressedDeviceAllocate(d, ptr, count, size, what));
  PetscCall(GpuMatsCUDACopyToDevice(*ptr, host, count * size));
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridCompressedDeviceCheck(const CIHybridCompressed *c)
{
  const PetscInt64 slots = (PetscInt64)c->nrows * c->pitch;

  PetscFunctionBegin;
  PetscCheck(c->nrows >= 0 && c->ncols >= 0 && c->width >= 0 && c->pitch >= c->width && c->dict_count >= 0 && c->dict_count <= CIHYBRID_DICT_MAX_ENTRIES && c->nnz_csr >= 0 && c->nnz_explicit >= 0 && c->escapes >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT,
             "compressed CIHYBRID with nrows %" PetscInt_FMT ", ncols %" PetscInt_FMT ", width %" PetscInt_FMT ", pitch %" PetscInt_FMT ", %" PetscInt_FMT " dictionary entries, %" PetscInt64_FMT " remainder nonzeros, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escapes: sizes must be >= 0, pitch >= width, at most %d dictionary entries",
             c->nrows, c->ncols, c->width, c->pitch, c->dict_count, c->nnz_csr, c->nnz_explicit, c->escapes, CIHYBRID_DICT_MAX_ENTRIES);
  PetscCheck(c->nrows < INT32_MAX && c->ncols <= INT32_MAX && slots <= INT32_MAX && c->nnz_csr <= INT32_MAX && c->nnz_explicit <= INT32_MAX && c->escapes <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "compressed CIHYBRID too large for int32 device indices: %" PetscInt64_FMT " ELL slots, %" PetscInt64_FMT " remainder nonzeros, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escapes", slots, c->nnz_csr, c->nnz_explicit, c->escapes);
  PetscCheck(!c->nrows || (c->csr_start && c->expl_start && c->esc_start), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "compressed CIHYBRID with %" PetscInt_FMT " rows has no row offsets", c->nrows);
  PetscFunctionReturn(0);
}

/* the resident blocks of each kernel (launch shapes, once a copy) */
static PetscErrorCode CIHybridCompressedDeviceGrid(CIHybridCompressedDevice d)
{
  int sms, per_sm;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDADeviceAttribute((int)cudaDevAttrMultiProcessorCount, &sms));
  GpuMatsCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, CIHybridCompressedSpMV<false>, CIHYBRID_COMPRESSED_BLOCK, 0));
  d->blocks_global = PetscMax(1, per_sm) * sms;
  d->blocks_shared = 0;
  if (d->dict_count <= CIHYBRID_COMPRESSED_SHARED_DICT_MAX) {
    GpuMatsCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, CIHybridCompressedSpMV<true>, CIHYBRID_COMPRESSED_BLOCK, (size_t)d->dict_count * sizeof(double)));
    d->blocks_shared = PetscMax(1, per_sm) * sms;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CIHybridCompressedDeviceFill(const CIHybridCompressed *c, CIHybridCompressedDevice d)
{
  const size_t rows = (size_t)c->nrows, slots = rows * (size_t)c->pitch;

  PetscFunctionBegin;
  d->nrows        = c->nrows;
  d->ncols        = c->ncols;
  d->width        = c->width;
  d->pitch        = c->pitch;
  d->dict_count   = c->dict_count;
  d->nnz          = c->nnz;
  d->nnz_csr      = c->nnz_csr;
  d->nnz_explicit = c->nnz_explicit;
  d->escapes      = c->escapes;
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->dict, c->dict, (size_t)c->dict_count, sizeof(double), "dictionary"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->ell_code, c->ell_code, slots, sizeof(uint16_t), "ELL codes"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->ell_gap, c->ell_gap, slots, sizeof(uint16_t), "ELL gaps"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->csr_start, c->csr_start, rows ? rows + 1 : 0, sizeof(int32_t), "remainder row starts"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->csr_code, c->csr_code, (size_t)c->nnz_csr, sizeof(uint16_t), "remainder codes"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->csr_gap, c->csr_gap, (size_t)c->nnz_csr, sizeof(uint16_t), "remainder gaps"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->expl_start, c->expl_start, rows ? rows + 1 : 0, sizeof(int32_t), "explicit value row starts"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->expl_val, c->expl_val, (size_t)c->nnz_explicit, sizeof(double), "explicit values"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->esc_start, c->esc_start, rows ? rows + 1 : 0, sizeof(int32_t), "escape row starts"));
  PetscCall(CIHybridCompressedDeviceUpload(d, (void **)&d->esc_col, c->esc_col, (size_t)c->escapes, sizeof(int32_t), "escaped columns"));
  PetscCall(CIHybridCompressedDeviceGrid(d));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridCompressedDeviceDestroy(CIHybridCompressedDevice *dev)
{
  CIHybridCompressedDevice d = *dev;
  PetscErrorCode           ierr = 0, e;
  void                    *arrays[10];

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  arrays[0] = d->dict, arrays[1] = d->ell_code, arrays[2] = d->ell_gap, arrays[3] = d->csr_start, arrays[4] = d->csr_code;
  arrays[5] = d->csr_gap, arrays[6] = d->expl_start, arrays[7] = d->expl_val, arrays[8] = d->esc_start, arrays[9] = d->esc_col;
  for (int k = 0; k < 10; k++) { /* every array freed, the first error passed on */
    e = GpuMatsCUDAFree(arrays[k]);
    if (e && !ierr) ierr = e;
  }
  PetscCall(PetscFree(*dev));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridCompressedDeviceCreate(const CIHybridCompressed *cmp, CIHybridCompressedDevice *dev)
{
  CIHybridCompressedDevice d;
  PetscErrorCode           ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCall(CIHybridCompressedDeviceCheck(cmp));
  PetscCall(PetscNew(&d));
  ierr = CIHybridCompressedDeviceFill(cmp, d);
  if (ierr) { /* release what was allocated before the failure, then pass the error on */
    (void)CIHybridCompressedDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridCompressedDeviceBytes(CIHybridCompressedDevice dev, size_t *bytes)
{
  PetscFunctionBegin;
  *bytes = dev->bytes;
  PetscFunctionReturn(0);
}

static CIHybridCompressedArrays CIHybridCompressedArraysOf(CIHybridCompressedDevice dev)
{
  CIHybridCompressedArrays A;

  A.nrows      = (int)dev->nrows;
  A.width      = (int)dev->width;
  A.pitch      = (int)dev->pitch;
  A.dict_count = (int)dev->dict_count;
  A.dict       = dev->dict;
  A.ell_code   = dev->ell_code;
  A.ell_gap    = dev->ell_gap;
  A.csr_start  = dev->csr_start;
  A.csr_code   = dev->csr_code;
  A.csr_gap    = dev->csr_gap;
  A.expl_start = dev->expl_start;
  A.expl_val   = dev->expl_val;
  A.esc_start  = dev->esc_start;
  A.esc_col    = dev->esc_col;
  return A;
}

PetscErrorCode CIHybridCompressedDeviceMultDict(CIHybridCompressedDevice dev, CIHybridCompressedDictPlace place, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  CIHybridCompressedArrays A;
  PetscBool                shared;
  void                    *stream;

  PetscFunctionBegin;
  PetscCheck(place == CIHYBRID_COMPRESSED_DICT_AUTO || place == CIHYBRID_COMPRESSED_DICT_SHARED || place == CIHYBRID_COMPRESSED_DICT_GLOBAL, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown dictionary place %d", (int)place);
  shared = place == CIHYBRID_COMPRESSED_DICT_GLOBAL ? PETSC_FALSE : (dev->blocks_shared > 0 ? PETSC_TRUE : PETSC_FALSE);
  PetscCheck(shared || place != CIHYBRID_COMPRESSED_DICT_SHARED, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A dictionary of %" PetscInt_FMT " entries does not go in shared memory (at most %d)", dev->dict_count, CIHYBRID_COMPRESSED_SHARED_DICT_MAX);
  if (!dev->nrows) PetscFunctionReturn(0);
  A = CIHybridCompressedArraysOf(dev);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  {
    const long long needed = ((long long)dev->nrows + CIHYBRID_COMPRESSED_WARPS - 1) / CIHYBRID_COMPRESSED_WARPS;
    const unsigned  grid   = (unsigned)PetscMin(needed, (long long)(shared ? dev->blocks_shared : dev->blocks_global));

    if (shared) CIHybridCompressedSpMV<true><<<grid, CIHYBRID_COMPRESSED_BLOCK, (size_t)dev->dict_count * sizeof(double), (cudaStream_t)stream>>>(A, x, y0, y);
    else CIHybridCompressedSpMV<false><<<grid, CIHYBRID_COMPRESSED_BLOCK, 0, (cudaStream_t)stream>>>(A, x, y0, y);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridCompressedDeviceMult(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(CIHybridCompressedDeviceMultDict(dev, CIHYBRID_COMPRESSED_DICT_AUTO, x, y0, y));
  PetscFunctionReturn(0);
}

PetscErrorCode CIHybridCompressedDeviceMultTranspose(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const size_t ybytes = (size_t)dev->ncols * sizeof(PetscScalar);
  void        *stream;

  PetscFunctionBegin;
  if (!dev->nrows && !dev->ncols) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&stream));
  PetscCall(GpuMatsCUDAStartSum(y, y0, ybytes));
  if (!dev->nrows) PetscFunctionReturn(0);
  {
    const unsigned grid = (unsigned)PetscMin(((long long)dev->nrows + CIHYBRID_COMPRESSED_BLOCK - 1) / CIHYBRID_COMPRESSED_BLOCK, (long long)dev->blocks_global);

    CIHybridCompressedSpMVTranspose<<<grid, CIHYBRID_COMPRESSED_BLOCK, 0, (cudaStream_t)stream>>>(CIHybridCompressedArraysOf(dev), x, y);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
