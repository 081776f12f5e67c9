/* Correctness of the DIAG device kernels (cuda/diag/) against the host kernels of
   src/diag/diag_host.c (themselves checked against dense references by
   test_diag_format): HM and CDM, y = A x and y = A^T x, y0 NULL, distinct or y itself,
   outputs poisoned with NaN first, on 0x0, 1x1, rectangular HM, banded (bandwidth 1 to
   50), structured sparse with more diagonals than a shared-memory tile (600), and
   n = 1e5; also after new values.  The product C = A B on banded, structured-sparse and
   rectangular (HM) matrices, in one scheme and mixed (HM x CDM, CDM x HM), against the host
   twin of the plan, again after A's values change, by our kernels (pairs, staged, blocks,
   sweep, banded, shuffle; the sweep kernel's edges: rectangular bands, lopsided bands with
   holes, C's sums beyond one block of warps, n below the band; the shuffle kernel's C the pairs
   kernel's bit for bit, with 4 and 2 rows a lane), the paper's
   Algorithm 2 (HM, atomic) and Algorithm 1 (CDM, tiled; banded of widths 1 to 41,
   structured sparse with 5 and 40 random offsets, n = 1, 7, 100, 1000), C poisoned with
   NaN first.  The SpMM C = A B (+ C) against k SpMVs of the host for k = 0, 1, 3, 8, 9,
   17 with padded leading dimensions, on HM (square, rectangular, no rows, no columns) and
   CDM matrices.  -banded_n <140000>: rows of the banded-kernel products (at least 32768 for
   the kernel to be taken: 1024 blocks of 32 rows; smaller for racecheck's sake).  Prints
   "skipped" and exits 0 without a usable device; exits 1 when a check fails. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testexit.h"
extern "C" {
#include "cuda/common/gpumats_cuda.h"
#include "cuda/diag/diag_cuda.h"
#include "diag/diag_format.h" /* the host kernels */
}

static const char help[] = "DIAG device kernels against the host kernels\n";

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double Uniform(void) /* [-1, 1) */
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* New random values on the stored entries of f; the padding (CDM: the rows of a compact diagonal
   whose part is absent) stays 0, as every builder leaves it: it is not part of the matrix. */
static void NewValues(DiagFormat *f)
{
  for (PetscInt t = 0; t < f->ndiag; t++) {
    const PetscInt d = f->offset[t], len = (PetscInt)(f->start[t + 1] - f->start[t]);

    for (PetscInt i = 0; i < len; i++) {
      PetscBool entry = PETSC_TRUE;

      if (f->scheme == DIAG_SCHEME_CDM) entry = (PetscBool)(i < f->ncols - d ? (f->part[t] & DIAG_PART_UPPER) != 0 : (f->part[t] & DIAG_PART_LOWER) != 0);
      f->val[f->start[t] + i] = entry ? Uniform() : 0.0;
    }
  }
}


/* m x n CSR with entries on the given offsets (d = j - i), each kept with probability keep */
static void RandomCSR(PetscInt m, PetscInt n, PetscInt noff, const PetscInt *off, double keep, PetscInt **ai, PetscInt **aj, double **aa)
{
  PetscInt nnz = 0;

  *ai = (PetscInt *)malloc(sizeof(PetscInt) * (m + 1));
  *aj = (PetscInt *)malloc(sizeof(PetscInt) * ((size_t)m * noff + 1));
  *aa = (double *)malloc(sizeof(double) * ((size_t)m * noff + 1));
  for (PetscInt i = 0; i < m; i++) {
    (*ai)[i] = nnz;
    for (PetscInt t = 0; t < noff; t++) {
      const PetscInt j = i + off[t];

      if (j >= 0 && j < n && (Uniform() + 1) * 0.5 < keep) (*aj)[nnz] = j, (*aa)[nnz++] = Uniform() + 1.5;
    }
  }
  (*ai)[m] = nnz;
}

static PetscErrorCode CompareOne(DiagDevice dev, const DiagFormat *f, const char *what, int *failures)
{
  const PetscInt nmax = PetscMax(f->nrows, f->ncols) + 1;
  double        *hx, *hy0, *hy, *ref, *dx, *dy0, *dy;

  PetscFunctionBeginUser;
  hx  = (double *)malloc(sizeof(double) * nmax);
  hy0 = (double *)malloc(sizeof(double) * nmax);
  hy  = (double *)malloc(sizeof(double) * nmax);
  ref = (double *)malloc(sizeof(double) * nmax);
  for (PetscInt k = 0; k < nmax; k++) hx[k] = Uniform(), hy0[k] = Uniform();
  PetscCall(GpuMatsCUDAMalloc((void **)&dx, sizeof(double) * nmax, "x"));
  PetscCall(GpuMatsCUDAMalloc((void **)&dy0, sizeof(double) * nmax, "y0"));
  PetscCall(GpuMatsCUDAMalloc((void **)&dy, sizeof(double) * nmax, "y"));
  PetscCall(GpuMatsCUDACopyToDevice(dx, hx, sizeof(double) * nmax));
  PetscCall(GpuMatsCUDACopyToDevice(dy0, hy0, sizeof(double) * nmax));
  for (int transpose = 0; transpose < 2; transpose++) {
    const PetscInt ny = transpose ? f->ncols : f->nrows;

    for (int add = 0; add < 3; add++) {
      double err = 0, nrm = 0;

      if (transpose) DiagMultTransposeHost(f, hx, add ? hy0 : NULL, ref);
      else DiagMultHost(f, hx, add ? hy0 : NULL, ref);
      if (add == 2) PetscCall(GpuMatsCUDACopyToDevice(dy, hy0, sizeof(double) * nmax));
      else {
        for (PetscInt k = 0; k < nmax; k++) hy[k] = NAN;
        PetscCall(GpuMatsCUDACopyToDevice(dy, hy, sizeof(double) * nmax));
      }
      PetscCall(DiagDeviceMult(dev, (PetscBool)transpose, dx, add == 0 ? NULL : add == 1 ? dy0 : dy, dy));
      PetscCall(GpuMatsCUDACopyToHost(hy, dy, sizeof(double) * nmax));
      for (PetscInt k = 0; k < ny; k++) err += (hy[k] - ref[k]) * (hy[k] - ref[k]), nrm += ref[k] * ref[k];
      if (!(sqrt(err) <= 1e-13 * sqrt(nrm) + 1e-300 || (ny == 0))) {
        (*failures)++;
        printf("FAILED %s: %s, y0 %s: relative error %g\n", what, transpose ? "A^T x" : "A x", add == 0 ? "NULL" : add == 1 ? "distinct" : "== y", nrm > 0 ? sqrt(err / nrm) : sqrt(err));
      }
    }
  }
  PetscCall(GpuMatsCUDAFree(dx));
  PetscCall(GpuMatsCUDAFree(dy0));
  PetscCall(GpuMatsCUDAFree(dy));
  free(hx), free(hy0), free(hy), free(ref);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckMatrix(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt noff, const PetscInt *off, double keep, const char *what, int *failures)
{
  PetscInt  *ai, *aj;
  double    *aa;
  DiagFormat f;
  DiagDevice dev;
  char       name[256];

  PetscFunctionBeginUser;
  RandomCSR(m, n, noff, off, keep, &ai, &aj, &aa);
  PetscCheck(DiagFromCSR(scheme, m, n, ai, aj, aa, 0, NULL, &f) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: DiagFromCSR failed", what);
  PetscCall(DiagDeviceCreate(&f, &dev));
  snprintf(name, sizeof(name), "%s %s %dx%d, %d diagonals", scheme == DIAG_SCHEME_HM ? "HM" : "CDM", what, (int)m, (int)n, (int)f.ndiag);
  PetscCall(CompareOne(dev, &f, name, failures));
  NewValues(&f); /* new values, same diagonals */
  PetscCall(DiagDeviceCopyValues(dev, &f));
  PetscCall(CompareOne(dev, &f, name, failures));
  PetscCall(DiagDeviceDestroy(&dev));
  DiagFormatFree(&f);
  free(ai), free(aj), free(aa);
  PetscFunctionReturn(0);
}

/* Relative error of the n values y against ref (NaN in y fails: the comparison is false) */
static int WithinTolerance(PetscInt64 n, const double *y, const double *ref, double tol, double *rel)
{
  double err = 0, nrm = 0;

  for (PetscInt64 q = 0; q < n; q++) err += (y[q] - ref[q]) * (y[q] - ref[q]), nrm += ref[q] * ref[q];
  *rel = nrm > 0 ? sqrt(err / nrm) : sqrt(err);
  return sqrt(err) <= tol * sqrt(nrm) + 1e-300 || n == 0;
}

/* C = A B on the device against the host twin (DiagProductPlanNumericHost, itself checked
   against MATAIJ by test_diag_products): A (m x k, scheme sa) with entries on offsets offa, B
   (k x n, scheme sb) on offsets offb, each entry kept with probability keep; our kernel, the
   pairs, staged and blocks kernels, the sweep, banded and shuffle ones where they apply, the
   paper's Algorithm 2 (all HM, atomic) and Algorithm 1 (all CDM, tiled), each on a C poisoned
   with NaN, then again after A's values change.  C's device copy is made without values, as the
   product type makes it.  One line per kernel and pass; the kernel DiagDeviceProductKernelName
   names must give ours bit for bit (no kernel of ours has atomics), and the shuffle kernel the
   pairs kernel's C bit for bit (the same sums in the same order). */
static PetscErrorCode CheckProductMixed(DiagScheme sa, DiagScheme sb, PetscInt m, PetscInt k, PetscInt n, PetscInt noffa, const PetscInt *offa, PetscInt noffb, const PetscInt *offb, double keep, const char *what, int *failures)
{
  static const char *const variant_name[] = {"ours", "atomic (Algorithm 2)", "tiled (Algorithm 1)", "pairs", "staged", "blocks", "sweep", "banded", "shuffle"};
  PetscInt                *ai, *aj, *bi, *bj;
  double                  *aa, *ba, *dval, *oval, *pval;
  const char              *ours;
  DiagFormat               A, B, C;
  DiagProductPlan          plan;
  DiagDevice               dA, dB, dC;
  DiagDeviceProduct        prod;
  char                     sname[16];

  PetscFunctionBeginUser;
  snprintf(sname, sizeof(sname), "%s%s%s", sa == DIAG_SCHEME_HM ? "HM" : "CDM", sa == sb ? "" : "x", sa == sb ? "" : (sb == DIAG_SCHEME_HM ? "HM" : "CDM"));
  RandomCSR(m, k, noffa, offa, keep, &ai, &aj, &aa);
  RandomCSR(k, n, noffb, offb, keep, &bi, &bj, &ba);
  PetscCheck(DiagFromCSR(sa, m, k, ai, aj, aa, 0, NULL, &A) == DIAG_OK && DiagFromCSR(sb, k, n, bi, bj, ba, 0, NULL, &B) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: build", what);
  PetscCheck(DiagProductPlanCreate(&A, &B, &plan, &C) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the plan", what);
  PetscCall(DiagDeviceCreate(&A, &dA));
  PetscCall(DiagDeviceCreate(&B, &dB));
  PetscCall(DiagDeviceCreate(&C, &dC)); /* C.val NULL: no values uploaded */
  PetscCall(DiagDeviceProductCreate(&plan, &A, &B, &C, &prod));
  PetscCall(DiagDeviceProductBlocksCreate(prod, &plan, &C)); /* where ours does not take it */
  PetscCall(DiagDeviceProductKernelName(prod, &ours));
  C.val = (double *)calloc((size_t)C.start[C.ndiag] + 1, sizeof(double));
  dval  = (double *)malloc(sizeof(double) * (C.start[C.ndiag] + 1));
  oval  = (double *)malloc(sizeof(double) * (C.start[C.ndiag] + 1));
  pval  = (double *)malloc(sizeof(double) * (C.start[C.ndiag] + 1));
  for (int pass = 0; pass < 2; pass++) {
    double          *hval = C.val, rel;
    const PetscInt64 nv   = C.start[C.ndiag];

    if (pass) { /* new values of A, same diagonals */
      NewValues(&A);
      PetscCall(DiagDeviceCopyValues(dA, &A));
    }
    DiagProductPlanNumericHost(&plan, &A, &B, &C);
    for (int variant = 0; variant < 9; variant++) {
      int T = 0; /* the banded kernel's rows a tile, the shuffle kernel's rows a lane */

      const double tol = 1e-12;
      int          ok;

      if (variant == 1 && !(sa == DIAG_SCHEME_HM && sb == DIAG_SCHEME_HM)) continue;
      if (variant == 2 && !(sa == DIAG_SCHEME_CDM && sb == DIAG_SCHEME_CDM)) continue;
      if (variant == 5 && C.scheme == DIAG_SCHEME_CDM && m != n) continue; /* no schedule: checked below */
      if (variant == 4) { /* only where A's diagonals fit the staged kernel's shared memory */
        PetscCall(DiagDeviceProductStagedRows(prod, &T));
        if (!T) continue;
      }
      if (variant == 7) { /* only for banded CDM operands whose tiles fit (the sweep kernel takes most) */
        PetscCall(DiagDeviceProductBandedRows(prod, &T));
        if (!T) continue;
      }
      if (variant == 8) { /* only where A's diagonals fit the shuffle kernel */
        PetscCall(DiagDeviceProductShuffleRows(prod, &T));
        if (!T) continue;
      }
      if (variant == 6) { /* only for bands that fit the sweep kernel */
        PetscBool applies;

        PetscCall(DiagDeviceProductSweepApplies(prod, &applies));
        if (!applies) continue;
      }
      for (PetscInt64 q = 0; q < nv; q++) dval[q] = NAN; /* an entry the kernel does not write fails */
      C.val = dval;
      PetscCall(DiagDeviceCopyValues(dC, &C));
      if (variant == 0) PetscCall(DiagDeviceProductNumeric(prod, dA, dB, dC));
      else if (variant == 1) PetscCall(DiagDeviceProductNumericAtomic(prod, dA, dB, dC));
      else if (variant == 2) PetscCall(DiagDeviceProductNumericTiled(prod, dA, dB, dC));
      else if (variant == 3) PetscCall(DiagDeviceProductNumericPairs(prod, dA, dB, dC));
      else if (variant == 4) PetscCall(DiagDeviceProductNumericStaged(prod, dA, dB, dC));
      else if (variant == 5) PetscCall(DiagDeviceProductNumericBlocks(prod, dA, dB, dC));
      else if (variant == 6) PetscCall(DiagDeviceProductNumericSweep(prod, dA, dB, dC));
      else if (variant == 7) PetscCall(DiagDeviceProductNumericBanded(prod, T, dA, dB, dC));
      else PetscCall(DiagDeviceProductNumericShuffle(prod, dA, dB, dC));
      PetscCall(DiagDeviceGetValues(dC, &C));
      C.val = hval;
      ok    = WithinTolerance(nv, dval, hval, tol, &rel);
      if (!ok) (*failures)++;
      printf("%s %s %s: C = A B (%d, %d and %d diagonals, %lld pairs), %s, pass %d: relative error %.2e\n", ok ? "ok    " : "FAILED", sname, what, (int)A.ndiag, (int)B.ndiag, (int)C.ndiag, (long long)plan.npairs, variant_name[variant], pass, rel);
      if (variant == 0) memcpy(oval, dval, sizeof(double) * nv);
      else if (!strcmp(ours, variant_name[variant])) {
        ok = !memcmp(oval, dval, sizeof(double) * nv);
        if (!ok) (*failures)++;
        printf("%s %s %s: ours is the %s kernel (DiagDeviceProductKernelName), pass %d: %s\n", ok ? "ok    " : "FAILED", sname, what, ours, pass, ok ? "the same C bit for bit" : "a different C");
      }
      if (variant == 3) memcpy(pval, dval, sizeof(double) * nv);
      if (variant == 8) {
        ok = !memcmp(pval, dval, sizeof(double) * nv);
        if (!ok) (*failures)++;
        printf("%s %s %s: the shuffle kernel (%d rows a lane) against the pairs kernel, pass %d: %s\n", ok ? "ok    " : "FAILED", sname, what, T, pass, ok ? "the same C bit for bit" : "a different C");
      }
    }
  }
  PetscCall(DiagDeviceProductDestroy(&prod));
  PetscCall(DiagDeviceDestroy(&dA));
  PetscCall(DiagDeviceDestroy(&dB));
  PetscCall(DiagDeviceDestroy(&dC));
  DiagProductPlanFree(&plan);
  DiagFormatFree(&A), DiagFormatFree(&B), DiagFormatFree(&C);
  free(ai), free(aj), free(aa), free(bi), free(bj), free(ba), free(dval), free(oval), free(pval);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckProduct(DiagScheme scheme, PetscInt m, PetscInt k, PetscInt n, PetscInt noffa, const PetscInt *offa, PetscInt noffb, const PetscInt *offb, double keep, const char *what, int *failures)
{
  PetscFunctionBeginUser;
  PetscCall(CheckProductMixed(scheme, scheme, m, k, n, noffa, offa, noffb, offb, keep, what, failures));
  PetscFunctionReturn(0);
}

/* The tiled product (the paper's Algorithm 1, CDM) on the edge cases: banded, structured
   sparse with random offsets (A's and B's drawn apart), banded times structured, for several n */
static PetscErrorCode CheckTiledProducts(int *failures)
{
  static const PetscInt sizes[] = {1, 7, 100, 1000}, widths[] = {1, 3, 17, 41}, nrandom[] = {5, 40};
  PetscInt              offa[128], offb[128], na, nb;
  char                  what[128];

  PetscFunctionBeginUser;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    const PetscInt n = sizes[s];
    const double   keep = n <= 7 ? 1.0 : 0.9;

    for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) { /* bands -w..w: 2w+1 diagonals, wider than a tile from w = 17 on */
      na = 0;
      for (PetscInt d = -widths[w]; d <= widths[w]; d++) offa[na++] = d;
      snprintf(what, sizeof(what), "tiled, banded w %d, n %d", (int)widths[w], (int)n);
      PetscCall(CheckProduct(DIAG_SCHEME_CDM, n, n, n, na, offa, na, offa, keep, what, failures));
    }
    for (size_t r = 0; r < sizeof(nrandom) / sizeof(nrandom[0]); r++) {
      na = nb = 0;
      for (PetscInt t = 0; t < nrandom[r]; t++) {
        offa[na++] = (PetscInt)((Uniform() + 1) * 0.5 * (2 * n - 1)) - (n - 1);
        offb[nb++] = (PetscInt)((Uniform() + 1) * 0.5 * (2 * n - 1)) - (n - 1);
      }
      snprintf(what, sizeof(what), "tiled, structured %d random offsets, n %d", (int)nrandom[r], (int)n);
      PetscCall(CheckProduct(DIAG_SCHEME_CDM, n, n, n, na, offa, nb, offb, keep, what, failures));
    }
    na = 0;
    for (PetscInt d = -17; d <= 17; d++) offa[na++] = d;
    nb = 0;
    for (PetscInt t = 0; t < 5; t++) offb[nb++] = (PetscInt)((Uniform() + 1) * 0.5 * (2 * n - 1)) - (n - 1);
    snprintf(what, sizeof(what), "tiled, banded w 17 times 5 random offsets, n %d", (int)n);
    PetscCall(CheckProduct(DIAG_SCHEME_CDM, n, n, n, na, offa, nb, offb, keep, what, failures));
  }
  PetscFunctionReturn(0);
}

/* DiagDeviceSpMM against k calls of DiagMultHost: k in {0, 1, 3, 8, 9, 17}, ldb > ncols
   (B's padding rows NaN: reading one fails), ldc > nrows (C's padding rows a sentinel that
   must survive), add or not (not: C poisoned with NaN first) */
static PetscErrorCode CheckSpMM(DiagScheme scheme, PetscInt m, PetscInt n, PetscInt noff, const PetscInt *off, double keep, const char *what, int *failures)
{
  static const PetscInt ks[] = {0, 1, 3, 8, 9, 17};
  const double          sentinel = 4242.0;
  const PetscInt        ldb = n + 3, ldc = m + 5;
  PetscInt             *ai, *aj;
  double               *aa;
  DiagFormat            f;
  DiagDevice            dev;

  PetscFunctionBeginUser;
  RandomCSR(m, n, noff, off, keep, &ai, &aj, &aa);
  PetscCheck(DiagFromCSR(scheme, m, n, ai, aj, aa, 0, NULL, &f) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: DiagFromCSR failed", what);
  PetscCall(DiagDeviceCreate(&f, &dev));
  for (size_t kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++) {
    const PetscInt k  = ks[kk];
    const size_t   nb = (size_t)PetscMax(ldb * k, 1), nc = (size_t)PetscMax(ldc * k, 1);
    double        *hB = (double *)malloc(sizeof(double) * nb), *hC0 = (double *)malloc(sizeof(double) * nc), *hC = (double *)malloc(sizeof(double) * nc);
    double        *ref = (double *)malloc(sizeof(double) * (size_t)PetscMax(m * k, 1)), *got = (double *)malloc(sizeof(double) * (size_t)PetscMax(m * k, 1));
    double        *dB, *dC;

    PetscCheck(hB && hC0 && hC && ref && got, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s: host blocks for k = %d", what, (int)k);
    for (PetscInt c = 0; c < k; c++)
      for (PetscInt r = 0; r < ldb; r++) hB[c * ldb + r] = r < n ? Uniform() : NAN;
    PetscCall(GpuMatsCUDAMalloc((void **)&dB, sizeof(double) * nb, "B"));
    PetscCall(GpuMatsCUDAMalloc((void **)&dC, sizeof(double) * nc, "C"));
    PetscCall(GpuMatsCUDACopyToDevice(dB, hB, sizeof(double) * nb));
    for (int add = 0; add < 2; add++) {
      PetscInt64 bad_padding = 0;
      double     rel;
      int        ok;

      for (PetscInt c = 0; c < k; c++) {
        for (PetscInt r = 0; r < ldc; r++) hC0[c * ldc + r] = r >= m ? sentinel : add ? Uniform() : NAN;
        DiagMultHost(&f, hB + c * ldb, add ? hC0 + c * ldc : NULL, ref + c * m);
      }
      PetscCall(GpuMatsCUDACopyToDevice(dC, hC0, sizeof(double) * nc));
      PetscCall(DiagDeviceSpMM(dev, k, dB, ldb, (PetscBool)add, dC, ldc));
      PetscCall(GpuMatsCUDACopyToHost(hC, dC, sizeof(double) * nc));
      for (PetscInt c = 0; c < k; c++)
        for (PetscInt r = 0; r < ldc; r++) {
          if (r < m) got[c * m + r] = hC[c * ldc + r];
          else bad_padding += !(hC[c * ldc + r] == sentinel);
        }
      ok = WithinTolerance((PetscInt64)m * k, got, ref, 1e-12, &rel) && !bad_padding;
      if (!ok) (*failures)++;
      printf("%s %s %s %dx%d (%d diagonals): SpMM k %d, ldb %d, ldc %d, %s: relative error %.2e, %lld padding entries of C changed\n", ok ? "ok    " : "FAILED", scheme == DIAG_SCHEME_HM ? "HM" : "CDM", what, (int)m, (int)n, (int)f.ndiag, (int)k, (int)ldb, (int)ldc, add ? "C += A B" : "C = A B", rel,
             (long long)bad_padding);
    }
    PetscCall(GpuMatsCUDAFree(dB));
    PetscCall(GpuMatsCUDAFree(dC));
    free(hB), free(hC0), free(hC), free(ref), free(got);
  }
  PetscCall(DiagDeviceDestroy(&dev));
  DiagFormatFree(&f);
  free(ai), free(aj), free(aa);
  PetscFunctionReturn(0);
}

static int Main(int argc, char **argv)
{
  PetscBool   avail;
  const char *why;
  int         failures = 0;
  PetscInt    off[700], noff, banded_n = 140000;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-banded_n", &banded_n, NULL));
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  if (!avail) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "diag_device: skipped (no CUDA device: %s)\n", why));
    PetscCall(PetscFinalize());
    return 0;
  }
  for (int scheme = 0; scheme < 2; scheme++) {
    const DiagScheme s = (DiagScheme)scheme;

    off[0] = 0;
    PetscCall(CheckMatrix(s, 0, 0, 1, off, 1.0, "empty", &failures));
    PetscCall(CheckMatrix(s, 1, 1, 1, off, 1.0, "one entry", &failures));
    for (PetscInt w = 1; w <= 50; w = w < 4 ? w + 1 : w * 3) { /* non-symmetric bands */
      noff = 0;
      for (PetscInt d = -w; d <= w + 2; d++) off[noff++] = d;
      PetscCall(CheckMatrix(s, 1000, 1000, noff, off, 0.95, "banded", &failures));
    }
    noff = 0;
    for (PetscInt t = 0; t < 600; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 3999) - 1999;
    PetscCall(CheckMatrix(s, 2000, 2000, noff, off, 1.0, "structured, 600 offsets", &failures));
    noff = 0;
    for (PetscInt d = -3; d <= 3; d++) off[noff++] = d * d * d;
    PetscCall(CheckMatrix(s, 100000, 100000, noff, off, 1.0, "n 1e5", &failures));
  }
  off[0] = -20, off[1] = 0, off[2] = 3, off[3] = 50;
  PetscCall(CheckMatrix(DIAG_SCHEME_HM, 77, 130, 4, off, 0.9, "rectangular", &failures));
  PetscCall(CheckMatrix(DIAG_SCHEME_HM, 130, 77, 4, off, 0.9, "rectangular", &failures));
  PetscCall(CheckProduct(DIAG_SCHEME_HM, 77, 130, 61, 4, off, 4, off, 0.9, "rectangular 77x130 times 130x61", &failures));
  for (int scheme = 0; scheme < 2; scheme++) {
    for (PetscInt w = 1; w <= 50; w *= 7) { /* banded, bandwidth 1, 7, 49 */
      noff = 0;
      for (PetscInt d = -w; d <= w; d++) off[noff++] = d;
      PetscCall(CheckProduct((DiagScheme)scheme, 3000, 3000, 3000, noff, off, noff, off, 0.9, "banded", &failures));
    }
    noff = 0;
    for (PetscInt t = 0; t < 40; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 1999) - 999;
    PetscCall(CheckProduct((DiagScheme)scheme, 1000, 1000, 1000, noff, off, noff, off, 0.9, "structured, 40 offsets", &failures));
  }
  PetscCall(CheckTiledProducts(&failures));
  { /* mixed schemes (the pairs kernel across HM and CDM), and a diagonal of C with more pairs than
       one staging of the pairs kernel (256): a band of 301 diagonals, its main diagonal 301 pairs;
       scattered offsets like the paper's Table 2, where the shuffle kernel is ours */
    for (PetscInt w = 1; w <= 50; w *= 7) {
      noff = 0;
      for (PetscInt d = -w; d <= w + 1; d++) off[noff++] = d;
      PetscCall(CheckProductMixed(DIAG_SCHEME_HM, DIAG_SCHEME_CDM, 3000, 3000, 3000, noff, off, noff, off, 0.9, "banded, mixed", &failures));
      PetscCall(CheckProductMixed(DIAG_SCHEME_CDM, DIAG_SCHEME_HM, 3000, 3000, 3000, noff, off, noff, off, 0.9, "banded, mixed", &failures));
    }
    noff = 0;
    for (PetscInt t = 0; t < 60; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 2999) - 1499;
    PetscCall(CheckProductMixed(DIAG_SCHEME_CDM, DIAG_SCHEME_HM, 1500, 1500, 1500, noff, off, noff, off, 0.9, "structured, 60 offsets, mixed", &failures));
    PetscCall(CheckProductMixed(DIAG_SCHEME_CDM, DIAG_SCHEME_HM, 1500, 1500, 700, noff, off, noff, off, 0.9, "structured CDM times rectangular HM", &failures));
    noff = 0;
    for (PetscInt d = -150; d <= 150; d++) off[noff++] = d;
    for (int scheme = 0; scheme < 2; scheme++) PetscCall(CheckProduct((DiagScheme)scheme, 2500, 2500, 2500, noff, off, noff, off, 1.0, "banded w 150 (301 pairs on C's main diagonal)", &failures));
    noff = 0; /* like the paper's Table 2: 150 diagonals over [-n/4, n/4], C nearly full */
    for (PetscInt t = 0; t < 150; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 2000) - 1000;
    for (int scheme = 0; scheme < 2; scheme++) PetscCall(CheckProduct((DiagScheme)scheme, 4000, 4000, 4000, noff, off, noff, off, 1.0, "structured, 150 offsets over [-n/4, n/4]", &failures));
    noff = 0; /* 240 diagonals over [-n/2, n/2]: about 5 pairs a diagonal of C, too many diagonals for
                 the shuffle kernel's 4 rows a lane (it takes 2) */
    for (PetscInt t = 0; t < 240; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 6000) - 3000;
    for (int scheme = 0; scheme < 2; scheme++) PetscCall(CheckProduct((DiagScheme)scheme, 6000, 6000, 6000, noff, off, noff, off, 1.0, "structured, 240 offsets over [-n/2, n/2]", &failures));
    off[0] = 0;
    PetscCall(CheckProductMixed(DIAG_SCHEME_HM, DIAG_SCHEME_CDM, 0, 0, 0, 1, off, 1, off, 1.0, "empty, mixed", &failures));
    PetscCall(CheckProductMixed(DIAG_SCHEME_CDM, DIAG_SCHEME_HM, 1, 1, 1, 1, off, 1, off, 1.0, "one entry, mixed", &failures));
  }
  { /* the sweep kernel's edges: rectangular HM bands (rows off B's band), lopsided bands with holes,
       a band too wide for one block of warps (C's 602 sums: two blocks a tile), n below the band */
    PetscInt offa[16], offb[601], na = 0, nb = 0;

    for (PetscInt d = -5; d <= 9; d++) offa[na++] = d;
    for (PetscInt d = -7; d <= 3; d++) offb[nb++] = d;
    PetscCall(CheckProductMixed(DIAG_SCHEME_HM, DIAG_SCHEME_HM, 300, 250, 270, na, offa, nb, offb, 0.9, "sweep, rectangular bands", &failures));
    PetscCall(CheckProductMixed(DIAG_SCHEME_HM, DIAG_SCHEME_CDM, 1000, 1000, 1000, na, offa, nb, offb, 0.9, "sweep, lopsided bands, mixed", &failures));
    na = 0, nb = 0;
    for (PetscInt d = 2; d <= 12; d += 2) offa[na++] = d; /* half the offsets of 2..12 and one */
    for (PetscInt d = -40; d <= -30; d++) offb[nb++] = d;
    PetscCall(CheckProduct(DIAG_SCHEME_CDM, 777, 777, 777, na, offa, nb, offb, 1.0, "sweep, bands off the main diagonal", &failures));
    na = 0, nb = 0;
    for (PetscInt d = -1; d <= 1; d++) offa[na++] = d;
    for (PetscInt d = -300; d <= 300; d++) offb[nb++] = d;
    PetscCall(CheckProduct(DIAG_SCHEME_HM, 3000, 3000, 3000, na, offa, nb, offb, 1.0, "sweep, 3 x 601 diagonals", &failures));
    PetscCall(CheckProduct(DIAG_SCHEME_HM, 5, 5, 5, na, offa, 11, offb + 295, 1.0, "sweep, n 5 below the band", &failures));
  }
  { /* CDM bands large enough for the banded kernel (the sweep kernel ours): tiles of 128 rows (5 and
       21 diagonals), of 32 rows in the largest shared memory (101 diagonals), a lopsided band with
       holes; then a band times scattered offsets, where the banded kernel is ours */
    const PetscInt lo[] = {-2, -10, -50, -1}, hi[] = {2, 10, 50, 7};

    for (int b = 0; b < 4; b++) {
      char what[64];

      noff = 0;
      for (PetscInt d = lo[b]; d <= hi[b]; d++) off[noff++] = d;
      snprintf(what, sizeof(what), "banded %d..%d, n %d", (int)lo[b], (int)hi[b], (int)banded_n);
      PetscCall(CheckProduct(DIAG_SCHEME_CDM, banded_n, banded_n, banded_n, noff, off, noff, off, b == 3 ? 0.9 : 1.0, what, &failures));
    }
    {
      PetscInt offb[5] = {-900, -77, 0, 31, 1200};

      noff = 0;
      for (PetscInt d = -10; d <= 10; d++) off[noff++] = d;
      PetscCall(CheckProduct(DIAG_SCHEME_CDM, banded_n, banded_n, banded_n, noff, off, 5, offb, 0.9, "banded -10..10 times 5 scattered offsets", &failures));
    }
  }
  { /* the SpMM: square and rectangular HM, CDM, empty, one row, more diagonals than a tile */
    PetscInt band[9], rect[4] = {-20, 0, 3, 50}, wrap[4] = {-6, -1, 0, 5};

    noff = 0;
    for (PetscInt d = -3; d <= 5; d++) band[noff++] = d;
    for (int scheme = 0; scheme < 2; scheme++) {
      const DiagScheme s = (DiagScheme)scheme;

      PetscCall(CheckSpMM(s, 0, 0, 1, band + 3, 1.0, "empty", &failures));
      PetscCall(CheckSpMM(s, 1, 1, 1, band + 3, 1.0, "one entry", &failures));
      PetscCall(CheckSpMM(s, 7, 7, 4, wrap, 1.0, "wrapping offsets", &failures));
      PetscCall(CheckSpMM(s, 1000, 1000, 9, band, 0.95, "banded", &failures));
      noff = 0;
      for (PetscInt t = 0; t < 600; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 3999) - 1999;
      PetscCall(CheckSpMM(s, 2000, 2000, noff, off, 1.0, "structured, 600 offsets", &failures));
    }
    PetscCall(CheckSpMM(DIAG_SCHEME_HM, 77, 130, 4, rect, 0.9, "rectangular", &failures));
    PetscCall(CheckSpMM(DIAG_SCHEME_HM, 130, 77, 4, rect, 0.9, "rectangular", &failures));
    PetscCall(CheckSpMM(DIAG_SCHEME_HM, 5, 0, 1, band + 3, 1.0, "no columns", &failures));
    PetscCall(CheckSpMM(DIAG_SCHEME_HM, 0, 5, 1, band + 3, 1.0, "no rows", &failures));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, failures ? "diag_device: %d check(s) FAILED\n" : "diag_device: all checks passed\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
