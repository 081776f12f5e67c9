/* What the SpMV benchmarks (bench_cihybrid, bench_pcsr) share: the host CSR matrix
   and its reference products, the error measure, CUDA-event timing, the device's
   read and copy bandwidth, cuSPARSE CSR SpMV, PETSc's MATSEQAIJCUSPARSE, and the
   report lines.  C++ (CUDA) only: the benchmarks are .cu files.

   Errors are componentwise, relative to (|A||x| + |y0|)_i, the scale of a dot
   product's rounding error; above BENCH_TOLERANCE a benchmark fails.  Each timed run
   is bracketed by CUDA events and preceded by a short spin kernel, so that the launch
   is queued before the start event fires.  GB/s count the same minimal CSR traffic
   for every kernel (BenchCSRTrafficBytes), so GB/s is proportional to speed. */
#pragma once
#include <petscsys.h>
#include <petscmat.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <gpumats_cuda_context.h> /* GpuMatsCUDAInitialize, GpuMatsCUDAGetStream: where the launchers run */

#define BENCH_TOLERANCE 1e-12
#define BENCH_SPIN_NS   200000ULL /* longer than the host needs to queue one SpMV */
#define BENCH_SPIN_NS_K 20000ULL  /* and this much more per column of a block product made of k launches */

/* A CUDA runtime call whose failure is a PETSc error naming the call */
#define BenchCallCUDA(call) \
  do { \
    const cudaError_t cerr_ = (call); \
    PetscCheck(cerr_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error %d (%s): %s, in %s", (int)cerr_, cudaGetErrorName(cerr_), cudaGetErrorString(cerr_), #call); \
  } while (0)

#define BenchCallCUSPARSE(call) \
  do { \
    const cusparseStatus_t st_ = (call); \
    PetscCheck(st_ == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSPARSE error %d (%s) in %s", (int)st_, cusparseGetErrorString(st_), #call); \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Device memory of the benchmarks themselves (vectors, blocks, copies for cuSPARSE), plain CUDA
   runtime calls ordered on the stream of the library's launchers (GpuMatsCUDAGetStream), so that
   a copy never overtakes a kernel.  Malloc of 0 bytes gives NULL, a failed one an error naming
   'what', the bytes asked and the bytes free; Free of NULL does nothing; the copies return when
   done (the stream synchronised); Memset is queued; Synchronize waits for the stream. */
PetscErrorCode BenchCUDAMalloc(void **ptr, size_t bytes, const char *what);
PetscErrorCode BenchCUDAFree(void *ptr);
PetscErrorCode BenchCUDACopyToDevice(void *dst, const void *src, size_t bytes);
PetscErrorCode BenchCUDACopyToHost(void *dst, const void *src, size_t bytes);
PetscErrorCode BenchCUDAMemset(void *dst, int value, size_t bytes);
PetscErrorCode BenchCUDASynchronize(void);

/* ------------------------------------------------------------------------ */
/* host CSR matrices (arrays from PetscMalloc1) and reference products */
typedef struct {
  PetscInt     nrows, ncols;
  PetscInt    *rowptr, *colidx;
  PetscScalar *vals;
} BenchCSR;

PetscErrorCode BenchCSRFree(BenchCSR *A);
/* Small random matrix for edge-case checks: every 5th row empty, the others of random
   length in [0, maxlen], columns a sorted random subset. */
PetscErrorCode BenchCSRRandom(PetscInt nrows, PetscInt ncols, PetscInt maxlen, unsigned long long seed, BenchCSR *A);
/* y = A x (+ y0) and absy = |A||x| (+ |y0|); y0 may be NULL */
void BenchCSRMult(const BenchCSR *A, const double *x, const double *y0, double *y, double *absy);
/* y = A^T x (+ y0) and absy = |A^T||x| (+ |y0|) */
void BenchCSRMultTranspose(const BenchCSR *A, const double *x, const double *y0, double *y, double *absy);
/* The largest componentwise error of y against ref, relative to absref (NaN counts as infinite) */
double BenchMaxRelError(PetscInt n, const double *y, const double *ref, const double *absref);
/* Deterministic vectors and blocks (n x k, column-major) in [-1, 1] */
void BenchFillX(PetscInt n, double *x);
void BenchFillBlock(PetscInt n, PetscInt k, double *B);
/* Minimal CSR traffic of C = A B for k columns (k = 1: SpMV):
   nnz*(8+4) + (nrows+1)*4 + 8*ncols*k + 8*nrows*k bytes */
double BenchCSRTrafficBytes(const BenchCSR *A, PetscInt k);

/* ------------------------------------------------------------------------ */
/* timing: 'run' queues one product on the timer's stream (gpumats' stream) */
typedef PetscErrorCode (*BenchRunFunction)(void *ctx);

typedef struct {
  cudaStream_t       stream;
  cudaEvent_t        start, stop;
  unsigned long long spin_ns; /* of the spin kernel before each timed run (BENCH_SPIN_NS) */
} BenchTimer;

PetscErrorCode BenchTimerCreate(BenchTimer *timer);
PetscErrorCode BenchTimerDestroy(BenchTimer *timer);
/* warmup untimed runs, then the median and minimum of reps timed runs, in ms */
PetscErrorCode BenchTime(BenchTimer *timer, BenchRunFunction run, void *ctx, PetscInt warmup, PetscInt reps, double *ms_median, double *ms_min);
/* Runs 'run' once on y (device, n entries) filled with NaN first, so that an entry it
   never writes fails, and returns y's error against ref; host_y holds n entries. */
PetscErrorCode BenchRunError(BenchRunFunction run, void *ctx, double *y, PetscInt n, const double *ref, const double *absref, double *host_y, double *err);

/* "Device 0: NAME, N SMs, G GiB; PETSc with|without CUDA" */
PetscErrorCode BenchPrintDevice(void);

/* main() of a benchmark: PetscInitialize, one MPI rank, run(&failed), PetscFinalize; the exit
   status is 1 when run reported a kernel that failed its check, PETSc's error code on an error */
int BenchMainOneRank(int argc, char **argv, const char *help, const char *name, PetscErrorCode (*run)(PetscBool *failed));

/* The device's bandwidth: a sum over an array of up to 'gib' GiB (at most half the free
   memory; read bandwidth), and a copy of its first half onto its second (read + write). */
typedef struct {
  size_t bytes;             /* the array */
  double read_ms, read_min; /* median and minimum of the sum */
  double copy_ms, copy_min; /* of the copy */
  double read_gbs;          /* bytes / read_ms */
} BenchBandwidth;

PetscErrorCode BenchMeasureBandwidth(BenchTimer *timer, double gib, PetscInt reps, BenchBandwidth *bw);
/* Its table (read_bandwidth, copy_bandwidth lines) */
PetscErrorCode BenchPrintBandwidth(const BenchBandwidth *bw);

/* ------------------------------------------------------------------------ */
/* report lines: kernel, a short 'info' column, ms median and min, GB/s, % of read
   bandwidth, error ("-" when err < 0) and FAILED past the tolerance */
PetscErrorCode BenchPrintHeader(const char *title, const char *info_name);
PetscErrorCode BenchPrintRow(const char *kernel, const char *info, double ms_median, double ms_min, double gbs, double pct_read, double err);
double         BenchGBs(double bytes, double ms);
double         BenchPercentOfRead(double gbs, double read_gbs); /* 100 when read_gbs is not measured yet */
void           BenchErrorText(double err, char *text, size_t len);

/* ------------------------------------------------------------------------ */
/* cuSPARSE CSR SpMV (generic API) on its own device copy of the matrix, y = A x with
   CSR ALG1 or ALG2, and optionally y = A^T x (CUSPARSE_SPMV_ALG_DEFAULT) */
typedef struct {
  cusparseHandle_t     handle;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vec_x, vec_y, vec_xt, vec_yt;
  PetscInt            *rowptr, *colidx;
  double              *vals;
  void                *buffer[2];       /* ALG1, ALG2 */
  void                *buffer_transpose;
} BenchCUSPARSE;

/* x (ncols) and y (nrows) are the device vectors of the forward product */
PetscErrorCode BenchCUSPARSECreate(const BenchCSR *A, cudaStream_t stream, double *x, double *y, BenchCUSPARSE *cs);
/* xt (nrows) and yt (ncols) of the transposed product */
PetscErrorCode BenchCUSPARSESetUpTranspose(BenchCUSPARSE *cs, const BenchCSR *A, double *xt, double *yt);
/* alg: CUSPARSE_SPMV_CSR_ALG1 or CUSPARSE_SPMV_CSR_ALG2 */
PetscErrorCode BenchCUSPARSEMult(BenchCUSPARSE *cs, cusparseSpMVAlg_t alg);
PetscErrorCode BenchCUSPARSEMultTranspose(BenchCUSPARSE *cs);
PetscErrorCode BenchCUSPARSEDestroy(BenchCUSPARSE *cs);

#if defined(PETSC_HAVE_CUDA)
/* PETSc's own GPU type: a MATSEQAIJCUSPARSE copy of the matrix, VECCUDA x and y */
typedef struct {
  Mat A;
  Vec x, y;
} BenchPETSc;

PetscErrorCode BenchPETScCreate(const BenchCSR *A, const double *x, BenchPETSc *p);
/* The same through another type: an AIJ matrix converted to 'type' (e.g. the gpumats
   types), its own vectors (MatCreateVecs), options from the database */
PetscErrorCode BenchPETScCreateType(const BenchCSR *A, const double *x, MatType type, BenchPETSc *p);
PetscErrorCode BenchPETScMult(BenchPETSc *p); /* MatMult(A, x, y) */
/* y filled with NaN, one MatMult, y's error against ref (host_y: nrows entries) */
PetscErrorCode BenchPETScMultError(BenchPETSc *p, const double *ref, const double *absref, double *host_y, double *err);
PetscErrorCode BenchPETScDestroy(BenchPETSc *p);
#endif
