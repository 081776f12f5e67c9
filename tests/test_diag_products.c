static const char help[] = "Sparse products of diag matrices against MATAIJ's on the same matrices.\n\
  -seed <2024>   seed of the random matrices\n\
  -tol <1e-12>   relative error allowed\n\
diag x diag in every combination of schemes (hm, cdm, auto; mixed ones multiply across), sizes 0 to a\n\
few hundred, square and rectangular, AB, AtB and ABt; diag x AIJ and AIJ x diag; PtAP with a diag A\n\
and an AIJ P; MatProductNumeric again after A's values change and after A's diagonals change.  On\n\
one process the seqdiag products (C is seqdiag for diag x diag, AIJ otherwise); on several the\n\
mpidiag ones (through MPIAIJ, C is MPIAIJ).\n";

#include <petscmat.h>
#include <gpumats.h>
#include "testmat.h"
#include "testdiag.h"

/* C = op(A) op(B) by MatProduct for the diag (or mixed) operands and for their AIJ twins; the
   two results compared; then new values of A (scaled), the numeric phase again; then A given a
   diagonal more (its pattern changes), the numeric phase again.  Ad / Aa are replaced. */
static PetscErrorCode CheckProduct(TestCtx *t, Mat *Ad, Mat *Aa, Mat Bd, Mat Ba, MatProductType type, const char *expect_type, PetscBool change_pattern, const char *what)
{
  Mat      Cd, Ca;
  char     desc[256];
  PetscInt M, N;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(*Ad, &M, &N));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s, %s", what, MatProductTypes[type]));
  PetscCall(MatProductCreate(*Ad, Bd, NULL, &Cd));
  PetscCall(MatProductSetType(Cd, type));
  PetscCall(MatProductSetFromOptions(Cd));
  PetscCall(MatProductSymbolic(Cd));
  PetscCall(MatProductNumeric(Cd));
  PetscCall(MatProductCreate(*Aa, Ba, NULL, &Ca));
  PetscCall(MatProductSetType(Ca, type));
  PetscCall(MatProductSetFromOptions(Ca));
  PetscCall(MatProductSymbolic(Ca));
  PetscCall(MatProductNumeric(Ca));
  if (expect_type) PetscCall(CheckTypeOneOf(Cd, expect_type, expect_type, desc));
  PetscCall(CompareMats(t, Cd, Ca, desc));
  /* new values of A, same diagonals: the numeric phase reuses everything */
  PetscCall(MatScale(*Ad, -0.75));
  PetscCall(MatScale(*Aa, -0.75));
  PetscCall(MatProductNumeric(Cd));
  PetscCall(MatProductNumeric(Ca));
  PetscCall(PetscStrlcat(desc, ", after new values of A", sizeof(desc)));
  PetscCall(CompareMats(t, Cd, Ca, desc));
  /* the numeric phase on the host with the plan of the symbolic phase (made on the device where
     -mat_diag_product_plan device: the host's lists are made then) */
  PetscCall(MatBindToCPU(*Ad, PETSC_TRUE));
  PetscCall(MatProductNumeric(Cd));
  PetscCall(MatBindToCPU(*Ad, PETSC_FALSE));
  PetscCall(PetscStrlcat(desc, ", A bound to the CPU", sizeof(desc)));
  PetscCall(CompareMats(t, Cd, Ca, desc));
  if (change_pattern && M > 1 && N > 1) {
    /* A + X, X on one diagonal A may lack (offset 1): A's diagonals change; the AIJ twin's product made again */
    GlobalCSR csrx;
    Mat       Xa, Xd, Ca2;
    PetscInt  one = 1;

    PetscCall(OffsetsCSR(t->rnd, M, N, 1, &one, 1, &csrx));
    PetscCall(CreateMatrix(t->comm, &csrx, MATAIJ, NULL, PETSC_FALSE, &Xa));
    PetscCall(CreateMatrix(t->comm, &csrx, MATDIAG, "hm", PETSC_FALSE, &Xd)); /* diag + AIJ with another pattern fails in PETSc's MatAXPY_BasicWithPreallocation */
    PetscCall(MatAXPY(*Ad, 1.0, Xd, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(*Aa, 1.0, Xa, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatProductNumeric(Cd));
    PetscCall(MatProductCreate(*Aa, Ba, NULL, &Ca2));
    PetscCall(MatProductSetType(Ca2, type));
    PetscCall(MatProductSetFromOptions(Ca2));
    PetscCall(MatProductSymbolic(Ca2));
    PetscCall(MatProductNumeric(Ca2));
    PetscCall(PetscStrlcat(desc, ", after a change of A's diagonals", sizeof(desc)));
    PetscCall(CompareMats(t, Cd, Ca2, desc));
    /* and new values again with the new diagonals */
    PetscCall(MatScale(*Ad, 2.0));
    PetscCall(MatScale(*Aa, 2.0));
    PetscCall(MatProductNumeric(Cd));
    PetscCall(MatProductNumeric(Ca2));
    PetscCall(PetscStrlcat(desc, ", then new values", sizeof(desc)));
    PetscCall(CompareMats(t, Cd, Ca2, desc));
    PetscCall(MatDestroy(&Ca2));
    PetscCall(MatDestroy(&Xa));
    PetscCall(MatDestroy(&Xd));
    PetscCall(GlobalCSRDestroy(&csrx));
  }
  PetscCall(MatDestroy(&Cd));
  PetscCall(MatDestroy(&Ca));
  PetscFunctionReturn(0);
}

/* A (M x K) and B (K x N) as diag matrices in schemes sa and sb and as AIJ, kind 0: banded
   (square only), 1: structured sparse with holes */
static PetscErrorCode MakePair(TestCtx *t, PetscInt kind, PetscInt M, PetscInt K, PetscInt N, const char *sa, const char *sb, Mat *Ad, Mat *Aa, Mat *Bd, Mat *Ba)
{
  GlobalCSR csra, csrb;

  PetscFunctionBeginUser;
  if (kind == 0) {
    PetscCall(BandCSR(t->rnd, M, PetscMin(2, M), PetscMin(5, M), 1, &csra));
    PetscCall(BandCSR(t->rnd, K, PetscMin(7, K), PetscMin(1, K), 1, &csrb));
  } else {
    PetscCall(StructuredCSR(t->rnd, M, K, PetscMin(12, M + K - 1), 0.9, &csra));
    PetscCall(StructuredCSR(t->rnd, K, N, PetscMin(17, K + N - 1), 0.9, &csrb));
  }
  PetscCall(CreateMatrix(t->comm, &csra, MATDIAG, sa, PETSC_FALSE, Ad));
  PetscCall(CreateMatrix(t->comm, &csrb, MATDIAG, sb, PETSC_TRUE, Bd));
  PetscCall(CreateMatrix(t->comm, &csra, MATAIJ, NULL, PETSC_FALSE, Aa));
  PetscCall(CreateMatrix(t->comm, &csrb, MATAIJ, NULL, PETSC_FALSE, Ba));
  PetscCall(GlobalCSRDestroy(&csra));
  PetscCall(GlobalCSRDestroy(&csrb));
  PetscFunctionReturn(0);
}

/* diag x diag: every pair of schemes, square sizes 0..300, rectangular (HM), AB/AtB/ABt */
static PetscErrorCode DiagDiagChecks(TestCtx *t)
{
  const PetscInt sizes[] = {0, 1, 2, 7, 60, 300};
  const char    *ctype   = t->size == 1 ? MATSEQDIAG : MATMPIAIJ;

  PetscFunctionBeginUser;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
    for (PetscInt kind = 0; kind < 2; kind++)
      for (PetscInt sa = 0; sa < 3; sa++)
        for (PetscInt sb = 0; sb < 3; sb++)
          for (MatProductType pt = MATPRODUCT_AB; pt <= MATPRODUCT_ABt; pt = (MatProductType)(pt + 1)) {
            const PetscInt n = sizes[s];
            Mat            Ad, Aa, Bd, Ba;
            char           what[128];

            if (n > 60 && (sa + sb) % 2) continue; /* the largest size: some of the pairs */
            PetscCall(PetscSNPrintf(what, sizeof(what), "diag x diag, %s, n %" PetscInt_FMT ", schemes %s x %s", kind ? "structured" : "banded", n, Schemes[sa], Schemes[sb]));
            PetscCall(MakePair(t, kind, n, n, n, Schemes[sa], Schemes[sb], &Ad, &Aa, &Bd, &Ba));
            PetscCall(CheckProduct(t, &Ad, &Aa, Bd, Ba, pt, ctype, (PetscBool)(pt == MATPRODUCT_AB || n == 7), what));
            PetscCall(MatDestroy(&Ad));
            PetscCall(MatDestroy(&Aa));
            PetscCall(MatDestroy(&Bd));
            PetscCall(MatDestroy(&Ba));
          }
  { /* rectangular, HM (CDM is square only): A 50 x 30 times B 30 x 41, and a CDM square A times an HM rectangular B */
    Mat Ad, Aa, Bd, Ba;

    PetscCall(MakePair(t, 1, 50, 30, 41, "hm", "hm", &Ad, &Aa, &Bd, &Ba));
    PetscCall(CheckProduct(t, &Ad, &Aa, Bd, Ba, MATPRODUCT_AB, ctype, PETSC_TRUE, "rectangular 50x30 times 30x41, HM"));
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Aa));
    PetscCall(MatDestroy(&Bd));
    PetscCall(MatDestroy(&Ba));
    PetscCall(MakePair(t, 1, 40, 40, 17, "cdm", "hm", &Ad, &Aa, &Bd, &Ba));
    PetscCall(CheckProduct(t, &Ad, &Aa, Bd, Ba, MATPRODUCT_AB, ctype, PETSC_TRUE, "square CDM 40x40 times rectangular HM 40x17"));
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Aa));
    PetscCall(MatDestroy(&Bd));
    PetscCall(MatDestroy(&Ba));
    PetscCall(MakePair(t, 1, 23, 40, 40, "hm", "cdm", &Ad, &Aa, &Bd, &Ba));
    PetscCall(CheckProduct(t, &Ad, &Aa, Bd, Ba, MATPRODUCT_AB, ctype, PETSC_TRUE, "rectangular HM 23x40 times square CDM 40x40"));
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Aa));
    PetscCall(MatDestroy(&Bd));
    PetscCall(MatDestroy(&Ba));
  }
  PetscFunctionReturn(0);
}

/* a general sparse AIJ matrix (M x N, about 'per_row' random entries a row) */
static PetscErrorCode RandomAIJ(TestCtx *t, PetscInt M, PetscInt N, PetscInt per_row, Mat *P)
{
  GlobalCSR csr;
  PetscInt *len;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(M + 1, &len));
  for (PetscInt i = 0; i < M; i++) PetscCall(RandInt(t->rnd, 0, PetscMin(per_row, N), &len[i]));
  PetscCall(GlobalCSRFill(t->rnd, M, N, len, 0.05, 0.1, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, PETSC_FALSE, P));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* diag x AIJ, AIJ x diag (C AIJ), PtAP with a diag A and an AIJ P (C AIJ) */
static PetscErrorCode DiagAIJChecks(TestCtx *t)
{
  const PetscInt sizes[] = {0, 1, 5, 40, 200};
  const char    *ctype   = t->size == 1 ? MATSEQAIJ : MATMPIAIJ;

  PetscFunctionBeginUser;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
    for (PetscInt sc = 0; sc < 3; sc++) {
      const PetscInt n = sizes[s], nc = (n + 2) / 3;
      GlobalCSR      csra;
      Mat            Ad, Aa, P, Pc;
      char           what[128];

      PetscCall(StructuredCSR(t->rnd, n, n, PetscMin(9, PetscMax(2 * n - 1, 1)), 0.9, &csra));
      PetscCall(CreateMatrix(t->comm, &csra, MATDIAG, Schemes[sc], PETSC_FALSE, &Ad));
      PetscCall(CreateMatrix(t->comm, &csra, MATAIJ, NULL, PETSC_FALSE, &Aa));
      PetscCall(RandomAIJ(t, n, n, 4, &P));
      PetscCall(PetscSNPrintf(what, sizeof(what), "diag (%s) x AIJ, n %" PetscInt_FMT, Schemes[sc], n));
      PetscCall(CheckProduct(t, &Ad, &Aa, P, P, MATPRODUCT_AB, ctype, PETSC_TRUE, what));
      PetscCall(PetscSNPrintf(what, sizeof(what), "diag (%s) x AIJ AtB, n %" PetscInt_FMT, Schemes[sc], n));
      PetscCall(CheckProduct(t, &Ad, &Aa, P, P, MATPRODUCT_AtB, ctype, PETSC_FALSE, what));
      { /* AIJ x diag: A is the AIJ operand (its twin is itself), B the diag one */
        Mat Bd, Ba, Cd, Ca;

        PetscCall(MatDuplicate(Ad, MAT_COPY_VALUES, &Bd));
        PetscCall(MatDuplicate(Aa, MAT_COPY_VALUES, &Ba));
        PetscCall(PetscSNPrintf(what, sizeof(what), "AIJ x diag (%s), n %" PetscInt_FMT, Schemes[sc], n));
        PetscCall(MatMatMult(P, Bd, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cd));
        PetscCall(MatMatMult(P, Ba, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ca));
        PetscCall(CheckTypeOneOf(Cd, ctype, ctype, what));
        PetscCall(CompareMats(t, Cd, Ca, what));
        PetscCall(MatScale(Bd, 3.0));
        PetscCall(MatScale(Ba, 3.0));
        PetscCall(MatMatMult(P, Bd, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Cd));
        PetscCall(MatMatMult(P, Ba, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ca));
        PetscCall(PetscStrlcat(what, ", after new values of B", sizeof(what)));
        PetscCall(CompareMats(t, Cd, Ca, what));
        PetscCall(MatDestroy(&Cd));
        PetscCall(MatDestroy(&Ca));
        PetscCall(MatDestroy(&Bd));
        PetscCall(MatDestroy(&Ba));
      }
      /* PtAP, P n x nc: an interpolation with 1-2 entries a row (Galerkin coarse operator) */
      PetscCall(RandomAIJ(t, n, nc, 2, &Pc));
      PetscCall(PetscSNPrintf(what, sizeof(what), "PtAP diag (%s), P %" PetscInt_FMT " x %" PetscInt_FMT, Schemes[sc], n, nc));
      PetscCall(CheckProduct(t, &Ad, &Aa, Pc, Pc, MATPRODUCT_PtAP, ctype, PETSC_TRUE, what));
      { /* MatPtAP, the call multigrid makes, with reuse */
        Mat Cd, Ca;

        PetscCall(MatPtAP(Ad, Pc, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cd));
        PetscCall(MatPtAP(Aa, Pc, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ca));
        PetscCall(CompareMats(t, Cd, Ca, "MatPtAP"));
        PetscCall(MatScale(Ad, 0.5));
        PetscCall(MatScale(Aa, 0.5));
        PetscCall(MatPtAP(Ad, Pc, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Cd));
        PetscCall(MatPtAP(Aa, Pc, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ca));
        PetscCall(CompareMats(t, Cd, Ca, "MatPtAP reused after new values of A"));
        PetscCall(MatDestroy(&Cd));
        PetscCall(MatDestroy(&Ca));
      }
      PetscCall(MatDestroy(&Pc));
      PetscCall(MatDestroy(&P));
      PetscCall(MatDestroy(&Ad));
      PetscCall(MatDestroy(&Aa));
      PetscCall(GlobalCSRDestroy(&csra));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx  t;
  PetscInt seed = 2024;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_diag_products", 60));
  PetscOptionsBegin(t.comm, NULL, "test_diag_products options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random matrices", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative error allowed", NULL, t.tol, &t.tol, NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, seed));
  /* the small blocks of several ranks would be refused as too spread: these tests are about products */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "0"));
  PetscCall(DiagDiagChecks(&t));
  PetscCall(DiagAIJChecks(&t));
  PetscCall(PetscPrintf(t.comm, "test_diag_products on %d rank(s): all passed, %" PetscInt_FMT " products compared with MATAIJ's, largest relative error %.3g (tolerance %g)\n", t.size, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
