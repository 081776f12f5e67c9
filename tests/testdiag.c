/* What the diag tests share (testdiag.h). */
#include <petscmat.h>
#include "testdiag.h"

const char *const Schemes[] = {"auto", "hm", "cdm"};

/* An M x N matrix whose entries lie on the given offsets j - i, each entry kept with
   probability keep (1: full diagonals), random values. */
PetscErrorCode OffsetsCSR(PetscRandom r, PetscInt M, PetscInt N, PetscInt noff, const PetscInt *off, PetscReal keep, GlobalCSR *csr)
{
  PetscInt nnz = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(csr, sizeof(*csr)));
  csr->M = M, csr->N = N;
  PetscCall(PetscMalloc3(M + 1, &csr->rowptr, PetscMax(M * noff, 1), &csr->cols, PetscMax(M * noff, 1), &csr->vals));
  for (PetscInt i = 0; i < M; i++) {
    csr->rowptr[i] = nnz;
    for (PetscInt t = 0; t < noff; t++) {
      const PetscInt j = i + off[t];
      PetscBool      take = PETSC_TRUE;

      if (j < 0 || j >= N) continue;
      if (keep < 1) PetscCall(RandBool(r, keep, &take));
      if (!take) continue;
      csr->cols[nnz] = j;
      PetscCall(RandValue(r, &csr->vals[nnz++]));
    }
    csr->maxlen = PetscMax(csr->maxlen, nnz - csr->rowptr[i]);
  }
  csr->rowptr[M] = nnz;
  csr->nnz       = nnz;
  PetscFunctionReturn(0);
}

/* lower and upper bandwidths p and q: offsets -p..q */
PetscErrorCode BandCSR(PetscRandom r, PetscInt n, PetscInt p, PetscInt q, PetscReal keep, GlobalCSR *csr)
{
  PetscInt *off;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(p + q + 1, &off));
  for (PetscInt k = -p; k <= q; k++) off[k + p] = k;
  PetscCall(OffsetsCSR(r, n, n, p + q + 1, off, keep, csr));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(0);
}

/* the main diagonal and nd - 1 distinct random offsets in (-M, N) */
PetscErrorCode StructuredCSR(PetscRandom r, PetscInt M, PetscInt N, PetscInt nd, PetscReal keep, GlobalCSR *csr)
{
  PetscInt *off, count = 1;

  PetscFunctionBeginUser;
  nd = PetscMax(PetscMin(nd, M + N - 1), 0); /* an empty shape has no diagonal */
  PetscCall(PetscMalloc1(PetscMax(nd, 1), &off));
  off[0] = 0;
  count  = PetscMin(count, nd);
  while (count < nd) {
    PetscInt  d;
    PetscBool dup = PETSC_FALSE;

    PetscCall(RandInt(r, -(M - 1), N - 1, &d));
    for (PetscInt t = 0; t < count; t++) dup = (PetscBool)(dup || off[t] == d);
    if (!dup) off[count++] = d;
  }
  PetscCall(OffsetsCSR(r, M, N, nd, off, keep, csr));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(0);
}

/* csr as a matrix of 'type' in the default layout; a diag matrix gets the scheme, through
   MatSetValues (byconvert false) or by MatConvert from AIJ */
PetscErrorCode CreateMatrix(MPI_Comm comm, const GlobalCSR *csr, MatType type, const char *scheme, PetscBool byconvert, Mat *A)
{
  PetscInt m, n, start;

  PetscFunctionBeginUser;
  PetscCall(DefaultLayout(comm, csr->M, &m, &start));
  PetscCall(DefaultLayout(comm, csr->N, &n, &start));
  if (scheme) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", scheme));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, csr->M, csr->N));
  PetscCall(MatSetType(*A, byconvert ? MATAIJ : type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(GlobalCSRAssemble(*A, csr));
  if (byconvert) PetscCall(MatConvert(*A, type, MAT_INPLACE_MATRIX, A));
  if (scheme) PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scheme"));
  PetscFunctionReturn(0);
}

/* Ac - Aa (both converted to AIJ) relative to Aa, in the Frobenius norm */
PetscErrorCode CompareMats(TestCtx *t, Mat Ac, Mat Aa, const char *desc)
{
  Mat       Cc, Ca;
  PetscReal na, nd, err;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(Ac, MATAIJ, MAT_INITIAL_MATRIX, &Cc));
  PetscCall(MatConvert(Aa, MATAIJ, MAT_INITIAL_MATRIX, &Ca));
  PetscCall(MatNorm(Ca, NORM_FROBENIUS, &na));
  PetscCall(MatAXPY(Cc, -1.0, Ca, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Cc, NORM_FROBENIUS, &nd));
  err = na > 0 ? nd / na : nd;
  PetscCheck(err <= t->tol, t->comm, PETSC_ERR_PLIB, "MISMATCH %s: matrices differ, relative error %g", desc, (double)err);
  t->maxerr = PetscMax(t->maxerr, err);
  t->ncompared++;
  PetscCall(MatDestroy(&Cc));
  PetscCall(MatDestroy(&Ca));
  PetscFunctionReturn(0);
}

