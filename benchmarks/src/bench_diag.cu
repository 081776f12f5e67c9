static const char help[] = "Times the DIAG SpMV (HM and CDM, y = A x and y = A^T x) against cuSPARSE CSR ALG1/ALG2 and\n\
PETSc's aijcusparse, and MatMult of the diag type itself, on the stencil matrices of benchmarks/src/matgen.h.\n\
  -matrices <stencil5:1000,...>  name:size list (benchmarks/src/matgen.h)\n\
  -warmup <20> -reps <200>       untimed and timed SpMVs (median and min reported)\n\
  -bw_gib <4>                    size of the bandwidth-test array\n\
  -products <band:10000:5,...>   also C = A A: band:n:w (w diagonals around the main one) or\n\
                                 sparse:n:d (d random diagonals), DIAG (HM and CDM; HM also by the\n\
                                 paper's Algorithm 2, atomic, CDM by its Algorithm 1, tiled) against\n\
                                 cusparseSpGEMM (default algorithm, descriptor and work estimate included)\n\
                                 and PETSc's aijcusparse MatMatMult (numeric phase, structure reused)\n\
  -csv <path>                    append one line per (matrix, kernel)\n";

/* GB/s count the minimal CSR traffic (nnz*12 + (n+1)*4 + 16 n bytes) for every kernel,
   so that GB/s is proportional to speed; the DIAG formats move fewer bytes than that
   (no column indices), which is the point of them. */
#include "bench_common.h"
#include <string.h>
#include <gpumats.h>
#include <gpumats_diag_format.h>
#include "matgen.h"

typedef struct {
  DiagDevice     dev;
  PetscBool      transpose;
  BenchCUSPARSE *cs;
  const double  *x;
  double        *y;
  int            which; /* 0 ALG1, 1 ALG2 */
#if defined(PETSC_HAVE_CUDA)
  BenchPETSc *petsc;
#endif
} DiagBench;

static PetscErrorCode RunDiag(void *ctx)
{
  DiagBench *b = (DiagBench *)ctx;

  PetscFunctionBegin;
  PetscCall(DiagDeviceMult(b->dev, b->transpose, b->x, NULL, b->y));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCUSPARSE(void *ctx)
{
  DiagBench *b = (DiagBench *)ctx;

  PetscFunctionBegin;
  if (b->which == 2) PetscCall(BenchCUSPARSEMultTranspose(b->cs));
  else PetscCall(BenchCUSPARSEMult(b->cs, b->which ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1));
  PetscFunctionReturn(0);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode RunPETSc(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(BenchPETScMult(((DiagBench *)ctx)->petsc));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode BenchMatrix(BenchTimer *timer, const BenchBandwidth *bw, const char *spec, PetscInt warmup, PetscInt reps, FILE *csv, PetscBool *failed)
{
  char          name[64], *colon;
  PetscInt      size = 0;
  MatGenInfo    info;
  BenchCSR      A;
  BenchCUSPARSE cs;
  DiagBench     b;
  double       *hx, *ref, *absref, *hy, *dx, *dy, bytes, ms, msmin, err;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(name, spec, sizeof(name)));
  colon = strchr(name, ':');
  if (colon) {
    *colon = 0;
    size   = atol(colon + 1);
  }
  PetscCall(MatGenCreate(name, size, 2024, &info, &A.nrows, &A.ncols, &A.rowptr, &A.colidx, &A.vals));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n== %s: %s\n%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros\n", spec, info.description, A.nrows, A.rowptr[A.nrows]));
  bytes = BenchCSRTrafficBytes(&A, 1);
  PetscCall(PetscMalloc4(A.ncols, &hx, A.nrows, &ref, A.nrows, &absref, A.nrows, &hy));
  BenchFillX(A.ncols, hx);
  BenchCSRMult(&A, hx, NULL, ref, absref);
  PetscCall(BenchCUDAMalloc((void **)&dx, sizeof(double) * A.ncols, "x"));
  PetscCall(BenchCUDAMalloc((void **)&dy, sizeof(double) * A.nrows, "y"));
  PetscCall(BenchCUDACopyToDevice(dx, hx, sizeof(double) * A.ncols));
  memset(&b, 0, sizeof(b));
  b.x = dx;
  b.y = dy;
  PetscCall(BenchPrintHeader("SpMV y = A x", "diags"));
  for (int scheme = 0; scheme < 2; scheme++) {
    DiagFormat f;
    PetscInt64 stored;
    char       kernel[32], diags[32];

    PetscCheck(DiagFromCSR((DiagScheme)scheme, A.nrows, A.ncols, A.rowptr, A.colidx, A.vals, 0, &stored, &f) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "DiagFromCSR failed on %s", spec);
    PetscCall(DiagDeviceCreate(&f, &b.dev));
    PetscCall(BenchRunError(RunDiag, &b, dy, A.nrows, ref, absref, hy, &err));
    if (!(err <= BENCH_TOLERANCE)) *failed = PETSC_TRUE;
    PetscCall(BenchTime(timer, RunDiag, &b, warmup, reps, &ms, &msmin));
    PetscCall(PetscSNPrintf(kernel, sizeof(kernel), "diag_%s", scheme ? "cdm" : "hm"));
    PetscCall(PetscSNPrintf(diags, sizeof(diags), "%" PetscInt_FMT, f.ndiag));
    PetscCall(BenchPrintRow(kernel, diags, ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,%" PetscInt_FMT ",%lld,%.6f,%.6f,%.2f,%.2f,%.2e\n", spec, A.nrows, A.rowptr[A.nrows], kernel, f.ndiag, (long long)stored, ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err);
    { /* y = A^T x from the same arrays (MatMultTranspose), against the host kernel */
      double    *reft, *absreft, *absx;
      DiagFormat fabs_;

      PetscCall(PetscMalloc3(A.ncols, &reft, A.ncols, &absreft, A.nrows, &absx));
      DiagMultTransposeHost(&f, hx, NULL, reft);
      /* the scale of each entry's check: sum |a_ij| |x_i|, as for y = A x */
      PetscCheck(DiagFormatCopy(&f, &fabs_) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of host memory");
      for (PetscInt64 k = 0; k < fabs_.start[fabs_.ndiag]; k++) fabs_.val[k] = PetscAbsReal(fabs_.val[k]);
      for (PetscInt i = 0; i < A.nrows; i++) absx[i] = PetscAbsReal(hx[i]);
      DiagMultTransposeHost(&fabs_, absx, NULL, absreft);
      DiagFormatFree(&fabs_);
      b.transpose = PETSC_TRUE;
      PetscCall(BenchRunError(RunDiag, &b, dy, A.ncols, reft, absreft, hy, &err));
      if (!(err <= 1e-12)) *failed = PETSC_TRUE;
      PetscCall(BenchTime(timer, RunDiag, &b, warmup, reps, &ms, &msmin));
      b.transpose = PETSC_FALSE;
      PetscCall(PetscSNPrintf(kernel, sizeof(kernel), "diag_%s_transpose", scheme ? "cdm" : "hm"));
      PetscCall(BenchPrintRow(kernel, diags, ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err));
      if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,%" PetscInt_FMT ",%lld,%.6f,%.6f,%.2f,%.2f,%.2e\n", spec, A.nrows, A.rowptr[A.nrows], kernel, f.ndiag, (long long)stored, ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err);
      PetscCall(PetscFree3(reft, absreft, absx));
    }
    PetscCall(DiagDeviceDestroy(&b.dev));
    DiagFormatFree(&f);
  }
  PetscCall(BenchCUSPARSECreate(&A, timer->stream, dx, dy, &cs));
  b.cs = &cs;
  for (b.which = 0; b.which < 2; b.which++) {
    const char *kernel = b.which ? "cusparse_csr_alg2" : "cusparse_csr_alg1";

    PetscCall(BenchRunError(RunCUSPARSE, &b, dy, A.nrows, ref, absref, hy, &err));
    PetscCall(BenchTime(timer, RunCUSPARSE, &b, warmup, reps, &ms, &msmin));
    PetscCall(BenchPrintRow(kernel, "-", ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,0,0,%.6f,%.6f,%.2f,%.2f,%.2e\n", spec, A.nrows, A.rowptr[A.nrows], kernel, ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err);
  }
  { /* cuSPARSE's transposed SpMV on the same CSR (a check of the transpose rows: the result of A^T x) */
    double *dyt;

    PetscCall(BenchCUDAMalloc((void **)&dyt, sizeof(double) * A.ncols, "y = A^T x"));
    PetscCall(BenchCUSPARSESetUpTranspose(&cs, &A, dx, dyt));
    b.which = 2;
    PetscCall(BenchTime(timer, RunCUSPARSE, &b, warmup, reps, &ms, &msmin));
    PetscCall(BenchPrintRow("cusparse_csr_transpose", "-", ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), NAN));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",cusparse_csr_transpose,0,0,%.6f,%.6f,%.2f,%.2f,nan\n", spec, A.nrows, A.rowptr[A.nrows], ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs));
    PetscCall(BenchCUSPARSEDestroy(&cs));
    PetscCall(BenchCUDAFree(dyt));
  }
#if defined(PETSC_HAVE_CUDA)
  /* MatMult as a PETSc program sees it: aijcusparse, and the diag type in both schemes (VECCUDA vectors) */
  for (int t = 0; t < 3; t++) {
    const char *names[] = {"petsc_seqaijcusparse", "petsc_seqdiag_hm", "petsc_seqdiag_cdm"};
    BenchPETSc  p;

    if (t) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", t == 1 ? "hm" : "cdm"));
    if (t) PetscCall(BenchPETScCreateType(&A, hx, MATSEQDIAG, &p));
    else PetscCall(BenchPETScCreate(&A, hx, &p));
    if (t) PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scheme"));
    b.petsc = &p;
    PetscCall(BenchPETScMultError(&p, ref, absref, hy, &err));
    if (!(err <= BENCH_TOLERANCE)) *failed = PETSC_TRUE;
    PetscCall(BenchTime(timer, RunPETSc, &b, warmup, reps, &ms, &msmin));
    PetscCall(BenchPrintRow(names[t], "-", ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,0,0,%.6f,%.6f,%.2f,%.2f,%.2e\n", spec, A.nrows, A.rowptr[A.nrows], names[t], ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err);
    PetscCall(BenchPETScDestroy(&p));
  }
#endif
  PetscCall(BenchCUDAFree(dx));
  PetscCall(BenchCUDAFree(dy));
  PetscCall(PetscFree4(hx, ref, absref, hy));
  PetscCall(BenchCSRFree(&A));
  PetscFunctionReturn(0);
}

/* ---- C = A A ------------------------------------------------------------------------ */

/* Offsets of band:n:w (w diagonals centred on the main one) or sparse:n:d (the main one
   and d-1 others drawn at random) */
static PetscErrorCode ProductOffsets(const char *kind, PetscInt n, PetscInt w, PetscInt *noff, PetscInt *off)
{
  PetscBool band;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kind, "band", &band));
  *noff = 0;
  if (band) {
    for (PetscInt d = -(w - 1) / 2; d <= w / 2; d++) off[(*noff)++] = d;
  } else {
    unsigned long long state = 2024;
    char              *used;

    PetscCall(PetscCalloc1(2 * n, &used));
    off[(*noff)++] = 0, used[n] = 1;
    while (*noff < PetscMin(w, 2 * n - 1)) {
      const PetscInt d = (PetscInt)(MatGenRandom(&state) % (unsigned long long)(2 * n - 1)) - (n - 1);

      if (!used[d + n]) used[d + n] = 1, off[(*noff)++] = d;
    }
    PetscCall(PetscFree(used));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  DiagDeviceProduct prod;
  DiagDevice        A, C;
} DiagProductRun;

static PetscErrorCode RunDiagProduct(void *ctx)
{
  DiagProductRun *r = (DiagProductRun *)ctx;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductNumeric(r->prod, r->A, r->A, r->C));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunDiagProductAtomic(void *ctx)
{
  DiagProductRun *r = (DiagProductRun *)ctx;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductNumericAtomic(r->prod, r->A, r->A, r->C));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunDiagProductPairs(void *ctx)
{
  DiagProductRun *r = (DiagProductRun *)ctx;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductNumericPairs(r->prod, r->A, r->A, r->C));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunDiagProductTiled(void *ctx)
{
  DiagProductRun *r = (DiagProductRun *)ctx;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductNumericTiled(r->prod, r->A, r->A, r->C));
  PetscFunctionReturn(0);
}

/* C's values on the device against the host product in C->val (relative error <= 1e-12) */
static PetscErrorCode CheckDiagProduct(DiagDevice dC, DiagFormat *C, const char *spec, const char *kernel)
{
  const PetscInt64 nv = C->start[C->ndiag];
  double          *dval, *hval = C->val, err = 0, nrm = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nv + 1, &dval));
  C->val = dval;
  PetscCall(DiagDeviceGetValues(dC, C));
  C->val = hval;
  for (PetscInt64 q = 0; q < nv; q++) err += (dval[q] - hval[q]) * (dval[q] - hval[q]), nrm += hval[q] * hval[q];
  PetscCall(PetscFree(dval));
  PetscCheck(sqrt(err) <= 1e-12 * sqrt(nrm), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIAG product %s, %s: relative error %g", spec, kernel, sqrt(err / nrm));
  PetscFunctionReturn(0);
}

/* C's values on the device set to NaN, so that an entry a kernel leaves alone fails the check */
static PetscErrorCode PoisonDiagProduct(DiagDevice dC, DiagFormat *C)
{
  const PetscInt64 nv = C->start[C->ndiag];
  double          *nan, *hval = C->val;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nv + 1, &nan));
  for (PetscInt64 q = 0; q < nv; q++) nan[q] = NAN;
  C->val = nan;
  PetscCall(DiagDeviceCopyValues(dC, C));
  C->val = hval;
  PetscCall(PetscFree(nan));
  PetscFunctionReturn(0);
}

typedef struct {
  cusparseHandle_t     handle;
  cusparseSpMatDescr_t A, C;
  void                *buf1, *buf2;
  size_t               size1, size2;
  int                 *c_ptr, *c_col;
  double              *c_val;
  int64_t              c_nnz;
} SpGEMMRun;

/* one complete C = A A: work estimate, compute, copy into C's arrays (allocated by the first run) */
static PetscErrorCode RunSpGEMM(void *ctx)
{
  SpGEMMRun            *r   = (SpGEMMRun *)ctx;
  const double          one = 1.0, zero = 0.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpGEMMDescr_t d;
  size_t                s1 = 0, s2 = 0;

  PetscFunctionBegin;
  BenchCallCUSPARSE(cusparseSpGEMM_createDescr(&d));
  BenchCallCUSPARSE(cusparseSpGEMM_workEstimation(r->handle, op, op, &one, r->A, r->A, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, NULL));
  if (s1 > r->size1) {
    PetscCall(BenchCUDAFree(r->buf1));
    PetscCall(BenchCUDAMalloc(&r->buf1, s1, "cusparseSpGEMM work buffer 1"));
    r->size1 = s1;
  }
  BenchCallCUSPARSE(cusparseSpGEMM_workEstimation(r->handle, op, op, &one, r->A, r->A, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, r->buf1));
  BenchCallCUSPARSE(cusparseSpGEMM_compute(r->handle, op, op, &one, r->A, r->A, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, NULL));
  if (s2 > r->size2) {
    PetscCall(BenchCUDAFree(r->buf2));
    PetscCall(BenchCUDAMalloc(&r->buf2, s2, "cusparseSpGEMM work buffer 2"));
    r->size2 = s2;
  }
  BenchCallCUSPARSE(cusparseSpGEMM_compute(r->handle, op, op, &one, r->A, r->A, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, r->buf2));
  if (!r->c_col) {
    int64_t rows, cols;

    BenchCallCUSPARSE(cusparseSpMatGetSize(r->C, &rows, &cols, &r->c_nnz));
    PetscCall(BenchCUDAMalloc((void **)&r->c_col, sizeof(int) * (size_t)r->c_nnz, "SpGEMM C columns"));
    PetscCall(BenchCUDAMalloc((void **)&r->c_val, sizeof(double) * (size_t)r->c_nnz, "SpGEMM C values"));
    BenchCallCUSPARSE(cusparseCsrSetPointers(r->C, r->c_ptr, r->c_col, r->c_val));
  }
  BenchCallCUSPARSE(cusparseSpGEMM_copy(r->handle, op, op, &one, r->A, r->A, &zero, r->C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d));
  BenchCallCUSPARSE(cusparseSpGEMM_destroyDescr(d));
  PetscFunctionReturn(0);
}

#if defined(PETSC_HAVE_CUDA)
typedef struct {
  Mat A, C;
} AijcusparseRun;

/* C = A A numerically again (structure kept): what a repeated MatProductNumeric costs */
static PetscErrorCode RunAijcusparse(void *ctx)
{
  AijcusparseRun *r = (AijcusparseRun *)ctx;

  PetscFunctionBegin;
  PetscCall(MatMatMult(r->A, r->A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &r->C));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode BenchProduct(BenchTimer *timer, const char *spec, PetscInt reps, FILE *csv)
{
  char       kind[16] = "", *c1, *c2, buf[64];
  PetscInt   n, w, noff, *off, *ai, *aj, nnz = 0;
  double    *aa;
  DiagFormat A, C;
  double     ms, msmin, cs_ms, sym_s;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, spec, sizeof(buf)));
  c1 = strchr(buf, ':');
  c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  PetscCheck(c1 && c2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-products: expected band:n:w or sparse:n:d, got %s", spec);
  *c1 = *c2 = 0;
  PetscCall(PetscStrncpy(kind, buf, sizeof(kind)));
  n = atol(c1 + 1), w = atol(c2 + 1);
  PetscCall(PetscMalloc1(PetscMax(w, 1) + 1, &off));
  PetscCall(ProductOffsets(kind, n, w, &noff, off));
  PetscCall(PetscMalloc3(n + 1, &ai, (size_t)n * noff + 1, &aj, (size_t)n * noff + 1, &aa));
  { /* A: every entry of its diagonals, rows sorted */
    unsigned long long state = 7;

    PetscCall(PetscSortInt(noff, off));
    for (PetscInt i = 0; i < n; i++) {
      ai[i] = nnz;
      for (PetscInt t = 0; t < noff; t++)
        if (i + off[t] >= 0 && i + off[t] < n) aj[nnz] = i + off[t], aa[nnz++] = MatGenUniform(&state) + 2.0;
    }
    ai[n] = nnz;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n== C = A A, %s: n %" PetscInt_FMT ", %" PetscInt_FMT " diagonals, %" PetscInt_FMT " nonzeros\n", spec, n, noff, nnz));
  PetscCall(BenchPrintHeader("C = A A", "C diags"));
  for (int scheme = 0; scheme < 2; scheme++) {
    DiagProductRun  r;
    DiagProductPlan plan;
    double         *hostc;
    PetscLogDouble  t0, t1;
    char           kernel[32], info[32];
    PetscBool      check = (PetscBool)(n <= 20000);

    PetscCheck(DiagFromCSR((DiagScheme)scheme, n, n, ai, aj, aa, 0, NULL, &A) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "DiagFromCSR failed");
    PetscCall(PetscTime(&t0));
    PetscCheck(DiagProductPlanCreate(&A, &A, &plan, &C) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "DiagProductPlanCreate failed");
    PetscCall(DiagDeviceCreate(&A, &r.A));
    PetscCall(DiagDeviceCreate(&C, &r.C)); /* no values: the numeric phase writes them */
    PetscCall(DiagDeviceProductCreate(&plan, &A, &A, &C, &r.prod));
    PetscCall(PetscCalloc1(C.start[C.ndiag] + 1, &hostc));
    C.val = hostc;
    PetscCall(PetscTime(&t1));
    sym_s = t1 - t0;
    PetscCall(BenchTime(timer, RunDiagProduct, &r, 5, reps, &ms, &msmin));
    PetscCall(PetscSNPrintf(kernel, sizeof(kernel), "diag_%s_product", scheme ? "cdm" : "hm"));
    if (check) { /* against the host product (C.val keeps it for the kernels below) */
      DiagProductPlanNumericHost(&plan, &A, &A, &C);
      PetscCall(CheckDiagProduct(r.C, &C, spec, kernel));
    }
    PetscCall(PetscSNPrintf(info, sizeof(info), "%" PetscInt_FMT, C.ndiag));
    PetscCall(BenchPrintRow(kernel, info, ms, msmin, 0, 0, -1));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (%s: symbolic phase on the host and set-up %.3f s%s)\n", kernel, sym_s, check ? "; checked against the host product" : ""));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,%" PetscInt_FMT ",%lld,%.6f,%.6f,0,0,0\n", spec, n, nnz, kernel, C.ndiag, (long long)C.start[C.ndiag], ms, msmin);
    if (scheme == DIAG_SCHEME_HM) { /* the paper's Algorithm 2: atomic updates of C */
      PetscCall(BenchTime(timer, RunDiagProductAtomic, &r, 5, reps, &ms, &msmin));
      PetscCall(BenchPrintRow("diag_hm_product_paper", info, ms, msmin, 0, 0, -1));
      if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",diag_hm_product_paper,%" PetscInt_FMT ",%lld,%.6f,%.6f,0,0,0\n", spec, n, nnz, C.ndiag, (long long)C.start[C.ndiag], ms, msmin);
    }
    if (scheme == DIAG_SCHEME_CDM) { /* the pairs kernel alone, where the banded one ran above; the two results compared at any n */
      int T;

      PetscCall(DiagDeviceProductBandedRows(r.prod, &T));
      if (T) {
        const PetscInt64 nv = C.start[C.ndiag];
        double          *banded, *pairs, *host = C.val, diff = 0, nrm = 0;

        PetscCall(PetscMalloc2(nv, &banded, nv, &pairs));
        C.val = banded; /* C's host values (the reference product, if any) stay as they are */
        PetscCall(DiagDeviceGetValues(r.C, &C));
        PetscCall(BenchTime(timer, RunDiagProductPairs, &r, 5, reps, &ms, &msmin));
        C.val = pairs;
        PetscCall(DiagDeviceGetValues(r.C, &C));
        C.val = host;
        for (PetscInt64 k = 0; k < nv; k++) diff = PetscMax(diff, PetscAbsReal(banded[k] - pairs[k])), nrm = PetscMax(nrm, PetscAbsReal(pairs[k]));
        PetscCall(BenchPrintRow("diag_cdm_product_pairs", info, ms, msmin, 0, 0, -1));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (diag_cdm_product above ran the banded kernel, tiles of %d rows; it agrees with the pairs kernel to %.1e)\n", T, nrm > 0 ? diff / nrm : diff));
        PetscCheck(diff <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the banded and pairs products differ by %g (max |C| %g)", spec, diff, nrm);
        if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",diag_cdm_product_pairs,%" PetscInt_FMT ",%lld,%.6f,%.6f,0,0,0\n", spec, n, nnz, C.ndiag, (long long)C.start[C.ndiag], ms, msmin);
        PetscCall(PetscFree2(banded, pairs));
      }
    }
    if (scheme == DIAG_SCHEME_CDM) { /* the paper's Algorithm 1: 16 x 16 blocks, tiles of A's diagonals in shared memory */
      if (check) PetscCall(PoisonDiagProduct(r.C, &C));
      PetscCall(BenchTime(timer, RunDiagProductTiled, &r, 5, reps, &ms, &msmin));
      if (check) PetscCall(CheckDiagProduct(r.C, &C, spec, "diag_cdm_product_tiled"));
      PetscCall(BenchPrintRow("diag_cdm_product_tiled", info, ms, msmin, 0, 0, -1));
      if (check) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (diag_cdm_product_tiled: checked against the host product)\n"));
      if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",diag_cdm_product_tiled,%" PetscInt_FMT ",%lld,%.6f,%.6f,0,0,0\n", spec, n, nnz, C.ndiag, (long long)C.start[C.ndiag], ms, msmin);
    }
    PetscCall(DiagDeviceProductDestroy(&r.prod));
    PetscCall(DiagDeviceDestroy(&r.A));
    PetscCall(DiagDeviceDestroy(&r.C));
    C.val = NULL;
    PetscCall(PetscFree(hostc));
    DiagProductPlanFree(&plan);
    DiagFormatFree(&A);
    DiagFormatFree(&C);
  }
  { /* cusparseSpGEMM on the same CSR */
    SpGEMMRun r;
    int      *dai, *daj;
    double   *daa;

    PetscCall(PetscMemzero(&r, sizeof(r)));
    BenchCallCUSPARSE(cusparseCreate(&r.handle));
    BenchCallCUSPARSE(cusparseSetStream(r.handle, timer->stream));
    PetscCall(BenchCUDAMalloc((void **)&dai, sizeof(int) * (n + 1), "A rows"));
    PetscCall(BenchCUDAMalloc((void **)&daj, sizeof(int) * nnz, "A columns"));
    PetscCall(BenchCUDAMalloc((void **)&daa, sizeof(double) * nnz, "A values"));
    PetscCall(BenchCUDAMalloc((void **)&r.c_ptr, sizeof(int) * (n + 1), "C rows"));
    PetscCall(BenchCUDACopyToDevice(dai, ai, sizeof(int) * (n + 1)));
    PetscCall(BenchCUDACopyToDevice(daj, aj, sizeof(int) * nnz));
    PetscCall(BenchCUDACopyToDevice(daa, aa, sizeof(double) * nnz));
    BenchCallCUSPARSE(cusparseCreateCsr(&r.A, n, n, nnz, dai, daj, daa, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    BenchCallCUSPARSE(cusparseCreateCsr(&r.C, n, n, 0, r.c_ptr, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    { /* cuSPARSE may run out of resources on the largest products: reported, not fatal */
      PetscErrorCode ierr;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = BenchTime(timer, RunSpGEMM, &r, 2, PetscMax(reps / 10, 3), &cs_ms, &msmin);
      PetscCall(PetscPopErrorHandler());
      if (ierr) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "cusparse_spgemm: FAILED (error %d, see the message above: typically insufficient resources)\n", (int)ierr));
        if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",cusparse_spgemm,0,0,-1,-1,0,0,0\n", spec, n, nnz);
        (void)cudaGetLastError();
      } else {
        PetscCall(BenchPrintRow("cusparse_spgemm", "-", cs_ms, msmin, 0, 0, -1));
        if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",cusparse_spgemm,0,%lld,%.6f,%.6f,0,0,0\n", spec, n, nnz, (long long)r.c_nnz, cs_ms, msmin);
      }
    }
    BenchCallCUSPARSE(cusparseDestroySpMat(r.A));
    BenchCallCUSPARSE(cusparseDestroySpMat(r.C));
    BenchCallCUSPARSE(cusparseDestroy(r.handle));
    PetscCall(BenchCUDAFree(dai));
    PetscCall(BenchCUDAFree(daj));
    PetscCall(BenchCUDAFree(daa));
    PetscCall(BenchCUDAFree(r.c_ptr));
    PetscCall(BenchCUDAFree(r.c_col));
    PetscCall(BenchCUDAFree(r.c_val));
    PetscCall(BenchCUDAFree(r.buf1));
    PetscCall(BenchCUDAFree(r.buf2));
  }
#if defined(PETSC_HAVE_CUDA)
  { /* PETSc's aijcusparse MatMatMult, numeric phase (MAT_REUSE_MATRIX), after one full product */
    Mat             Ah, Ag, Cg = NULL;
    AijcusparseRun  r;
    PetscErrorCode  ierr;

    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, ai, aj, aa, &Ah));
    PetscCall(MatConvert(Ah, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ag));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMatMult(Ag, Ag, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cg);
    r.A = Ag, r.C = Cg;
    if (!ierr) ierr = BenchTime(timer, RunAijcusparse, &r, 2, PetscMax(reps / 10, 3), &ms, &msmin);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "petsc_aijcusparse_matmatmult: FAILED (error %d)\n", (int)ierr));
      (void)cudaGetLastError();
    } else {
      PetscCall(BenchPrintRow("petsc_aijcusparse_matmatmult", "-", ms, msmin, 0, 0, -1));
      if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",petsc_aijcusparse_matmatmult,0,0,%.6f,%.6f,0,0,0\n", spec, n, nnz, ms, msmin);
    }
    PetscCall(MatDestroy(&Cg));
    PetscCall(MatDestroy(&Ag));
    PetscCall(MatDestroy(&Ah));
  }
#endif
  PetscCall(PetscFree3(ai, aj, aa));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char           list[1024] = "stencil5:2000,stencil7:160,stencil27:100", products[1024] = "", csvpath[PETSC_MAX_PATH_LEN] = "";
  PetscInt       warmup = 20, reps = 200;
  PetscReal      gib    = 4;
  PetscBool      failed = PETSC_FALSE, avail;
  const char    *why;
  BenchTimer     timer;
  BenchBandwidth bw;
  FILE          *csv = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_diag options", NULL);
  PetscCall(PetscOptionsString("-matrices", "name:size list", NULL, list, list, sizeof(list), NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed SpMVs", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed SpMVs", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-bw_gib", "bandwidth array, GiB", NULL, gib, &gib, NULL));
  PetscCall(PetscOptionsString("-products", "C = A A for band:n:w and sparse:n:d", NULL, products, products, sizeof(products), NULL));
  PetscCall(PetscOptionsString("-csv", "append results to this CSV file", NULL, csvpath, csvpath, sizeof(csvpath), NULL));
  PetscOptionsEnd();
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_diag needs a CUDA device: %s", why);
  PetscCall(BenchPrintDevice());
  PetscCall(BenchTimerCreate(&timer));
  PetscCall(BenchMeasureBandwidth(&timer, gib, 20, &bw));
  PetscCall(BenchPrintBandwidth(&bw));
  if (csvpath[0]) {
    PetscBool exists;

    PetscCall(PetscTestFile(csvpath, 'r', &exists));
    csv = fopen(csvpath, "a");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csvpath);
    setvbuf(csv, NULL, _IOLBF, 0); /* line by line: a library that aborts later (PETSc's product after a cuSPARSE failure was seen to) loses nothing measured */
    if (!exists) fprintf(csv, "matrix,nrows,nnz,kernel,ndiag,stored,ms_median,ms_min,gbs,pct_read,max_rel_err\n");
  }
  for (char *spec = strtok(list, ","); spec; spec = strtok(NULL, ",")) PetscCall(BenchMatrix(&timer, &bw, spec, warmup, reps, csv, &failed));
  for (char *spec = strtok(products, ","); spec; spec = strtok(NULL, ",")) PetscCall(BenchProduct(&timer, spec, reps, csv));
  if (csv) fclose(csv);
  PetscCall(BenchTimerDestroy(&timer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", failed ? "FAILED: a DIAG product's error exceeds 1e-12" : "All products within 1e-12 of the host CSR reference"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
