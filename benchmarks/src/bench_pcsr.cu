static const char help[] = "Times the PCSR SpMV kernels (cuda/pcsr) against cuSPARSE and PETSc's MATSEQAIJCUSPARSE on the matrices of benchmarks/src/matgen.h.\n\
  -matrix <stencil5> -size <0>  one matrix (size 0: the matrix's default; the names are listed below)\n\
  -matrices <name:size,...>     a list of matrices instead, one after the other (fci: no size)\n\
  -label <text>                 the name of a single matrix in the report and CSV (default name:size)\n\
  -fcidump <file> -fci_sector <isym> ..., -hubbard_lx <3> -hubbard_ly <4> ...   the matrix 'fci' (benchmarks/src/bench_host.h)\n\
  -seed <2016>                  of the generated matrices' structure and values\n\
  -warmup <20> -reps <200>      untimed and timed runs per kernel (median and min reported)\n\
  -transpose <true>             also time y = A^T x: PCSR atomic, PCSR transposed copy, cuSPARSE\n\
  -spmm_k <k1,k2,...>           also time C = A B (B n x k, column-major): PCSRDeviceSpMM against k SpMVs\n\
                                of the fastest PCSR kernel\n\
  -bw_gib <4>                   size of the bandwidth-test array (read bandwidth measured once a run)\n\
  -csv <path>                   append one line per (matrix, kernel) to path (header if the file is new)\n\
  -host_only                    build the matrices, print their statistics, check their structure and the\n\
                                host reference product, and stop before any CUDA call (machines without GPU)\n";

/* The harness is benchmarks/src/bench_common.h: errors relative to |A||x| (1e-12, else the
   exit status is nonzero), CUDA-event timing after a spin kernel, GB/s over the
   minimal CSR traffic nnz*(8+4) + (nrows+1)*4 + 8*ncols + 8*nrows bytes. */
#include "bench_common.h"
#include <math.h>
#include <string.h>
#include <gpumats.h>
extern "C" {
#include <gpumats_pcsr_format.h>
#include "bench_host.h"
#include "matgen.h"
}

#define BENCH_MAX_MATRICES 32
#define BENCH_MAX_SPMM     16

/* ------------------------------------------------------------------------ */
/* the kernels under test */
typedef enum {
  BENCH_OP_PCSR,
  BENCH_OP_PCSR_TRANSPOSE,
  BENCH_OP_CUSPARSE,
  BENCH_OP_CUSPARSE_TRANSPOSE,
  BENCH_OP_PETSC,
  BENCH_OP_PCSR_SPMVS, /* C = A B as k SpMVs, one per column */
  BENCH_OP_PCSR_SPMM
} BenchOp;

typedef struct {
  const char       *name;
  BenchOp           op;
  MatPCSRKernel     kernel; /* BENCH_OP_PCSR */
  MatPCSRTranspose  mode;   /* BENCH_OP_PCSR_TRANSPOSE */
  cusparseSpMVAlg_t alg;    /* BENCH_OP_CUSPARSE */
} BenchKernel;

/* the single products, in report order; the first four are MatPCSRKernel's PAPER..ADAPTIVE in order (BenchProductOf) */
typedef enum {
  BENCH_PAPER,
  BENCH_FUSED,
  BENCH_VECTOR,
  BENCH_ADAPTIVE,
  BENCH_ALG1,
  BENCH_ALG2,
  BENCH_PETSC,
  BENCH_T_ATOMIC,
  BENCH_T_COPY,
  BENCH_T_CUSPARSE,
  BENCH_NUM_PRODUCTS
} BenchProduct;

static const BenchKernel BenchProducts[BENCH_NUM_PRODUCTS] = {
  {"pcsr_paper",             BENCH_OP_PCSR,               MAT_PCSR_KERNEL_PAPER,    MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"pcsr_fused",             BENCH_OP_PCSR,               MAT_PCSR_KERNEL_FUSED,    MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"pcsr_vector",            BENCH_OP_PCSR,               MAT_PCSR_KERNEL_VECTOR,   MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"pcsr_adaptive",          BENCH_OP_PCSR,               MAT_PCSR_KERNEL_ADAPTIVE, MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"cusparse_csr_alg1",      BENCH_OP_CUSPARSE,           MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"cusparse_csr_alg2",      BENCH_OP_CUSPARSE,           MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG2},
  {"petsc_seqaijcusparse",   BENCH_OP_PETSC,              MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"pcsr_transpose_atomic",  BENCH_OP_PCSR_TRANSPOSE,     MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
  {"pcsr_transpose_copy",    BENCH_OP_PCSR_TRANSPOSE,     MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_COPY,   CUSPARSE_SPMV_CSR_ALG1},
  {"cusparse_csr_transpose", BENCH_OP_CUSPARSE_TRANSPOSE, MAT_PCSR_KERNEL_AUTO,     MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1},
};
static const BenchKernel BenchKernelSpMVs = {"pcsr_spmv_x_k", BENCH_OP_PCSR_SPMVS, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1};
static const BenchKernel BenchKernelSpMM  = {"pcsr_spmm", BENCH_OP_PCSR_SPMM, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, CUSPARSE_SPMV_CSR_ALG1};

typedef struct {
  BenchTimer timer;
  double     read_gbs;
  PetscInt   warmup, reps;
  FILE      *csv;
  PetscBool  failed;
  /* the current matrix on the device */
  PetscInt      nrows, ncols;
  PCSRDevice    dev;
  BenchCUSPARSE cusparse;
#if defined(PETSC_HAVE_CUDA)
  BenchPETSc petsc;
#endif
  double *x, *y, *xt, *yt; /* x (ncols), y (nrows); transpose: xt (nrows), yt (ncols) */
  /* block products: B (ncols x k, ld ncols), C (nrows x k, ld nrows) */
  double    *B, *C;
  PetscInt   spmm_k;
  MatPCSRKernel spmv_kernel; /* of the k SpMVs */
  /* what BenchRunCurrent runs */
  const BenchKernel *current;
} Bench;

/* One matrix's line of the summary; a median of 0 is a kernel that did not run */
typedef struct {
  char         label[64];
  PCSRRowStats stats;
  double       ms[BENCH_NUM_PRODUCTS];
  MatPCSRKernel best, chosen; /* the fastest PCSR kernel; MAT_PCSR_KERNEL_AUTO's choice */
} BenchResult;

static PetscErrorCode BenchRunCurrent(void *ctx)
{
  Bench             *b = (Bench *)ctx;
  const BenchKernel *k = b->current;

  PetscFunctionBegin;
  switch (k->op) {
  case BENCH_OP_PCSR:
    PetscCall(PCSRDeviceMult(b->dev, k->kernel, b->x, NULL, b->y));
    break;
  case BENCH_OP_PCSR_TRANSPOSE:
    PetscCall(PCSRDeviceMultTranspose(b->dev, k->mode, b->xt, NULL, b->yt));
    break;
  case BENCH_OP_CUSPARSE:
    PetscCall(BenchCUSPARSEMult(&b->cusparse, k->alg));
    break;
  case BENCH_OP_CUSPARSE_TRANSPOSE:
    PetscCall(BenchCUSPARSEMultTranspose(&b->cusparse));
    break;
  case BENCH_OP_PETSC:
#if defined(PETSC_HAVE_CUDA)
    PetscCall(BenchPETScMult(&b->petsc));
#endif
    break;
  case BENCH_OP_PCSR_SPMVS:
    for (PetscInt j = 0; j < b->spmm_k; j++) PetscCall(PCSRDeviceMult(b->dev, b->spmv_kernel, b->B + (size_t)j * b->ncols, NULL, b->C + (size_t)j * b->nrows));
    break;
  case BENCH_OP_PCSR_SPMM:
    PetscCall(PCSRDeviceSpMM(b->dev, b->spmm_k, b->B, b->ncols, PETSC_FALSE, b->C, b->nrows));
    break;
  }
  PetscFunctionReturn(0);
}

/* The error of one run of k (poisoned output first), then its median and minimum time */
static PetscErrorCode BenchMeasure(Bench *b, const BenchKernel *k, const double *ref, const double *absref, double *host_y, double *err, double *ms_median, double *ms_min)
{
  const PetscBool transpose = (PetscBool)(k->op == BENCH_OP_PCSR_TRANSPOSE || k->op == BENCH_OP_CUSPARSE_TRANSPOSE);

  PetscFunctionBegin;
  b->current = k;
  if (k->op == BENCH_OP_PETSC) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(BenchPETScMultError(&b->petsc, ref, absref, host_y, err));
#endif
  } else if (k->op == BENCH_OP_PCSR_SPMVS || k->op == BENCH_OP_PCSR_SPMM) {
    const size_t n = (size_t)b->nrows * (size_t)b->spmm_k;

    PetscCall(BenchCUDAMemset(b->C, 0xff, n * sizeof(double)));
    PetscCall(BenchRunCurrent(b));
    PetscCall(BenchCUDACopyToHost(host_y, b->C, n * sizeof(double)));
    *err = 0.0;
    for (PetscInt j = 0; j < b->spmm_k; j++) *err = PetscMax(*err, BenchMaxRelError(b->nrows, host_y + (size_t)j * b->nrows, ref + (size_t)j * b->nrows, absref + (size_t)j * b->nrows));
  } else PetscCall(BenchRunError(BenchRunCurrent, b, transpose ? b->yt : b->y, transpose ? b->ncols : b->nrows, ref, absref, host_y, err));
  if (*err > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
  PetscCall(BenchTime(&b->timer, BenchRunCurrent, b, b->warmup, b->reps, ms_median, ms_min));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* report */
static const char *BenchPCSRKernelName(MatPCSRKernel k)
{
  static const char *names[] = {"auto", "paper", "fused", "vector", "adaptive"}; /* as numbered in MatPCSRKernel */

  return names[k];
}

/* The entry of BenchProducts that runs PCSR kernel k (PAPER..ADAPTIVE) */
static BenchProduct BenchProductOf(MatPCSRKernel k)
{
  return (BenchProduct)(BENCH_PAPER + (k - MAT_PCSR_KERNEL_PAPER));
}

static PetscErrorCode BenchCSVOpen(const char *path, FILE **csv)
{
  PetscFunctionBegin;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "a", csv));
  PetscCheck(!fseek(*csv, 0, SEEK_END), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot seek to the end of the CSV file %s", path);
  if (!ftell(*csv)) PetscCall(PetscFPrintf(PETSC_COMM_SELF, *csv, "matrix,nrows,ncols,nnz,row_mean,row_max,row_stddev,op,kernel,auto,k,ms_median,ms_min,gbs,pct_read,read_gbs,max_rel_err,baseline,speedup\n"));
  PetscFunctionReturn(0);
}

/* One report line and its CSV line; speedup = baseline_ms / ms_median (0: no baseline);
   'chosen' marks MAT_PCSR_KERNEL_AUTO's choice (a * after the name, 1 in the CSV's column auto) */
static PetscErrorCode BenchReport(Bench *b, const BenchResult *r, const char *op, const char *kernel, PetscBool chosen, PetscInt k, double bytes, double ms_median, double ms_min, double err, const char *baseline, double baseline_ms)
{
  const double gbs = BenchGBs(bytes, ms_median), pct = BenchPercentOfRead(gbs, b->read_gbs), speedup = baseline_ms > 0 ? baseline_ms / ms_median : 0;
  char         name[64], speedup_text[16] = "-", err_text[32];

  PetscFunctionBegin;
  snprintf(name, sizeof(name), "%s%s", kernel, chosen ? "*" : "");
  if (speedup > 0) snprintf(speedup_text, sizeof(speedup_text), "%.2f", speedup);
  PetscCall(BenchPrintRow(name, speedup_text, ms_median, ms_min, gbs, pct, err));
  if (b->csv) {
    BenchErrorText(err, err_text, sizeof(err_text));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%.3f,%" PetscInt64_FMT ",%.3f,%s,%s,%d,%" PetscInt_FMT ",%.6f,%.6f,%.2f,%.2f,%.1f,%s,%s,%.4f\n", r->label, r->stats.nrows, r->stats.ncols, r->stats.nnz, r->stats.mean_row_len, r->stats.max_row_len,
                           r->stats.stddev_row_len, op, kernel, chosen ? 1 : 0, k, ms_median, ms_min, gbs, pct, b->read_gbs, err_text, baseline, speedup));
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* one matrix */
static PetscErrorCode BenchSpMM(Bench *b, const BenchCSR *A, const BenchResult *r, PetscInt nks, const PetscInt *ks)
{
  PetscInt        kmax = 0;
  double         *hB, *ref, *absref, *host_c;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nks; i++) kmax = PetscMax(kmax, ks[i]);
  PetscCall(PetscMalloc4((size_t)A->ncols * kmax, &hB, (size_t)A->nrows * kmax, &ref, (size_t)A->nrows * kmax, &absref, (size_t)A->nrows * kmax, &host_c));
  BenchFillBlock(A->ncols, kmax, hB);
  PetscCall(PetscTime(&t0));
  BenchCSRMultBlock(A->nrows, A->rowptr, A->colidx, A->vals, kmax, hB, A->ncols, ref, absref, A->nrows);
  PetscCall(PetscTime(&t1));
  PetscCall(BenchCUDAMalloc((void **)&b->B, (size_t)A->ncols * kmax * sizeof(double), "the SpMM block B"));
  PetscCall(BenchCUDAMalloc((void **)&b->C, (size_t)A->nrows * kmax * sizeof(double), "the SpMM block C"));
  PetscCall(BenchCUDACopyToDevice(b->B, hB, (size_t)A->ncols * kmax * sizeof(double)));
  b->spmv_kernel = r->best;
  for (PetscInt i = 0; i < nks; i++) {
    const PetscInt k     = ks[i];
    const double   bytes = BenchCSRTrafficBytes(A, k);
    double         err, spmvs_ms, spmm_ms, ms_min;
    char           title[256];

    /* the reference's columns are those of B: the first k of kmax, ld nrows */
    b->spmm_k         = k;
    b->timer.spin_ns = BENCH_SPIN_NS + (unsigned long long)k * BENCH_SPIN_NS_K;
    snprintf(title, sizeof(title), "SpMM C = A B, k = %d (B n x k column-major; GB/s over nnz*12 + (n+1)*4 + 16*n*k bytes; host reference %.1f s; spdup: time of k %s SpMVs / time)", (int)k, t1 - t0, BenchPCSRKernelName(r->best));
    PetscCall(BenchPrintHeader(title, "spdup"));
    PetscCall(BenchMeasure(b, &BenchKernelSpMVs, ref, absref, host_c, &err, &spmvs_ms, &ms_min));
    PetscCall(BenchReport(b, r, "spmm", BenchKernelSpMVs.name, PETSC_FALSE, k, bytes, spmvs_ms, ms_min, err, "-", 0));
    PetscCall(BenchMeasure(b, &BenchKernelSpMM, ref, absref, host_c, &err, &spmm_ms, &ms_min));
    PetscCall(BenchReport(b, r, "spmm", BenchKernelSpMM.name, PETSC_FALSE, k, bytes, spmm_ms, ms_min, err, BenchKernelSpMVs.name, spmvs_ms));
  }
  b->timer.spin_ns = BENCH_SPIN_NS;
  PetscCall(BenchCUDAFree(b->B));
  PetscCall(BenchCUDAFree(b->C));
  b->B = b->C = NULL;
  PetscCall(PetscFree4(hB, ref, absref, host_c));
  PetscFunctionReturn(0);
}

/* The device part for one matrix: upload, check and time every product, release. */
static PetscErrorCode BenchDevice(Bench *b, const BenchCSR *A, BenchResult *r, PetscBool transpose, PetscInt nspmm, const PetscInt *spmm_ks, const double *hx, const double *ref, const double *absref, const double *hxt, const double *reft, const double *absreft)
{
  const double   bytes = BenchCSRTrafficBytes(A, 1);
  double         err[BENCH_NUM_PRODUCTS], ms_min[BENCH_NUM_PRODUCTS], *host_y, best_ms = 0;
  PetscLogDouble t0, t1, t2, t3;
  size_t         dev_bytes;

  PetscFunctionBegin;
  b->nrows = A->nrows;
  b->ncols = A->ncols;
  PetscCall(PetscMalloc1(PetscMax(A->nrows, A->ncols), &host_y));
  PetscCall(BenchCUDAMalloc((void **)&b->x, (size_t)A->ncols * sizeof(double), "x"));
  PetscCall(BenchCUDAMalloc((void **)&b->y, (size_t)A->nrows * sizeof(double), "y"));
  PetscCall(BenchCUDAMalloc((void **)&b->xt, (size_t)A->nrows * sizeof(double), "transpose x"));
  PetscCall(BenchCUDAMalloc((void **)&b->yt, (size_t)A->ncols * sizeof(double), "transpose y"));
  PetscCall(BenchCUDACopyToDevice(b->x, hx, (size_t)A->ncols * sizeof(double)));
  if (transpose) PetscCall(BenchCUDACopyToDevice(b->xt, hxt, (size_t)A->nrows * sizeof(double))); /* hxt exists only with -transpose */
  PetscCall(BenchCUDASynchronize());
  PetscCall(PetscTime(&t0));
  PetscCall(PCSRDeviceCreateFromCSR(A->nrows, A->ncols, A->rowptr, A->colidx, A->vals, &b->dev));
  PetscCall(BenchCUDASynchronize());
  PetscCall(PetscTime(&t1));
  PetscCall(BenchCUSPARSECreate(A, b->timer.stream, b->x, b->y, &b->cusparse));
  if (transpose) PetscCall(BenchCUSPARSESetUpTranspose(&b->cusparse, A, b->xt, b->yt));
  PetscCall(PetscTime(&t2));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(BenchPETScCreate(A, hx, &b->petsc));
#endif
  PetscCall(PetscTime(&t3));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Upload: PCSRDeviceCreateFromCSR %.3f s, cuSPARSE copy %.3f s, PETSc aijcusparse assembly %.3f s (its upload comes with the first MatMult)\n", t1 - t0, t2 - t1, t3 - t2));

  /* y = A x */
  for (int p = BENCH_PAPER; p <= BENCH_PETSC; p++) {
#if !defined(PETSC_HAVE_CUDA)
    if (p == BENCH_PETSC) continue;
#endif
    PetscCall(BenchMeasure(b, &BenchProducts[p], ref, absref, host_y, &err[p], &r->ms[p], &ms_min[p]));
  }
  r->best = MAT_PCSR_KERNEL_PAPER;
  for (int p = BENCH_PAPER; p <= BENCH_ADAPTIVE; p++)
    if (r->ms[p] < r->ms[BenchProductOf(r->best)]) r->best = BenchProducts[p].kernel;
  best_ms = r->ms[BenchProductOf(r->best)];
  PetscCall(BenchPrintHeader("SpMV y = A x (* marks PCSR_KERNEL_AUTO's choice; spdup: cuSPARSE CSR ALG1 time / time)", "spdup"));
  for (int p = BENCH_PAPER; p <= BENCH_PETSC; p++)
    if (r->ms[p] > 0) PetscCall(BenchReport(b, r, "spmv", BenchProducts[p].name, (PetscBool)(p == BenchProductOf(r->chosen)), 1, bytes, r->ms[p], ms_min[p], err[p], BenchProducts[BENCH_ALG1].name, r->ms[BENCH_ALG1]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Fastest PCSR kernel: %s, %.2fx cuSPARSE ALG1; paper %.2fx cuSPARSE ALG2; the automatic choice (%s) at %.2f of the fastest's speed\n", BenchPCSRKernelName(r->best), r->ms[BENCH_ALG1] / best_ms, r->ms[BENCH_ALG2] / r->ms[BENCH_PAPER],
                        BenchPCSRKernelName(r->chosen), best_ms / r->ms[BenchProductOf(r->chosen)]));

  /* y = A^T x */
  if (transpose) {
    for (int p = BENCH_T_ATOMIC; p <= BENCH_T_CUSPARSE; p++) PetscCall(BenchMeasure(b, &BenchProducts[p], reft, absreft, host_y, &err[p], &r->ms[p], &ms_min[p]));
    PetscCall(BenchPrintHeader("SpMV y = A^T x (same traffic count; spdup: cuSPARSE transpose time / time)", "spdup"));
    for (int p = BENCH_T_ATOMIC; p <= BENCH_T_CUSPARSE; p++) PetscCall(BenchReport(b, r, "transpose", BenchProducts[p].name, PETSC_FALSE, 1, bytes, r->ms[p], ms_min[p], err[p], BenchProducts[BENCH_T_CUSPARSE].name, r->ms[BENCH_T_CUSPARSE]));
  }
  if (nspmm) PetscCall(BenchSpMM(b, A, r, nspmm, spmm_ks));
  PetscCall(PCSRDeviceBytes(b->dev, &dev_bytes));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "PCSR device memory: %.1f MB (CSR %.1f MB; the rest: middle array, row blocks%s)\n", dev_bytes / 1e6, ((double)A->rowptr[A->nrows] * 12.0 + (A->nrows + 1) * 4.0) / 1e6, transpose ? ", transposed copy" : ""));

#if defined(PETSC_HAVE_CUDA)
  PetscCall(BenchPETScDestroy(&b->petsc));
#endif
  PetscCall(BenchCUSPARSEDestroy(&b->cusparse));
  PetscCall(PCSRDeviceDestroy(&b->dev));
  PetscCall(BenchCUDAFree(b->x));
  PetscCall(BenchCUDAFree(b->y));
  PetscCall(BenchCUDAFree(b->xt));
  PetscCall(BenchCUDAFree(b->yt));
  PetscCall(PetscFree(host_y));
  PetscFunctionReturn(0);
}

/* -host_only: the parallel reference product against the plain loop of BenchCSRMult. */
static PetscErrorCode BenchHostCheck(Bench *b, const BenchCSR *A, const double *hx, const double *ref, const double *absref)
{
  double *y, *absy, err;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(A->nrows, &y, A->nrows, &absy));
  BenchCSRMult(A, hx, NULL, y, absy);
  err = BenchMaxRelError(A->nrows, y, ref, absref);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Host check (-host_only): reference product against a plain loop, max rel error %.2e%s\n", err, err > BENCH_TOLERANCE ? "  FAILED" : ""));
  if (err > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
  PetscCall(PetscFree2(y, absy));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchMatrix(Bench *b, const char *name, PetscInt size, const char *label, unsigned long long seed, PetscBool host_only, PetscBool transpose, PetscInt nspmm, const PetscInt *spmm_ks, BenchResult *r)
{
  MatGenInfo     info;
  BenchCSR       A;
  PetscInt64     zeros;
  const char    *why;
  double        *hx, *ref, *absref, *hxt = NULL, *reft = NULL, *absreft = NULL;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(MatGenCreate(name, size, seed, &info, &A.nrows, &A.ncols, &A.rowptr, &A.colidx, &A.vals));
  if (label && label[0]) PetscCall(PetscStrncpy(r->label, label, sizeof(r->label)));
  else if (!strcmp(name, "fci")) PetscCall(PetscStrncpy(r->label, name, sizeof(r->label)));
  else snprintf(r->label, sizeof(r->label), "%s:%d", name, (int)info.size);
  PCSRRowStatsFromCSR(A.nrows, A.ncols, A.rowptr, &r->stats);
  r->chosen = PCSRChooseKernel(&r->stats, &why);
  PetscCall(MatGenCheckCSR(A.nrows, A.ncols, A.rowptr, A.colidx, A.vals, &zeros));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n== %s: %s\nGenerated in %.2f s on %d threads; %" PetscInt_FMT " rows, %" PetscInt_FMT " columns, %" PetscInt64_FMT " nonzeros (%" PetscInt64_FMT " explicit zeros)\n", r->label, info.description, info.seconds, info.threads, A.nrows, A.ncols, r->stats.nnz, zeros));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Nonzeros a row: mean %.2f, max %" PetscInt64_FMT ", stddev %.2f, %" PetscInt64_FMT " empty rows; PCSR_KERNEL_AUTO: %s (%s)\n", r->stats.mean_row_len, r->stats.max_row_len, r->stats.stddev_row_len, r->stats.empty_rows, BenchPCSRKernelName(r->chosen), why));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Minimal CSR traffic per SpMV: %.1f MB (GB/s below = this / median time)\n", BenchCSRTrafficBytes(&A, 1) / 1e6));
  if (zeros && strcmp(name, "fci")) { /* the generators make nonzero values */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED: generated matrix %s has explicit zeros\n", r->label));
    b->failed = PETSC_TRUE;
  }

  /* host references: y = A x in parallel (bench_host), y = A^T x by a plain loop */
  PetscCall(PetscMalloc3(A.ncols, &hx, A.nrows, &ref, A.nrows, &absref));
  BenchFillX(A.ncols, hx);
  PetscCall(PetscTime(&t0));
  BenchCSRMultBlock(A.nrows, A.rowptr, A.colidx, A.vals, 1, hx, A.ncols, ref, absref, A.nrows);
  PetscCall(PetscTime(&t1));
  if (transpose && !host_only) {
    PetscCall(PetscMalloc3(A.nrows, &hxt, A.ncols, &reft, A.ncols, &absreft));
    BenchFillX(A.nrows, hxt);
    BenchCSRMultTranspose(&A, hxt, NULL, reft, absreft);
  }
  PetscCall(PetscTime(&t2));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Host references: y = A x %.2f s on %d threads", t1 - t0, BenchHostThreads()));
  if (hxt) PetscCall(PetscPrintf(PETSC_COMM_SELF, ", y = A^T x %.2f s", t2 - t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  if (host_only) PetscCall(BenchHostCheck(b, &A, hx, ref, absref));
  else PetscCall(BenchDevice(b, &A, r, transpose, nspmm, spmm_ks, hx, ref, absref, hxt, reft, absreft));
  PetscCall(PetscFree3(hx, ref, absref));
  if (hxt) PetscCall(PetscFree3(hxt, reft, absreft));
  PetscCall(BenchCSRFree(&A));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
static PetscErrorCode BenchPrintSummary(const BenchResult *res, PetscInt n, PetscBool host_only, PetscInt reps)
{
  double log_best = 0, log_chosen = 0;

  PetscFunctionBegin;
  if (host_only) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nSummary (-host_only)\n%-24s %10s %11s %8s %8s %8s %8s\n", "matrix", "rows", "nnz", "mean", "max", "stddev", "auto"));
    for (PetscInt i = 0; i < n; i++)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %10" PetscInt_FMT " %11" PetscInt64_FMT " %8.2f %8" PetscInt64_FMT " %8.2f %8s\n", res[i].label, res[i].stats.nrows, res[i].stats.nnz, res[i].stats.mean_row_len, res[i].stats.max_row_len, res[i].stats.stddev_row_len, BenchPCSRKernelName(res[i].chosen)));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nSummary: ms, median of %d runs; best/alg1 = cuSPARSE ALG1 time / fastest PCSR time, paper/alg2 = ALG2 time / paper time (> 1: PCSR faster)\n", (int)reps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %9s %10s %7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %10s %8s %8s %8s\n", "matrix", "rows", "nnz", "mean", "max", "paper", "fused", "vector", "adaptive", "alg1", "alg2", "petsc", "best", "auto", "best/alg1", "paper/alg2", "T_atomic", "T_copy", "T_cusp"));
  for (PetscInt i = 0; i < n; i++) {
    const BenchResult *r = &res[i];
    char               cells[BENCH_NUM_PRODUCTS][16];

    for (int p = 0; p < BENCH_NUM_PRODUCTS; p++) {
      if (r->ms[p] > 0) snprintf(cells[p], sizeof(cells[p]), "%.4f", r->ms[p]);
      else snprintf(cells[p], sizeof(cells[p]), "-");
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %9" PetscInt_FMT " %10" PetscInt64_FMT " %7.1f %8" PetscInt64_FMT " %8s %8s %8s %8s %8s %8s %8s %8s %8s %9.2f %10.2f %8s %8s %8s\n", r->label, r->stats.nrows, r->stats.nnz, r->stats.mean_row_len, r->stats.max_row_len, cells[BENCH_PAPER], cells[BENCH_FUSED], cells[BENCH_VECTOR],
                          cells[BENCH_ADAPTIVE], cells[BENCH_ALG1], cells[BENCH_ALG2], cells[BENCH_PETSC], BenchPCSRKernelName(r->best), BenchPCSRKernelName(r->chosen), r->ms[BENCH_ALG1] / r->ms[BenchProductOf(r->best)], r->ms[BENCH_ALG2] / r->ms[BENCH_PAPER], cells[BENCH_T_ATOMIC],
                          cells[BENCH_T_COPY], cells[BENCH_T_CUSPARSE]));
    log_best += log(r->ms[BENCH_ALG1] / r->ms[BenchProductOf(r->best)]);
    log_chosen += log(r->ms[BENCH_ALG1] / r->ms[BenchProductOf(r->chosen)]);
  }
  if (n) PetscCall(PetscPrintf(PETSC_COMM_SELF, "Geometric mean over %d matrices of cuSPARSE ALG1 time / fastest PCSR time: %.3f (PCSR_KERNEL_AUTO's choice: %.3f)\n", (int)n, exp(log_best / n), exp(log_chosen / n)));
  PetscFunctionReturn(0);
}

/* "name:size" or "name" into name and size (0: the default) */
static PetscErrorCode BenchParseMatrix(const char *spec, char *name, size_t len, PetscInt *size)
{
  const char *colon = strchr(spec, ':');

  PetscFunctionBegin;
  *size = 0;
  PetscCall(PetscStrncpy(name, spec, len));
  if (!colon) PetscFunctionReturn(0);
  PetscCheck((size_t)(colon - spec) < len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-matrices: name too long in '%s'", spec);
  name[colon - spec] = 0;
  PetscCall(PetscOptionsStringToInt(colon + 1, size));
  PetscCheck(*size > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-matrices: '%s' needs a positive size after the colon", spec);
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchMain(PetscBool *failed)
{
  char           matrix[64] = "stencil5", label[64] = "", csv_path[PETSC_MAX_PATH_LEN] = "", *specs[BENCH_MAX_MATRICES];
  PetscInt       size = 0, seed = 2016, nspecs = BENCH_MAX_MATRICES, spmm_ks[BENCH_MAX_SPMM], nspmm = BENCH_MAX_SPMM;
  PetscReal      bw_gib = 4.0;
  PetscBool      host_only = PETSC_FALSE, transpose = PETSC_TRUE, has_list, has_help, set, avail;
  const char    *why;
  Bench          b;
  BenchResult   *res;
  BenchBandwidth bw;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&b, sizeof(b)));
  b.warmup = 20;
  b.reps   = 200;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-size", &size, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", specs, &nspecs, &has_list));
  if (!has_list) nspecs = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-label", label, sizeof(label), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &b.warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &b.reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-transpose", &transpose, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-spmm_k", spmm_ks, &nspmm, &set));
  if (!set) nspmm = 0;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bw_gib", &bw_gib, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv_path, sizeof(csv_path), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_only", &host_only, NULL));
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (has_help) { /* PetscInitialize printed the options */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "The matrices (name size (default)):\n%s", MatGenHelp));
    PetscFunctionReturn(0);
  }
  PetscCheck(b.reps > 0 && b.warmup >= 0 && size >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -reps > 0, -warmup >= 0 and -size >= 0");
  PetscCheck(!has_list || !label[0] || nspecs == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-label names a single matrix: not with a list of %d in -matrices", (int)nspecs);
  for (PetscInt i = 0; i < nspmm; i++) PetscCheck(spmm_ks[i] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-spmm_k: every k must be positive, not %" PetscInt_FMT, spmm_ks[i]);

  if (!host_only) {
    PetscCall(GpuMatsCUDAInitialize(&avail, &why));
    PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "bench_pcsr needs a CUDA device (or -host_only): %s", why);
    PetscCall(BenchTimerCreate(&b.timer));
    PetscCall(BenchPrintDevice());
    if (csv_path[0]) PetscCall(BenchCSVOpen(csv_path, &b.csv));
    PetscCall(BenchMeasureBandwidth(&b.timer, bw_gib, 20, &bw));
    b.read_gbs = bw.read_gbs;
    PetscCall(BenchPrintBandwidth(&bw));
  }

  PetscCall(PetscCalloc1(PetscMax(nspecs, 1), &res));
  if (has_list) {
    for (PetscInt i = 0; i < nspecs; i++) {
      char     name[32];
      PetscInt msize;

      PetscCall(BenchParseMatrix(specs[i], name, sizeof(name), &msize));
      PetscCall(BenchMatrix(&b, name, msize, label, (unsigned long long)seed, host_only, transpose, nspmm, spmm_ks, &res[i]));
      PetscCall(PetscFree(specs[i]));
    }
  } else PetscCall(BenchMatrix(&b, matrix, size, label, (unsigned long long)seed, host_only, transpose, nspmm, spmm_ks, &res[0]));
  PetscCall(BenchPrintSummary(res, has_list ? nspecs : 1, host_only, b.reps));
  PetscCall(PetscFree(res));

  if (!host_only) {
    PetscCall(BenchTimerDestroy(&b.timer));
    if (b.csv) PetscCall(PetscFClose(PETSC_COMM_SELF, b.csv));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", b.failed ? "FAILED: some product's error exceeds 1e-12 (or a generated matrix has zeros)" : host_only ? "Matrices and host references checked (no device run: -host_only)" : "All products within 1e-12 of the host CSR reference"));
  *failed = b.failed;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return BenchMainOneRank(argc, argv, help, "bench_pcsr", BenchMain);
}
