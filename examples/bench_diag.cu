static const char help[] = "Times the DIAG SpMV (HM and CDM) against cuSPARSE CSR ALG1/ALG2 and PETSc's aijcusparse\n\
on the stencil matrices of examples/matgen.h (issue 8's benchmark 1; the diag type itself is in progress).\n\
  -matrices <stencil5:1000,...>  name:size list (examples/matgen.h)\n\
  -warmup <20> -reps <200>       untimed and timed SpMVs (median and min reported)\n\
  -bw_gib <4>                    size of the bandwidth-test array\n\
  -csv <path>                    append one line per (matrix, kernel)\n";

/* GB/s count the minimal CSR traffic (nnz*12 + (n+1)*4 + 16 n bytes) for every kernel,
   so that GB/s is proportional to speed; the DIAG formats move fewer bytes than that
   (no column indices), which is the point of them. */
#include "bench_common.h"
#include <string.h>
#include "cuda/diag/diag_cuda.h"
#include "matgen.h"

typedef struct {
  DiagDevice     dev;
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
  PetscCall(DiagDeviceMult(b->dev, PETSC_FALSE, b->x, NULL, b->y));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCUSPARSE(void *ctx)
{
  DiagBench *b = (DiagBench *)ctx;

  PetscFunctionBegin;
  PetscCall(BenchCUSPARSEMult(b->cs, b->which ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1));
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
  PetscCall(GpuMatsCUDAMalloc((void **)&dx, sizeof(double) * A.ncols, "x"));
  PetscCall(GpuMatsCUDAMalloc((void **)&dy, sizeof(double) * A.nrows, "y"));
  PetscCall(GpuMatsCUDACopyToDevice(dx, hx, sizeof(double) * A.ncols));
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
  PetscCall(BenchCUSPARSEDestroy(&cs));
#if defined(PETSC_HAVE_CUDA)
  {
    BenchPETSc p;

    PetscCall(BenchPETScCreate(&A, hx, &p));
    b.petsc = &p;
    PetscCall(BenchPETScMultError(&p, ref, absref, hy, &err));
    PetscCall(BenchTime(timer, RunPETSc, &b, warmup, reps, &ms, &msmin));
    PetscCall(BenchPrintRow("petsc_seqaijcusparse", "-", ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err));
    if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",petsc_seqaijcusparse,0,0,%.6f,%.6f,%.2f,%.2f,%.2e\n", spec, A.nrows, A.rowptr[A.nrows], ms, msmin, BenchGBs(bytes, ms), BenchPercentOfRead(BenchGBs(bytes, ms), bw->read_gbs), err);
    PetscCall(BenchPETScDestroy(&p));
  }
#endif
  PetscCall(GpuMatsCUDAFree(dx));
  PetscCall(GpuMatsCUDAFree(dy));
  PetscCall(PetscFree4(hx, ref, absref, hy));
  PetscCall(BenchCSRFree(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char           list[1024] = "stencil5:2000,stencil7:160,stencil27:100", csvpath[PETSC_MAX_PATH_LEN] = "";
  PetscInt       warmup = 20, reps = 200;
  PetscReal      gib    = 4;
  PetscBool      failed = PETSC_FALSE, avail;
  const char    *why;
  BenchTimer     timer;
  BenchBandwidth bw;
  FILE          *csv = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_diag options", NULL);
  PetscCall(PetscOptionsString("-matrices", "name:size list", NULL, list, list, sizeof(list), NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed SpMVs", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed SpMVs", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-bw_gib", "bandwidth array, GiB", NULL, gib, &gib, NULL));
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
    if (!exists) fprintf(csv, "matrix,nrows,nnz,kernel,ndiag,stored,ms_median,ms_min,gbs,pct_read,max_rel_err\n");
  }
  for (char *spec = strtok(list, ","); spec; spec = strtok(NULL, ",")) PetscCall(BenchMatrix(&timer, &bw, spec, warmup, reps, csv, &failed));
  if (csv) fclose(csv);
  PetscCall(BenchTimerDestroy(&timer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", failed ? "FAILED: a DIAG product's error exceeds 1e-12" : "All products within 1e-12 of the host CSR reference"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
