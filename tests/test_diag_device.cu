/* Correctness of the DIAG device kernels (cuda/diag/) against the host kernels of
   src/diag/diag_format.c (themselves checked against dense references by
   test_diag_format): HM and CDM, y = A x and y = A^T x, y0 NULL, distinct or y itself,
   outputs poisoned with NaN first, on 0x0, 1x1, rectangular HM, banded (bandwidth 1 to
   50), structured sparse with more diagonals than a shared-memory tile (600), and
   n = 1e5; also after new values.  The product C = A B on banded, structured-sparse and
   rectangular (HM) matrices, again after A's values change.  Prints "skipped" and
   exits 0 without a usable device. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "cuda/common/gpumats_cuda.h"
#include "cuda/diag/diag_cuda.h"
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
  for (PetscInt64 q = 0; q < f.start[f.ndiag]; q++) f.val[q] = Uniform(); /* new values, same diagonals */
  PetscCall(DiagDeviceCopyValues(dev, &f));
  PetscCall(CompareOne(dev, &f, name, failures));
  PetscCall(DiagDeviceDestroy(&dev));
  DiagFormatFree(&f);
  free(ai), free(aj), free(aa);
  PetscFunctionReturn(0);
}

/* C = A B on the device against DiagProductNumericHost */
static PetscErrorCode CheckProduct(DiagScheme scheme, PetscInt m, PetscInt k, PetscInt n, PetscInt noff, const PetscInt *off, const char *what, int *failures)
{
  PetscInt         *ai, *aj, *bi, *bj;
  double           *aa, *ba, *dval;
  DiagFormat        A, B, C;
  DiagDevice        dA, dB, dC;
  DiagDeviceProduct prod;

  PetscFunctionBeginUser;
  RandomCSR(m, k, noff, off, 0.9, &ai, &aj, &aa);
  RandomCSR(k, n, noff, off, 0.9, &bi, &bj, &ba);
  PetscCheck(DiagFromCSR(scheme, m, k, ai, aj, aa, 0, NULL, &A) == DIAG_OK && DiagFromCSR(scheme, k, n, bi, bj, ba, 0, NULL, &B) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: build", what);
  PetscCheck(DiagProductSymbolic(&A, &B, &C) == DIAG_OK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: symbolic", what);
  PetscCall(DiagDeviceCreate(&A, &dA));
  PetscCall(DiagDeviceCreate(&B, &dB));
  PetscCall(DiagDeviceCreate(&C, &dC));
  PetscCall(DiagDeviceProductCreate(&A, &B, &C, &prod));
  dval = (double *)malloc(sizeof(double) * (C.start[C.ndiag] + 1));
  for (int pass = 0; pass < 2; pass++) {
    double    *hval = C.val, err = 0, nrm = 0;
    PetscInt64 nv   = C.start[C.ndiag];

    if (pass) { /* new values of A, same diagonals */
      for (PetscInt64 q = 0; q < A.start[A.ndiag]; q++) A.val[q] = Uniform();
      PetscCall(DiagDeviceCopyValues(dA, &A));
    }
    DiagProductNumericHost(&A, &B, &C);
    for (int atomic = 0; atomic < (scheme == DIAG_SCHEME_HM ? 2 : 1); atomic++) { /* ours, and the paper's Algorithm 2 (HM) */
      err = nrm = 0;
      if (atomic) PetscCall(DiagDeviceProductNumericAtomic(prod, dA, dB, dC));
      else PetscCall(DiagDeviceProductNumeric(prod, dA, dB, dC));
      C.val = dval;
      PetscCall(DiagDeviceGetValues(dC, &C));
      C.val = hval;
      for (PetscInt64 q = 0; q < nv; q++) err += (dval[q] - hval[q]) * (dval[q] - hval[q]), nrm += hval[q] * hval[q];
      if (!(sqrt(err) <= 1e-13 * sqrt(nrm) + 1e-300 || nv == 0)) {
        (*failures)++;
        printf("FAILED %s %s: C = A B%s (pass %d): relative error %g\n", scheme == DIAG_SCHEME_HM ? "HM" : "CDM", what, atomic ? " (atomic)" : "", pass, nrm > 0 ? sqrt(err / nrm) : sqrt(err));
      }
    }
  }
  PetscCall(DiagDeviceProductDestroy(&prod));
  PetscCall(DiagDeviceDestroy(&dA));
  PetscCall(DiagDeviceDestroy(&dB));
  PetscCall(DiagDeviceDestroy(&dC));
  DiagFormatFree(&A), DiagFormatFree(&B), DiagFormatFree(&C);
  free(ai), free(aj), free(aa), free(bi), free(bj), free(ba), free(dval);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool   avail;
  const char *why;
  int         failures = 0;
  PetscInt    off[700], noff;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
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
  PetscCall(CheckProduct(DIAG_SCHEME_HM, 77, 130, 61, 4, off, "rectangular 77x130 times 130x61", &failures));
  for (int scheme = 0; scheme < 2; scheme++) {
    for (PetscInt w = 1; w <= 50; w *= 7) { /* banded, bandwidth 1, 7, 49 */
      noff = 0;
      for (PetscInt d = -w; d <= w; d++) off[noff++] = d;
      PetscCall(CheckProduct((DiagScheme)scheme, 3000, 3000, 3000, noff, off, "banded", &failures));
    }
    noff = 0;
    for (PetscInt t = 0; t < 40; t++) off[noff++] = (PetscInt)((Uniform() + 1) * 0.5 * 1999) - 999;
    PetscCall(CheckProduct((DiagScheme)scheme, 1000, 1000, 1000, noff, off, "structured, 40 offsets", &failures));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, failures ? "diag_device: %d check(s) FAILED\n" : "diag_device: all checks passed\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
