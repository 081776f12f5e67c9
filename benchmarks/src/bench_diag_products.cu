static const char help[] = "C = A B like for like: the seqdiag MatProduct, PETSc's aijcusparse MatProduct and cusparseSpGEMM,\n\
on the rows of the DIAG paper's Tables 1-2 (each at its own n, random diagonals over [-n/4, n/4]) and banded\n\
products at n = 10,240 (bands 5-401) and n = 10^6 (benchmarks/src/diag_tables.c), with the paper's CUDA time beside.\n\
  -rows <all>          rows to run (names in benchmarks/src/diag_tables.c)\n\
  -scheme <auto>       diag scheme of A and B: auto, hm, cdm\n\
  -warmup <2> -reps <20> -first_reps <5>   untimed runs, timed numeric phases and timed first products (medians)\n\
  -csr_max_nnz <5e7>   skip aijcusparse and cusparseSpGEMM where A has more nonzeros (cuSPARSE runs out of resources)\n\
  -check_max_n <20000> check the diag kernel against the host twin up to this n\n\
  -csv <path>          one line a row\n\
Columns, each a median in ms of CUDA-event times after warm-up:\n\
  first:   diag and aijcusparse MatProductCreate .. MatProductNumeric (MAT_INITIAL_MATRIX, symbolic + numeric,\n\
           C allocated on the device); cusparseSpGEMM work estimation + compute + C's arrays + copy;\n\
  numeric: MatProductNumeric again (MAT_REUSE_MATRIX); cusparseSpGEMMreuse_compute;\n\
  kernel:  the diag numeric kernel alone (DiagDeviceProductNumeric's choice; also the pairs, the staged,\n\
           the blocks, the sweep, the banded and the shuffle kernels each where they apply, each checked), a 0.2 ms\n\
           spin before it hides the launch.\n\
flops = 2 x the multiply-adds of the diagonal pairs, bytes = A's, B's and C's stored values once; roofline\n\
time = max(bytes / read bandwidth measured, flops / 67 Tflop/s), and each time's fraction of it.\n";

#include "bench_common.h"
#include <string.h>
#include <gpumats.h>
#include <gpumats_diag_format.h>
#include "diag_tables.h"

#if defined(PETSC_USE_64BIT_INDICES)
  #error "bench_diag_products hands PetscInt CSR arrays to cuSPARSE as 32-bit indices"
#endif

#define H200_FP64_FLOPS 67e12 /* FP64 tensor-core peak; the FMA pipes give 34 Tflop/s */

/* The host CSR of a row's A or B and the matrices made from it */
typedef struct {
  PetscInt    *ai, *aj;
  PetscScalar *aa;
  PetscInt     nnz;
} RowCSR;

/* ---- timing by CUDA events, no spin: what the host does between the events counts ---- */
static PetscErrorCode TimeWall(BenchTimer *timer, BenchRunFunction run, void *ctx, PetscInt warmup, PetscInt reps, double *median)
{
  BenchTimer t = *timer;
  double     min;

  PetscFunctionBegin;
  t.spin_ns = 0;
  PetscCall(BenchTime(&t, run, ctx, warmup, reps, median, &min));
  PetscFunctionReturn(0);
}

/* first products: 'reset' (untimed: the previous C freed, the device idle) before each timed 'run' */
static PetscErrorCode TimeFirst(BenchTimer *timer, BenchRunFunction reset, BenchRunFunction run, void *ctx, PetscInt warmup, PetscInt reps, double *median)
{
  PetscReal *ms;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(reps, &ms));
  for (PetscInt r = -warmup; r < reps; r++) {
    float elapsed;

    PetscCall(reset(ctx));
    BenchCallCUDA(cudaDeviceSynchronize());
    BenchCallCUDA(cudaEventRecord(timer->start, timer->stream));
    PetscCall(run(ctx));
    BenchCallCUDA(cudaEventRecord(timer->stop, timer->stream));
    BenchCallCUDA(cudaEventSynchronize(timer->stop));
    BenchCallCUDA(cudaEventElapsedTime(&elapsed, timer->start, timer->stop));
    if (r >= 0) ms[r] = elapsed;
  }
  PetscCall(PetscSortReal(reps, ms));
  *median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
  PetscCall(PetscFree(ms));
  PetscFunctionReturn(0);
}

/* ---- MatProduct (diag or aijcusparse) ---- */
typedef struct {
  Mat A, B, C;
} ProductRun;

static PetscErrorCode ResetFirst(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&((ProductRun *)ctx)->C));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunFirst(void *ctx)
{
  ProductRun *r = (ProductRun *)ctx;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&r->C));
  PetscCall(MatProductCreate(r->A, r->B, NULL, &r->C));
  PetscCall(MatProductSetType(r->C, MATPRODUCT_AB));
  PetscCall(MatProductSetFromOptions(r->C));
  PetscCall(MatProductSymbolic(r->C));
  PetscCall(MatProductNumeric(r->C));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunNumeric(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatProductNumeric(((ProductRun *)ctx)->C));
  PetscFunctionReturn(0);
}

/* ---- the diag kernel alone ---- */
typedef struct {
  DiagDeviceProduct prod;
  DiagDevice        A, B, C;
  int               which; /* 0: DiagDeviceProductNumeric's choice, 1: pairs, 2: staged, 3: blocks, 4: sweep, 5: banded, 6: shuffle */
  int               T;     /* the banded kernel's rows a tile */
} KernelRun;

static PetscErrorCode RunKernel(void *ctx)
{
  KernelRun *r = (KernelRun *)ctx;

  PetscFunctionBegin;
  if (r->which == 1) PetscCall(DiagDeviceProductNumericPairs(r->prod, r->A, r->B, r->C));
  else if (r->which == 2) PetscCall(DiagDeviceProductNumericStaged(r->prod, r->A, r->B, r->C));
  else if (r->which == 3) PetscCall(DiagDeviceProductNumericBlocks(r->prod, r->A, r->B, r->C));
  else if (r->which == 4) PetscCall(DiagDeviceProductNumericSweep(r->prod, r->A, r->B, r->C));
  else if (r->which == 5) PetscCall(DiagDeviceProductNumericBanded(r->prod, r->T, r->A, r->B, r->C));
  else if (r->which == 6) PetscCall(DiagDeviceProductNumericShuffle(r->prod, r->A, r->B, r->C));
  else PetscCall(DiagDeviceProductNumeric(r->prod, r->A, r->B, r->C));
  PetscFunctionReturn(0);
}

/* ---- cusparseSpGEMM: the whole product, and the reuse API's numeric phase ---- */
typedef struct {
  cusparseHandle_t      handle;
  cusparseSpMatDescr_t  A, B, C;
  int                  *c_ptr, *c_col;
  double               *c_val;
  int64_t               c_nnz;
  void                 *buf[6];
  cusparseSpGEMMDescr_t reuse; /* the reuse API's descriptor, kept for cusparseSpGEMMreuse_compute */
} SpGEMMRun;

#define OPN CUSPARSE_OPERATION_NON_TRANSPOSE

static PetscErrorCode SpGEMMFreeC(SpGEMMRun *r)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDAFree(r->c_col));
  PetscCall(BenchCUDAFree(r->c_val));
  r->c_col = NULL, r->c_val = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode ResetSpGEMMFirst(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(SpGEMMFreeC((SpGEMMRun *)ctx));
  PetscFunctionReturn(0);
}

/* work estimation + compute + C's arrays + copy, every buffer and C allocated afresh (as a first product does) */
static PetscErrorCode RunSpGEMMFirst(void *ctx)
{
  SpGEMMRun            *r   = (SpGEMMRun *)ctx;
  const double          one = 1.0, zero = 0.0;
  cusparseSpGEMMDescr_t d;
  size_t                s1 = 0, s2 = 0;
  void                 *b1 = NULL, *b2 = NULL;
  int64_t               rows, cols;

  PetscFunctionBegin;
  PetscCall(SpGEMMFreeC(r));
  BenchCallCUSPARSE(cusparseSpGEMM_createDescr(&d));
  BenchCallCUSPARSE(cusparseSpGEMM_workEstimation(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, NULL));
  PetscCall(BenchCUDAMalloc(&b1, PetscMax(s1, 1), "cusparseSpGEMM buffer 1"));
  BenchCallCUSPARSE(cusparseSpGEMM_workEstimation(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, b1));
  BenchCallCUSPARSE(cusparseSpGEMM_compute(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, NULL));
  PetscCall(BenchCUDAMalloc(&b2, PetscMax(s2, 1), "cusparseSpGEMM buffer 2"));
  BenchCallCUSPARSE(cusparseSpGEMM_compute(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, b2));
  BenchCallCUSPARSE(cusparseSpMatGetSize(r->C, &rows, &cols, &r->c_nnz));
  PetscCall(BenchCUDAMalloc((void **)&r->c_col, sizeof(int) * (size_t)PetscMax(r->c_nnz, 1), "SpGEMM C columns"));
  PetscCall(BenchCUDAMalloc((void **)&r->c_val, sizeof(double) * (size_t)PetscMax(r->c_nnz, 1), "SpGEMM C values"));
  BenchCallCUSPARSE(cusparseCsrSetPointers(r->C, r->c_ptr, r->c_col, r->c_val));
  BenchCallCUSPARSE(cusparseSpGEMM_copy(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d));
  BenchCallCUSPARSE(cusparseSpGEMM_destroyDescr(d));
  PetscCall(BenchCUDAFree(b1));
  PetscCall(BenchCUDAFree(b2));
  PetscFunctionReturn(0);
}

/* the reuse API's symbolic phases (once): work estimation, nnz, copy of the structure */
static PetscErrorCode SpGEMMReuseSetUp(SpGEMMRun *r)
{
  size_t  s[6] = {0, 0, 0, 0, 0, 0};
  int64_t rows, cols;

  PetscFunctionBegin;
  PetscCall(SpGEMMFreeC(r));
  BenchCallCUSPARSE(cusparseSpGEMM_createDescr(&r->reuse));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_workEstimation(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[1], NULL));
  PetscCall(BenchCUDAMalloc(&r->buf[1], PetscMax(s[1], 1), "cusparseSpGEMMreuse buffer 1"));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_workEstimation(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[1], r->buf[1]));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_nnz(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[2], NULL, &s[3], NULL, &s[4], NULL));
  PetscCall(BenchCUDAMalloc(&r->buf[2], PetscMax(s[2], 1), "cusparseSpGEMMreuse buffer 2"));
  PetscCall(BenchCUDAMalloc(&r->buf[3], PetscMax(s[3], 1), "cusparseSpGEMMreuse buffer 3"));
  PetscCall(BenchCUDAMalloc(&r->buf[4], PetscMax(s[4], 1), "cusparseSpGEMMreuse buffer 4"));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_nnz(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[2], r->buf[2], &s[3], r->buf[3], &s[4], r->buf[4]));
  BenchCallCUSPARSE(cusparseSpMatGetSize(r->C, &rows, &cols, &r->c_nnz));
  PetscCall(BenchCUDAMalloc((void **)&r->c_col, sizeof(int) * (size_t)PetscMax(r->c_nnz, 1), "SpGEMM C columns"));
  PetscCall(BenchCUDAMalloc((void **)&r->c_val, sizeof(double) * (size_t)PetscMax(r->c_nnz, 1), "SpGEMM C values"));
  BenchCallCUSPARSE(cusparseCsrSetPointers(r->C, r->c_ptr, r->c_col, r->c_val));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_copy(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[5], NULL));
  PetscCall(BenchCUDAMalloc(&r->buf[5], PetscMax(s[5], 1), "cusparseSpGEMMreuse buffer 5"));
  BenchCallCUSPARSE(cusparseSpGEMMreuse_copy(r->handle, OPN, OPN, r->A, r->B, r->C, CUSPARSE_SPGEMM_DEFAULT, r->reuse, &s[5], r->buf[5]));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunSpGEMMNumeric(void *ctx)
{
  SpGEMMRun   *r   = (SpGEMMRun *)ctx;
  const double one = 1.0, zero = 0.0;

  PetscFunctionBegin;
  BenchCallCUSPARSE(cusparseSpGEMMreuse_compute(r->handle, OPN, OPN, &one, r->A, r->B, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, r->reuse));
  PetscFunctionReturn(0);
}

static PetscErrorCode UploadCSR(PetscInt n, const RowCSR *h, int **dp, int **dj, double **dv, cusparseSpMatDescr_t *mat)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDAMalloc((void **)dp, sizeof(int) * (n + 1), "CSR rows"));
  PetscCall(BenchCUDAMalloc((void **)dj, sizeof(int) * PetscMax(h->nnz, 1), "CSR columns"));
  PetscCall(BenchCUDAMalloc((void **)dv, sizeof(double) * PetscMax(h->nnz, 1), "CSR values"));
  PetscCall(BenchCUDACopyToDevice(*dp, h->ai, sizeof(int) * (n + 1)));
  PetscCall(BenchCUDACopyToDevice(*dj, h->aj, sizeof(int) * h->nnz));
  PetscCall(BenchCUDACopyToDevice(*dv, h->aa, sizeof(double) * h->nnz));
  BenchCallCUSPARSE(cusparseCreateCsr(mat, n, n, h->nnz, *dp, *dj, *dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  PetscFunctionReturn(0);
}

/* cusparseSpGEMM first and numeric; -1 where cuSPARSE fails (typically out of resources) */
static PetscErrorCode BenchSpGEMM(BenchTimer *timer, PetscInt n, const RowCSR *a, const RowCSR *b, PetscInt warmup, PetscInt first_reps, PetscInt reps, double *first, double *numeric, long long *nnzc)
{
  SpGEMMRun      r;
  int           *ap, *aj, *bp, *bj;
  double        *av, *bv;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *first = *numeric = -1, *nnzc = 0;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  BenchCallCUSPARSE(cusparseCreate(&r.handle));
  BenchCallCUSPARSE(cusparseSetStream(r.handle, timer->stream));
  PetscCall(UploadCSR(n, a, &ap, &aj, &av, &r.A));
  PetscCall(UploadCSR(n, b, &bp, &bj, &bv, &r.B));
  PetscCall(BenchCUDAMalloc((void **)&r.c_ptr, sizeof(int) * (n + 1), "SpGEMM C rows"));
  BenchCallCUSPARSE(cusparseCreateCsr(&r.C, n, n, 0, r.c_ptr, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TimeFirst(timer, ResetSpGEMMFirst, RunSpGEMMFirst, &r, warmup, first_reps, first);
  if (!ierr) {
    *nnzc = (long long)r.c_nnz;
    BenchCallCUSPARSE(cusparseDestroySpMat(r.C));
    BenchCallCUSPARSE(cusparseCreateCsr(&r.C, n, n, 0, r.c_ptr, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    ierr = SpGEMMReuseSetUp(&r);
  }
  if (!ierr) {
    double min;

    ierr = BenchTime(timer, RunSpGEMMNumeric, &r, warmup, reps, numeric, &min);
  }
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  cusparseSpGEMM: FAILED (error %d, see above: typically insufficient resources)\n", (int)ierr));
    (void)cudaGetLastError();
    if (*first >= 0 && *numeric < 0) *numeric = -1;
  }
  if (r.reuse) BenchCallCUSPARSE(cusparseSpGEMM_destroyDescr(r.reuse));
  for (int i = 0; i < 6; i++) PetscCall(BenchCUDAFree(r.buf[i]));
  BenchCallCUSPARSE(cusparseDestroySpMat(r.A));
  BenchCallCUSPARSE(cusparseDestroySpMat(r.B));
  BenchCallCUSPARSE(cusparseDestroySpMat(r.C));
  BenchCallCUSPARSE(cusparseDestroy(r.handle));
  PetscCall(SpGEMMFreeC(&r));
  PetscCall(BenchCUDAFree(r.c_ptr));
  PetscCall(BenchCUDAFree(ap));
  PetscCall(BenchCUDAFree(aj));
  PetscCall(BenchCUDAFree(av));
  PetscCall(BenchCUDAFree(bp));
  PetscCall(BenchCUDAFree(bj));
  PetscCall(BenchCUDAFree(bv));
  PetscFunctionReturn(0);
}

/* the diag kernel alone on its own device copies, each kernel's C checked against the host twin up to
   check_max_n (err: the largest relative difference of the kernels) */
static PetscErrorCode BenchKernel(BenchTimer *timer, PetscInt n, DiagScheme sa, DiagScheme sb, const RowCSR *a, const RowCSR *b, PetscInt warmup, PetscInt reps, PetscInt check_max_n, double kernel[7], DiagFormat *C, DiagProductPlan *plan, PetscInt64 *bytes, double *err)
{
  DiagFormat fa, fb;
  KernelRun  r;
  double     min, *host = NULL, *dev = NULL;
  PetscInt64 nv;

  PetscFunctionBegin;
  PetscCheck(DiagFromCSR(sa, n, n, a->ai, a->aj, a->aa, 0, NULL, &fa) == DIAG_OK && DiagFromCSR(sb, n, n, b->ai, b->aj, b->aa, 0, NULL, &fb) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "the diag formats of A and B");
  PetscCheck(DiagProductPlanCreate(&fa, &fb, plan, C) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "the product's plan");
  *bytes = DiagProductPlanBytes(&fa, &fb, C);
  nv     = C->start[C->ndiag];
  PetscCall(DiagDeviceCreate(&fa, &r.A));
  PetscCall(DiagDeviceCreate(&fb, &r.B));
  PetscCall(DiagDeviceCreate(C, &r.C));
  PetscCall(DiagDeviceProductCreate(plan, &fa, &fb, C, &r.prod));
  PetscCall(DiagDeviceProductBlocksCreate(r.prod, plan, C)); /* where the default does not take it */
  if (n <= check_max_n) { /* the host twin's C */
    PetscCall(PetscCalloc1(nv + 1, &C->val));
    DiagProductPlanNumericHost(plan, &fa, &fb, C);
    host = C->val, C->val = NULL;
    PetscCall(PetscMalloc1(nv + 1, &dev));
  }
  *err = -1;
  for (r.which = 6; r.which >= 0; r.which--) { /* shuffle, banded, sweep, blocks (the rows' C are square: it always applies), staged, pairs, then the default */
    kernel[r.which] = -1;
    if (r.which == 2) { /* only where A fits the staged kernel */
      int T;

      PetscCall(DiagDeviceProductStagedRows(r.prod, &T));
      if (!T) continue;
    }
    if (r.which == 6) { /* only where A fits the shuffle kernel */
      int R;

      PetscCall(DiagDeviceProductShuffleRows(r.prod, &R));
      if (!R) continue;
    }
    if (r.which == 4) { /* only for bands that fit the sweep kernel */
      PetscBool applies;

      PetscCall(DiagDeviceProductSweepApplies(r.prod, &applies));
      if (!applies) continue;
    }
    if (r.which == 5) { /* only for banded CDM operands whose tiles fit */
      PetscCall(DiagDeviceProductBandedRows(r.prod, &r.T));
      if (!r.T) continue;
    }
    if (host) { /* NaNs first: every value must be written */
      for (PetscInt64 q = 0; q < nv; q++) dev[q] = NAN;
      C->val = dev;
      PetscCall(DiagDeviceCopyValues(r.C, C));
      C->val = NULL;
    }
    PetscCall(BenchTime(timer, RunKernel, &r, warmup, reps, &kernel[r.which], &min));
    if (host) {
      double e = 0, nrm = 0;

      C->val = dev;
      PetscCall(DiagDeviceGetValues(r.C, C));
      C->val = NULL;
      for (PetscInt64 q = 0; q < nv; q++) e += (dev[q] - host[q]) * (dev[q] - host[q]), nrm += host[q] * host[q];
      e = nrm > 0 ? sqrt(e / nrm) : sqrt(e);
      if (e != e) e = 1; /* a NaN: a value not written */
      *err = PetscMax(*err, e);
    }
  }
  PetscCall(PetscFree(dev));
  PetscCall(PetscFree(host));
  PetscCall(DiagDeviceProductDestroy(&r.prod));
  PetscCall(DiagDeviceDestroy(&r.A));
  PetscCall(DiagDeviceDestroy(&r.B));
  PetscCall(DiagDeviceDestroy(&r.C));
  DiagFormatFree(&fa), DiagFormatFree(&fb);
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchRow(BenchTimer *timer, const BenchBandwidth *bw, const DiagTableRow *row, const char *scheme, PetscInt warmup, PetscInt first_reps, PetscInt reps, PetscInt64 csr_max_nnz, PetscInt check_max_n, FILE *csv, PetscInt64 *csr_failed_flops, PetscBool *failed)
{
  PetscInt        *off, noff;
  RowCSR           a, b;
  Mat              Aa, Ba, Ad, Bd;
  ProductRun       pr;
  MatDiagScheme    sa, sb;
  DiagFormat       C;
  DiagProductPlan  plan;
  PetscInt64       bytes;
  double           d_first = -1, d_num = -1, kernel[7] = {-1, -1, -1, -1, -1, -1, -1}, p_first = -1, p_num = -1, s_first = -1, s_num = -1, err = -1, roof_ms;
  long long        nnzc_csr = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(row->dga, row->dgb) + 1, &off));
  PetscCall(DiagTableOffsets(row, 0, &noff, off));
  PetscCall(DiagTableCSR(row->n, noff, off, 11, &a.ai, &a.aj, &a.aa));
  PetscCall(DiagTableOffsets(row, 1, &noff, off));
  PetscCall(DiagTableCSR(row->n, noff, off, 13, &b.ai, &b.aj, &b.aa));
  a.nnz = a.ai[row->n], b.nnz = b.ai[row->n];
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, row->n, row->n, a.ai, a.aj, a.aa, &Aa));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, row->n, row->n, b.ai, b.aj, b.aa, &Ba));
  /* the seqdiag type on the device: first product and numeric phase */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", scheme));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "0"));
  PetscCall(MatConvert(Aa, MATSEQDIAG, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(MatConvert(Ba, MATSEQDIAG, MAT_INITIAL_MATRIX, &Bd));
  PetscCall(MatGpuMatsSetBackend(Ad, GPUMATS_BACKEND_CUDA));
  PetscCall(MatGpuMatsSetBackend(Bd, GPUMATS_BACKEND_CUDA));
  PetscCall(MatDiagGetScheme(Ad, &sa));
  PetscCall(MatDiagGetScheme(Bd, &sb));
  pr.A = Ad, pr.B = Bd, pr.C = NULL;
  PetscCall(RunFirst(&pr)); /* A and B go to the device here, not in the timed first products */
  PetscCall(TimeFirst(timer, ResetFirst, RunFirst, &pr, warmup, first_reps, &d_first));
  PetscCall(TimeWall(timer, RunNumeric, &pr, warmup, reps, &d_num));
  PetscCall(MatDestroy(&pr.C));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&Bd));
  /* the kernel alone, the counts, the check */
  PetscCall(BenchKernel(timer, row->n, sa == MAT_DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM, sb == MAT_DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM, &a, &b, warmup, reps, check_max_n, kernel, &C, &plan, &bytes, &err));
  if (err > 1e-12) *failed = PETSC_TRUE;
  if (plan.flops >= *csr_failed_flops) csr_max_nnz = 0; /* aijcusparse failed on a product of this size */
#if defined(PETSC_HAVE_CUDA)
  if (a.nnz <= csr_max_nnz) { /* aijcusparse through MatProduct */
    Mat            Ag, Bg;
    PetscErrorCode ierr;

    PetscCall(MatConvert(Aa, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ag));
    PetscCall(MatConvert(Ba, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Bg));
    pr.A = Ag, pr.B = Bg, pr.C = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = RunFirst(&pr);
    if (!ierr) ierr = TimeFirst(timer, ResetFirst, RunFirst, &pr, warmup, first_reps, &p_first);
    if (!ierr) ierr = TimeWall(timer, RunNumeric, &pr, warmup, reps, &p_num);
    PetscCall(PetscPopErrorHandler());
    if (ierr) { /* C is left as it is (its destruction after a failed symbolic phase throws in
                   thrust); the larger rows skip the CSR products */
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  aijcusparse MatProduct: FAILED (error %d); the CSR products of rows of as many flops or more are skipped\n", (int)ierr));
      (void)cudaGetLastError();
      p_first = p_num = -1;
      *csr_failed_flops = plan.flops;
      pr.C = NULL;
    }
    PetscCall(MatDestroy(&pr.C));
    PetscCall(MatDestroy(&Ag));
    PetscCall(MatDestroy(&Bg));
  }
#endif
  if (a.nnz <= csr_max_nnz) PetscCall(BenchSpGEMM(timer, row->n, &a, &b, warmup, first_reps, reps, &s_first, &s_num, &nnzc_csr));
  roof_ms = PetscMax((double)bytes / (bw->read_gbs * 1e9), (double)plan.flops / H200_FP64_FLOPS) * 1e3;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-15s n %7" PetscInt_FMT " dg %3" PetscInt_FMT "x%-3" PetscInt_FMT " %s C %5" PetscInt_FMT " diags %9.3f Gflop %8.1f MB roof %8.4f | diag first %8.3f num %8.3f kernel %8.3f (%4.0f%% roof; pairs %8.3f staged %8.3f blocks %8.3f sweep %8.3f banded %8.3f shuffle %8.3f) | aijcusparse first %8.3f num %8.3f | SpGEMM first %8.3f num %8.3f | paper %7.2f | err %.1e\n", row->name, row->n, row->dga, row->dgb,
                        sa == sb ? (sa == MAT_DIAG_SCHEME_CDM ? "CDM   " : "HM    ") : (sa == MAT_DIAG_SCHEME_CDM ? "CDMxHM" : "HMxCDM"), C.ndiag, (double)plan.flops * 1e-9, (double)bytes / 1e6, roof_ms, d_first, d_num, kernel[0], 100 * roof_ms / kernel[0], kernel[1], kernel[2], kernel[3], kernel[4], kernel[5], kernel[6], p_first, p_num, s_first, s_num, row->cuda_ms, err));
  if (csv) {
    fprintf(csv, "%s,%lld,%lld,%lld,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,", row->name, (long long)row->n, (long long)row->dga, (long long)row->dgb, sa == MAT_DIAG_SCHEME_CDM ? "cdm" : "hm", sb == MAT_DIAG_SCHEME_CDM ? "cdm" : "hm", (long long)a.nnz, (long long)b.nnz, (long long)C.ndiag, (long long)C.start[C.ndiag], nnzc_csr, (long long)plan.npairs, (long long)plan.flops, (long long)bytes);
    fprintf(csv, "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,", roof_ms, d_first, d_num, kernel[0], kernel[1], kernel[2], kernel[3], roof_ms / kernel[0], roof_ms / d_num);
    fprintf(csv, "%.6f,%.6f,%.6f,%.6f,%.2f,%.3f,%.3f,%.2e,%.6f,%.6f,%.6f\n", p_first, p_num, s_first, s_num, row->cuda_ms, row->cuda_ms > 0 ? row->cuda_ms / d_num : 0, row->cuda_ms > 0 ? row->cuda_ms / d_first : 0, err, kernel[4], kernel[5], kernel[6]);
  }
  DiagProductPlanFree(&plan);
  DiagFormatFree(&C);
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Ba));
  PetscCall(PetscFree(a.ai));
  PetscCall(PetscFree(a.aj));
  PetscCall(PetscFree(a.aa));
  PetscCall(PetscFree(b.ai));
  PetscCall(PetscFree(b.aj));
  PetscCall(PetscFree(b.aa));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char                rows[2048] = "", scheme[16] = "auto", csvpath[PETSC_MAX_PATH_LEN] = "";
  PetscInt            warmup = 2, reps = 20, first_reps = 5, check_max_n = 20000, nall;
  PetscReal           csr_max_nnz = 5e7;
  PetscBool           failed = PETSC_FALSE, avail;
  PetscInt64          csr_failed_flops = ((PetscInt64)1) << 62; /* the flops of the smallest product aijcusparse failed on */
  const char         *why;
  const DiagTableRow *all;
  BenchTimer          timer;
  BenchBandwidth      bw;
  FILE               *csv = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_diag_products options", NULL);
  PetscCall(PetscOptionsString("-rows", "rows of the tables (default all)", NULL, rows, rows, sizeof(rows), NULL));
  PetscCall(PetscOptionsString("-scheme", "auto, hm or cdm", NULL, scheme, scheme, sizeof(scheme), NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed runs", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed numeric phases", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-first_reps", "timed first products", NULL, first_reps, &first_reps, NULL));
  PetscCall(PetscOptionsReal("-csr_max_nnz", "largest A for the CSR products", NULL, csr_max_nnz, &csr_max_nnz, NULL));
  PetscCall(PetscOptionsInt("-check_max_n", "largest n checked against the host", NULL, check_max_n, &check_max_n, NULL));
  PetscCall(PetscOptionsString("-csv", "CSV file", NULL, csvpath, csvpath, sizeof(csvpath), NULL));
  PetscOptionsEnd();
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_diag_products needs a CUDA device: %s", why);
  PetscCall(BenchPrintDevice());
  PetscCall(BenchTimerCreate(&timer));
  PetscCall(BenchMeasureBandwidth(&timer, 4, 20, &bw));
  PetscCall(BenchPrintBandwidth(&bw));
  if (csvpath[0]) {
    csv = fopen(csvpath, "w");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csvpath);
    setvbuf(csv, NULL, _IOLBF, 0); /* line by line: a library that aborts later loses nothing measured */
    fprintf(csv, "row,n,dga,dgb,scheme_a,scheme_b,nza,nzb,dgc,diag_values_c,csr_nnz_c,pairs,flops,bytes,roofline_ms,diag_first_ms,diag_numeric_ms,diag_kernel_ms,diag_pairs_kernel_ms,diag_staged_kernel_ms,diag_blocks_kernel_ms,kernel_frac_roofline,numeric_frac_roofline,aijcusparse_first_ms,aijcusparse_numeric_ms,spgemm_first_ms,spgemm_reuse_numeric_ms,paper_cuda_ms,paper_over_diag_numeric,paper_over_diag_first,rel_err,diag_sweep_kernel_ms,diag_banded_kernel_ms,diag_shuffle_kernel_ms\n");
  }
  all = DiagTableRows(&nall);
  if (!rows[0])
    for (PetscInt r = 0; r < nall; r++) {
      PetscCall(PetscStrlcat(rows, r ? "," : "", sizeof(rows)));
      PetscCall(PetscStrlcat(rows, all[r].name, sizeof(rows)));
    }
  for (char *name = strtok(rows, ","); name; name = strtok(NULL, ",")) {
    const DiagTableRow *row = NULL;

    for (PetscInt r = 0; r < nall; r++)
      if (!strcmp(all[r].name, name)) row = &all[r];
    PetscCheck(row, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-rows: no row %s (see benchmarks/src/diag_tables.c)", name);
    PetscCall(BenchRow(&timer, &bw, row, scheme, warmup, first_reps, reps, (PetscInt64)csr_max_nnz, check_max_n, csv, &csr_failed_flops, &failed));
  }
  if (csv) fclose(csv);
  PetscCall(BenchTimerDestroy(&timer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", failed ? "FAILED: a diag product differs from the host twin by more than 1e-12" : "All checked diag products within 1e-12 of the host twin"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
