/* DIAG on the device: the copy of a DiagFormat and its SpMV and transposed SpMV.

   One thread per entry of y.  The diagonals' offsets and value starts are staged in
   shared memory a tile of DIAG_TILE at a time (structured-sparse matrices have hundreds
   of diagonals); for each diagonal thread i reads one value and one entry of x, and
   consecutive threads read consecutive values of the diagonal and of x: coalesced
   loads, no column indices at all.
     HM,  y = A x:    y_i += v_t[i - first(d)] x_{i+d}   where the diagonal covers row i
     HM,  y = A^T x:  y_j += v_t[j - d - first(d)] x_{j-d} (diagonal -d of A^T)
     CDM, y = A x:    y_i += v_t[i] x_{(i+k) mod n}
     CDM, y = A^T x:  y_j += v_t[(j-k) mod n] x_{(j-k) mod n} */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The DIAG CUDA kernels are written for real double-precision PetscScalar"
#endif

#define DIAG_THREADS 256
#define DIAG_TILE    256 /* diagonals staged in shared memory at a time: 256 x (4 + 8) bytes */

template <bool HM, bool TRANSPOSE>
__global__ void __launch_bounds__(DIAG_THREADS) DiagSpMV(int nrows, int ncols, int ndiag, const int *__restrict__ offset, const long long *__restrict__ start, const double *__restrict__ val, const double *__restrict__ x, const double *y0, double *y)
{
  __shared__ int       s_off[DIAG_TILE];
  __shared__ long long s_start[DIAG_TILE];
  const int            ny  = TRANSPOSE ? ncols : nrows;
  const int            r   = blockIdx.x * blockDim.x + threadIdx.x; /* the entry of y */
  double               sum = 0.0;

  for (int t0 = 0; t0 < ndiag; t0 += DIAG_TILE) {
    const int nt = min(DIAG_TILE, ndiag - t0);

    __syncthreads(); /* the previous tile is no longer read */
    for (int t = threadIdx.x; t < nt; t += blockDim.x) {
      s_off[t]   = offset[t0 + t];
      s_start[t] = start[t0 + t];
    }
    __syncthreads();
    if (r >= ny) continue;
    for (int t = 0; t < nt; t++) {
      const int d = s_off[t];

      if (HM) {
        const int i = TRANSPOSE ? r - d : r, j = i + d; /* the entry (i, j) of A on this diagonal */

        if (i >= 0 && i < nrows && j >= 0 && j < ncols) sum += val[s_start[t] + (i - (d < 0 ? -d : 0))] * x[TRANSPOSE ? i : j];
      } else {
        const int n = ncols;

        if (TRANSPOSE) {
          const int i = r - d < 0 ? r - d + n : r - d;

          sum += val[s_start[t] + i] * x[i];
        } else {
          const int j = r + d >= n ? r + d - n : r + d;

          sum += val[s_start[t] + r] * x[j];
        }
      }
    }
  }
  if (r < ny) y[r] = y0 ? y0[r] + sum : sum;
}

static PetscErrorCode DiagDeviceCheck(const DiagFormat *fmt)
{
  PetscFunctionBegin;
  /* the kernels form i + d, r - d, (i + k) mod n and the grid size in int */
  PetscCheck(fmt->ndiag >= 0 && DiagFitsDeviceIndices(fmt->nrows, fmt->ncols), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DIAG device copy of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " diagonals: sizes must be >= 0 and rows + columns at most %lld for the int32 device indices; use more MPI processes", fmt->nrows, fmt->ncols, fmt->ndiag, (long long)DIAG_MAX_DEVICE_ROWS_PLUS_COLS);
  PetscFunctionReturn(0);
}

static PetscErrorCode DiagDeviceUpload(DiagDevice d, const DiagFormat *fmt)
{
  int  *off = NULL;
  char  what[128];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  d->scheme = fmt->scheme;
  d->nrows  = (int)fmt->nrows;
  d->ncols  = (int)fmt->ncols;
  d->ndiag  = (int)fmt->ndiag;
  d->nval   = (long long)fmt->start[fmt->ndiag];
  snprintf(what, sizeof(what), "DIAG offsets (%d diagonals)", d->ndiag);
  PetscCall(GpuMatsCUDAMalloc((void **)&d->offset, (size_t)d->ndiag * sizeof(int), what));
  PetscCall(GpuMatsCUDAMalloc((void **)&d->start, ((size_t)d->ndiag + 1) * sizeof(long long), what));
  snprintf(what, sizeof(what), "DIAG values (%lld stored entries on %d diagonals)", d->nval, d->ndiag);
  PetscCall(GpuMatsCUDAMalloc((void **)&d->val, (size_t)d->nval * sizeof(double), what));
  PetscCall(PetscMalloc1(d->ndiag + 1, &off));
  for (int t = 0; t < d->ndiag; t++) off[t] = (int)fmt->offset[t];
  ierr = GpuMatsCUDACopyToDevice(d->offset, off, (size_t)d->ndiag * sizeof(int));
  PetscCall(PetscFree(off));
  PetscCall(ierr);
  PetscCall(GpuMatsCUDACopyToDevice(d->start, fmt->start, ((size_t)d->ndiag + 1) * sizeof(long long)));
  if (fmt->val) PetscCall(GpuMatsCUDACopyToDevice(d->val, fmt->val, (size_t)d->nval * sizeof(double))); /* NULL: a product's C, filled by its numeric phase */
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceCreate(const DiagFormat *fmt, DiagDevice *dev)
{
  DiagDevice     d;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *dev = NULL;
  PetscCall(DiagDeviceCheck(fmt));
  PetscCall(PetscNew(&d));
  ierr = DiagDeviceUpload(d, fmt);
  if (ierr) { /* release what was allocated, then pass the error on */
    (void)DiagDeviceDestroy(&d);
    PetscCall(ierr);
  }
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceCopyValues(DiagDevice dev, const DiagFormat *fmt)
{
  PetscFunctionBegin;
  PetscCheck(dev->ndiag == fmt->ndiag && dev->nval == (long long)fmt->start[fmt->ndiag], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DIAG value refresh with other diagonals: the device has %d diagonals, %lld values; the format %" PetscInt_FMT ", %lld (rebuild instead)", dev->ndiag, dev->nval, fmt->ndiag, (long long)fmt->start[fmt->ndiag]);
  PetscCall(GpuMatsCUDACopyToDevice(dev->val, fmt->val, (size_t)dev->nval * sizeof(double)));
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceDestroy(DiagDevice *dev)
{
  PetscFunctionBegin;
  if (!*dev) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*dev)->offset));
  PetscCall(GpuMatsCUDAFree((*dev)->start));
  PetscCall(GpuMatsCUDAFree((*dev)->val));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceMult(DiagDevice dev, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const int    ny = transpose ? dev->ncols : dev->nrows;
  void        *s;
  cudaStream_t stream;
  unsigned     grid;

  PetscFunctionBegin;
  if (!ny) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  stream = (cudaStream_t)s;
  grid   = (unsigned)(((size_t)ny + DIAG_THREADS - 1) / DIAG_THREADS);
  if (dev->scheme == DIAG_SCHEME_HM) {
    if (transpose) DiagSpMV<true, true><<<grid, DIAG_THREADS, 0, stream>>>(dev->nrows, dev->ncols, dev->ndiag, dev->offset, dev->start, dev->val, x, y0, y);
    else DiagSpMV<true, false><<<grid, DIAG_THREADS, 0, stream>>>(dev->nrows, dev->ncols, dev->ndiag, dev->offset, dev->start, dev->val, x, y0, y);
  } else {
    if (transpose) DiagSpMV<false, true><<<grid, DIAG_THREADS, 0, stream>>>(dev->nrows, dev->ncols, dev->ndiag, dev->offset, dev->start, dev->val, x, y0, y);
    else DiagSpMV<false, false><<<grid, DIAG_THREADS, 0, stream>>>(dev->nrows, dev->ncols, dev->ndiag, dev->offset, dev->start, dev->val, x, y0, y);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceGetValues(DiagDevice dev, DiagFormat *fmt)
{
  PetscFunctionBegin;
  PetscCheck(dev->ndiag == fmt->ndiag && dev->nval == (long long)fmt->start[fmt->ndiag], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DIAG values to a format with other diagonals: the device has %d diagonals, %lld values; the format %" PetscInt_FMT ", %lld", dev->ndiag, dev->nval, fmt->ndiag, (long long)fmt->start[fmt->ndiag]);
  PetscCall(GpuMatsCUDACopyToHost(fmt->val, dev->val, (size_t)dev->nval * sizeof(double)));
  PetscFunctionReturn(0);
}

