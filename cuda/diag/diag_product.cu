/* DIAG product C = A B on the device (both HM or both CDM, C's diagonals from
   DiagProductSymbolic).

   For each diagonal c of C the pairs (a, b) of diagonals of A and B with
   d_a + d_b = d_c (HM) or (k_a + k_b) mod n = k_c (CDM) are listed on the host once.
   One thread per stored entry of C (a grid row per diagonal of C) sums its pairs:
     HM:  c(i, i+d_c) = sum a(i, i+d_a) b(i+d_a, i+d_c), the pairs whose entries exist
     CDM: c(i, (i+k_c) mod n) = sum a(i, (i+k_a) mod n) b((i+k_a) mod n, (i+k_c) mod n)
   Consecutive threads read consecutive entries of A's and B's diagonals; nothing is
   accumulated in global memory, so no atomics and a fixed summation order. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_PRODUCT_THREADS 256

/* struct _n_DiagDeviceProduct is in diag_cudaimpl.h (the tiled product, diag_product_tiled.cu, reads it too) */

/* what the kernel reads of a DiagDevice, passed by value */
struct DiagArrays {
  const int       *offset;
  const long long *start;
  double          *val;
};

static DiagArrays DiagArraysOf(DiagDevice d)
{
  DiagArrays a;

  a.offset = d->offset;
  a.start  = d->start;
  a.val    = d->val;
  return a;
}

template <bool HM>
__global__ void __launch_bounds__(DIAG_PRODUCT_THREADS) DiagProductKernel(int m, int inner, int n, const int *__restrict__ pair_start, const int *__restrict__ pair_a, const int *__restrict__ pair_b, DiagArrays A, DiagArrays B, DiagArrays C)
{
  const int       c  = blockIdx.y;
  const int       dc = C.offset[c];
  const long long len = C.start[c + 1] - C.start[c];
  const long long p   = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (p >= len) return;
  {
    const int i   = HM ? (int)p + (dc < 0 ? -dc : 0) : (int)p; /* the row of this entry of C */
    double    sum = 0.0;

    for (int q = pair_start[c]; q < pair_start[c + 1]; q++) {
      const int s = pair_a[q], t = pair_b[q], da = A.offset[s], db = B.offset[t];

      if (HM) {
        const int k = i + da; /* a(i, k) b(k, k + db) */

        if (k >= 0 && k < inner && i >= (da < 0 ? -da : 0) && k >= (db < 0 ? -db : 0) && k + db < n) sum += A.val[A.start[s] + i - (da < 0 ? -da : 0)] * B.val[B.start[t] + k - (db < 0 ? -db : 0)];
      } else {
        const int k = i + da >= n ? i + da - n : i + da;

        sum += A.val[A.start[s] + i] * B.val[B.start[t] + k];
      }
    }
    C.val[C.start[c] + p] = sum;
  }
}

PetscErrorCode DiagDeviceProductCreate(const DiagFormat *A, const DiagFormat *B, const DiagFormat *C, DiagDeviceProduct *prod)
{
  DiagDeviceProduct p;
  int              *ps, *pa, *pb, npairs = 0;
  PetscInt64        npairs64 = 0;
  PetscErrorCode    ierr = 0;
  char              what[128];

  PetscFunctionBegin;
  *prod = NULL;
  PetscCheck(A->scheme == B->scheme && B->scheme == C->scheme && A->ncols == B->nrows && C->nrows == A->nrows && C->ncols == B->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "DIAG product: C (%" PetscInt_FMT " x %" PetscInt_FMT ") = A (%" PetscInt_FMT " x %" PetscInt_FMT ") B (%" PetscInt_FMT " x %" PetscInt_FMT ") of one scheme", C->nrows, C->ncols, A->nrows, A->ncols, B->nrows, B->ncols);
  PetscCheck(DiagFitsDeviceIndices(A->nrows, A->ncols) && DiagFitsDeviceIndices(B->nrows, B->ncols) && DiagFitsDeviceIndices(C->nrows, C->ncols), PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product C (%" PetscInt_FMT " x %" PetscInt_FMT ") = A (%" PetscInt_FMT " x %" PetscInt_FMT ") B (%" PetscInt_FMT " x %" PetscInt_FMT "): rows + columns of each must be at most %lld for the int32 device indices; use more MPI processes", C->nrows, C->ncols, A->nrows, A->ncols, B->nrows, B->ncols, (long long)DIAG_MAX_DEVICE_ROWS_PLUS_COLS);
  /* the pairs of diagonals meeting on C are listed with int indices: count them first */
  for (PetscInt s = 0; s < A->ndiag; s++)
    for (PetscInt t = 0; t < B->ndiag; t++)
      if (DiagFind(C, A->scheme == DIAG_SCHEME_HM ? A->offset[s] + B->offset[t] : (A->offset[s] + B->offset[t]) % B->ncols) >= 0) npairs64++;
  PetscCheck(npairs64 <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product of %" PetscInt_FMT " by %" PetscInt_FMT " diagonals: %" PetscInt64_FMT " pairs of diagonals meet on C's %" PetscInt_FMT ", more than the 2^31-1 the device lists hold; use more MPI processes, or -mat_gpumats_backend host", A->ndiag, B->ndiag, npairs64, C->ndiag);
  PetscCall(PetscNew(&p));
  p->scheme  = A->scheme;
  p->nrows   = (int)A->nrows;
  p->inner   = (int)A->ncols;
  p->ncols   = (int)B->ncols;
  p->ndiag_c = (int)C->ndiag;
  p->ndiag_a = (int)A->ndiag;
  p->ndiag_b = (int)B->ndiag;
  for (PetscInt c = 0; c < C->ndiag; c++) p->max_len = PetscMax(p->max_len, (int)(C->start[c + 1] - C->start[c]));
  /* count, then list: for every pair, the diagonal of C it lands on */
  PetscCall(PetscCalloc1(C->ndiag + 1, &ps));
  for (PetscInt s = 0; s < A->ndiag; s++)
    for (PetscInt t = 0; t < B->ndiag; t++) {
      const PetscInt c = DiagFind(C, A->scheme == DIAG_SCHEME_HM ? A->offset[s] + B->offset[t] : (A->offset[s] + B->offset[t]) % B->ncols);

      if (c >= 0) ps[c + 1]++, npairs++;
    }
  for (PetscInt c = 0; c < C->ndiag; c++) ps[c + 1] += ps[c];
  PetscCall(PetscMalloc2(PetscMax(npairs, 1), &pa, PetscMax(npairs, 1), &pb));
  {
    int *fill;

    PetscCall(PetscMalloc1(C->ndiag + 1, &fill));
    PetscCall(PetscArraycpy(fill, ps, C->ndiag + 1));
    for (PetscInt s = 0; s < A->ndiag; s++)
      for (PetscInt t = 0; t < B->ndiag; t++) {
        const PetscInt c = DiagFind(C, A->scheme == DIAG_SCHEME_HM ? A->offset[s] + B->offset[t] : (A->offset[s] + B->offset[t]) % B->ncols);

        if (c >= 0) pa[fill[c]] = (int)s, pb[fill[c]++] = (int)t;
      }
    PetscCall(PetscFree(fill));
  }
  snprintf(what, sizeof(what), "DIAG product: pairs of diagonals (%d)", npairs);
  ierr = GpuMatsCUDAMalloc((void **)&p->pair_start, (size_t)(C->ndiag + 1) * sizeof(int), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&p->pair_a, (size_t)npairs * sizeof(int), what);
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&p->pair_b, (size_t)npairs * sizeof(int), what);
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->pair_start, ps, (size_t)(C->ndiag + 1) * sizeof(int));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->pair_a, pa, (size_t)npairs * sizeof(int));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->pair_b, pb, (size_t)npairs * sizeof(int));
  if (!ierr && A->scheme == DIAG_SCHEME_HM) { /* the atomic (paper's) kernel finds C's diagonal by offset */
    const PetscInt range = C->nrows + C->ncols - 1;
    int           *ci;

    ierr = PetscMalloc1(PetscMax(range, 1), &ci);
    if (!ierr) {
      for (PetscInt r = 0; r < range; r++) ci[r] = -1;
      for (PetscInt c = 0; c < C->ndiag; c++) ci[C->offset[c] + C->nrows - 1] = (int)c;
      snprintf(what, sizeof(what), "DIAG product: index of C's diagonals (%d offsets)", (int)range);
      ierr = GpuMatsCUDAMalloc((void **)&p->c_index, (size_t)PetscMax(range, 1) * sizeof(int), what);
      if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->c_index, ci, (size_t)range * sizeof(int));
      (void)PetscFree(ci);
    }
  }
  if (!ierr && A->scheme == DIAG_SCHEME_CDM) { /* a banded A: the offsets of its diagonals as super- or subdiagonals */
    int      *sd;
    PetscBool banded = PETSC_TRUE;

    ierr = PetscMalloc1(PetscMax(A->ndiag, 1), &sd);
    for (PetscInt s = 0; !ierr && s < A->ndiag && banded; s++) {
      const PetscInt k = A->offset[s];

      if (k == 0 || A->part[s] == DIAG_PART_UPPER) sd[s] = (int)k;
      else if (A->part[s] == DIAG_PART_LOWER) sd[s] = (int)(k - A->ncols);
      else banded = PETSC_FALSE; /* both parts: a periodic band, or scattered offsets */
      if (banded) p->band_p = PetscMax(p->band_p, -sd[s]), p->band_q = PetscMax(p->band_q, sd[s]);
    }
    if (!ierr && banded && p->band_p + p->band_q < A->ncols) {
      snprintf(what, sizeof(what), "DIAG product: offsets of a banded A (%d)", (int)A->ndiag);
      ierr = GpuMatsCUDAMalloc((void **)&p->a_signed, (size_t)PetscMax(A->ndiag, 1) * sizeof(int), what);
      if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->a_signed, sd, (size_t)A->ndiag * sizeof(int));
    }
    (void)PetscFree(sd);
  }
  if (!ierr && A->scheme == DIAG_SCHEME_CDM) { /* the tiled kernel (the paper's Algorithm 1) finds B's compact diagonal by k */
    const PetscInt n = B->ncols;
    int           *bi;

    ierr = PetscMalloc1(PetscMax(n, 1), &bi);
    if (!ierr) {
      for (PetscInt k = 0; k < n; k++) bi[k] = -1;
      for (PetscInt t = 0; t < B->ndiag; t++) bi[B->offset[t]] = (int)t;
      snprintf(what, sizeof(what), "DIAG product: index of B's compact diagonals (n = %d)", (int)n);
      ierr = GpuMatsCUDAMalloc((void **)&p->b_index, (size_t)PetscMax(n, 1) * sizeof(int), what);
      if (!ierr) ierr = GpuMatsCUDACopyToDevice(p->b_index, bi, (size_t)n * sizeof(int));
      (void)PetscFree(bi);
    }
  }
  PetscCall(PetscFree(ps));
  PetscCall(PetscFree2(pa, pb));
  if (ierr) {
    (void)DiagDeviceProductDestroy(&p);
    PetscCall(ierr);
  }
  *prod = p;
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumeric(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  int T = 0;

  PetscFunctionBegin;
  if (p->scheme == DIAG_SCHEME_CDM) PetscCall(DiagDeviceProductBandedRows(p, &T));
  if (T) PetscCall(DiagDeviceProductNumericBanded(p, T, A, B, C));
  else PetscCall(DiagDeviceProductNumericPairs(p, A, B, C));
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericPairs(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  const DiagArrays a = DiagArraysOf(A), b = DiagArraysOf(B), c = DiagArraysOf(C);
  void            *s;
  dim3             grid;

  PetscFunctionBegin;
  if (!p->ndiag_c || !p->max_len) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  PetscCheck(p->ndiag_c <= 65535, PETSC_COMM_SELF, PETSC_ERR_SUP, "DIAG product with %d diagonals in C: this kernel takes at most 65535 (a grid row per diagonal); use -mat_diag_product paper (no such limit), or more MPI processes", p->ndiag_c);
  grid = dim3((unsigned)((p->max_len + DIAG_PRODUCT_THREADS - 1) / DIAG_PRODUCT_THREADS), (unsigned)p->ndiag_c);
  if (p->scheme == DIAG_SCHEME_HM) DiagProductKernel<true><<<grid, DIAG_PRODUCT_THREADS, 0, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->pair_start, p->pair_a, p->pair_b, a, b, c);
  else DiagProductKernel<false><<<grid, DIAG_PRODUCT_THREADS, 0, (cudaStream_t)s>>>(p->nrows, p->inner, p->ncols, p->pair_start, p->pair_a, p->pair_b, a, b, c);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* The paper's Algorithm 2: thread q takes stored entry q of A, a(i, k) on diagonal s (found
   by bisection of A's starts), and adds a(i, k) b(k, k + d_b) into c(i, k + d_b) for every
   diagonal of B.  A's padding-free HM layout makes q run over A's nonzeros exactly. */
__global__ void __launch_bounds__(DIAG_PRODUCT_THREADS) DiagProductAtomicKernel(long long nval_a, int ndiag_a, int ndiag_b, int m, int inner, int n, const int *__restrict__ c_index, DiagArrays A, DiagArrays B, DiagArrays C)
{
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int             lo = 0, hi = ndiag_a;

  if (q >= nval_a) return;
  while (hi - lo > 1) { /* the diagonal s with start[s] <= q < start[s + 1] */
    const int mid = (lo + hi) / 2;

    if (A.start[mid] <= q) lo = mid;
    else hi = mid;
  }
  {
    const int    da = A.offset[lo], i = (int)(q - A.start[lo]) + (da < 0 ? -da : 0), k = i + da;
    const double a  = A.val[q];

    for (int t = 0; t < ndiag_b; t++) {
      const int db = B.offset[t], j = k + db;

      if (k >= (db < 0 ? -db : 0) && k < inner && j >= 0 && j < n) {
        const int c = c_index[da + db + m - 1]; /* present: (i, j) lies in C's shape */

        if (c >= 0) atomicAdd(&C.val[C.start[c] + i - (da + db < 0 ? -(da + db) : 0)], a * B.val[B.start[t] + k - (db < 0 ? -db : 0)]);
      }
    }
  }
}

PetscErrorCode DiagDeviceProductNumericAtomic(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  const DiagArrays a = DiagArraysOf(A), b = DiagArraysOf(B), c = DiagArraysOf(C);
  void            *s;

  PetscFunctionBegin;
  PetscCheck(p->scheme == DIAG_SCHEME_HM, PETSC_COMM_SELF, PETSC_ERR_SUP, "The atomic DIAG product (the paper's Algorithm 2) is for HM matrices; use DiagDeviceProductNumeric for CDM");
  PetscCall(GpuMatsCUDAMemset(C->val, 0, (size_t)C->nval * sizeof(double)));
  if (!A->nval || !B->ndiag) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  DiagProductAtomicKernel<<<(unsigned)((A->nval + DIAG_PRODUCT_THREADS - 1) / DIAG_PRODUCT_THREADS), DIAG_PRODUCT_THREADS, 0, (cudaStream_t)s>>>(A->nval, A->ndiag, B->ndiag, p->nrows, p->inner, p->ncols, p->c_index, a, b, c);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductDestroy(DiagDeviceProduct *prod)
{
  PetscFunctionBegin;
  if (!*prod) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree((*prod)->c_index));
  PetscCall(GpuMatsCUDAFree((*prod)->b_index));
  PetscCall(GpuMatsCUDAFree((*prod)->a_signed));
  PetscCall(GpuMatsCUDAFree((*prod)->pair_start));
  PetscCall(GpuMatsCUDAFree((*prod)->pair_a));
  PetscCall(GpuMatsCUDAFree((*prod)->pair_b));
  PetscCall(PetscFree(*prod));
  PetscFunctionReturn(0);
}
