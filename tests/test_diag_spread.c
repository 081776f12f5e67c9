/* A rectangular diag matrix whose entries lie on too many diagonals becomes pcsr at its first
   assembly (diag/diag_rectangular.c): what GAMG's prolongators of a diag operator are.  Checked,
   against MATAIJ assembled with the same calls: the type it becomes, its entries bit for bit, its
   four products; with INSERT_VALUES, and with ADD_VALUES repeated (the staged values replayed in
   order); a banded rectangular one stays diag, a square spread one is still refused. */
#include <gpumats.h>
#include "testmat.h"

static const char help[] = "Rectangular diag matrices too spread for diag become pcsr, against AIJ\n";

/* A of 'type' assembled from csr; with 'add' every row set twice with ADD_VALUES */
static PetscErrorCode Assemble(TestCtx *t, const GlobalCSR *csr, MatType type, PetscBool add, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(t->comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, csr->M, csr->N));
  PetscCall(MatSetType(*A, type));
  if (!add) PetscCall(GlobalCSRAssemble(*A, csr));
  else {
    PetscInt rstart, rend;

    PetscCall(MatSetUp(*A));
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
    for (PetscInt pass = 0; pass < 2; pass++)
      for (PetscInt i = rstart; i < rend; i++) PetscCall(MatSetValues(*A, 1, &i, csr->rowptr[i + 1] - csr->rowptr[i], csr->cols + csr->rowptr[i], csr->vals + csr->rowptr[i], ADD_VALUES));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckAgainstAIJ(TestCtx *t, const GlobalCSR *csr, PetscBool add, MatType expect_seq, MatType expect_mpi, const char *what)
{
  Mat  A, Aa;
  char desc[160];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s, %" PetscInt_FMT " x %" PetscInt_FMT ", %s", what, csr->M, csr->N, add ? "ADD_VALUES twice" : "INSERT_VALUES"));
  PetscCall(Assemble(t, csr, MATDIAG, add, &A));
  PetscCall(Assemble(t, csr, MATAIJ, add, &Aa));
  PetscCall(CheckTypeOneOf(A, expect_seq, expect_mpi, desc));
  PetscCall(ExpectSameEntries(A, Aa, desc, NULL));
  PetscCall(CheckProducts(t, A, Aa, desc));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTests(void)
{
  TestCtx   t;
  GlobalCSR spread, band, square;
  PetscInt  len[400];

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_diag_spread", 0));
  PetscCall(TestCtxSeed(&t, 48));
  /* 400 x 40, 5 random columns a row: on most of the 439 diagonals of every process's block */
  for (PetscInt i = 0; i < 400; i++) len[i] = 5;
  PetscCall(GlobalCSRFill(t.rnd, 400, 40, len, 0.0, 0.0, &spread));
  for (PetscInt add = 0; add < 2; add++) PetscCall(CheckAgainstAIJ(&t, &spread, (PetscBool)add, MATSEQAIJPCSR, MATMPIAIJPCSR, "spread rectangular diag"));
  { /* 400 x 200, entries on the 3 diagonals j = i + {-1, 0, 1} (rows past 200 empty): stays diag */
    PetscInt k = 0;

    PetscCall(PetscMalloc3(401, &band.rowptr, 1200, &band.cols, 1200, &band.vals));
    band.M = 400, band.N = 200, band.rowptr[0] = 0;
    for (PetscInt i = 0; i < 400; i++) {
      for (PetscInt d = -1; d <= 1; d++)
        if (i + d >= 0 && i + d < 200) {
          band.cols[k] = i + d;
          PetscCall(RandValue(t.rnd, &band.vals[k++]));
        }
      band.rowptr[i + 1] = k;
    }
    band.nnz = k, band.maxlen = 3;
    PetscCall(CheckAgainstAIJ(&t, &band, PETSC_FALSE, MATSEQDIAG, MATMPIDIAG, "banded rectangular diag"));
  }
  { /* a square spread matrix is an operator a user chose diag for: refused, not replaced */
    Mat            A;
    PetscErrorCode ierr;

    for (PetscInt i = 0; i < 300; i++) len[i] = 20;
    PetscCall(GlobalCSRFill(t.rnd, 300, 300, len, 0.0, 0.0, &square));
    PetscCall(MatCreate(t.comm, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 300, 300));
    PetscCall(MatSetType(A, MATDIAG));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GlobalCSRAssemble(A, &square);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "diagonals", "a square diag matrix too spread for diag"));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(GlobalCSRDestroy(&spread));
  PetscCall(GlobalCSRDestroy(&band));
  PetscCall(GlobalCSRDestroy(&square));
  PetscCall(PetscPrintf(t.comm, "test_diag_spread on %d rank(s): all passed, %" PetscInt_FMT " products compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
