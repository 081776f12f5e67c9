static const char help[] = "Checks MATSEQDIAG / MATMPIDIAG against MATAIJ on the same matrices.\n\
  -seed <2024>   seed of the random matrices\n\
  -tol <1e-12>   relative error allowed\n\
  -large <100000> rows of the largest banded matrix\n\
  -binary_file <name>  scratch file for MatView/MatLoad\n\
Random banded (bandwidth 1..50, unsymmetric) and structured-sparse (5..300 offsets) matrices in\n\
both schemes, built by MatSetValues and by MatConvert: the four multiplies, MatSetValues after\n\
assembly, the algebra (diagonal, scale, shift, AXPY, zero, norms, copy, duplicate, transpose,\n\
convert, view/load), the products AB, AtB, ABt of two diag matrices (both kernels) and with a\n\
dense B, the refusal of a matrix whose nonzeros spread over too many diagonals, and bad input.\n";

#include <petscmat.h>
#include <gpumats.h>
#include <string.h>
#include "testmat.h"
#include "testdiag.h"

static PetscErrorCode CheckType(Mat A, const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(CheckTypeOneOf(A, MATSEQDIAG, MATMPIDIAG, what));
  PetscFunctionReturn(0);
}

/* ---- 1: multiplies on random banded and structured-sparse matrices, both schemes ---- */
static PetscErrorCode SweepChecks(TestCtx *t, PetscInt large, PetscInt *ncases)
{
  const PetscInt sizes[] = {1, 2, 7, 60, 1000};

  PetscFunctionBeginUser;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    for (PetscInt kind = 0; kind < 5; kind++) {
      const PetscInt n = sizes[s];
      GlobalCSR      csr;
      PetscInt       p, q, nd;
      char           desc[256];
      Mat            Aa;

      switch (kind) {
      case 0: /* banded, full diagonals, unsymmetric bandwidths up to 50 */
      case 1: /* banded with holes */
        PetscCall(RandInt(t->rnd, 0, PetscMin(50, n - 1), &p));
        PetscCall(RandInt(t->rnd, 1, 50, &q));
        PetscCall(BandCSR(t->rnd, n, p, PetscMin(q, n - 1), kind ? 0.7 : 1, &csr));
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "band %" PetscInt_FMT " (-%" PetscInt_FMT "..%" PetscInt_FMT ")%s", n, p, PetscMin(q, n - 1), kind ? " with holes" : ""));
        break;
      case 2: /* structured sparse: 5..300 random offsets */
        PetscCall(RandInt(t->rnd, 5, 300, &nd));
        PetscCall(StructuredCSR(t->rnd, n, n, nd, 1, &csr));
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "structured %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " offsets", n, n, nd));
        break;
      case 3: /* rectangular, HM only */
        PetscCall(RandInt(t->rnd, 5, 40, &nd));
        PetscCall(StructuredCSR(t->rnd, n, n / 2 + 1, nd, 0.8, &csr));
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "rectangular %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " offsets", n, n / 2 + 1, nd));
        break;
      default: /* the corners of a periodic band: CDM's wrapped diagonals hold both parts */
      {
        const PetscInt off[] = {0, 1, -1, n - 1, -(n - 1), 2, -(n - 2)};

        PetscCall(OffsetsCSR(t->rnd, n, n, n > 2 ? 7 : 1, off, 1, &csr));
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "periodic band %" PetscInt_FMT, n));
      }
      }
      PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, PETSC_FALSE, &Aa));
      for (PetscInt sc = 0; sc < 3; sc++) {
        for (PetscInt conv = 0; conv < 2; conv++) {
          Mat  Ad;
          char d2[300];

          if (kind == 3 && sc == 2) continue; /* CDM is square only: tested in BadInputChecks */
          PetscCall(PetscSNPrintf(d2, sizeof(d2), "%s, scheme %s, %s", desc, Schemes[sc], conv ? "MatConvert" : "MatSetValues"));
          PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, Schemes[sc], (PetscBool)conv, &Ad));
          PetscCall(CheckType(Ad, d2));
          PetscCall(CheckProducts(t, Ad, Aa, d2));
          PetscCall(CompareMats(t, Ad, Aa, d2));
          PetscCall(MatDestroy(&Ad));
          (*ncases)++;
        }
      }
      PetscCall(MatDestroy(&Aa));
      PetscCall(GlobalCSRDestroy(&csr));
    }
  }
  { /* a large band: the device kernels' grids and tiles */
    GlobalCSR csr;
    Mat       Ad, Aa;

    PetscCall(BandCSR(t->rnd, large, 3, 4, 1, &csr));
    PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, PETSC_FALSE, &Aa));
    for (PetscInt sc = 1; sc < 3; sc++) {
      PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, Schemes[sc], PETSC_TRUE, &Ad));
      PetscCall(CheckProducts(t, Ad, Aa, Schemes[sc]));
      PetscCall(MatDestroy(&Ad));
      (*ncases)++;
    }
    PetscCall(MatDestroy(&Aa));
    PetscCall(GlobalCSRDestroy(&csr));
  }
  PetscFunctionReturn(0);
}

/* ---- 2: MatSetValues after assembly, and the algebra ---- */
static PetscErrorCode AlgebraChecks(TestCtx *t, const char *scheme)
{
  GlobalCSR   csr, csr2;
  Mat         Ad, Aa, Xd, Xa;
  PetscInt    rstart, rend;
  PetscScalar v[2] = {0.25, -2.0};
  char        desc[128];

  PetscFunctionBeginUser;
  /* with holes on one process; on several, whole diagonals: the ghost columns are fixed at the first assembly */
  PetscCall(BandCSR(t->rnd, 45, 3, 5, t->size == 1 ? 0.8 : 1, &csr));
  { /* X: another diagonal set, without the main diagonal */
    const PetscInt off[] = {1, -7, 9, 40};

    PetscCall(OffsetsCSR(t->rnd, 45, 45, 4, off, 1, &csr2));
  }
  PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, scheme, PETSC_FALSE, &Ad));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, PETSC_FALSE, &Aa));
  PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* the holes of the band are stored slots of diag */
  PetscCall(MatGetOwnershipRange(Ad, &rstart, &rend));

  /* INSERT and ADD on stored diagonals (entries (i, i+1), (i, i-3) exist in the pattern only where kept) */
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt cols[2] = {i, i + 2 < 45 ? i + 2 : -1};

    PetscCall(MatSetValues(Ad, 1, &i, 2, cols, v, INSERT_VALUES));
    PetscCall(MatSetValues(Aa, 1, &i, 2, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s: after MatSetValues INSERT", scheme));
  PetscCall(CheckProducts(t, Ad, Aa, desc));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    cols[2] = {i, i >= 3 ? i - 3 : -1};
    PetscScalar zero    = 0;
    PetscInt    far     = (i + 20) % 45; /* not a stored diagonal: a zero is accepted and changes nothing */

    PetscCall(MatSetValues(Ad, 1, &i, 2, cols, v, ADD_VALUES));
    PetscCall(MatSetValues(Aa, 1, &i, 2, cols, v, ADD_VALUES));
    if (far - i != 1 && far - i != -1 && far - i != 2 && (far - i < -3 || far - i > 5)) PetscCall(MatSetValues(Ad, 1, &i, 1, &far, &zero, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aa, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s: after MatSetValues ADD", scheme));
  PetscCall(CheckProducts(t, Ad, Aa, desc));

  /* MatGetDiagonal, MatNorm */
  {
    Vec       dd, da;
    PetscReal nd, na;

    PetscCall(MatCreateVecs(Ad, NULL, &dd));
    PetscCall(MatCreateVecs(Aa, NULL, &da));
    PetscCall(MatGetDiagonal(Ad, dd));
    PetscCall(MatGetDiagonal(Aa, da));
    PetscCall(CompareVecs(t, dd, da, scheme, "MatGetDiagonal"));
    PetscCall(VecDestroy(&dd));
    PetscCall(VecDestroy(&da));
    for (NormType nt = NORM_1; nt <= NORM_INFINITY; nt = (NormType)(nt + 1)) {
      if (nt == NORM_2) continue;
      PetscCall(MatNorm(Ad, nt, &nd));
      PetscCall(MatNorm(Aa, nt, &na));
      PetscCheck(PetscAbsReal(nd - na) <= t->tol * na, t->comm, PETSC_ERR_PLIB, "MISMATCH scheme %s: MatNorm %s %g, AIJ %g", scheme, NormTypes[nt], (double)nd, (double)na);
      t->ncompared++;
    }
  }
  /* MatScale, MatShift, MatAXPY with the same and with other diagonals */
  PetscCall(MatScale(Ad, -1.5));
  PetscCall(MatScale(Aa, -1.5));
  PetscCall(MatShift(Ad, 3.0));
  PetscCall(MatShift(Aa, 3.0));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s: after MatScale, MatShift", scheme));
  PetscCall(CheckProducts(t, Ad, Aa, desc));
  PetscCall(CreateMatrix(t->comm, &csr2, MATDIAG, "hm", PETSC_FALSE, &Xd));
  PetscCall(CreateMatrix(t->comm, &csr2, MATAIJ, NULL, PETSC_FALSE, &Xa));
  PetscCall(MatSetOption(Xa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* MatShift adds its main diagonal */
  PetscCall(MatAXPY(Ad, 0.5, Xd, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(Aa, 0.5, Xa, DIFFERENT_NONZERO_PATTERN));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s: after MatAXPY of an HM matrix with other diagonals", scheme));
  PetscCall(CheckProducts(t, Ad, Aa, desc));
  PetscCall(CompareMats(t, Ad, Aa, desc));
  PetscCall(MatAXPY(Ad, -2.0, Ad, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Aa, -2.0, Aa, SAME_NONZERO_PATTERN));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s: after MatAXPY with itself", scheme));
  PetscCall(CheckProducts(t, Ad, Aa, desc));
  { /* MatShift of a matrix without a main diagonal */
    PetscCall(MatShift(Xd, 2.0));
    PetscCall(MatShift(Xa, 2.0));
    PetscCall(CheckProducts(t, Xd, Xa, "MatShift adding the main diagonal"));
  }
  /* MatDuplicate, MatCopy, MatTranspose, MatConvert to AIJ, MatGetRow through it */
  {
    Mat D, Dz, Tt, Ta, C;

    PetscCall(MatDuplicate(Ad, MAT_COPY_VALUES, &D));
    PetscCall(CheckType(D, "MatDuplicate"));
    PetscCall(CheckProducts(t, D, Aa, "MatDuplicate with values"));
    PetscCall(MatDuplicate(Ad, MAT_DO_NOT_COPY_VALUES, &Dz));
    PetscCall(MatCopy(Ad, Dz, SAME_NONZERO_PATTERN));
    PetscCall(CheckProducts(t, Dz, Aa, "MatCopy into a duplicate"));
    PetscCall(MatCopy(Xd, Dz, DIFFERENT_NONZERO_PATTERN));
    PetscCall(CheckProducts(t, Dz, Xa, "MatCopy with other diagonals"));
    PetscCall(MatTranspose(Ad, MAT_INITIAL_MATRIX, &Tt));
    PetscCall(MatTranspose(Aa, MAT_INITIAL_MATRIX, &Ta));
    PetscCall(CheckType(Tt, "MatTranspose"));
    PetscCall(CheckProducts(t, Tt, Ta, "MatTranspose"));
    PetscCall(MatTranspose(D, MAT_INPLACE_MATRIX, &D));
    PetscCall(CheckProducts(t, D, Ta, "MatTranspose in place"));
    PetscCall(MatScale(Ad, 2.0));
    PetscCall(MatScale(Aa, 2.0));
    PetscCall(MatTranspose(Ad, MAT_REUSE_MATRIX, &Tt));
    PetscCall(MatTranspose(Aa, MAT_REUSE_MATRIX, &Ta));
    PetscCall(CheckProducts(t, Tt, Ta, "MatTranspose reused"));
    PetscCall(MatConvert(Ad, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(CheckTypeOneOf(C, MATSEQAIJ, MATMPIAIJ, "MatConvert to AIJ"));
    PetscCall(CheckProducts(t, C, Aa, "MatConvert to AIJ"));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dz));
    PetscCall(MatDestroy(&Tt));
    PetscCall(MatDestroy(&Ta));
  }
  /* MatZeroEntries keeps the diagonals */
  PetscCall(MatZeroEntries(Ad));
  PetscCall(MatZeroEntries(Aa));
  PetscCall(MatShift(Ad, 1.0));
  PetscCall(MatShift(Aa, 1.0));
  PetscCall(CheckProducts(t, Ad, Aa, "MatZeroEntries, MatShift"));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Xd));
  PetscCall(MatDestroy(&Xa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscCall(GlobalCSRDestroy(&csr2));
  PetscFunctionReturn(0);
}

/* ---- 3: products of two diag matrices, every kernel ---- */
static PetscErrorCode ProductChecks(TestCtx *t)
{
  const char *kernels[] = {"ours", "paper"};

  PetscFunctionBeginUser;
  for (PetscInt kind = 0; kind < 3; kind++) {
    for (PetscInt sc = 1; sc < 3; sc++) {
      for (PetscInt k = 0; k < 2; k++) {
        GlobalCSR csra, csrb;
        Mat       Ad, Bd, Aa, Ba;
        char      desc[128];

        if (kind == 2 && sc == 2) continue; /* rectangular: HM */
        if (kind == 0) { /* banded */
          PetscCall(BandCSR(t->rnd, 80, 2, 5, 1, &csra));
          PetscCall(BandCSR(t->rnd, 80, 7, 1, 1, &csrb));
        } else if (kind == 1) { /* structured sparse, with holes */
          PetscCall(StructuredCSR(t->rnd, 70, 70, 12, 0.9, &csra));
          PetscCall(StructuredCSR(t->rnd, 70, 70, 25, 0.9, &csrb));
        } else { /* rectangular: A 50 x 30, B 30 x 41 */
          PetscCall(StructuredCSR(t->rnd, 50, 30, 9, 1, &csra));
          PetscCall(StructuredCSR(t->rnd, 30, 41, 7, 1, &csrb));
        }
        PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_product", kernels[k]));
        PetscCall(CreateMatrix(t->comm, &csra, MATDIAG, Schemes[sc], PETSC_FALSE, &Ad));
        PetscCall(CreateMatrix(t->comm, &csrb, MATDIAG, Schemes[sc], PETSC_TRUE, &Bd));
        PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_product"));
        PetscCall(CreateMatrix(t->comm, &csra, MATAIJ, NULL, PETSC_FALSE, &Aa));
        PetscCall(CreateMatrix(t->comm, &csrb, MATAIJ, NULL, PETSC_FALSE, &Ba));
        for (MatProductType pt = MATPRODUCT_AB; pt <= MATPRODUCT_ABt; pt = (MatProductType)(pt + 1)) {
          Mat Cd, Ca;

          if (kind == 2 && pt != MATPRODUCT_AB) continue; /* the shapes allow AB only */
          PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s product %s, scheme %s, kernel %s", kind == 0 ? "banded" : kind == 1 ? "structured" : "rectangular", MatProductTypes[pt], Schemes[sc], kernels[k]));
          PetscCall(MatProductCreate(Ad, Bd, NULL, &Cd));
          PetscCall(MatProductSetType(Cd, pt));
          PetscCall(MatProductSetFromOptions(Cd));
          PetscCall(MatProductSymbolic(Cd));
          PetscCall(MatProductNumeric(Cd));
          PetscCall(CheckType(Cd, desc));
          PetscCall(MatProductCreate(Aa, Ba, NULL, &Ca));
          PetscCall(MatProductSetType(Ca, pt));
          PetscCall(MatProductSetFromOptions(Ca));
          PetscCall(MatProductSymbolic(Ca));
          PetscCall(MatProductNumeric(Ca));
          PetscCall(CompareMats(t, Cd, Ca, desc));
          /* new values of A, same diagonals: the numeric phase again */
          PetscCall(MatScale(Ad, -0.5));
          PetscCall(MatScale(Aa, -0.5));
          PetscCall(MatProductNumeric(Cd));
          PetscCall(MatProductNumeric(Ca));
          PetscCall(CompareMats(t, Cd, Ca, desc));
          PetscCall(CheckProducts(t, Cd, Ca, desc));
          PetscCall(MatDestroy(&Cd));
          PetscCall(MatDestroy(&Ca));
        }
        PetscCall(MatDestroy(&Ad));
        PetscCall(MatDestroy(&Bd));
        PetscCall(MatDestroy(&Aa));
        PetscCall(MatDestroy(&Ba));
        PetscCall(GlobalCSRDestroy(&csra));
        PetscCall(GlobalCSRDestroy(&csrb));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* ---- 4: A times a dense B (one SpMM on one process; several: PETSc's column by column) ---- */
static PetscErrorCode DenseProductChecks(TestCtx *t)
{
  const PetscInt ks[] = {1, 4, 9};

  PetscFunctionBeginUser;
  for (PetscInt sc = 1; sc < 3; sc++) {
    GlobalCSR csra;
    Mat       Ad, Aa;

    PetscCall(BandCSR(t->rnd, 80, 2, 5, 1, &csra));
    PetscCall(CreateMatrix(t->comm, &csra, MATDIAG, Schemes[sc], PETSC_FALSE, &Ad));
    PetscCall(CreateMatrix(t->comm, &csra, MATAIJ, NULL, PETSC_FALSE, &Aa));
    /* CUDA dense B where A's products run on a device: a CUDA PETSc on a machine without one
       (CI's host runs) cannot make a CUDA matrix at all */
    PetscMPIInt cuda_dense = 0;
#if defined(PETSC_HAVE_CUDA)
    {
      PetscBool uses;

      PetscCall(MatGpuMatsUsesDevice(Ad, &uses));
      cuda_dense = uses ? 1 : 0;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &cuda_dense, 1, MPI_INT, MPI_MIN, t->comm));
      if (!cuda_dense) PetscCall(PetscPrintf(t->comm, "diag_ops: no CUDA dense B, the products run on the host\n"));
    }
#endif
    for (size_t i = 0; i < 2 * sizeof(ks) / sizeof(ks[0]); i++) { /* host dense, then CUDA dense (used in place) */
      Mat      B, Cd, Ca;
      PetscInt n;
      char     desc[128];

      if (i >= 3 && !cuda_dense) break;
      PetscCall(MatGetLocalSize(Ad, NULL, &n));
      PetscCall(MatCreateDense(t->comm, n, PETSC_DECIDE, csra.N, ks[i % 3], NULL, &B));
      PetscCall(MatSetRandom(B, t->vrnd));
#if defined(PETSC_HAVE_CUDA)
      if (i >= 3) PetscCall(MatConvert(B, MATDENSECUDA, MAT_INPLACE_MATRIX, &B));
#endif
      PetscCall(PetscSNPrintf(desc, sizeof(desc), "scheme %s times %s dense with %" PetscInt_FMT " columns", Schemes[sc], i >= 3 ? "CUDA" : "host", ks[i % 3]));
      PetscCall(MatMatMult(Ad, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cd));
      PetscCall(MatMatMult(Aa, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ca));
      PetscCall(CompareMats(t, Cd, Ca, desc));
      PetscCall(MatScale(Ad, 2.0)); /* reuse after new values of A */
      PetscCall(MatScale(Aa, 2.0));
      PetscCall(MatMatMult(Ad, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Cd));
      PetscCall(MatMatMult(Aa, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ca));
      PetscCall(CompareMats(t, Cd, Ca, desc));
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&Cd));
      PetscCall(MatDestroy(&Ca));
    }
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Aa));
    PetscCall(GlobalCSRDestroy(&csra));
  }
  PetscFunctionReturn(0);
}

/* ---- 5: MatView/MatLoad binary, ::ascii_info, MatDiagGetInfo ---- */
static PetscErrorCode ViewLoadInfoChecks(TestCtx *t)
{
  GlobalCSR   csr;
  Mat         Ad, Aa, L;
  PetscViewer v;
  MatDiagInfo info;
  char        text[4096];

  PetscFunctionBeginUser;
  PetscCall(BandCSR(t->rnd, 64, 2, 3, 1, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, "cdm", PETSC_FALSE, &Ad));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, PETSC_FALSE, &Aa));
  PetscCall(MatDiagGetInfo(Ad, &info));
  /* several processes: the local diagonal block's */
  PetscCheck(info.scheme == MAT_DIAG_SCHEME_CDM && info.ndiag == 6 && info.padding == info.stored - info.entries && (t->size > 1 || (info.entries == csr.nnz && info.stored == 6 * 64)), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "MatDiagGetInfo of a 64 x 64 band -2..3 in CDM: scheme %d, %" PetscInt_FMT " diagonals, %" PetscInt64_FMT " entries, %" PetscInt64_FMT " stored, %" PetscInt64_FMT " padding; expected 6 diagonals, %" PetscInt_FMT " entries, 384 stored",
             (int)info.scheme, info.ndiag, info.entries, info.stored, info.padding, csr.nnz);
  PetscCall(PetscViewerBinaryOpen(t->comm, t->binfile, FILE_MODE_WRITE, &v));
  PetscCall(MatView(Ad, v));
  PetscCall(PetscViewerDestroy(&v));
  for (PetscInt as_diag = 0; as_diag < 2; as_diag++) {
    PetscCall(PetscViewerBinaryOpen(t->comm, t->binfile, FILE_MODE_READ, &v));
    PetscCall(MatCreate(t->comm, &L));
    PetscCall(MatSetType(L, as_diag ? MATDIAG : MATAIJ));
    PetscCall(MatLoad(L, v));
    PetscCall(PetscViewerDestroy(&v));
    if (as_diag) PetscCall(CheckType(L, "MatLoad"));
    PetscCall(CheckProducts(t, L, Aa, as_diag ? "MatView binary, MatLoad as diag" : "MatView binary, MatLoad as AIJ"));
    PetscCall(CompareMats(t, L, Aa, "MatView binary, MatLoad"));
    PetscCall(MatDestroy(&L));
  }
  if (t->size == 1) { /* -mat_view ::ascii_info into a file, read back */
    char   name[PETSC_MAX_PATH_LEN];
    FILE  *f;
    size_t got;

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s.info", t->binfile));
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(Ad, v));
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
    f = fopen(name, "r");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read back %s", name);
    got       = fread(text, 1, sizeof(text) - 1, f);
    text[got] = 0;
    fclose(f);
    PetscCheck(strstr(text, "DIAG: scheme CDM") && strstr(text, "padding"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatView ::ascii_info does not show the scheme and padding: %s", text);
  } else { /* mpidiag: the common MPI view shows each process's two blocks, read back on rank 0 */
    char  name[PETSC_MAX_PATH_LEN], line[64];
    FILE *f;

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s.info", t->binfile));
    PetscCall(PetscViewerASCIIOpen(t->comm, name, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(Ad, v));
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
    if (t->rank == 0) {
      size_t got;

      f = fopen(name, "r");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read back %s", name);
      got       = fread(text, 1, sizeof(text) - 1, f);
      text[got] = 0;
      fclose(f);
      PetscCheck(strstr(text, "DIAG blocks:") && strstr(text, "off-diagonal block:") && strstr(text, "padding"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "mpidiag MatView ::ascii_info does not show its blocks: %s", text);
      for (PetscMPIInt r = 0; r < t->size; r++) {
        PetscCall(PetscSNPrintf(line, sizeof(line), "[%d] diagonal block: CDM, 6 diagonals", r));
        PetscCheck(strstr(text, line), PETSC_COMM_SELF, PETSC_ERR_PLIB, "mpidiag MatView ::ascii_info lacks \"%s\": %s", line, text);
      }
    }
  }
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* ---- 6: bad input gets an error whose message says what is wrong ---- */
/* Runs 'call' with errors returned instead of printed, and checks the message */
#define EXPECT_ERROR(call, must_contain, what) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(ExpectError(ierr_, must_contain, what)); \
  } while (0)

static PetscErrorCode BadInputChecks(TestCtx *t)
{
  GlobalCSR csr;
  Mat       A, B, C = NULL;

  PetscFunctionBeginUser;
  /* a random sparse matrix: its nonzeros spread over nearly every diagonal */
  PetscCall(GenerateSquare(t->rnd, 200, 3, &csr));
  EXPECT_ERROR(CreateMatrix(t->comm, &csr, MATDIAG, "hm", PETSC_FALSE, &A), "-mat_diag_max_fill", "a matrix on too many diagonals (MatSetValues)");
  PetscCall(MatDestroy(&A));
  PetscCall(GlobalCSRDestroy(&csr));
  if (t->size == 1) {
    GlobalCSR rect;

    PetscCall(StructuredCSR(t->rnd, 30, 20, 5, 1, &rect));
    EXPECT_ERROR(CreateMatrix(t->comm, &rect, MATDIAG, "cdm", PETSC_FALSE, &A), "square", "CDM of a rectangular matrix");
    PetscCall(MatDestroy(&A));
    PetscCall(GlobalCSRDestroy(&rect));
  }
  PetscCall(MatCreate(t->comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 20, 20));
  PetscCall(MatSetType(A, MATDIAG));
  EXPECT_ERROR(MatDiagSetScheme(A, (MatDiagScheme)42), "Unknown MatDiagScheme", "MatDiagSetScheme(42)");
  PetscCall(MatDestroy(&A));
  { /* negative sizes: an error, never a matrix.  PETSc's MatSetSizes may refuse them; when it
       lets them through, diag's MatSetUp must say so itself (on several processes it once passed
       them on to MatMPIAIJSetPreallocation, whose allocation of a wrapped size failed) */
    PetscErrorCode ierr;

    PetscCall(MatCreate(t->comm, &A));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetSizes(A, -5, -5, -5, -5);
    if (!ierr) {
      ierr = MatSetType(A, MATDIAG);
      if (!ierr) ierr = MatSetUp(A);
      PetscCall(PetscPopErrorHandler());
      PetscCall(ExpectError(ierr, "nonnegative", "MatSetUp of a diag matrix of -5 x -5"));
    } else PetscCall(PetscPopErrorHandler());
    PetscCall(MatDestroy(&A));
  }

  /* values off every stored diagonal after assembly */
  PetscCall(BandCSR(t->rnd, 20, 1, 1, 1, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, "hm", PETSC_FALSE, &A));
  {
    PetscInt    rstart, rend, j;
    PetscScalar one = 1;

    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    j = rstart + 2; /* in this process's diagonal block, on diagonal 2, which the tridiagonal matrix lacks */
    if (rend - rstart > 2) EXPECT_ERROR(MatSetValues(A, 1, &rstart, 1, &j, &one, INSERT_VALUES), "does not store", "MatSetValues off the stored diagonals");
  }
  /* products of mismatched sizes (different schemes multiply: test_diag_products) */
  {
    GlobalCSR small;

    PetscCall(BandCSR(t->rnd, 7, 1, 1, 1, &small));
    PetscCall(CreateMatrix(t->comm, &small, MATDIAG, "hm", PETSC_FALSE, &B));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    PetscCheck(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C) != 0, t->comm, PETSC_ERR_PLIB, "MatMatMult of a 20x20 and a 7x7 diag matrix: expected an error");
    PetscCall(PetscPopErrorHandler());
    PetscCall(MatDestroy(&C)); /* MatMatMult created C before it refused the sizes */
    PetscCall(MatDestroy(&B));
    PetscCall(GlobalCSRDestroy(&small));
  }
  { /* -mat_gpumats_backend cuda without a usable device: MatMult refuses, and the matrix can
       still be used on the host and destroyed (on several processes no ghost scatter may be
       left outstanding by the refusal) */
    PetscBool uses;

    PetscCall(MatDestroy(&A));
    PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, "hm", PETSC_FALSE, &A));
    PetscCall(CheckMemType(A, "new"));
    PetscCall(MatGpuMatsUsesDevice(A, &uses));
    if (!uses) {
      Vec x, y;

      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecSet(x, 1.0));
      PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_CUDA));
      EXPECT_ERROR(MatMult(A, x, y), "-mat_gpumats_backend cuda", "MatMult with -mat_gpumats_backend cuda and no device");
      PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
      PetscCall(MatMult(A, x, y));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
  }
  PetscCall(MatDestroy(&A));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* Every diag option has a public setter and getter: each round trip, the options database
   through MatSetFromOptions, the diagonal block of an assembled mpidiag following the MPI
   matrix, and bad values refused with a message naming what was wrong. */
static PetscErrorCode SettingsChecks(TestCtx *t)
{
  GlobalCSR            csr;
  Mat                  A, blk;
  MatDiagScheme        scheme;
  MatDiagProductKernel kernel;
  PetscReal            fill;
  GpuMatsBackend       backend;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(t->comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 30, 30));
  PetscCall(MatSetType(A, MATDIAG));
  /* the defaults, then each setter and its getter */
  PetscCall(MatDiagGetScheme(A, &scheme));
  PetscCall(MatDiagGetMaxFill(A, &fill));
  PetscCall(MatDiagGetProductKernel(A, &kernel));
  PetscCheck(scheme == MAT_DIAG_SCHEME_AUTO && fill == 3 && kernel == MAT_DIAG_PRODUCT_OURS, t->comm, PETSC_ERR_PLIB, "diag defaults: scheme %d, max fill %g, product kernel %d (expected auto, 3, ours)", (int)scheme, (double)fill, (int)kernel);
  PetscCall(MatDiagSetScheme(A, MAT_DIAG_SCHEME_CDM));
  PetscCall(MatDiagSetMaxFill(A, 5.5));
  PetscCall(MatDiagSetProductKernel(A, MAT_DIAG_PRODUCT_PAPER));
  PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
  PetscCall(MatDiagGetScheme(A, &scheme));
  PetscCall(MatDiagGetMaxFill(A, &fill));
  PetscCall(MatDiagGetProductKernel(A, &kernel));
  PetscCall(MatGpuMatsGetBackend(A, &backend));
  { /* programs that load the library with -dll_append (ci_eigen, the FCI builders) ask this by name */
    PetscErrorCode (*uses)(Mat, PetscBool *) = NULL;
    PetscBool device = PETSC_TRUE;

    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", &uses));
    PetscCheck(uses, t->comm, PETSC_ERR_PLIB, "diag: MatGpuMatsUsesDevice_C is not composed");
    PetscCall((*uses)(A, &device));
    PetscCheck(!device, t->comm, PETSC_ERR_PLIB, "diag: MatGpuMatsUsesDevice_C says the device with -mat_gpumats_backend host");
  }
  PetscCall(CheckMemType(A, "with -mat_gpumats_backend host"));
  PetscCheck(scheme == MAT_DIAG_SCHEME_CDM && fill == 5.5 && kernel == MAT_DIAG_PRODUCT_PAPER && backend == GPUMATS_BACKEND_HOST, t->comm, PETSC_ERR_PLIB, "diag setters: got scheme %d, max fill %g, product kernel %d, backend %d back", (int)scheme, (double)fill, (int)kernel, (int)backend);
  /* the options database: MatSetFromOptions applies each option through its setter */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", "hm"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "7"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_product", "ours"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gpumats_backend", "auto"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scheme"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_fill"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_product"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gpumats_backend"));
  PetscCall(MatDiagGetScheme(A, &scheme));
  PetscCall(MatDiagGetMaxFill(A, &fill));
  PetscCall(MatDiagGetProductKernel(A, &kernel));
  PetscCall(MatGpuMatsGetBackend(A, &backend));
  PetscCheck(scheme == MAT_DIAG_SCHEME_HM && fill == 7 && kernel == MAT_DIAG_PRODUCT_OURS && backend == GPUMATS_BACKEND_AUTO, t->comm, PETSC_ERR_PLIB, "diag options: got scheme %d, max fill %g, product kernel %d, backend %d", (int)scheme, (double)fill, (int)kernel, (int)backend);
  /* bad values */
  EXPECT_ERROR(MatDiagSetProductKernel(A, (MatDiagProductKernel)42), "Unknown MatDiagProductKernel", "MatDiagSetProductKernel(42)");
  EXPECT_ERROR(MatDiagSetMaxFill(A, -1), "must be 0 (no limit) or positive", "MatDiagSetMaxFill(-1)");
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "-2"));
  EXPECT_ERROR(MatSetFromOptions(A), "-mat_diag_max_fill -2", "-mat_diag_max_fill -2");
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_fill"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_product", "fastest"));
  EXPECT_ERROR(MatSetFromOptions(A), "mat_diag_product", "-mat_diag_product fastest");
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_product"));
  PetscCall(MatDiagGetMaxFill(A, &fill));
  PetscCall(MatDiagGetProductKernel(A, &kernel));
  PetscCheck(fill == 7 && kernel == MAT_DIAG_PRODUCT_OURS, t->comm, PETSC_ERR_PLIB, "diag settings changed by refused values: max fill %g, product kernel %d", (double)fill, (int)kernel);
  PetscCall(MatDestroy(&A));
  /* assembled: the settings reach the diagonal block (mpidiag) or the matrix itself (seqdiag) */
  PetscCall(BandCSR(t->rnd, 30, 2, 2, 1, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATDIAG, "hm", PETSC_FALSE, &A));
  PetscCall(MatDiagSetProductKernel(A, MAT_DIAG_PRODUCT_PAPER));
  PetscCall(MatDiagSetMaxFill(A, 0));
  PetscCall(MatDiagSetScheme(A, MAT_DIAG_SCHEME_CDM));
  if (t->size > 1) PetscCall(MatGetDiagonalBlock(A, &blk));
  else blk = A;
  PetscCall(MatDiagGetScheme(blk, &scheme));
  PetscCall(MatDiagGetMaxFill(blk, &fill));
  PetscCall(MatDiagGetProductKernel(blk, &kernel));
  PetscCheck(scheme == MAT_DIAG_SCHEME_CDM && fill == 0 && kernel == MAT_DIAG_PRODUCT_PAPER, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag settings of the assembled matrix's %s: scheme %d, max fill %g, product kernel %d (expected cdm, 0, paper)", t->size > 1 ? "diagonal block" : "self", (int)scheme, (double)fill, (int)kernel);
  /* the options database and the backend reach it too; a duplicate keeps the settings */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "9"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scheme", "hm"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_fill"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scheme"));
  PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_HOST));
  if (t->size > 1) PetscCall(MatGetDiagonalBlock(A, &blk));
  PetscCall(MatDiagGetScheme(blk, &scheme));
  PetscCall(MatDiagGetMaxFill(blk, &fill));
  PetscCall(MatGpuMatsGetBackend(blk, &backend));
  PetscCheck(scheme == MAT_DIAG_SCHEME_HM && fill == 9 && backend == GPUMATS_BACKEND_HOST, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag options of the assembled matrix's %s: scheme %d, max fill %g, backend %d (expected hm, 9, host)", t->size > 1 ? "diagonal block" : "self", (int)scheme, (double)fill, (int)backend);
  {
    Mat D;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
    PetscCall(MatDiagGetMaxFill(D, &fill));
    PetscCall(MatDiagGetProductKernel(D, &kernel));
    PetscCall(MatGpuMatsGetBackend(D, &backend));
    PetscCall(MatDestroy(&D));
    PetscCheck(fill == 9 && kernel == MAT_DIAG_PRODUCT_PAPER && backend == GPUMATS_BACKEND_HOST, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag MatDuplicate: max fill %g, product kernel %d, backend %d (expected 9, paper, host)", (double)fill, (int)kernel, (int)backend);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx  t;
  PetscInt seed = 2024, large = 100000, ncases = 0;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_diag_ops", 60));
  PetscOptionsBegin(t.comm, NULL, "test_diag_ops options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random matrices", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-large", "rows of the largest banded matrix", NULL, large, &large, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative error allowed", NULL, t.tol, &t.tol, NULL));
  PetscCall(PetscOptionsString("-binary_file", "scratch file for MatView/MatLoad", NULL, t.binfile, t.binfile, sizeof(t.binfile), NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, seed));

  PetscCall(SweepChecks(&t, large, &ncases));
  for (PetscInt sc = 0; sc < 3; sc++) PetscCall(AlgebraChecks(&t, Schemes[sc]));
  if (t.size == 1) PetscCall(ProductChecks(&t)); /* mpidiag has no sparse products */
  PetscCall(DenseProductChecks(&t));
  PetscCall(ViewLoadInfoChecks(&t));
  PetscCall(BadInputChecks(&t));
  PetscCall(SettingsChecks(&t));
  PetscCall(PetscPrintf(t.comm, "test_diag_ops on %d rank(s): all passed, %" PetscInt_FMT " random matrices, %" PetscInt_FMT " results compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, ncases, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
