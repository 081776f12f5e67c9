/* SOR sweeps of a diag matrix on the device, a level of rows at a time (MatSOR_SeqDiag's
   device side; the levels are made on the host, diag_sor_schedule.c).

   A row of a level is coupled with no other row of it, and every row it is coupled with
   lies in an earlier level when it comes earlier in the matrix, in a later level when it
   comes later.  A forward sweep runs the levels in order, a backward sweep in reverse,
   one launch each: every row then reads exactly the values the sequential sweep reads
   (the new ones of the rows already swept, the old ones of the others).  A row's
   arithmetic is the host sweep's (diag_sor.c), in the same order, with the rounding
   intrinsics so that no multiply-add is fused: the iterates agree to the last bit. */
#include <petscsys.h>
#include <cuda_runtime.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The DIAG CUDA kernels are written for real double-precision PetscScalar"
#endif

#define SOR_THREADS 256

struct _n_DiagDeviceSOR {
  int        n, nlevels, nlo, nup;
  int       *level_start;         /* host, nlevels + 1 */
  int       *rows;                /* device, n: the rows level by level */
  int       *level;               /* device, n: the level of each row */
  int       *lo_delta, *up_delta; /* device: the entries left (right) of the main diagonal, by ascending column: j = i + delta */
  long long *lo_start, *up_start; /* their diagonals' value starts */
  int       *part;                /* device, ndiag: CDM parts (the check) */
  double    *mdiag, *idiag, *t;   /* device, n */
  int       *flag;                /* device: the check's and the pivots' answer */
};

/* sum - (entries left of the diagonal) x, by ascending column: j = i + delta < i; the value's slot
   is j in HM (a subdiagonal is indexed by column) and i in CDM */
template <bool HM>
__device__ __forceinline__ double SORLower(int i, double sum, int nlo, const int *__restrict__ delta, const long long *__restrict__ start, const double *__restrict__ val, const double *x)
{
  for (int q = 0; q < nlo; q++) {
    const int j = i + delta[q];

    if (j < 0) continue;
    sum = __dsub_rn(sum, __dmul_rn(val[start[q] + (HM ? j : i)], x[j]));
  }
  return sum;
}

/* the same right of the diagonal: slot i in both schemes */
__device__ __forceinline__ double SORUpper(int i, int n, double sum, int nup, const int *__restrict__ delta, const long long *__restrict__ start, const double *__restrict__ val, const double *x)
{
  for (int q = 0; q < nup; q++) {
    const int j = i + delta[q];

    if (j >= n) continue;
    sum = __dsub_rn(sum, __dmul_rn(val[start[q] + i], x[j]));
  }
  return sum;
}

/* (1 - omega) x + sum * idiag */
__device__ __forceinline__ double SORRelax(double omega, double x, double sum, double idiag)
{
  return __dadd_rn(__dmul_rn(1.0 - omega, x), __dmul_rn(sum, idiag));
}

struct SORArgs {
  int                n, nlo, nup;
  const int         *lo_delta, *up_delta;
  const long long   *lo_start, *up_start;
  const double      *val, *mdiag, *idiag, *b;
  double             omega;
  double            *x, *t;
};

template <bool HM, DiagSORSweep SWEEP>
__global__ void __launch_bounds__(SOR_THREADS) DiagSORLevel(int count, const int *__restrict__ rows, SORArgs a)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  int       i;
  double    sum;

  if (r >= count) return;
  i = rows[r];
  switch (SWEEP) {
  case DIAG_SOR_FORWARD_ZERO: /* t = b - L x, x = t idiag */
    sum    = SORLower<HM>(i, a.b[i], a.nlo, a.lo_delta, a.lo_start, a.val, a.x);
    a.t[i] = sum;
    a.x[i] = __dmul_rn(sum, a.idiag[i]);
    break;
  case DIAG_SOR_BACKWARD_ZERO: /* x = (b - U x) idiag */
    a.x[i] = __dmul_rn(SORUpper(i, a.n, a.b[i], a.nup, a.up_delta, a.up_start, a.val, a.x), a.idiag[i]);
    break;
  case DIAG_SOR_BACKWARD_AFTER_FORWARD: /* t kept by the forward sweep: x = (1 - omega) x + (t - U x) idiag */
    a.x[i] = SORRelax(a.omega, a.x[i], SORUpper(i, a.n, a.t[i], a.nup, a.up_delta, a.up_start, a.val, a.x), a.idiag[i]);
    break;
  case DIAG_SOR_FORWARD:
    sum    = SORLower<HM>(i, a.b[i], a.nlo, a.lo_delta, a.lo_start, a.val, a.x);
    a.t[i] = sum;
    sum    = SORUpper(i, a.n, sum, a.nup, a.up_delta, a.up_start, a.val, a.x);
    a.x[i] = SORRelax(a.omega, a.x[i], sum, a.idiag[i]);
    break;
  case DIAG_SOR_BACKWARD: /* the whole row, its diagonal too (as AIJ), added back after */
    sum    = SORLower<HM>(i, a.b[i], a.nlo, a.lo_delta, a.lo_start, a.val, a.x);
    sum    = __dsub_rn(sum, __dmul_rn(a.mdiag[i], a.x[i]));
    sum    = SORUpper(i, a.n, sum, a.nup, a.up_delta, a.up_start, a.val, a.x);
    a.x[i] = SORRelax(a.omega, a.x[i], __dadd_rn(sum, __dmul_rn(a.mdiag[i], a.x[i])), a.idiag[i]);
    break;
  }
}

/* mdiag and idiag (1 / a(i,i), or omega / (fshift + a(i,i))), and the first row with a zero a(i,i) in *zero */
__global__ void DiagSORDiagonal(int n, long long start0, const double *__restrict__ val, double omega, double fshift, bool plain, double *mdiag, double *idiag, int *zero)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n) return;
  mdiag[i] = start0 >= 0 ? val[start0 + i] : 0.0;
  if (plain) {
    if (mdiag[i] == 0.0) atomicMin(zero, i);
    idiag[i] = 1.0 / mdiag[i];
  } else idiag[i] = omega / (fshift + mdiag[i]);
}

/* every nonzero value off the main diagonal couples rows of different levels, the later row in the later level */
template <bool HM>
__global__ void DiagSORCheckLevels(int n, const int *__restrict__ offset, const long long *__restrict__ start, const int *__restrict__ part, const double *__restrict__ val, const int *__restrict__ level, int *bad)
{
  const int       t = blockIdx.y, d = offset[t];
  const long long len = start[t + 1] - start[t];

  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < len; p += (long long)gridDim.x * blockDim.x) {
    int i, j;

    if (val[start[t] + p] == 0.0) continue;
    if (HM) {
      i = (int)p + (d < 0 ? -d : 0);
      j = i + d;
    } else {
      i = (int)p;
      j = (int)((p + d) % n);
      if (!(part[t] & (j >= i ? DIAG_PART_UPPER : DIAG_PART_LOWER))) continue; /* padding, never read */
    }
    if (i == j) continue;
    if (level[i > j ? i : j] <= level[i > j ? j : i]) *bad = 1;
  }
}

extern "C" PetscErrorCode DiagDeviceSORCreate(const DiagFormat *f, PetscInt nlo, const PetscInt lo[], PetscInt nup, const PetscInt up[], PetscInt nlevels, const PetscInt level_start[], const PetscInt rows[], const PetscInt level[], DiagDeviceSOR *sor)
{
  DiagDeviceSOR  s;
  const int      n = (int)f->nrows;
  int           *hrows = NULL, *hlevel = NULL, *hdelta = NULL, *hpart = NULL;
  long long     *hstart = NULL;
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  *sor = NULL;
  PetscCall(PetscNew(&s));
  s->n       = n;
  s->nlevels = (int)nlevels;
  s->nlo     = (int)nlo;
  s->nup     = (int)nup;
  PetscCall(PetscMalloc1(nlevels + 1, &s->level_start));
  for (PetscInt l = 0; l <= nlevels; l++) s->level_start[l] = (int)level_start[l];
  PetscCall(PetscMalloc5(PetscMax(n, 1), &hrows, PetscMax(n, 1), &hlevel, PetscMax(nlo + nup, 1), &hdelta, PetscMax(nlo + nup, 1), &hstart, PetscMax(f->ndiag, 1), &hpart));
  for (int i = 0; i < n; i++) hrows[i] = (int)rows[i], hlevel[i] = (int)level[i];
  for (PetscInt q = 0; q < nlo; q++) { /* HM: subdiagonal d; CDM: the lower part of compact diagonal k, column i + k - n */
    hdelta[q] = (int)(f->scheme == DIAG_SCHEME_HM ? f->offset[lo[q]] : f->offset[lo[q]] - n);
    hstart[q] = (long long)f->start[lo[q]];
  }
  for (PetscInt q = 0; q < nup; q++) {
    hdelta[nlo + q] = (int)f->offset[up[q]];
    hstart[nlo + q] = (long long)f->start[up[q]];
  }
  for (PetscInt t = 0; t < f->ndiag; t++) hpart[t] = f->scheme == DIAG_SCHEME_CDM ? (int)f->part[t] : 0;
  /* the first error is kept; what was allocated is freed by the destroy below */
  ierr = GpuMatsCUDAMalloc((void **)&s->rows, (size_t)PetscMax(n, 1) * sizeof(int), "DIAG SOR levels (rows)");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->level, (size_t)PetscMax(n, 1) * sizeof(int), "DIAG SOR levels (level of each row)");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->lo_delta, (size_t)PetscMax(nlo + nup, 1) * sizeof(int), "DIAG SOR diagonals");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->lo_start, (size_t)PetscMax(nlo + nup, 1) * sizeof(long long), "DIAG SOR diagonals");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->part, (size_t)PetscMax(f->ndiag, 1) * sizeof(int), "DIAG SOR diagonal parts");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->mdiag, (size_t)PetscMax(n, 1) * sizeof(double), "DIAG SOR diagonal");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->idiag, (size_t)PetscMax(n, 1) * sizeof(double), "DIAG SOR inverted diagonal");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->t, (size_t)PetscMax(n, 1) * sizeof(double), "DIAG SOR work vector");
  if (!ierr) ierr = GpuMatsCUDAMalloc((void **)&s->flag, sizeof(int), "DIAG SOR flag");
  if (!ierr) {
    s->up_delta = s->lo_delta + nlo;
    s->up_start = s->lo_start + nlo;
    ierr        = GpuMatsCUDACopyToDevice(s->rows, hrows, (size_t)n * sizeof(int));
  }
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(s->level, hlevel, (size_t)n * sizeof(int));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(s->lo_delta, hdelta, (size_t)(nlo + nup) * sizeof(int));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(s->lo_start, hstart, (size_t)(nlo + nup) * sizeof(long long));
  if (!ierr) ierr = GpuMatsCUDACopyToDevice(s->part, hpart, (size_t)f->ndiag * sizeof(int));
  PetscCall(PetscFree5(hrows, hlevel, hdelta, hstart, hpart));
  if (ierr) {
    (void)DiagDeviceSORDestroy(&s);
    PetscCall(ierr);
  }
  *sor = s;
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceSORDestroy(DiagDeviceSOR *sor)
{
  DiagDeviceSOR s = *sor;

  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAFree(s->rows));
  PetscCall(GpuMatsCUDAFree(s->level));
  PetscCall(GpuMatsCUDAFree(s->lo_delta));
  PetscCall(GpuMatsCUDAFree(s->lo_start));
  PetscCall(GpuMatsCUDAFree(s->part));
  PetscCall(GpuMatsCUDAFree(s->mdiag));
  PetscCall(GpuMatsCUDAFree(s->idiag));
  PetscCall(GpuMatsCUDAFree(s->t));
  PetscCall(GpuMatsCUDAFree(s->flag));
  PetscCall(PetscFree(s->level_start));
  PetscCall(PetscFree(*sor));
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceSORCheck(DiagDeviceSOR s, DiagDevice A, PetscBool *valid)
{
  int          bad = 0;
  void        *st;
  cudaStream_t stream;
  dim3         grid;

  PetscFunctionBegin;
  *valid = PETSC_TRUE;
  if (!A->ndiag || !s->n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&st));
  stream = (cudaStream_t)st;
  GpuMatsCallCUDA(cudaMemsetAsync(s->flag, 0, sizeof(int), stream));
  grid = dim3((unsigned)PetscMin(((long long)s->n + SOR_THREADS - 1) / SOR_THREADS, 4096), (unsigned)A->ndiag);
  if (A->scheme == DIAG_SCHEME_HM) DiagSORCheckLevels<true><<<grid, SOR_THREADS, 0, stream>>>(s->n, A->offset, A->start, s->part, A->val, s->level, s->flag);
  else DiagSORCheckLevels<false><<<grid, SOR_THREADS, 0, stream>>>(s->n, A->offset, A->start, s->part, A->val, s->level, s->flag);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscCall(GpuMatsCUDACopyToHost(&bad, s->flag, sizeof(int)));
  *valid = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode DiagDeviceSORSetDiagonal(DiagDeviceSOR s, DiagDevice A, PetscInt64 start0, PetscReal omega, PetscReal fshift, PetscInt *zero_row)
{
  const bool   plain = omega == 1.0 && fshift <= 0.0;
  int          zero  = s->n;
  void        *st;
  cudaStream_t stream;

  PetscFunctionBegin;
  *zero_row = -1;
  if (!s->n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&st));
  stream = (cudaStream_t)st;
  PetscCall(GpuMatsCUDACopyToDevice(s->flag, &zero, sizeof(int)));
  DiagSORDiagonal<<<(unsigned)((s->n + SOR_THREADS - 1) / SOR_THREADS), SOR_THREADS, 0, stream>>>(s->n, (long long)start0, A->val, omega, fshift, plain, s->mdiag, s->idiag, s->flag);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscCall(GpuMatsCUDACopyToHost(&zero, s->flag, sizeof(int)));
  if (zero < s->n) *zero_row = zero;
  PetscFunctionReturn(0);
}

/* One sweep: every level in order (the forward sweeps) or in reverse (the backward ones) */
template <bool HM, DiagSORSweep SWEEP>
static PetscErrorCode DiagSORLaunch(DiagDeviceSOR s, const SORArgs &a, cudaStream_t stream)
{
  const bool forward = SWEEP == DIAG_SOR_FORWARD_ZERO || SWEEP == DIAG_SOR_FORWARD;

  PetscFunctionBegin;
  for (int q = 0; q < s->nlevels; q++) {
    const int l = forward ? q : s->nlevels - 1 - q, first = s->level_start[l], count = s->level_start[l + 1] - first;

    DiagSORLevel<HM, SWEEP><<<(unsigned)((count + SOR_THREADS - 1) / SOR_THREADS), SOR_THREADS, 0, stream>>>(count, s->rows + first, a);
  }
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

typedef PetscErrorCode (*SORLauncher)(DiagDeviceSOR, const SORArgs &, cudaStream_t);

/* indexed by DiagSORSweep */
template <bool HM>
struct SORLaunchers {
  static constexpr SORLauncher sweep[] = {DiagSORLaunch<HM, DIAG_SOR_FORWARD_ZERO>, DiagSORLaunch<HM, DIAG_SOR_BACKWARD_ZERO>, DiagSORLaunch<HM, DIAG_SOR_BACKWARD_AFTER_FORWARD>, DiagSORLaunch<HM, DIAG_SOR_FORWARD>, DiagSORLaunch<HM, DIAG_SOR_BACKWARD>};
};

extern "C" PetscErrorCode DiagDeviceSORSweep(DiagDeviceSOR s, DiagDevice A, DiagSORSweep sweep, PetscReal omega, const PetscScalar *b, PetscScalar *x)
{
  SORArgs      a;
  void        *st;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&st));
  stream     = (cudaStream_t)st;
  a.n        = s->n;
  a.nlo      = s->nlo;
  a.nup      = s->nup;
  a.lo_delta = s->lo_delta;
  a.up_delta = s->up_delta;
  a.lo_start = s->lo_start;
  a.up_start = s->up_start;
  a.val      = A->val;
  a.mdiag    = s->mdiag;
  a.idiag    = s->idiag;
  a.b        = b;
  a.omega    = omega;
  a.x        = x;
  a.t        = s->t;
  PetscCheck(sweep >= DIAG_SOR_FORWARD_ZERO && sweep <= DIAG_SOR_BACKWARD, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown DiagSORSweep %d", (int)sweep);
  PetscCall((A->scheme == DIAG_SCHEME_HM ? SORLaunchers<true>::sweep : SORLaunchers<false>::sweep)[sweep](s, a, stream));
  PetscFunctionReturn(0);
}
