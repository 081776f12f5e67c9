static const char help[] = "C = A B of seqdiag matrices on the host against seqaij's MatProduct, on the rows of the DIAG\n\
paper's Tables 1-2 and banded products (benchmarks/src/diag_tables.c), with the paper's CPU time beside.\n\
  -rows <t1-1000,...>  rows to run (default: Table 1, t2-200x200 and the bands at n = 10,240)\n\
  -scheme <auto>       diag scheme of A and B: auto, hm, cdm\n\
  -reps <5>            timed numeric phases (median); the first product is timed -first_reps <3> times\n\
  -csv <path>          one line a row\n\
First product: MatProductCreate .. MatProductNumeric (MAT_INITIAL_MATRIX); numeric: MatProductNumeric\n\
again (MAT_REUSE_MATRIX).  flops = 2 x the multiply-adds of the diagonal pairs; bytes = A's, B's and\n\
C's stored values once.  C is checked against AIJ's (relative Frobenius error).\n";

#include <petscmat.h>
#include <string.h>
#include <gpumats.h>
#include "diag_tables.h"
#include <gpumats_diag_format.h>

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static double Median(PetscInt n, double *v)
{
  qsort(v, (size_t)n, sizeof(double), CompareDouble);
  return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

/* the first product (median of first_reps, C destroyed each time) and the numeric one (median of reps) */
static PetscErrorCode TimeProduct(Mat A, Mat B, PetscInt first_reps, PetscInt reps, double *first_ms, double *numeric_ms, Mat *C)
{
  double        *t;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(first_reps, reps) + 1, &t));
  for (PetscInt r = 0; r < first_reps; r++) {
    PetscCall(MatDestroy(C));
    PetscCall(PetscTime(&t0));
    PetscCall(MatProductCreate(A, B, NULL, C));
    PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
    PetscCall(MatProductSetFromOptions(*C));
    PetscCall(MatProductSymbolic(*C));
    PetscCall(MatProductNumeric(*C));
    PetscCall(PetscTime(&t1));
    t[r] = (t1 - t0) * 1e3;
  }
  *first_ms = Median(first_reps, t);
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(PetscTime(&t0));
    PetscCall(MatProductNumeric(*C));
    PetscCall(PetscTime(&t1));
    t[r] = (t1 - t0) * 1e3;
  }
  *numeric_ms = Median(reps, t);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunRow(const DiagTableRow *row, const char *scheme, PetscInt first_reps, PetscInt reps, PetscBool count_only, FILE *csv)
{
  PetscInt        *offa, *offb, na, nb, *ai, *aj, *bi, *bj;
  PetscScalar     *aa, *ba;
  Mat              Aa, Ba, Ad, Bd, Cd = NULL, Ca = NULL;
  DiagFormat       fa, fb, fc;
  DiagProductPlan  plan;
  double           d_first, d_num, a_first, a_num, err;
  PetscInt64       bytes;
  MatDiagScheme    sa, sb;
  PetscReal        na_, nd_;
  double           plan_ms;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(row->dga, &offa, row->dgb, &offb));
  PetscCall(DiagTableOffsets(row, 0, &na, offa));
  PetscCall(DiagTableOffsets(row, 1, &nb, offb));
  PetscCall(DiagTableCSR(row->n, na, offa, 11, &ai, &aj, &aa));
  PetscCall(DiagTableCSR(row->n, nb, offb, 13, &bi, &bj, &ba));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, row->n, row->n, ai, aj, aa, &Aa));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, row->n, row->n, bi, bj, ba, &Ba));
  /* the counts of the product (the plan, as the product type makes it), in the schemes auto would take */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", scheme));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "0"));
  PetscCall(MatConvert(Aa, MATSEQDIAG, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(MatConvert(Ba, MATSEQDIAG, MAT_INITIAL_MATRIX, &Bd));
  PetscCall(MatGpuMatsSetBackend(Ad, GPUMATS_BACKEND_HOST));
  PetscCall(MatGpuMatsSetBackend(Bd, GPUMATS_BACKEND_HOST));
  PetscCall(MatDiagGetScheme(Ad, &sa));
  PetscCall(MatDiagGetScheme(Bd, &sb));
  PetscCheck(DiagFromCSR(sa == MAT_DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM, row->n, row->n, ai, aj, aa, 0, NULL, &fa) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "A's format");
  PetscCheck(DiagFromCSR(sb == MAT_DIAG_SCHEME_CDM ? DIAG_SCHEME_CDM : DIAG_SCHEME_HM, row->n, row->n, bi, bj, ba, 0, NULL, &fb) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "B's format");
  {
    PetscLogDouble t0, t1;

    plan_ms = PETSC_MAX_REAL;
    for (int r = 0; r < (count_only ? 10 : 1); r++) { /* the fastest of 10 (the counts: a quick measure of the symbolic phase) */
      if (r) DiagProductPlanFree(&plan), DiagFormatFree(&fc);
      PetscCall(PetscTime(&t0));
      PetscCheck(DiagProductPlanCreate(&fa, &fb, &plan, &fc) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "the plan");
      PetscCall(PetscTime(&t1));
      plan_ms = PetscMin(plan_ms, (t1 - t0) * 1e3);
    }
  }
  bytes = DiagProductPlanBytes(&fa, &fb, &fc);
  if (count_only) { /* the H200's roofline: 4.5 TB/s read, 67 Tflop/s FP64 */
    const double t_bw = (double)bytes / 4.5e12 * 1e3, t_fl = (double)plan.flops / 67e12 * 1e3;

    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-15s n %7" PetscInt_FMT " dg %4" PetscInt_FMT " x %4" PetscInt_FMT " (%s x %s) nzA %9" PetscInt64_FMT " nzB %9" PetscInt64_FMT " C %5" PetscInt_FMT " diagonals %10" PetscInt64_FMT " values (paper nzC %9" PetscInt64_FMT ") %8" PetscInt64_FMT " pairs %8.3f Gflop %8.1f MB  H200 roofline %.4f ms (%s-bound; flop %.4f ms, bytes %.4f ms), %.2f flop/B; plan (symbolic phase, fastest of 10) %.2f ms\n", row->name, row->n, na, nb, sa == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", sb == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", fa.nnz, fb.nnz, fc.ndiag, fc.start[fc.ndiag], row->nzc, plan.npairs, (double)plan.flops * 1e-9, (double)bytes / 1e6, PetscMax(t_bw, t_fl), t_bw > t_fl ? "memory" : "flop", t_fl, t_bw, (double)plan.flops / (double)bytes, plan_ms));
  } else {
    /* diag on the host, then AIJ */
    PetscCall(TimeProduct(Ad, Bd, first_reps, reps, &d_first, &d_num, &Cd));
    PetscCall(TimeProduct(Aa, Ba, first_reps, reps, &a_first, &a_num, &Ca));
    { /* C against AIJ's */
      Mat D;

      PetscCall(MatConvert(Cd, MATSEQAIJ, MAT_INITIAL_MATRIX, &D));
      PetscCall(MatNorm(Ca, NORM_FROBENIUS, &na_));
      PetscCall(MatAXPY(D, -1.0, Ca, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatNorm(D, NORM_FROBENIUS, &nd_));
      err = na_ > 0 ? nd_ / na_ : nd_;
      PetscCall(MatDestroy(&D));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-15s n %7" PetscInt_FMT " dg %4" PetscInt_FMT " x %4" PetscInt_FMT " (%s x %s) C %5" PetscInt_FMT " diagonals %8" PetscInt64_FMT " pairs %7.3f Gflop %7.1f MB | diag first %9.2f numeric %9.2f | aij first %9.2f numeric %9.2f | aij/diag numeric %5.2f | paper CPU %8.2f ms | err %.1e\n", row->name, row->n, na, nb,
                          sa == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", sb == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", fc.ndiag, plan.npairs, (double)plan.flops * 1e-9, (double)bytes / 1e6, d_first, d_num, a_first, a_num, a_num / d_num, row->cpu_ms, err));
    if (csv)
      fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%s,%s,%" PetscInt_FMT ",%lld,%lld,%lld,%.4f,%.4f,%.4f,%.4f,%.2f,%.3e\n", row->name, row->n, na, nb, sa == MAT_DIAG_SCHEME_CDM ? "cdm" : "hm", sb == MAT_DIAG_SCHEME_CDM ? "cdm" : "hm", fc.ndiag, (long long)plan.npairs, (long long)plan.flops, (long long)bytes, d_first, d_num, a_first,
              a_num, row->cpu_ms, err);
    PetscCheck(err <= 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the diag product differs from AIJ's by %g", row->name, err);
    PetscCall(MatDestroy(&Cd));
    PetscCall(MatDestroy(&Ca));
  }
  DiagProductPlanFree(&plan);
  DiagFormatFree(&fa), DiagFormatFree(&fb), DiagFormatFree(&fc);
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&Bd));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Ba));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree(bj));
  PetscCall(PetscFree(ba));
  PetscCall(PetscFree2(offa, offb));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char                rows[2048] = "t1-1000,t1-2000,t1-3000,t1-4000,t1-5000,t1-6000,t1-7000,t1-8000,t1-9000,t1-10000,t2-200x200,band-10240-5,band-10240-21,band-10240-101,band-10240-401", scheme[16] = "auto", csvpath[PETSC_MAX_PATH_LEN] = "";
  PetscInt            reps = 5, first_reps = 3, nall;
  PetscBool           count_only = PETSC_FALSE;
  const DiagTableRow *all;
  FILE               *csv = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_diag_products_host options", NULL);
  PetscCall(PetscOptionsString("-rows", "rows of the tables", NULL, rows, rows, sizeof(rows), NULL));
  PetscCall(PetscOptionsString("-scheme", "auto, hm or cdm", NULL, scheme, scheme, sizeof(scheme), NULL));
  PetscCall(PetscOptionsInt("-reps", "timed numeric phases", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-first_reps", "timed first products", NULL, first_reps, &first_reps, NULL));
  PetscCall(PetscOptionsString("-csv", "CSV file", NULL, csvpath, csvpath, sizeof(csvpath), NULL));
  PetscCall(PetscOptionsBool("-count_only", "counts only, no timing", NULL, count_only, &count_only, NULL));
  PetscOptionsEnd();
  if (csvpath[0]) {
    csv = fopen(csvpath, "w");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csvpath);
    setvbuf(csv, NULL, _IOLBF, 0); /* line by line: a run stopped by a timeout keeps its rows */
    fprintf(csv, "row,n,dga,dgb,scheme_a,scheme_b,dgc,pairs,flops,bytes,diag_first_ms,diag_numeric_ms,aij_first_ms,aij_numeric_ms,paper_cpu_ms,rel_err\n");
  }
  all = DiagTableRows(&nall);
  for (char *name = strtok(rows, ","); name; name = strtok(NULL, ",")) {
    const DiagTableRow *row = NULL;

    for (PetscInt r = 0; r < nall; r++)
      if (!strcmp(all[r].name, name)) row = &all[r];
    PetscCheck(row, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-rows: no row %s (see benchmarks/src/diag_tables.c)", name);
    PetscCall(RunRow(row, scheme, first_reps, reps, count_only, csv));
  }
  if (csv) fclose(csv);
  PetscCall(PetscFinalize());
  return 0;
}
