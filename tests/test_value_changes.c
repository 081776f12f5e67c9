static const char help[] = "The value changes the device copy of pcsr and cihybrid follows (MatScale, MatShift,\n\
MatDiagonalSet, MatAXPY and MatCopy with the same pattern, MatZeroEntries), against MATAIJ given the\n\
same changes; on one rank with the products on the device, also that none of them uploads the\n\
values again (the GpuMatsUpload event), and that the changes the device copy cannot follow do.\n\
  -n <60>   rows\n";

#include <gpumats.h>
#include "testmat.h"

/* Row i: a_{i,i-1}, a_ii (unless i is in 'nodiag'), a_{i,i+1}, and three columns (i * 7 + k * 13) % n;
   the values from 'seed' */
static PetscErrorCode MakeMatrix(MPI_Comm comm, MatType type, PetscInt n, PetscInt seed, PetscInt nodiag, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt cols[6] = {i - 1, i, i + 1, (i * 7 + 13) % n, (i * 7 + 26) % n, (i * 7 + 39) % n};

    for (PetscInt k = 0; k < 6; k++) {
      const PetscScalar v = (PetscScalar)(((i + 1) * (k + 3) * (seed + 5)) % 23) / 7.0 - 1.0;

      if (cols[k] < 0 || cols[k] >= n || (k == 1 && i == nodiag)) continue;
      PetscCall(MatSetValue(*A, i, cols[k], v, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* uploads of a format's values so far on this process */
static PetscErrorCode Uploads(PetscInt *count)
{
  PetscLogEvent      event;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId("GpuMatsUpload", &event));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

typedef struct {
  TestCtx  *t;
  PetscBool count; /* one rank, products on the device: count the uploads */
  PetscInt  uploads;
} Check;

/* The products of A and Aa agree; 'followed': the device copy followed the change (no upload) */
static PetscErrorCode CheckAfter(Check *c, Mat A, Mat Aa, const char *what, PetscBool followed)
{
  PetscInt before = c->uploads;
  MatType  type;

  PetscFunctionBeginUser;
  PetscCall(CheckProducts(c->t, A, Aa, what));
  if (!c->count) PetscFunctionReturn(0);
  PetscCall(MatGetType(A, &type));
  PetscCall(Uploads(&c->uploads));
  if (followed) PetscCheck(c->uploads == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s uploaded the values %" PetscInt_FMT " time(s); the device copy should have followed", type, what, c->uploads - before);
  else PetscCheck(c->uploads > before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: after %s the values were not uploaded again, yet the device copy could not follow", type, what);
  PetscFunctionReturn(0);
}

static PetscErrorCode RunType(TestCtx *t, MatType type, PetscInt n, PetscInt *nchanges)
{
  Mat       A, Aa, X, Xa, Xaij, B, Ba;
  Vec       d, dh;
  PetscBool on_device;
  Check     c = {t, PETSC_FALSE, 0};
  PetscInt  m;

  PetscFunctionBeginUser;
  PetscCall(MakeMatrix(t->comm, type, n, 1, -1, &A));
  PetscCall(MakeMatrix(t->comm, MATAIJ, n, 1, -1, &Aa));
  PetscCall(MakeMatrix(t->comm, type, n, 2, -1, &X));
  PetscCall(MakeMatrix(t->comm, MATAIJ, n, 2, -1, &Xa));
  PetscCall(MakeMatrix(t->comm, MATAIJ, n, 2, -1, &Xaij));
  PetscCall(MatGpuMatsUsesDevice(A, &on_device));
  c.count = (PetscBool)(on_device && t->size == 1);
  PetscCall(CheckProducts(t, X, Xa, "X"));
  PetscCall(CheckProducts(t, A, Aa, "A as made"));
  PetscCall(Uploads(&c.uploads));

  PetscCall(MatScale(A, -1.5));
  PetscCall(MatScale(Aa, -1.5));
  PetscCall(CheckAfter(&c, A, Aa, "MatScale", PETSC_TRUE));
  PetscCall(MatShift(A, 2.25));
  PetscCall(MatShift(Aa, 2.25));
  PetscCall(CheckAfter(&c, A, Aa, "MatShift", PETSC_TRUE));

  PetscCall(MatCreateVecs(A, NULL, &d)); /* of the type the matrix asks for: on the device with CUDA */
  PetscCall(VecGetLocalSize(d, &m));
  PetscCall(VecCreateMPI(t->comm, m, PETSC_DETERMINE, &dh)); /* on the host: staged */
  PetscCall(VecSetRandom(d, t->vrnd));
  PetscCall(VecSetRandom(dh, t->vrnd));
  PetscCall(MatDiagonalSet(A, d, INSERT_VALUES));
  PetscCall(MatDiagonalSet(Aa, d, INSERT_VALUES));
  PetscCall(CheckAfter(&c, A, Aa, "MatDiagonalSet(INSERT_VALUES)", PETSC_TRUE));
  PetscCall(MatDiagonalSet(A, dh, ADD_VALUES));
  PetscCall(MatDiagonalSet(Aa, dh, ADD_VALUES));
  PetscCall(CheckAfter(&c, A, Aa, "MatDiagonalSet(ADD_VALUES) of a host vector", PETSC_TRUE));

  PetscCall(MatAXPY(A, 0.5, X, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Aa, 0.5, Xa, SAME_NONZERO_PATTERN));
  PetscCall(CheckAfter(&c, A, Aa, "MatAXPY(SAME_NONZERO_PATTERN)", PETSC_TRUE));
  PetscCall(MatAXPY(A, -0.25, Xaij, SAME_NONZERO_PATTERN)); /* X on the host only: A's values go up again */
  PetscCall(MatAXPY(Aa, -0.25, Xa, SAME_NONZERO_PATTERN));
  PetscCall(CheckAfter(&c, A, Aa, "MatAXPY(SAME_NONZERO_PATTERN) of an AIJ X", PETSC_FALSE));
  PetscCall(MatCopy(X, A, SAME_NONZERO_PATTERN));
  PetscCall(MatCopy(Xa, Aa, SAME_NONZERO_PATTERN));
  PetscCall(CheckAfter(&c, A, Aa, "MatCopy(SAME_NONZERO_PATTERN)", PETSC_TRUE));
  PetscCall(MatZeroEntries(A));
  PetscCall(MatZeroEntries(Aa));
  PetscCall(CheckAfter(&c, A, Aa, "MatZeroEntries", PETSC_TRUE));

  /* values set on the host: the copy is not current, the next change is the host's alone */
  PetscCall(MatShift(A, 1.0));
  PetscCall(MatShift(Aa, 1.0));
  PetscCall(MatSetValue(A, 0, 0, 3.0, ADD_VALUES));
  PetscCall(MatSetValue(Aa, 0, 0, 3.0, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(MatScale(A, 3.0));
  PetscCall(MatScale(Aa, 3.0));
  PetscCall(CheckAfter(&c, A, Aa, "MatSetValues, then MatScale", PETSC_FALSE));

  /* a row without its diagonal entry, which AIJ may not add: MatShift leaves that row alone */
  PetscCall(MakeMatrix(t->comm, type, n, 3, n / 2, &B));
  PetscCall(MakeMatrix(t->comm, MATAIJ, n, 3, n / 2, &Ba));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscCall(MatSetOption(Ba, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscCall(CheckProducts(t, B, Ba, "B (a diagonal entry missing)"));
  if (c.count) PetscCall(Uploads(&c.uploads));
  PetscCall(MatShift(B, -4.0));
  PetscCall(MatShift(Ba, -4.0));
  PetscCall(CheckProducts(t, B, Ba, "MatShift of B, a diagonal entry missing and not to be added"));
  PetscCall(MatScale(B, 0.5));
  PetscCall(MatScale(Ba, 0.5));
  PetscCall(CheckProducts(t, B, Ba, "MatScale of B"));
  *nchanges += 12;

  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&dh));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Xa));
  PetscCall(MatDestroy(&Xaij));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Ba));
  PetscCall(PetscPrintf(t->comm, "  %s: products %s, uploads %s\n", type, on_device ? "on the device" : "on the host", c.count ? "counted" : "not counted (host products or several ranks)"));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx  t;
  PetscInt n = 60, nchanges = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogDefaultBegin());
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_value_changes", 60));
  PetscOptionsBegin(t.comm, NULL, "test_value_changes options", NULL);
  PetscCall(PetscOptionsInt("-n", "rows", NULL, n, &n, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 4, t.comm, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": at least 4 rows", n);
  PetscCall(TestCtxSeed(&t, 2026));
  PetscCall(RunType(&t, MATPCSR, n, &nchanges));
  PetscCall(RunType(&t, MATCIHYBRID, n, &nchanges));
  PetscCall(PetscPrintf(t.comm, "test_value_changes on %d rank(s): all passed, %" PetscInt_FMT " changes, %" PetscInt_FMT " products compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, nchanges, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
