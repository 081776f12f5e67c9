/* What the diag tests share: matrices whose entries lie on given diagonals (banded,
   structured-sparse, any offsets) as global CSR, a matrix of a type built from one (a
   diag matrix in a given scheme, by MatSetValues or MatConvert), and the comparison of
   two matrices of any types through AIJ. */
#pragma once
#include "testmat.h"

extern const char *const Schemes[]; /* "auto", "hm", "cdm" */

/* An M x N matrix whose entries lie on the offsets j - i, each kept with probability keep */
PetscErrorCode OffsetsCSR(PetscRandom r, PetscInt M, PetscInt N, PetscInt noff, const PetscInt *off, PetscReal keep, GlobalCSR *csr);
/* lower and upper bandwidths p and q: offsets -p..q */
PetscErrorCode BandCSR(PetscRandom r, PetscInt n, PetscInt p, PetscInt q, PetscReal keep, GlobalCSR *csr);
/* the main diagonal and nd - 1 distinct random offsets in (-M, N) */
PetscErrorCode StructuredCSR(PetscRandom r, PetscInt M, PetscInt N, PetscInt nd, PetscReal keep, GlobalCSR *csr);
/* csr as a matrix of 'type' (a diag one in 'scheme'), by MatSetValues or by MatConvert from AIJ */
PetscErrorCode CreateMatrix(MPI_Comm comm, const GlobalCSR *csr, MatType type, const char *scheme, PetscBool byconvert, Mat *A);
/* Ac - Aa (both converted to AIJ) relative to Aa in the Frobenius norm, within t->tol */
PetscErrorCode CompareMats(TestCtx *t, Mat Ac, Mat Aa, const char *desc);
