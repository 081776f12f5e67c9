static const char help[] = "Times the CIHYBRID SpMV kernels against cuSPARSE (and PETSc's MATSEQAIJCUSPARSE) on a paper-like CI matrix.\n\
  -n <32768>                   rows = columns of the synthetic matrix (also try 131072)\n\
  -ref_fraction <0.1> -ref_density <0.2> -density <0.01> -seed <2018>   the matrix (ci_synthetic.h)\n\
  -fcidump <file>              instead: the FCI Hamiltonian of these integrals (fci/), with\n\
    -fci_sector <none|isym|1..8> -fci_ordering <lexical|excitation> -fci_reference <lowest|aufbau>\n\
  -hubbard_lx <3> -hubbard_ly <4> -hubbard_t <1> -hubbard_u <8>   instead: the Hubbard model (open, half filling)\n\
                               (FCI rows: host CSR built row by row, OpenMP threads from OMP_NUM_THREADS)\n\
  -boundary <auto|int>         CIHYBRID boundary (auto: CIHybridChooseBoundary; with -split columns the reference block edge)\n\
  -split <entries|columns>     boundary counts a row's entries or is a column index\n\
  -warmup <20> -reps <200>     untimed and timed single SpMVs per kernel (median and min reported)\n\
  -lanes_per_row <0>           force 4, 8, 16 or 32 lanes per row in the tuned kernels (0: auto)\n\
  -bw_gib <4>                  size of the bandwidth-test array\n\
  -sweep                       also time paper and tuned kernels for boundaries 0, step, 2 step, ..., max\n\
  -sweep_step <32> -sweep_reps <50>\n\
  -check_shapes <true>         first check every kernel on small edge-case matrices\n\
  -spmm_k <k1,k2,...>          also time C = A B for B of k columns (n x k, column-major): CIHYBRID SpMM,\n\
                               k tuned SpMVs and cuSPARSE SpMM (default and CSR ALG2)\n\
  -host_only                   build the matrix, its CIHYBRID form and the references, check the host\n\
                               products, and stop before any CUDA call (for machines without GPU)\n\
  -csv <path>                  also write every result as CSV\n\
The compressed form (-mat_cihybrid_compress full) is timed too: its bytes a nonzero, y = A x with the\n\
dictionary in shared and in global memory, and y = A^T x.\n";

/* The harness (timing, errors, bandwidth, cuSPARSE, PETSc) is benchmarks/src/bench_common.h:
   GB/s over the minimal CSR traffic, errors relative to |A||x|, a kernel whose error
   exceeds 1e-12 fails the run (nonzero exit status). */
#include "bench_common.h"
#include <math.h>
#include <string.h>
#include <gpumats_cihybrid_format.h>
#include <gpumats_cihybrid_compress.h>
extern "C" {
#include "ci_synthetic.h"
#include "bench_host.h"
#include "matgen.h"
}

#define BENCH_MAX_SPMM 16 /* most -spmm_k values */

#define BenchCheckBuild(st) PetscCheck((st) == CIHYBRID_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "CIHybridBuildFromCSR failed: %s", CIHybridStatusString(st))

/* ------------------------------------------------------------------------ */
/* the synthetic matrix as host CSR */
static PetscErrorCode BenchCSRFromSynthetic(const CISyntheticSpec *spec, BenchCSR *A)
{
  const PetscInt maxrow   = CISyntheticMaxRowLength(spec);
  const double   ref_cols = floor(spec->ref_fraction * spec->n + 0.5);
  const double   expected = 1.0 + ref_cols * spec->ref_density + (spec->n - ref_cols) * spec->density;
  size_t         capacity = (size_t)(1.02 * expected * spec->n) + (size_t)maxrow;

  PetscFunctionBegin;
  A->nrows = A->ncols = spec->n;
  PetscCall(PetscMalloc1(spec->n + 1, &A->rowptr));
  PetscCall(PetscMalloc1(capacity, &A->colidx));
  PetscCall(PetscMalloc1(capacity, &A->vals));
  A->rowptr[0] = 0;
  for (PetscInt i = 0; i < spec->n; i++) {
    PetscInt nz;

    if ((size_t)A->rowptr[i] + (size_t)maxrow > capacity) {
      capacity = capacity / 4 * 5 + (size_t)maxrow;
      PetscCall(PetscRealloc(capacity * sizeof(PetscInt), &A->colidx));
      PetscCall(PetscRealloc(capacity * sizeof(PetscScalar), &A->vals));
    }
    CISyntheticRow(spec, i, &nz, A->colidx + A->rowptr[i], A->vals + A->rowptr[i]);
    PetscCheck((PetscInt64)A->rowptr[i] + nz <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "More than %" PetscInt_FMT " nonzeros by row %" PetscInt_FMT ": use a smaller -n", PETSC_MAX_INT, i);
    A->rowptr[i + 1] = A->rowptr[i] + nz;
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* the kernels under test */
typedef enum {
  BENCH_CUSPARSE_ALG1,
  BENCH_CUSPARSE_ALG2,
  BENCH_PETSC_AIJCUSPARSE,
  BENCH_PAPER,
  BENCH_TUNED,
  BENCH_TRANSPOSE,
  BENCH_SPMM_SPMVS,            /* C = A B as k tuned SpMVs, one per column */
  BENCH_SPMM_CIHYBRID,         /* CIHybridDeviceSpMM (B through a row-major copy) */
  BENCH_SPMM_CIHYBRID_COLMAJOR, /* the same kernel reading column-major B directly */
  BENCH_SPMM_CUSPARSE_DEFAULT, /* cusparseSpMM, CUSPARSE_SPMM_ALG_DEFAULT */
  BENCH_SPMM_CUSPARSE_ALG2,    /* cusparseSpMM, CUSPARSE_SPMM_CSR_ALG2 */
  BENCH_COMPRESSED,            /* the compressed form (gpumats_cihybrid_compress.h), dictionary where AUTO puts it */
  BENCH_COMPRESSED_GLOBAL,     /* the same, dictionary read from global memory */
  BENCH_COMPRESSED_TRANSPOSE   /* its y = A^T x */
} BenchKind;

typedef struct {
  BenchKind            kind;
  CIHybridTunedVariant variant; /* BENCH_TUNED */
  PetscInt             lanes;   /* BENCH_TUNED: 0 auto */
} BenchKernel;

typedef struct {
  BenchTimer           timer;
  PetscInt             nrows, ncols, nnz;
  double              *x, *y, *xt, *yt; /* device: x (ncols), y (nrows); transpose: xt (nrows), yt (ncols) */
  CIHybridDevice       hyb;
  CIHybridCompressedDevice cmp; /* the compressed form of the same matrix */
  BenchCUSPARSE        cusparse; /* its own device CSR */
  /* block products: B (ncols x spmm_kmax, ld ncols) and C (nrows x spmm_kmax, ld nrows), of which
     the first spmm_k columns are used; the cuSPARSE descriptors are of spmm_k columns */
  PetscInt             spmm_k, spmm_kmax, spmm_lanes;
  double              *B, *C;
  cusparseDnMatDescr_t mat_B, mat_C;
  void                *spmm_buffer[2]; /* default, CSR ALG2 */
#if defined(PETSC_HAVE_CUDA)
  BenchPETSc petsc;
#endif
  FILE     *csv;
  double    read_gbs;
  PetscBool failed;
} Bench;

static PetscErrorCode BenchRun(Bench *b, const BenchKernel *k)
{
  const double one = 1.0, zero = 0.0;

  PetscFunctionBegin;
  switch (k->kind) {
  case BENCH_CUSPARSE_ALG1:
    PetscCall(BenchCUSPARSEMult(&b->cusparse, CUSPARSE_SPMV_CSR_ALG1));
    break;
  case BENCH_CUSPARSE_ALG2:
    PetscCall(BenchCUSPARSEMult(&b->cusparse, CUSPARSE_SPMV_CSR_ALG2));
    break;
  case BENCH_PETSC_AIJCUSPARSE:
#if defined(PETSC_HAVE_CUDA)
    PetscCall(BenchPETScMult(&b->petsc));
#endif
    break;
  case BENCH_PAPER:
    PetscCall(CIHybridDeviceMult(b->hyb, CIHYBRID_KERNEL_PAPER, b->x, NULL, b->y));
    break;
  case BENCH_TUNED:
    PetscCall(CIHybridDeviceMultTuned(b->hyb, k->variant, k->lanes, b->x, NULL, b->y));
    break;
  case BENCH_TRANSPOSE:
    PetscCall(CIHybridDeviceMultTranspose(b->hyb, b->xt, NULL, b->yt));
    break;
  case BENCH_SPMM_SPMVS:
    for (PetscInt j = 0; j < b->spmm_k; j++) PetscCall(CIHybridDeviceMultTuned(b->hyb, CIHYBRID_TUNED_DEFAULT, b->spmm_lanes, b->B + (size_t)j * b->ncols, NULL, b->C + (size_t)j * b->nrows));
    break;
  case BENCH_SPMM_CIHYBRID:
    PetscCall(CIHybridDeviceSpMM(b->hyb, b->spmm_k, b->B, b->ncols, PETSC_FALSE, b->C, b->nrows));
    break;
  case BENCH_SPMM_CIHYBRID_COLMAJOR:
    PetscCall(CIHybridDeviceSpMMLayout(b->hyb, b->spmm_k, b->B, b->ncols, PETSC_FALSE, PETSC_FALSE, b->C, b->nrows));
    break;
  case BENCH_SPMM_CUSPARSE_DEFAULT:
    BenchCallCUSPARSE(cusparseSpMM(b->cusparse.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->cusparse.mat, b->mat_B, &zero, b->mat_C, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, b->spmm_buffer[0]));
    break;
  case BENCH_SPMM_CUSPARSE_ALG2:
    BenchCallCUSPARSE(cusparseSpMM(b->cusparse.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->cusparse.mat, b->mat_B, &zero, b->mat_C, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG2, b->spmm_buffer[1]));
    break;
  case BENCH_COMPRESSED:
    PetscCall(CIHybridCompressedDeviceMult(b->cmp, b->x, NULL, b->y));
    break;
  case BENCH_COMPRESSED_GLOBAL:
    PetscCall(CIHybridCompressedDeviceMultDict(b->cmp, CIHYBRID_COMPRESSED_DICT_GLOBAL, b->x, NULL, b->y));
    break;
  case BENCH_COMPRESSED_TRANSPOSE:
    PetscCall(CIHybridCompressedDeviceMultTranspose(b->cmp, b->xt, NULL, b->yt));
    break;
  }
  PetscFunctionReturn(0);
}

/* One kernel of this benchmark as a run of the common harness (BenchTime, BenchRunError) */
typedef struct {
  Bench             *b;
  const BenchKernel *k;
} BenchCall;

static PetscErrorCode BenchRunCall(void *ctx)
{
  BenchCall *c = (BenchCall *)ctx;

  PetscFunctionBegin;
  PetscCall(BenchRun(c->b, c->k));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchTimeKernel(Bench *b, const BenchKernel *k, PetscInt warmup, PetscInt reps, double *ms_median, double *ms_min)
{
  BenchCall c = {b, k};

  PetscFunctionBegin;
  PetscCall(BenchTime(&b->timer, BenchRunCall, &c, warmup, reps, ms_median, ms_min));
  PetscFunctionReturn(0);
}

/* Runs k once on a poisoned y and returns its error against the reference. */
static PetscErrorCode BenchError(Bench *b, const BenchKernel *k, const double *ref, const double *absref, double *host_y, double *err)
{
  const PetscBool transpose = k->kind == BENCH_TRANSPOSE || k->kind == BENCH_COMPRESSED_TRANSPOSE ? PETSC_TRUE : PETSC_FALSE;
  BenchCall       c         = {b, k};

  PetscFunctionBegin;
  if (k->kind == BENCH_PETSC_AIJCUSPARSE) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(BenchPETScMultError(&b->petsc, ref, absref, host_y, err));
#endif
  } else PetscCall(BenchRunError(BenchRunCall, &c, transpose ? b->yt : b->y, transpose ? b->ncols : b->nrows, ref, absref, host_y, err));
  PetscFunctionReturn(0);
}

static const char *BenchKernelName(const BenchKernel *k)
{
  static char name[64];

  switch (k->kind) {
  case BENCH_CUSPARSE_ALG1:
    return "cusparse_csr_alg1";
  case BENCH_CUSPARSE_ALG2:
    return "cusparse_csr_alg2";
  case BENCH_PETSC_AIJCUSPARSE:
    return "petsc_seqaijcusparse";
  case BENCH_PAPER:
    return "cihybrid_paper";
  case BENCH_TUNED:
    snprintf(name, sizeof(name), "cihybrid_tuned_%s%s", CIHybridTunedVariantNames[k->variant], k->variant == CIHYBRID_TUNED_DEFAULT ? "*" : "");
    return name;
  case BENCH_TRANSPOSE:
    return "cihybrid_transpose";
  case BENCH_SPMM_SPMVS:
    return "cihybrid_tuned_spmv_x_k";
  case BENCH_SPMM_CIHYBRID:
    return "cihybrid_spmm";
  case BENCH_SPMM_CIHYBRID_COLMAJOR:
    return "cihybrid_spmm_colmajor_b";
  case BENCH_SPMM_CUSPARSE_DEFAULT:
    return "cusparse_spmm_default";
  case BENCH_SPMM_CUSPARSE_ALG2:
    return "cusparse_spmm_csr_alg2";
  case BENCH_COMPRESSED:
    return "cihybrid_compressed";
  case BENCH_COMPRESSED_GLOBAL:
    return "cihybrid_compressed_global_dict";
  case BENCH_COMPRESSED_TRANSPOSE:
    return "cihybrid_compressed_transpose";
  }
  return "?";
}

/* One CSV line of the SpMV and bandwidth tables */
static PetscErrorCode BenchCSVLine(Bench *b, const char *table, const char *kernel, const char *lanes_text, double ms_median, double ms_min, double gbs, double err)
{
  char err_text[32];

  PetscFunctionBegin;
  if (!b->csv) PetscFunctionReturn(0);
  BenchErrorText(err, err_text, sizeof(err_text));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "%s,%s,%s,,,,,,,,%.6f,%.6f,%.2f,%.2f,%s,,\n", table, kernel, lanes_text, ms_median, ms_min, gbs, BenchPercentOfRead(gbs, b->read_gbs), err_text));
  PetscFunctionReturn(0);
}

/* Prints and records one line; GB/s from the median time. */
static PetscErrorCode BenchReport(Bench *b, const char *table, const BenchKernel *k, double bytes, double ms_median, double ms_min, double err)
{
  PetscInt     lanes          = 0;
  char         lanes_text[16] = "-";
  const double gbs            = BenchGBs(bytes, ms_median);

  PetscFunctionBegin;
  if (k->kind == BENCH_TUNED) {
    lanes = k->lanes;
    if (!lanes) PetscCall(CIHybridDeviceTunedLanesPerRow(b->hyb, k->variant, &lanes));
    snprintf(lanes_text, sizeof(lanes_text), "%d", (int)lanes);
  } else if (k->kind == BENCH_PAPER || k->kind == BENCH_TRANSPOSE || k->kind == BENCH_COMPRESSED || k->kind == BENCH_COMPRESSED_GLOBAL) snprintf(lanes_text, sizeof(lanes_text), "32");
  PetscCall(BenchPrintRow(BenchKernelName(k), lanes_text, ms_median, ms_min, gbs, BenchPercentOfRead(gbs, b->read_gbs), err));
  PetscCall(BenchCSVLine(b, table, BenchKernelName(k), lanes_text, ms_median, ms_min, gbs, err));
  if (err > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Edge-case checks: every kernel, y0 absent / separate / aliasing y, the
   transpose, a value refresh, on small matrices and many boundaries.  x sits
   between two NaNs, so a kernel that reads x[-1] for a padding slot fails. */
typedef struct {
  PetscInt runs;
  double   worst;
} BenchCheckStats;

/* which < 0: the paper kernel; else a tuned variant with 'lanes' */
static PetscErrorCode BenchCheckMult(CIHybridDevice dev, const BenchCSR *A, int which, PetscInt lanes, const double *dx, const double *hx, const double *hy0, double *dy0, double *dy, double *work, BenchCheckStats *stats)
{
  const size_t ybytes = (size_t)A->nrows * sizeof(double);
  double      *ref = work, *absref = work + A->nrows, *hy = work + 2 * A->nrows;

  PetscFunctionBegin;
  for (int mode = 0; mode < 3; mode++) { /* y0: NULL, separate, the output itself */
    const double *y0 = mode == 0 ? NULL : mode == 1 ? dy0 : dy;

    if (mode == 2) PetscCall(BenchCUDACopyToDevice(dy, hy0, ybytes));
    else PetscCall(BenchCUDAMemset(dy, 0xff, ybytes));
    if (which < 0) PetscCall(CIHybridDeviceMult(dev, CIHYBRID_KERNEL_PAPER, dx, y0, dy));
    else PetscCall(CIHybridDeviceMultTuned(dev, (CIHybridTunedVariant)which, lanes, dx, y0, dy));
    PetscCall(BenchCUDACopyToHost(hy, dy, ybytes));
    BenchCSRMult(A, hx, mode ? hy0 : NULL, ref, absref);
    stats->worst = PetscMax(stats->worst, BenchMaxRelError(A->nrows, hy, ref, absref));
    stats->runs++;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchCheckTranspose(CIHybridDevice dev, const BenchCSR *A, const double *hx, const double *hy0, double *work, BenchCheckStats *stats)
{
  const size_t xbytes = (size_t)A->nrows * sizeof(double), ybytes = (size_t)A->ncols * sizeof(double);
  double      *ref = work, *absref = work + A->ncols, *hy = work + 2 * A->ncols, *dx, *dy0, *dy;

  PetscFunctionBegin;
  PetscCall(BenchCUDAMalloc((void **)&dx, xbytes, "check: transpose x"));
  PetscCall(BenchCUDAMalloc((void **)&dy0, ybytes, "check: transpose y0"));
  PetscCall(BenchCUDAMalloc((void **)&dy, ybytes, "check: transpose y"));
  PetscCall(BenchCUDACopyToDevice(dx, hx, xbytes));
  PetscCall(BenchCUDACopyToDevice(dy0, hy0, ybytes));
  for (int mode = 0; mode < 3; mode++) {
    const double *y0 = mode == 0 ? NULL : mode == 1 ? dy0 : dy;

    if (mode == 2) PetscCall(BenchCUDACopyToDevice(dy, hy0, ybytes));
    else PetscCall(BenchCUDAMemset(dy, 0xff, ybytes));
    PetscCall(CIHybridDeviceMultTranspose(dev, dx, y0, dy));
    PetscCall(BenchCUDACopyToHost(hy, dy, ybytes));
    BenchCSRMultTranspose(A, hx, mode ? hy0 : NULL, ref, absref);
    stats->worst = PetscMax(stats->worst, BenchMaxRelError(A->ncols, hy, ref, absref));
    stats->runs++;
  }
  PetscCall(BenchCUDAFree(dx));
  PetscCall(BenchCUDAFree(dy0));
  PetscCall(BenchCUDAFree(dy));
  PetscFunctionReturn(0);
}

/* The device fill (CIHybridDeviceCreateFromCSR, CIHybridDeviceCopyValuesFromCSR) must give
   exactly the arrays of the host build: every array downloaded and compared bytewise. */
static PetscErrorCode BenchCompareDeviceFill(CIHybridDevice dev, const CIHybridFormat *fmt, const char *when)
{
  const size_t            slots = (size_t)fmt->nrows * (size_t)fmt->pitch, ncsr = (size_t)fmt->nnz_csr, n = (size_t)fmt->nrows;
  MatCIHybridDeviceArrays d;

  PetscFunctionBegin;
  PetscCall(CIHybridDeviceGetArrays(dev, &d));
  const struct {
    const void *dev, *host;
    size_t      bytes;
    const char *name;
  } arrays[] = {
    {d.ell_col,   fmt->ell_col,   slots * sizeof(int32_t),     "ell_col"  },
    {d.ell_val,   fmt->ell_val,   slots * sizeof(PetscScalar), "ell_val"  },
    {d.ell_len,   fmt->ell_len,   fmt->width ? n * sizeof(int32_t) : 0, "ell_len"  },
    {d.csr_start, fmt->csr_start, n ? (n + 1) * sizeof(int32_t) : 0, "csr_start"},
    {d.csr_col,   fmt->csr_col,   ncsr * sizeof(int32_t),      "csr_col"  },
    {d.csr_val,   fmt->csr_val,   ncsr * sizeof(PetscScalar),  "csr_val"  },
  };

  for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) {
    char *h;

    if (!arrays[k].bytes) continue;
    PetscCall(PetscMalloc1(arrays[k].bytes, &h));
    PetscCall(BenchCUDACopyToHost(h, arrays[k].dev, arrays[k].bytes));
    PetscCheck(!memcmp(h, arrays[k].host, arrays[k].bytes), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device fill %s: %s differs from the host build (%" PetscInt_FMT " x %" PetscInt_FMT ", pitch %" PetscInt_FMT ")", when, arrays[k].name, fmt->nrows, fmt->ncols, fmt->pitch);
    PetscCall(PetscFree(h));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchCheckFormat(BenchCSR *A, CIHybridSplit split, PetscInt boundary, BenchCheckStats *stats)
{
  const PetscInt     lanes[] = {0, 4, 8, 16, 32};
  const PetscInt     nmax    = PetscMax(A->nrows, A->ncols);
  unsigned long long state   = 7;
  CIHybridFormat     fmt;
  CIHybridDevice     dev;
  double            *hxg, *hy0, *hxt, *work, *dxg, *dy0, *dy;

  PetscFunctionBegin;
  BenchCheckBuild(CIHybridBuildFromCSR(A->nrows, A->ncols, A->rowptr, A->colidx, A->vals, split, boundary, &fmt));
  PetscCall(CIHybridDeviceCreateFromCSR(&fmt, A->rowptr, A->colidx, A->vals, &dev));
  PetscCall(BenchCompareDeviceFill(dev, &fmt, "(build)"));
  PetscCall(PetscMalloc4(A->ncols + 2, &hxg, nmax, &hy0, A->nrows, &hxt, 3 * nmax, &work));
  hxg[0] = hxg[A->ncols + 1] = NAN; /* x = hxg + 1 is fenced by NaNs */
  for (PetscInt j = 1; j <= A->ncols; j++) hxg[j] = MatGenUniform(&state);
  for (PetscInt j = 0; j < nmax; j++) hy0[j] = MatGenUniform(&state);
  for (PetscInt i = 0; i < A->nrows; i++) hxt[i] = MatGenUniform(&state);
  PetscCall(BenchCUDAMalloc((void **)&dxg, (size_t)(A->ncols + 2) * sizeof(double), "check: x"));
  PetscCall(BenchCUDAMalloc((void **)&dy0, (size_t)A->nrows * sizeof(double), "check: y0"));
  PetscCall(BenchCUDAMalloc((void **)&dy, (size_t)A->nrows * sizeof(double), "check: y"));
  PetscCall(BenchCUDACopyToDevice(dxg, hxg, (size_t)(A->ncols + 2) * sizeof(double)));
  PetscCall(BenchCUDACopyToDevice(dy0, hy0, (size_t)A->nrows * sizeof(double)));

  PetscCall(BenchCheckMult(dev, A, -1, 32, dxg + 1, hxg + 1, hy0, dy0, dy, work, stats));
  for (int v = 0; v < CIHYBRID_TUNED_NUM_VARIANTS; v++)
    for (size_t l = 0; l < sizeof(lanes) / sizeof(lanes[0]); l++) PetscCall(BenchCheckMult(dev, A, v, lanes[l], dxg + 1, hxg + 1, hy0, dy0, dy, work, stats));
  PetscCall(BenchCheckTranspose(dev, A, hxt, hy0, work, stats));

  /* value refresh: same structure, values scaled by -2 */
  for (PetscInt k = 0; k < (A->nrows ? A->rowptr[A->nrows] : 0); k++) A->vals[k] *= -2.0;
  BenchCheckBuild(CIHybridRefreshValues(A->rowptr, A->vals, &fmt));
  PetscCall(CIHybridDeviceCopyValuesFromCSR(dev, &fmt, A->rowptr, A->vals));
  PetscCall(BenchCompareDeviceFill(dev, &fmt, "(value refresh)"));
  PetscCall(BenchCheckMult(dev, A, -1, 32, dxg + 1, hxg + 1, hy0, dy0, dy, work, stats));
  PetscCall(BenchCheckMult(dev, A, CIHYBRID_TUNED_DEFAULT, 0, dxg + 1, hxg + 1, hy0, dy0, dy, work, stats));
  for (PetscInt k = 0; k < (A->nrows ? A->rowptr[A->nrows] : 0); k++) A->vals[k] /= -2.0;

  PetscCall(BenchCUDAFree(dxg));
  PetscCall(BenchCUDAFree(dy0));
  PetscCall(BenchCUDAFree(dy));
  PetscCall(PetscFree4(hxg, hy0, hxt, work));
  PetscCall(CIHybridDeviceDestroy(&dev));
  CIHybridFormatFree(&fmt);
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchCheckShapes(Bench *b)
{
  const struct {
    PetscInt nrows, ncols, maxlen;
  } cases[] = {
    {0, 5, 0},      /* no rows */
    {5, 0, 0},      /* no columns: every row empty */
    {1, 1, 1},      /* one entry */
    {97, 61, 61},   /* rectangular, lengths 0..61, empty rows */
    {1000, 50, 7},  /* short rows: 4 lanes per row */
    {300, 1000, 600} /* long rows: several passes of a warp */
  };
  BenchCheckStats stats = {0, 0.0};

  PetscFunctionBegin;
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    BenchCSR       A;
    PetscInt       maxlen = 0;
    const PetscInt entry_boundaries[] = {0, 1, 3, 8, 13, -1 /* max row length */, -2 /* beyond it */};

    PetscCall(BenchCSRRandom(cases[c].nrows, cases[c].ncols, cases[c].maxlen, 1000 + c, &A));
    for (PetscInt i = 0; i < A.nrows; i++) maxlen = PetscMax(maxlen, A.rowptr[i + 1] - A.rowptr[i]);
    for (size_t k = 0; k < sizeof(entry_boundaries) / sizeof(entry_boundaries[0]); k++) {
      const PetscInt boundary = entry_boundaries[k] == -1 ? maxlen : entry_boundaries[k] == -2 ? maxlen + 5 : entry_boundaries[k];

      PetscCall(BenchCheckFormat(&A, CIHYBRID_SPLIT_ENTRIES, boundary, &stats));
    }
    PetscCall(BenchCheckFormat(&A, CIHYBRID_SPLIT_COLUMNS, 0, &stats));
    PetscCall(BenchCheckFormat(&A, CIHYBRID_SPLIT_COLUMNS, A.ncols / 3, &stats));
    PetscCall(BenchCheckFormat(&A, CIHYBRID_SPLIT_COLUMNS, A.ncols, &stats));
    PetscCall(BenchCSRFree(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Edge-case checks: %" PetscInt_FMT " runs (paper, %d tuned variants x 5 lane counts, transpose, value refresh; y0 absent/separate/aliased), max rel error %.2e%s\n", stats.runs, (int)CIHYBRID_TUNED_NUM_VARIANTS,
                        stats.worst, stats.worst > BENCH_TOLERANCE ? "  FAILED" : ""));
  if (stats.worst > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Kernel time against the boundary: the paper's "block size" table. */
static PetscErrorCode BenchSweep(Bench *b, const BenchCSR *A, CIHybridSplit split, PetscInt step, PetscInt warmup, PetscInt reps, const double *ref, const double *absref, double *host_y, double bytes)
{
  const CIHybridDevice main_hyb = b->hyb;
  const BenchKernel    paper = {BENCH_PAPER, CIHYBRID_TUNED_DEFAULT, 0}, tuned = {BENCH_TUNED, CIHYBRID_TUNED_DEFAULT, 0};
  PetscInt             last = 0;

  PetscFunctionBegin;
  if (split == CIHYBRID_SPLIT_COLUMNS) last = A->ncols;
  else
    for (PetscInt i = 0; i < A->nrows; i++) last = PetscMax(last, A->rowptr[i + 1] - A->rowptr[i]);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nBoundary sweep (%s): GB/s from the median, same minimal CSR traffic as above\n%8s %6s %11s %11s %10s %9s %9s %10s %10s %9s %10s %9s %11s\n", split == CIHYBRID_SPLIT_ENTRIES ? "entries" : "columns", "boundary",
                        "width", "nnz_ell", "nnz_csr", "padding", "dev_MB", "model_MB", "paper_ms", "paper_min", "paper_GBs", "tuned_ms", "tuned_GBs", "max_rel_err"));
  for (PetscInt boundary = 0;; boundary = PetscMin(boundary + step, last)) {
    CIHybridFormat fmt;
    size_t         dev_bytes;
    double         paper_ms, paper_min, tuned_ms, tuned_min, err_paper, err_tuned, err;

    BenchCheckBuild(CIHybridBuildFromCSR(A->nrows, A->ncols, A->rowptr, A->colidx, A->vals, split, boundary, &fmt));
    PetscCall(CIHybridDeviceCreateFromCSR(&fmt, A->rowptr, A->colidx, A->vals, &b->hyb));
    PetscCall(CIHybridDeviceBytes(b->hyb, &dev_bytes));
    PetscCall(BenchError(b, &paper, ref, absref, host_y, &err_paper));
    PetscCall(BenchError(b, &tuned, ref, absref, host_y, &err_tuned));
    PetscCall(BenchTimeKernel(b, &paper, warmup, reps, &paper_ms, &paper_min));
    PetscCall(BenchTimeKernel(b, &tuned, warmup, reps, &tuned_ms, &tuned_min));
    err = PetscMax(err_paper, err_tuned);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%8" PetscInt_FMT " %6" PetscInt_FMT " %11" PetscInt64_FMT " %11" PetscInt64_FMT " %10" PetscInt64_FMT " %9.1f %9.1f %10.4f %10.4f %9.1f %10.4f %9.1f %11.2e%s\n", boundary, fmt.width, fmt.nnz_ell, fmt.nnz_csr, fmt.padding,
                          dev_bytes / 1e6, CIHybridBytesPerMult(&fmt) / 1e6, paper_ms, paper_min, bytes / (paper_ms * 1e6), tuned_ms, bytes / (tuned_ms * 1e6), err, err > BENCH_TOLERANCE ? "  FAILED" : ""));
    if (b->csv) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "sweep,%s,32,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%zu,%.0f,%.6f,%.6f,%.2f,%.2f,%.2e,,\n", BenchKernelName(&paper), boundary, fmt.width, fmt.nnz_ell, fmt.nnz_csr,
                             fmt.padding, dev_bytes, CIHybridBytesPerMult(&fmt), paper_ms, paper_min, bytes / (paper_ms * 1e6), 100.0 * bytes / (paper_ms * 1e6) / b->read_gbs, err_paper));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "sweep,%s,auto,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%zu,%.0f,%.6f,%.6f,%.2f,%.2f,%.2e,,\n", BenchKernelName(&tuned), boundary, fmt.width, fmt.nnz_ell, fmt.nnz_csr,
                             fmt.padding, dev_bytes, CIHybridBytesPerMult(&fmt), tuned_ms, tuned_min, bytes / (tuned_ms * 1e6), 100.0 * bytes / (tuned_ms * 1e6) / b->read_gbs, err_tuned));
    }
    if (err > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
    PetscCall(CIHybridDeviceDestroy(&b->hyb));
    CIHybridFormatFree(&fmt);
    if (boundary >= last) break;
  }
  b->hyb = main_hyb;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Block products C = A B for dense B of k columns: the CIHYBRID SpMM kernel
   against k tuned SpMVs (one per column) and cuSPARSE SpMM on the same CSR. */
static PetscBool BenchIsCUSPARSESpMM(BenchKind kind)
{
  return kind == BENCH_SPMM_CUSPARSE_DEFAULT || kind == BENCH_SPMM_CUSPARSE_ALG2 ? PETSC_TRUE : PETSC_FALSE;
}

/* Runs k once and returns the worst error over the spmm_k columns of C. */
static PetscErrorCode BenchSpMMError(Bench *b, const BenchKernel *k, const double *ref, const double *absref, double *host_c, double *err)
{
  const size_t cbytes = (size_t)b->nrows * (size_t)b->spmm_k * sizeof(double);

  PetscFunctionBegin;
  /* NaN wherever our kernels do not write; zeros under cuSPARSE, which may read C although beta = 0
     (an entry it did not write then shows as the reference's full size) */
  PetscCall(BenchCUDAMemset(b->C, BenchIsCUSPARSESpMM(k->kind) ? 0 : 0xff, cbytes));
  PetscCall(BenchRun(b, k));
  PetscCall(BenchCUDACopyToHost(host_c, b->C, cbytes));
  *err = 0.0;
  for (PetscInt j = 0; j < b->spmm_k; j++) {
    const size_t off = (size_t)j * (size_t)b->nrows;

    *err = PetscMax(*err, BenchMaxRelError(b->nrows, host_c + off, ref + off, absref + off));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchSpMMReport(Bench *b, const BenchKernel *k, double bytes, double ms_median, double ms_min, double spmvs_ms, double err)
{
  char         lanes_text[16] = "-";
  const double gbs = BenchGBs(bytes, ms_median), pct = BenchPercentOfRead(gbs, b->read_gbs), speedup = spmvs_ms / ms_median;

  PetscFunctionBegin;
  if (k->kind == BENCH_SPMM_SPMVS) {
    PetscInt lanes = b->spmm_lanes;

    if (!lanes) PetscCall(CIHybridDeviceTunedLanesPerRow(b->hyb, CIHYBRID_TUNED_DEFAULT, &lanes));
    snprintf(lanes_text, sizeof(lanes_text), "%d", (int)lanes);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%4d %-28s %5s %10.4f %10.4f %9.1f %7.1f %8.2f %11.2e%s\n", (int)b->spmm_k, BenchKernelName(k), lanes_text, ms_median, ms_min, gbs, pct, speedup, err, err > BENCH_TOLERANCE ? "  FAILED" : ""));
  if (b->csv) PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "spmm,%s,%s,,,,,,,,%.6f,%.6f,%.2f,%.2f,%.2e,%d,%.3f\n", BenchKernelName(k), lanes_text, ms_median, ms_min, gbs, pct, err, (int)b->spmm_k, speedup));
  if (err > BENCH_TOLERANCE) b->failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchSpMM(Bench *b, const BenchCSR *A, PetscInt nks, const PetscInt *ks, PetscInt lanes, PetscInt warmup, PetscInt reps)
{
  const cusparseSpMMAlg_t algs[2] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2};
  const double            one = 1.0, zero = 0.0;
  PetscInt                kmax = 0;
  double                 *hB, *ref, *absref, *host_c;
  PetscLogDouble          t0, t1;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nks; i++) kmax = PetscMax(kmax, ks[i]);
  b->spmm_kmax  = kmax;
  b->spmm_lanes = lanes;
  PetscCall(PetscMalloc4((size_t)A->ncols * kmax, &hB, (size_t)A->nrows * kmax, &ref, (size_t)A->nrows * kmax, &absref, (size_t)A->nrows * kmax, &host_c));
  BenchFillBlock(A->ncols, kmax, hB);
  PetscCall(PetscTime(&t0));
  BenchCSRMultBlock(A->nrows, A->rowptr, A->colidx, A->vals, kmax, hB, A->ncols, ref, absref, A->nrows);
  PetscCall(PetscTime(&t1));
  PetscCall(BenchCUDAMalloc((void **)&b->B, (size_t)A->ncols * kmax * sizeof(double), "the SpMM block B"));
  PetscCall(BenchCUDAMalloc((void **)&b->C, (size_t)A->nrows * kmax * sizeof(double), "the SpMM block C"));
  PetscCall(BenchCUDACopyToDevice(b->B, hB, (size_t)A->ncols * kmax * sizeof(double)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "\nSpMM C = A B, B n x k column-major random (ld n), C ld n (host reference of %d columns: %.1f s on %d threads)\n"
                        "GB/s over the matrix once + B + C = nnz*12 + (n+1)*4 + 16*n*k bytes; x_spmvs = time of the k tuned SpMVs / time\n"
                        "%4s %-28s %5s %10s %10s %9s %7s %8s %11s\n",
                        (int)kmax, t1 - t0, BenchHostThreads(), "k", "kernel", "lanes", "ms_median", "ms_min", "GB/s", "%read", "x_spmvs", "max_rel_err"));
  for (PetscInt i = 0; i < nks; i++) {
    const PetscInt    k        = ks[i];
    const double      bytes    = BenchCSRTrafficBytes(A, k);
    const BenchKernel kernels[] = {
      {BENCH_SPMM_SPMVS,            CIHYBRID_TUNED_DEFAULT, lanes},
      {BENCH_SPMM_CIHYBRID,         CIHYBRID_TUNED_DEFAULT, 0    },
      {BENCH_SPMM_CIHYBRID_COLMAJOR, CIHYBRID_TUNED_DEFAULT, 0    },
      {BENCH_SPMM_CUSPARSE_DEFAULT, CIHYBRID_TUNED_DEFAULT, 0    },
      {BENCH_SPMM_CUSPARSE_ALG2,    CIHYBRID_TUNED_DEFAULT, 0    }
    };
    cusparseStatus_t why[2] = {CUSPARSE_STATUS_SUCCESS, CUSPARSE_STATUS_SUCCESS};
    double           spmvs_ms = 0.0;

    b->spmm_k  = k;
    b->timer.spin_ns = BENCH_SPIN_NS + (unsigned long long)k * BENCH_SPIN_NS_K;
    BenchCallCUSPARSE(cusparseCreateDnMat(&b->mat_B, A->ncols, k, A->ncols, b->B, CUDA_R_64F, CUSPARSE_ORDER_COL));
    BenchCallCUSPARSE(cusparseCreateDnMat(&b->mat_C, A->nrows, k, A->nrows, b->C, CUDA_R_64F, CUSPARSE_ORDER_COL));
    for (int a = 0; a < 2; a++) { /* an algorithm cuSPARSE refuses for this layout is reported, not fatal */
      size_t bytes_a = 0;

      why[a] = cusparseSpMM_bufferSize(b->cusparse.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->cusparse.mat, b->mat_B, &zero, b->mat_C, CUDA_R_64F, algs[a], &bytes_a);
      if (why[a] != CUSPARSE_STATUS_SUCCESS) continue;
      PetscCall(BenchCUDAMalloc(&b->spmm_buffer[a], bytes_a, "the cuSPARSE SpMM buffer"));
      why[a] = cusparseSpMM_preprocess(b->cusparse.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->cusparse.mat, b->mat_B, &zero, b->mat_C, CUDA_R_64F, algs[a], b->spmm_buffer[a]);
    }
    for (size_t q = 0; q < sizeof(kernels) / sizeof(kernels[0]); q++) {
      double err = 0.0, ms_median = 0.0, ms_min = 0.0;

      if (BenchIsCUSPARSESpMM(kernels[q].kind)) {
        const int a = kernels[q].kind == BENCH_SPMM_CUSPARSE_DEFAULT ? 0 : 1;

        if (why[a] != CUSPARSE_STATUS_SUCCESS) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "%4d %-28s refused by cuSPARSE: %s\n", (int)k, BenchKernelName(&kernels[q]), cusparseGetErrorString(why[a])));
          continue;
        }
      }
      PetscCall(BenchSpMMError(b, &kernels[q], ref, absref, host_c, &err));
      PetscCall(BenchTimeKernel(b, &kernels[q], warmup, reps, &ms_median, &ms_min));
      if (kernels[q].kind == BENCH_SPMM_SPMVS) spmvs_ms = ms_median;
      PetscCall(BenchSpMMReport(b, &kernels[q], bytes, ms_median, ms_min, spmvs_ms, err));
    }
    BenchCallCUSPARSE(cusparseDestroyDnMat(b->mat_B));
    BenchCallCUSPARSE(cusparseDestroyDnMat(b->mat_C));
    b->mat_B = NULL;
    b->mat_C = NULL;
    for (int a = 0; a < 2; a++) {
      PetscCall(BenchCUDAFree(b->spmm_buffer[a]));
      b->spmm_buffer[a] = NULL;
    }
  }
  b->timer.spin_ns = BENCH_SPIN_NS;
  PetscCall(BenchCUDAFree(b->B));
  PetscCall(BenchCUDAFree(b->C));
  b->B = b->C = NULL;
  PetscCall(PetscFree4(hB, ref, absref, host_c));
  PetscFunctionReturn(0);
}

/* -host_only: the host products of the CIHYBRID form against the CSR references. */
static PetscErrorCode BenchHostCheck(const BenchCSR *A, const CIHybridFormat *fmt, const double *hx, const double *ref, const double *absref, const double *hxt, const double *reft, const double *absreft, PetscInt nks, const PetscInt *ks, PetscBool *failed)
{
  double *y, *yt, err, errt, errb = 0.0;
  PetscInt kmax = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(A->nrows, &y, A->ncols, &yt));
  CIHybridMultHost(fmt, hx, NULL, y);
  CIHybridMultTransposeHost(fmt, hxt, NULL, yt);
  err  = BenchMaxRelError(A->nrows, y, ref, absref);
  errt = BenchMaxRelError(A->ncols, yt, reft, absreft);
  for (PetscInt i = 0; i < nks; i++) kmax = PetscMax(kmax, ks[i]);
  if (kmax) { /* the block reference, column by column against the CIHYBRID host product */
    double        *hB, *C, *absC;
    PetscLogDouble t0, t1;

    PetscCall(PetscMalloc3((size_t)A->ncols * kmax, &hB, (size_t)A->nrows * kmax, &C, (size_t)A->nrows * kmax, &absC));
    BenchFillBlock(A->ncols, kmax, hB);
    PetscCall(PetscTime(&t0));
    BenchCSRMultBlock(A->nrows, A->rowptr, A->colidx, A->vals, kmax, hB, A->ncols, C, absC, A->nrows);
    PetscCall(PetscTime(&t1));
    for (PetscInt j = 0; j < kmax; j++) {
      CIHybridMultHost(fmt, hB + (size_t)j * A->ncols, NULL, y);
      errb = PetscMax(errb, BenchMaxRelError(A->nrows, y, C + (size_t)j * A->nrows, absC + (size_t)j * A->nrows));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Host block reference of %d columns: %.2f s on %d threads\n", (int)kmax, t1 - t0, BenchHostThreads()));
    PetscCall(PetscFree3(hB, C, absC));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Host check (-host_only): CIHYBRID host SpMV max rel error %.2e, transpose %.2e", err, errt));
  if (kmax) PetscCall(PetscPrintf(PETSC_COMM_SELF, ", %d-column block %.2e", (int)kmax, errb));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  *failed = PetscMax(PetscMax(err, errt), errb) > BENCH_TOLERANCE ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscFree2(y, yt));
  PetscFunctionReturn(0);
}

/* The compressed form of the same matrix (-mat_cihybrid_compress full): its bytes a nonzero and
   its products, GB/s over the bytes it reads (its arrays, x and y), against the hardware */
static PetscErrorCode BenchCompressed(Bench *b, const CIHybridFormat *fmt, PetscInt warmup, PetscInt reps, const double *ref, const double *absref, double *host_y, const double *reft, const double *absreft, double *host_yt)
{
  const BenchKernel      kernels[] = {{BENCH_COMPRESSED, CIHYBRID_TUNED_DEFAULT, 0}, {BENCH_COMPRESSED_GLOBAL, CIHYBRID_TUNED_DEFAULT, 0}}, transpose = {BENCH_COMPRESSED_TRANSPOSE, CIHYBRID_TUNED_DEFAULT, 0};
  CIHybridCompressed     cmp;
  CIHybridCompressStats  st;
  CIHybridCompressStatus status;
  PetscLogDouble         t0, t1, t2;
  double                 err, ms_median, ms_min;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  status = CIHybridCompress(fmt, NULL, &cmp);
  PetscCheck(status == CIHYBRID_COMPRESS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "CIHybridCompress failed: %s", CIHybridCompressStatusString(status));
  PetscCall(PetscTime(&t1));
  CIHybridCompressedGetStats(&cmp, &st);
  PetscCall(CIHybridCompressedDeviceCreate(&cmp, &b->cmp));
  PetscCall(BenchCUDASynchronize());
  PetscCall(PetscTime(&t2));
  CIHybridCompressedFree(&cmp);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nCompressed: %.2f bytes a nonzero (plain %.2f), dictionary of %" PetscInt_FMT " values covering %.1f%% of the nonzeros, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escaped columns; compressed on the host in %.3f s, uploaded in %.3f s\n", st.bytes_per_nonzero, st.plain_bytes_per_nonzero, st.dict_count, 100.0 * st.dict_coverage, st.nnz_explicit, st.escapes, t1 - t0, t2 - t1));
  PetscCall(BenchPrintHeader("SpMV y = A x on the compressed form (GB/s over the bytes it reads)", "lanes"));
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
    PetscCall(BenchError(b, &kernels[k], ref, absref, host_y, &err));
    PetscCall(BenchTimeKernel(b, &kernels[k], warmup, reps, &ms_median, &ms_min));
    PetscCall(BenchReport(b, "spmv_compressed", &kernels[k], st.bytes_per_mult, ms_median, ms_min, err));
  }
  PetscCall(BenchError(b, &transpose, reft, absreft, host_yt, &err));
  PetscCall(BenchTimeKernel(b, &transpose, warmup, PetscMin(reps, 20), &ms_median, &ms_min));
  PetscCall(BenchReport(b, "transpose_compressed", &transpose, st.bytes_per_mult, ms_median, ms_min, err));
  PetscCall(CIHybridCompressedDeviceDestroy(&b->cmp));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
static PetscErrorCode BenchMain(PetscBool *failed)
{
  CISyntheticSpec spec = {32768, 0.1, 0.2, 0.01, PETSC_FALSE, 2018};
  PetscInt        boundary = -1, warmup = 20, reps = 200, lanes = 0, sweep_step = 32, sweep_reps = 50, split_index = 0, seed = 2018;
  PetscReal       bw_gib = 4.0;
  PetscInt        spmm_ks[BENCH_MAX_SPMM], nspmm = BENCH_MAX_SPMM;
  PetscBool       sweep = PETSC_FALSE, check_shapes = PETSC_TRUE, avail, set, host_only = PETSC_FALSE, has_help;
  BenchFCIInfo    fci;
  const char     *split_names[] = {"entries", "columns"}, *why;
  char            boundary_text[64] = "auto", csv_path[PETSC_MAX_PATH_LEN] = "";
  Bench           b;
  BenchCSR        A;
  CIHybridFormat  fmt;
  double         *hx, *ref, *absref, *host_y, *hxt, *reft, *absreft, *host_yt, bytes, t0, t1, t2, t3, host_build_s;
  BenchBandwidth  bw;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&b, sizeof(b)));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &spec.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  spec.seed = (unsigned long)seed;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ref_fraction", &spec.ref_fraction, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ref_density", &spec.ref_density, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-density", &spec.density, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-boundary", boundary_text, sizeof(boundary_text), &set));
  if (set && strcmp(boundary_text, "auto")) PetscCall(PetscOptionsStringToInt(boundary_text, &boundary));
  PetscCall(PetscOptionsGetEList(NULL, NULL, "-split", split_names, 2, &split_index, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-lanes_per_row", &lanes, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bw_gib", &bw_gib, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-sweep", &sweep, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sweep_step", &sweep_step, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sweep_reps", &sweep_reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_shapes", &check_shapes, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv_path, sizeof(csv_path), NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-spmm_k", spmm_ks, &nspmm, &set));
  if (!set) nspmm = 0;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_only", &host_only, NULL));
  PetscCheck(spec.n > 0 && reps > 0 && warmup >= 0 && sweep_step > 0 && sweep_reps > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -n, -reps, -sweep_step, -sweep_reps > 0 and -warmup >= 0");
  for (PetscInt i = 0; i < nspmm; i++) PetscCheck(spmm_ks[i] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-spmm_k: every k must be positive, not %" PetscInt_FMT, spmm_ks[i]);
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (has_help) PetscFunctionReturn(0); /* PetscInitialize printed the help */

  if (!host_only) {
    PetscCall(GpuMatsCUDAInitialize(&avail, &why));
    PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "bench_cihybrid needs a CUDA device: %s", why);
    PetscCall(BenchTimerCreate(&b.timer));
    PetscCall(BenchPrintDevice());
    if (csv_path[0]) {
      PetscCall(PetscFOpen(PETSC_COMM_SELF, csv_path, "w", &b.csv));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, b.csv, "table,kernel,lanes,boundary,width,nnz_ell,nnz_csr,padding,device_bytes,model_bytes,ms_median,ms_min,gbs,pct_read,max_rel_err,k,speedup_vs_spmvs\n"));
    }
    if (check_shapes) PetscCall(BenchCheckShapes(&b));
    PetscCall(BenchMeasureBandwidth(&b.timer, bw_gib, 20, &bw));
    b.read_gbs = bw.read_gbs;
    PetscCall(BenchPrintBandwidth(&bw));
    PetscCall(BenchCSVLine(&b, "bandwidth", "read_bandwidth", "-", bw.read_ms, bw.read_min, bw.read_gbs, -1));
    PetscCall(BenchCSVLine(&b, "bandwidth", "copy_bandwidth", "-", bw.copy_ms, bw.copy_min, BenchGBs((double)bw.bytes, bw.copy_ms), -1));
  }

  /* the matrix (FCI rows or synthetic), its CIHYBRID form and the host reference */
  PetscCall(PetscTime(&t0));
  PetscCall(BenchFCIMatrix(&fci, &A.nrows, &A.rowptr, &A.colidx, &A.vals));
  if (fci.used) A.ncols = A.nrows;
  else PetscCall(BenchCSRFromSynthetic(&spec, &A));
  PetscCall(PetscTime(&t1));
  b.nrows = A.nrows;
  b.ncols = A.ncols;
  b.nnz   = A.rowptr[A.nrows];
  PetscCheck(boundary >= 0 || split_index == CIHYBRID_SPLIT_ENTRIES || !fci.used, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-split columns on an FCI matrix: give -boundary <column>");
  if (boundary < 0) /* entries: the byte model's choice; columns: the edge of the reference block */
    boundary = split_index == CIHYBRID_SPLIT_ENTRIES ? CIHybridChooseBoundary(A.nrows, A.rowptr, NULL) : (PetscInt)floor(spec.ref_fraction * spec.n + 0.5);
  PetscCall(PetscTime(&t2));
  BenchCheckBuild(CIHybridBuildFromCSR(A.nrows, A.ncols, A.rowptr, A.colidx, A.vals, (CIHybridSplit)split_index, boundary, &fmt));
  PetscCall(PetscTime(&t3));
  host_build_s = t3 - t2;
  PetscCall(PetscMalloc4(A.ncols, &hx, A.nrows, &ref, A.nrows, &absref, A.nrows, &host_y));
  PetscCall(PetscMalloc4(A.nrows, &hxt, A.ncols, &reft, A.ncols, &absreft, A.ncols, &host_yt));
  BenchFillX(A.ncols, hx);
  BenchFillX(A.nrows, hxt);
  BenchCSRMult(&A, hx, NULL, ref, absref);
  BenchCSRMultTranspose(&A, hxt, NULL, reft, absreft);
  bytes = BenchCSRTrafficBytes(&A, 1);
  if (fci.used)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nMatrix: %s\n        n %" PetscInt_FMT ", nnz %" PetscInt_FMT " (%.1f a row, longest %" PetscInt64_FMT "), built in %.1f s (integrals, space, tables %.1f s; rows %.1f s on %d threads)\n", fci.description, A.nrows, b.nnz, (double)b.nnz / A.nrows,
                          fmt.max_row_len, t1 - t0, fci.setup_seconds, fci.rows_seconds, fci.threads));
  else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nMatrix: n %" PetscInt_FMT ", nnz %" PetscInt_FMT " (%.1f a row, longest %" PetscInt64_FMT "), generated in %.1f s; ref_fraction %g ref_density %g density %g seed %" PetscInt_FMT "\n", A.nrows, b.nnz, (double)b.nnz / A.nrows, fmt.max_row_len,
                          t1 - t0, spec.ref_fraction, spec.ref_density, spec.density, seed));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "CIHYBRID: split %s, boundary %" PetscInt_FMT "%s, width %" PetscInt_FMT ", pitch %" PetscInt_FMT ", nnz_ell %" PetscInt64_FMT ", nnz_csr %" PetscInt64_FMT ", padding %" PetscInt64_FMT ", rows with remainder %" PetscInt64_FMT "\n",
                        split_names[split_index], boundary, strcmp(boundary_text, "auto") ? "" : " (auto)", fmt.width, fmt.pitch, fmt.nnz_ell, fmt.nnz_csr, fmt.padding, fmt.rows_with_csr));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Minimal CSR traffic per SpMV: %.1f MB (GB/s below = this / median time)\n", bytes / 1e6));
  if (host_only) {
    PetscCall(BenchHostCheck(&A, &fmt, hx, ref, absref, hxt, reft, absreft, nspmm, spmm_ks, &b.failed));
    PetscCall(PetscFree4(hx, ref, absref, host_y));
    PetscCall(PetscFree4(hxt, reft, absreft, host_yt));
    CIHybridFormatFree(&fmt);
    PetscCall(BenchCSRFree(&A));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", b.failed ? "FAILED: some host product's error exceeds 1e-12" : "Host products within 1e-12 of the host CSR reference (no device run: -host_only)"));
    *failed = b.failed;
    PetscFunctionReturn(0);
  }

  /* device copies */
  PetscCall(BenchCUDAMalloc((void **)&b.x, (size_t)A.ncols * sizeof(double), "x"));
  PetscCall(BenchCUDAMalloc((void **)&b.y, (size_t)A.nrows * sizeof(double), "y"));
  PetscCall(BenchCUDAMalloc((void **)&b.xt, (size_t)A.nrows * sizeof(double), "transpose x"));
  PetscCall(BenchCUDAMalloc((void **)&b.yt, (size_t)A.ncols * sizeof(double), "transpose y"));
  PetscCall(BenchCUDACopyToDevice(b.x, hx, (size_t)A.ncols * sizeof(double)));
  PetscCall(BenchCUDACopyToDevice(b.xt, hxt, (size_t)A.nrows * sizeof(double)));
  {
    PetscLogDouble t0, t1;

    PetscCall(BenchCUDASynchronize());
    PetscCall(PetscTime(&t0));
    PetscCall(CIHybridDeviceCreateFromCSR(&fmt, A.rowptr, A.colidx, A.vals, &b.hyb));
    PetscCall(BenchCUDASynchronize());
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Device format from the CSR arrays (upload of %.0f MB and fill): %.3f s; host build (CIHybridBuildFromCSR) above: %.3f s\n", (double)fmt.nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) / 1e6, t1 - t0, host_build_s));
  }
  PetscCall(BenchCUSPARSECreate(&A, b.timer.stream, b.x, b.y, &b.cusparse));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(BenchPETScCreate(&A, hx, &b.petsc));
#endif

  {
    BenchKernel kernels[3 + CIHYBRID_TUNED_NUM_VARIANTS + 1];
    int         nk = 0;

    kernels[nk++] = {BENCH_CUSPARSE_ALG1, CIHYBRID_TUNED_DEFAULT, 0};
    kernels[nk++] = {BENCH_CUSPARSE_ALG2, CIHYBRID_TUNED_DEFAULT, 0};
#if defined(PETSC_HAVE_CUDA)
    kernels[nk++] = {BENCH_PETSC_AIJCUSPARSE, CIHYBRID_TUNED_DEFAULT, 0};
#endif
    kernels[nk++] = {BENCH_PAPER, CIHYBRID_TUNED_DEFAULT, 0};
    for (int v = 0; v < CIHYBRID_TUNED_NUM_VARIANTS; v++) kernels[nk++] = {BENCH_TUNED, (CIHybridTunedVariant)v, lanes};
    PetscCall(BenchPrintHeader("SpMV y = A x (* marks the variant CIHYBRID_KERNEL_TUNED runs)", "lanes"));
    for (int k = 0; k < nk; k++) {
      double err, ms_median, ms_min;

      PetscCall(BenchError(&b, &kernels[k], ref, absref, host_y, &err));
      PetscCall(BenchTimeKernel(&b, &kernels[k], warmup, reps, &ms_median, &ms_min));
      PetscCall(BenchReport(&b, "spmv", &kernels[k], bytes, ms_median, ms_min, err));
    }
  }
  {
    const BenchKernel transpose = {BENCH_TRANSPOSE, CIHYBRID_TUNED_DEFAULT, 0};
    double            err, ms_median, ms_min;

    PetscCall(BenchPrintHeader("SpMV y = A^T x (atomics; same traffic count)", "lanes"));
    PetscCall(BenchError(&b, &transpose, reft, absreft, host_yt, &err));
    PetscCall(BenchTimeKernel(&b, &transpose, warmup, PetscMin(reps, 20), &ms_median, &ms_min));
    PetscCall(BenchReport(&b, "transpose", &transpose, bytes, ms_median, ms_min, err));
  }
  PetscCall(BenchCompressed(&b, &fmt, warmup, reps, ref, absref, host_y, reft, absreft, host_yt));
  if (nspmm) PetscCall(BenchSpMM(&b, &A, nspmm, spmm_ks, lanes, warmup, reps));
  if (sweep) PetscCall(BenchSweep(&b, &A, (CIHybridSplit)split_index, sweep_step, PetscMin(warmup, 5), sweep_reps, ref, absref, host_y, bytes));

  /* release */
#if defined(PETSC_HAVE_CUDA)
  PetscCall(BenchPETScDestroy(&b.petsc));
#endif
  PetscCall(BenchCUSPARSEDestroy(&b.cusparse));
  PetscCall(CIHybridDeviceDestroy(&b.hyb));
  PetscCall(BenchCUDAFree(b.x));
  PetscCall(BenchCUDAFree(b.y));
  PetscCall(BenchCUDAFree(b.xt));
  PetscCall(BenchCUDAFree(b.yt));
  PetscCall(BenchTimerDestroy(&b.timer));
  PetscCall(PetscFree4(hx, ref, absref, host_y));
  PetscCall(PetscFree4(hxt, reft, absreft, host_yt));
  CIHybridFormatFree(&fmt);
  PetscCall(BenchCSRFree(&A));
  if (b.csv) PetscCall(PetscFClose(PETSC_COMM_SELF, b.csv));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n", b.failed ? "FAILED: some kernel's error exceeds 1e-12" : "All kernels within 1e-12 of the host CSR reference"));
  *failed = b.failed;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return BenchMainOneRank(argc, argv, help, "bench_cihybrid", BenchMain);
}
