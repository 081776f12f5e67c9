/* MatCIHybridAssembleOnDevice with a generator written here (rows of a fixed formula made by a
   CUDA kernel), checked against MATAIJ holding the same formula assembled on the host:
   - the device-only matrix: products, MatGetDiagonal, MatGetInfo, MatView info, a dense
     product, all with no host copy made;
   - every way to the host copy (MatGetRow, MatDuplicate, MatConvert, a factorization, host
     products, a new BOUNDARY, MatCIHybridMakeHostCopy) gives the AIJ entries exactly;
   - what solvers do to an operator (shift, scale, diagonal set, AXPY, duplicate, copy, zero,
     norms, new values from the generator) stays on the device and matches AIJ, and the object
     state advances exactly when values change (the host copy leaves it and the nonzero state);
   - generators that break the contract (columns not ascending, an entry left out, a write into
     the padding, a negative length) are errors naming the row; no device, no assembly.
   Skipped (exit 77) without a usable device. */
#include <gpumats.h>
#include <gpumats_cihybrid_device.h>
#include <petscksp.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet: the state contract */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "testmat.h"
}

static const char help[] = "cihybrid: assembly on the device from a row generator\n";

typedef enum {
  GEN_GOOD,
  GEN_UNSORTED,    /* row 3's first two columns swapped */
  GEN_MISSING,     /* row 5's last entry not written */
  GEN_PADDING,     /* an entry written past row 1's end */
  GEN_NEGATIVE     /* row 2 counted -1 */
} GenMode;

typedef struct {
  int     m, n;
  GenMode mode;
  int     full_diagonal; /* no empty row: a square matrix then has every diagonal entry (ILU) */
  double  extra;         /* added to every value: new values on the same pattern */
} Gen;

/* row r: columns start, start+3, ... below n, at most r % 17 of them (at least one with
   full_diagonal); start = r % n */
static __host__ __device__ int RowLength(const Gen &g, int r)
{
  const int n = g.n, start = n ? r % n : 0, fit = n ? (n - 1 - start) / 3 + 1 : 0;
  const int want = g.full_diagonal && r % 17 == 0 ? 1 : r % 17;
  return want < fit ? want : fit;
}
static __host__ __device__ int RowColumn(int r, int n, int k)
{
  return r % n + 3 * k;
}
static __host__ __device__ double RowValue(const Gen &g, int r, int c)
{
  return (r == c ? 10.0 : 0.0) + 1.0 / (1.0 + r + 2.0 * c) + g.extra;
}

__global__ void CountKernel(Gen g, int *len)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= g.m) return;
  len[r] = (g.mode == GEN_NEGATIVE && r == 2) ? -1 : RowLength(g, r);
}

__global__ void FillKernel(Gen g, MatCIHybridDeviceArrays A)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= g.m) return;
  const int len = RowLength(g, r);
  for (int k = 0; k < len; k++) {
    int kk = k;
    if (g.mode == GEN_UNSORTED && r == 3 && len > 1 && k < 2) kk = 1 - k;
    if (g.mode == GEN_MISSING && r == 5 && k == len - 1) continue;
    MatCIHybridDeviceSetEntry(A, r, k, RowColumn(r, g.n, kk), RowValue(g, r, RowColumn(r, g.n, kk)));
  }
  if (g.mode == GEN_PADDING && r == 1) A.ell_col[(size_t)r * A.pitch + len] = 0;
}

static PetscErrorCode Count(void *ctx, void *stream, int *len)
{
  Gen *g = (Gen *)ctx;

  PetscFunctionBeginUser;
  if (g->m) CountKernel<<<(g->m + 127) / 128, 128, 0, (cudaStream_t)stream>>>(*g, len);
  PetscCheck(cudaGetLastError() == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "CountKernel failed");
  PetscFunctionReturn(0);
}

static PetscErrorCode Fill(void *ctx, void *stream, const MatCIHybridDeviceArrays *A)
{
  Gen *g = (Gen *)ctx;

  PetscFunctionBeginUser;
  if (g->m) FillKernel<<<(g->m + 127) / 128, 128, 0, (cudaStream_t)stream>>>(*g, *A);
  PetscCheck(cudaGetLastError() == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "FillKernel failed");
  PetscFunctionReturn(0);
}

/* the same matrix as MATAIJ, assembled on the host */
static PetscErrorCode CreateAIJ(const Gen *g, Mat *B)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, g->m, g->n, 17, NULL, B));
  for (int r = 0; r < g->m; r++)
    for (int k = 0; k < RowLength(*g, r); k++) PetscCall(MatSetValue(*B, r, RowColumn(r, g->n, k), RowValue(*g, r, RowColumn(r, g->n, k)), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* A device-built cihybrid matrix of the generator g; boundary < 0: automatic */
static PetscErrorCode CreateOnDevice(Gen *g, PetscInt boundary, Mat *A)
{
  MatCIHybridDeviceRows rows = {Count, Fill, g};

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, g->m, g->n, g->m, g->n));
  PetscCall(MatSetType(*A, MATCIHYBRID));
  if (boundary >= 0) PetscCall(MatCIHybridSetBoundary(*A, boundary));
  PetscCall(MatCIHybridAssembleOnDevice(*A, &rows));
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectDeviceOnly(Mat A, PetscBool expected, const char *when)
{
  PetscBool only;

  PetscFunctionBeginUser;
  PetscCall(MatCIHybridIsDeviceOnly(A, &only));
  PetscCheck(only == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the matrix is%s device-only", when, only ? "" : " not");
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectSameVec(Vec a, Vec b, PetscReal tol, const char *what)
{
  Vec       d;
  PetscReal err, nrm;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &err));
  PetscCall(VecNorm(b, NORM_INFINITY, &nrm));
  PetscCall(VecDestroy(&d));
  PetscCheck(err <= tol * PetscMax(nrm, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: differs from AIJ by %g (|AIJ| %g)", what, (double)err, (double)nrm);
  PetscFunctionReturn(0);
}

/* Everything a device-only matrix does without a host copy. */
static PetscErrorCode CheckDeviceOnly(TestCtx *t, Gen *g, PetscInt boundary)
{
  Mat         A, B, X, C, Cref;
  Vec         d, dref;
  MatInfo     info;
  PetscViewer v;
  char        desc[128];

  PetscFunctionBeginUser;
  PetscCall(CreateOnDevice(g, boundary, &A));
  PetscCall(CreateAIJ(g, &B));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "device-built %d x %d, BOUNDARY %" PetscInt_FMT, g->m, g->n, boundary));
  PetscCall(CheckProducts(t, A, B, desc));
  if (g->m == g->n) {
    PetscCall(MatCreateVecs(A, NULL, &d));
    PetscCall(MatCreateVecs(B, NULL, &dref));
    PetscCall(MatGetDiagonal(A, d));
    PetscCall(MatGetDiagonal(B, dref));
    PetscCall(ExpectSameVec(d, dref, 0, "MatGetDiagonal"));
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&dref));
  }
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  {
    MatInfo ref;
    PetscCall(MatGetInfo(B, MAT_LOCAL, &ref));
    PetscCheck(info.nz_used == ref.nz_used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetInfo: %g nonzeros, AIJ %g", info.nz_used, ref.nz_used);
  }
  PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_SELF, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  /* C = A X with a dense X */
  PetscCall(MatCreateDense(PETSC_COMM_SELF, g->n, 3, g->n, 3, NULL, &X));
  PetscCall(MatSetRandom(X, t->vrnd));
  PetscCall(MatMatMult(A, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatMatMult(B, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(MatAXPY(C, -1.0, Cref, SAME_NONZERO_PATTERN));
  {
    PetscReal err;
    PetscCall(MatNorm(C, NORM_INFINITY, &err));
    PetscCheck(err <= 1e-13, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A X: differs from AIJ by %g", (double)err);
  }
  PetscCall(ExpectDeviceOnly(A, PETSC_TRUE, "after the products, diagonal, info and dense product"));
  /* the host copy, then the entries */
  PetscCall(ExpectSameEntries(A, B, desc, NULL));
  PetscCall(ExpectDeviceOnly(A, g->m ? PETSC_FALSE : PETSC_TRUE, "after MatGetRow")); /* a 0 x 0 matrix has no row to get */
  PetscCall(CheckProducts(t, A, B, "after the host copy"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* Each way to the host copy, on a fresh device-built matrix. */
static PetscErrorCode CheckHostCopies(TestCtx *t, Gen *g)
{
  Mat A, B, D;

  PetscFunctionBeginUser;
  PetscCall(CreateAIJ(g, &B));
  /* MatDuplicate */
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(ExpectSameEntries(D, B, "MatDuplicate", NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  MatDuplicate of a device-built matrix, then its host copy: same entries\n"));
  PetscCall(CheckProducts(t, A, B, "after MatDuplicate"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  /* MatConvert to AIJ */
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(ExpectSameEntries(D, B, "MatConvert", NULL));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  /* products on the host */
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
  PetscCall(CheckProducts(t, A, B, "host products of a device-built matrix"));
  PetscCall(ExpectDeviceOnly(A, PETSC_FALSE, "after host products"));
  PetscCall(MatDestroy(&A));
  /* a new BOUNDARY */
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(MatCIHybridSetBoundary(A, 2));
  PetscCall(CheckProducts(t, A, B, "device-built, then BOUNDARY 2"));
  PetscCall(MatDestroy(&A));
  /* MatAXPY and MatEqual with device-only operands of the same type (AIJ reads their arrays) */
  {
    Mat       X, Y;
    PetscReal nrm;
    PetscBool eq;

    PetscCall(CreateOnDevice(g, -1, &X));
    PetscCall(CreateOnDevice(g, -1, &Y));
    PetscCall(MatEqual(X, Y, &eq));
    PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatEqual of two device-built copies of a matrix: false");
    PetscCall(MatCIHybridMakeHostCopy(Y));
    PetscCall(MatDestroy(&X));
    PetscCall(CreateOnDevice(g, -1, &X));
    PetscCall(MatAXPY(Y, -1.0, X, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(Y, NORM_FROBENIUS, &nrm));
    PetscCheck(nrm == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Y - X with X device-built: norm %g, not 0", (double)nrm);
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&Y));
  }
  /* MatCIHybridMakeHostCopy, then MatSetValues on top */
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(MatCIHybridMakeHostCopy(A));
  PetscCall(ExpectDeviceOnly(A, PETSC_FALSE, "after MatCIHybridMakeHostCopy"));
  PetscCall(ExpectSameEntries(A, B, "MatCIHybridMakeHostCopy", NULL));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "host copies of a device-built %d x %d matrix: passed\n", g->m, g->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectState(Mat A, PetscObjectState *last, PetscBool advanced, const char *op)
{
  PetscObjectState now;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectStateGet((PetscObject)A, &now));
  PetscCheck(advanced ? now > *last : now == *last, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: object state %" PetscInt64_FMT " -> %" PetscInt64_FMT ", expected it to %s", op, (PetscInt64)*last, (PetscInt64)now, advanced ? "advance" : "stay");
  *last = now;
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectNonzeroState(Mat A, PetscObjectState before, PetscBool advanced, const char *op)
{
  PetscObjectState now;

  PetscFunctionBeginUser;
  PetscCall(MatGetNonzeroState(A, &now));
  PetscCheck(advanced ? now > before : now == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: nonzero state %" PetscInt64_FMT " -> %" PetscInt64_FMT ", expected it to %s", op, (PetscInt64)before, (PetscInt64)now, advanced ? "advance" : "stay");
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectSameNorms(Mat A, Mat B, const char *when)
{
  const NormType types[] = {NORM_1, NORM_FROBENIUS, NORM_INFINITY};

  PetscFunctionBeginUser;
  for (int i = 0; i < 3; i++) {
    PetscReal a, b;
    PetscCall(MatNorm(A, types[i], &a));
    PetscCall(MatNorm(B, types[i], &b));
    PetscCheck(PetscAbsReal(a - b) <= 1e-13 * PetscMax(b, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s norm %.17g, AIJ %.17g", when, NormTypes[types[i]], (double)a, (double)b);
  }
  PetscFunctionReturn(0);
}

/* What solvers do to an operator, on a device-built A and its AIJ twin B: the same results, A
   still device-only when every diagonal entry is stored (ops that need a missing one make the
   host copy), and A's object state advancing with each change of values and only then. */
static PetscErrorCode CheckDeviceAlgebra(TestCtx *t, Gen *g)
{
  const PetscBool square = g->m == g->n ? PETSC_TRUE : PETSC_FALSE, stays = square && (g->full_diagonal || !g->m) ? PETSC_TRUE : PETSC_FALSE;
  Mat             A, B, D, Dref, E, Id;
  Vec             d, dref;
  PetscObjectState st, nz;
  char            desc[128];

  PetscFunctionBeginUser;
  PetscCall(CreateOnDevice(g, 4, &A));
  PetscCall(CreateAIJ(g, &B));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "device algebra %d x %d%s", g->m, g->n, g->full_diagonal ? ", full diagonal" : ""));
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  /* scale, norms, zero-copy reads */
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatScale(B, -0.5));
  PetscCall(ExpectState(A, &st, PETSC_TRUE, "MatScale"));
  PetscCall(ExpectSameNorms(A, B, "after MatScale"));
  PetscCall(ExpectState(A, &st, PETSC_FALSE, "MatNorm"));
  PetscCall(CheckProducts(t, A, B, "after MatScale"));
  PetscCall(ExpectState(A, &st, PETSC_FALSE, "MatMult"));
  PetscCall(ExpectDeviceOnly(A, PETSC_TRUE, "after MatScale, MatNorm and products"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: scale and norms\n", desc));
  /* duplicate, AXPY of one pattern, copy, zero: device to device */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &Dref));
  PetscCall(ExpectDeviceOnly(D, PETSC_TRUE, "MatDuplicate (copy values)"));
  PetscCall(MatAXPY(D, 3.0, A, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Dref, 3.0, B, SAME_NONZERO_PATTERN));
  PetscCall(CheckProducts(t, D, Dref, "D = A + 3 A, device to device"));
  PetscCall(ExpectDeviceOnly(D, PETSC_TRUE, "MatAXPY of one pattern"));
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &E));
  PetscCall(ExpectDeviceOnly(E, PETSC_TRUE, "MatDuplicate (no values)"));
  {
    PetscReal nrm;
    PetscCall(MatNorm(E, NORM_FROBENIUS, &nrm));
    PetscCheck(nrm == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatDuplicate without values: norm %g", (double)nrm);
  }
  PetscCall(MatCopy(D, E, SAME_NONZERO_PATTERN));
  PetscCall(CheckProducts(t, E, Dref, "MatCopy, device to device"));
  PetscCall(MatZeroEntries(D));
  PetscCall(MatZeroEntries(Dref));
  PetscCall(ExpectSameNorms(D, Dref, "after MatZeroEntries"));
  PetscCall(ExpectDeviceOnly(D, PETSC_TRUE, "MatZeroEntries"));
  PetscCall(ExpectDeviceOnly(E, PETSC_TRUE, "MatCopy"));
  PetscCall(MatDestroy(&E));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: duplicate, AXPY, copy, zero\n", desc));
  /* shift, the identity as a matrix, the diagonal: on the device when every diagonal entry is stored */
  PetscCall(MatShift(A, 2.5));
  PetscCall(MatShift(B, 2.5));
  PetscCall(ExpectState(A, &st, PETSC_TRUE, "MatShift"));
  PetscCall(CheckProducts(t, A, B, "after MatShift"));
  PetscCall(ExpectDeviceOnly(A, stays, "after MatShift"));
  PetscCall(MatCreateConstantDiagonal(PETSC_COMM_SELF, g->m, g->n, g->m, g->n, 1.0, &Id));
  PetscCall(MatAXPY(A, -1.25, Id, SUBSET_NONZERO_PATTERN)); /* PETSc < 3.23 rebuilds Y on the host for DIFFERENT_NONZERO_PATTERN */
  PetscCall(MatShift(B, -1.25));
  PetscCall(MatDestroy(&Id));
  PetscCall(ExpectState(A, &st, PETSC_TRUE, "MatAXPY with the identity"));
  PetscCall(CheckProducts(t, A, B, "after MatAXPY with the identity"));
  if (square) {
    PetscCall(MatCreateVecs(B, &dref, NULL));
    PetscCall(MatCreateVecs(A, &d, NULL));
    PetscCall(VecSetRandom(dref, t->vrnd));
    PetscCall(VecCopy(dref, d));
    PetscCall(MatDiagonalSet(A, d, ADD_VALUES));
    PetscCall(MatDiagonalSet(B, dref, ADD_VALUES));
    PetscCall(CheckProducts(t, A, B, "after MatDiagonalSet (add)"));
    PetscCall(VecScale(d, 0.5));
    PetscCall(VecScale(dref, 0.5));
    PetscCall(MatDiagonalSet(A, d, INSERT_VALUES));
    PetscCall(MatDiagonalSet(B, dref, INSERT_VALUES));
    PetscCall(ExpectState(A, &st, PETSC_TRUE, "MatDiagonalSet"));
    PetscCall(CheckProducts(t, A, B, "after MatDiagonalSet (insert)"));
    PetscCall(MatGetDiagonal(A, d));
    PetscCall(MatGetDiagonal(B, dref));
    PetscCall(ExpectSameVec(d, dref, 0, "MatGetDiagonal after MatDiagonalSet"));
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&dref));
  }
  PetscCall(ExpectDeviceOnly(A, stays, "after MatDiagonalSet"));
  /* values set into stored entries: kept until the assembly, then written on the device */
  for (PetscInt pass = 0; pass < 2; pass++) {
    const InsertMode mode = pass ? INSERT_VALUES : ADD_VALUES;

    for (int r = 0; r < g->m; r += 7) {
      if (!RowLength(*g, r)) continue;
      const PetscInt    row = r, col = RowColumn(r, g->n, RowLength(*g, r) - 1);
      const PetscScalar v   = 0.25 * r - 3.0;
      PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, mode));
      PetscCall(MatSetValues(B, 1, &row, 1, &col, &v, mode));
      PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, mode)); /* twice: added twice, or the last one kept */
      PetscCall(MatSetValues(B, 1, &row, 1, &col, &v, mode));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(ExpectState(A, &st, PETSC_TRUE, "MatSetValues and assembly"));
    PetscCall(CheckProducts(t, A, B, pass ? "after MatSetValues (insert)" : "after MatSetValues (add)"));
    PetscCall(ExpectDeviceOnly(A, stays, "after MatSetValues into stored entries"));
  }
  PetscCall(ExpectSameNorms(A, B, "after the diagonal updates"));
  /* the host copy changes neither state */
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  PetscCall(MatGetNonzeroState(A, &nz));
  PetscCall(MatCIHybridMakeHostCopy(A));
  PetscCall(ExpectState(A, &st, PETSC_FALSE, "the host copy"));
  PetscCall(ExpectNonzeroState(A, nz, PETSC_FALSE, "the host copy"));
  PetscCall(ExpectSameEntries(A, B, desc, NULL));
  PetscCall(ExpectState(A, &st, PETSC_FALSE, "MatGetRow"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Dref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: passed\n", desc));
  PetscFunctionReturn(0);
}

/* The generator called again: new values on the same pattern keep the nonzero state and the
   matrix device-only; another pattern advances it.  Both advance the object state. */
static PetscErrorCode CheckReassembly(TestCtx *t, Gen *g)
{
  Gen                   again = *g, other = *g;
  MatCIHybridDeviceRows rows  = {Count, Fill, &again}, rows_other = {Count, Fill, &other};
  Mat                   A, B;
  PetscObjectState      st, nz;

  PetscFunctionBeginUser;
  again.extra         = 0.75;
  other.full_diagonal = !g->full_diagonal;
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  PetscCall(MatGetNonzeroState(A, &nz));
  PetscCall(MatCIHybridAssembleOnDevice(A, &rows));
  PetscCall(ExpectState(A, &st, PETSC_TRUE, "new values from the generator"));
  PetscCall(ExpectNonzeroState(A, nz, PETSC_FALSE, "new values on the same pattern"));
  PetscCall(ExpectDeviceOnly(A, PETSC_TRUE, "new values from the generator"));
  PetscCall(CreateAIJ(&again, &B));
  PetscCall(CheckProducts(t, A, B, "new values from the generator"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatCIHybridAssembleOnDevice(A, &rows_other));
  PetscCall(ExpectState(A, &st, PETSC_TRUE, "another pattern from the generator"));
  PetscCall(ExpectNonzeroState(A, nz, PETSC_TRUE, "another pattern"));
  PetscCall(CreateAIJ(&other, &B));
  PetscCall(CheckProducts(t, A, B, "another pattern from the generator"));
  PetscCall(ExpectSameEntries(A, B, "another pattern from the generator", NULL));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  /* a value where the device-built pattern has no entry: the host copy takes it */
  if (g->m && g->n > 1) {
    const PetscInt    row = 0, col = g->n - 1;
    const PetscScalar v   = 7.0;

    PetscCall(CreateOnDevice(g, -1, &A));
    PetscCall(CreateAIJ(g, &B));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(ExpectDeviceOnly(A, PETSC_FALSE, "after a value off the pattern"));
    PetscCall(ExpectSameEntries(A, B, "a value off the device-built pattern", NULL));
    PetscCall(CheckProducts(t, A, B, "a value off the device-built pattern"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* KSP with ILU (a matrix with its whole diagonal): the factorization reads the host copy. */
static PetscErrorCode CheckSolve(Gen *g)
{
  Mat       A, B;
  Vec       b, x, xref;
  KSP       ksp;
  PC        pc;
  PetscBool only;

  PetscFunctionBeginUser;
  PetscCall(CreateOnDevice(g, -1, &A));
  PetscCall(CreateAIJ(g, &B));
  PetscCall(MatCreateVecs(B, &x, &b));
  PetscCall(VecDuplicate(x, &xref));
  PetscCall(VecSet(b, 1.0));
  for (int pass = 0; pass < 2; pass++) {
    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, pass ? B : A, pass ? B : A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCILU));
    PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 200));
    PetscCall(KSPSolve(ksp, b, pass ? xref : x));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(ExpectSameVec(x, xref, 1e-9, "GMRES + ILU on the device-built matrix"));
  PetscCall(MatCIHybridIsDeviceOnly(A, &only));
  PetscCheck(!only, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ILU ran without the host copy");
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckBadGenerators(void)
{
  struct {
    GenMode     mode;
    const char *says;
  } bad[] = {
    {GEN_UNSORTED, "row 3 "},
    {GEN_MISSING,  "row 5 "},
    {GEN_PADDING,  "row 1 "},
    {GEN_NEGATIVE, "row 2 "},
  };
  Mat            A;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    Gen g = {40, 40, bad[i].mode, 0, 0.0};

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = CreateOnDevice(&g, 4, &A);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, bad[i].says, "a generator that breaks the contract"));
    PetscCall(MatDestroy(&A));
  }
  { /* host products: no device assembly */
    Gen                   g    = {40, 40, GEN_GOOD, 0, 0.0};
    MatCIHybridDeviceRows rows = {Count, Fill, &g};

    PetscCall(MatCreate(PETSC_COMM_SELF, &A));
    PetscCall(MatSetSizes(A, 40, 40, 40, 40));
    PetscCall(MatSetType(A, MATCIHYBRID));
    PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatCIHybridAssembleOnDevice(A, &rows);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "run on the host", "device assembly with host products"));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bad generators: 5 clean errors\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Run(void)
{
  TestCtx   t;
  Mat       probe;
  PetscBool uses;
  Gen       shapes[] = {
    {500, 500, GEN_GOOD, 0, 0.0}, /* square: rows of 0..16 entries */
    {300, 700, GEN_GOOD, 0, 0.0}, /* wide */
    {700, 90, GEN_GOOD, 0, 0.0},  /* tall: many rows cut short */
    {1, 1, GEN_GOOD, 0, 0.0},     /* one empty row (r % 17 = 0) */
    {0, 0, GEN_GOOD, 0, 0.0},
  };

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(MatCreateSeqAIJCIHybrid(PETSC_COMM_SELF, 1, 1, 1, NULL, &probe));
  PetscCall(MatGpuMatsUsesDevice(probe, &uses));
  PetscCall(MatDestroy(&probe));
  if (!uses) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "device rows: no usable device, skipped\n"));
    PetscCall(PetscFinalize());
    exit(77);
  }
  PetscCall(TestCtxInit(&t, "cihybrid device rows", 1000));
  PetscCall(TestCtxSeed(&t, 2018));
  t.tol = 1e-13;
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
    PetscCall(CheckDeviceOnly(&t, &shapes[i], -1));
    PetscCall(CheckDeviceOnly(&t, &shapes[i], 4));
  }
  PetscCall(CheckHostCopies(&t, &shapes[0]));
  PetscCall(CheckHostCopies(&t, &shapes[2]));
  {
    Gen full = {500, 500, GEN_GOOD, 1, 0.0};
    PetscCall(CheckDeviceAlgebra(&t, &full));         /* every diagonal entry stored: all on the device */
    PetscCall(CheckDeviceAlgebra(&t, &shapes[0]));    /* empty rows: the shift makes the host copy */
    PetscCall(CheckDeviceAlgebra(&t, &shapes[1]));    /* wide */
    PetscCall(CheckDeviceAlgebra(&t, &shapes[4]));    /* 0 x 0 */
    PetscCall(CheckReassembly(&t, &full));
    PetscCall(CheckReassembly(&t, &shapes[2]));
  }
  {
    Gen solve = {500, 500, GEN_GOOD, 1, 0.0};
    PetscCall(CheckSolve(&solve));
  }
  PetscCall(CheckBadGenerators());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "device rows: %" PetscInt_FMT " comparisons with AIJ, largest relative difference %g\n", t.ncompared, (double)t.maxerr));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, Run);
}
