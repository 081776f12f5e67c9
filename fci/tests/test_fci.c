static char help[] = "Tests of the FCI matrix builders (fci/).\n\n"
                     "Usage: test_fci [DATADIR] -test NAME[,NAME...] [PETSc/SLEPc options]\n"
                     "  DATADIR   folder with H2O.STO2G.INTDUMP and N2.STO3G.FCIDUMP (or -data_dir DATADIR);\n"
                     "            a test that needs it exits 77 (skip) when it is absent\n"
                     "  -test     h2o_sto2g  H2O/STO-2G: the 3 lowest states of its ISYM sector vs HANDE (1e-8 Eh)\n"
                     "            n2_sto3g   N2/STO-3G, 14,400 determinants: ground state vs CheMPS2 (1e-8 Eh)\n"
                     "            hubbard    2-site closed form, 6-site ring and 2x3 lattice vs dense LAPACK\n"
                     "                       on an independent occupation-number Hamiltonian, U = 0 vs orbitals\n"
                     "            slater     every row of the builder vs one-pair Slater-Condon rules\n"
                     "                       (real and random integrals, symmetry sectors, both orderings)\n"
                     "            headers    Molpro, CheMPS2, psi4, HANDE, one-line headers give the same integrals\n"
                     "            badinput   broken FCIDUMP files give errors naming file and line\n"
                     "            hubbard34  (slow) 3x4 Hubbard, U=8, half filling, 853,776 determinants vs\n"
                     "                       -4.913259209075605 (ExactDiagonalization.jl)\n"
                     "            all        everything but hubbard34 (the default)\n"
                     "  The eigenproblems use the matrix type of -mat_type (default aij; e.g. sbaij, dense, or\n"
                     "  cihybrid with -dll_append <build>/libgpumats.so) and SLEPc's Krylov-Schur, tol 1e-12;\n"
                     "  -fci_ordering lexical|excitation and -fci_reference apply where no ordering is forced.\n\n";

#define _POSIX_C_SOURCE 200809L
#include <slepceps.h>
#include <petscblaslapack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fcidump.h"
#include "determinants.h"
#include "hamiltonian.h"
#include "slatercondon.h"
#include "gpumats_compat.h"
#include "../../tests/testexit.h"

#define ENERGY_TOL 1e-8

typedef struct {
  char      datadir[PETSC_MAX_PATH_LEN];
  PetscBool have_data;
  PetscInt  failures, skipped;
} TestCtx;

#define CHECK(ctx, cond, ...) \
  do { \
    if (!(cond)) { \
      (ctx)->failures++; \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL (%s:%d): ", __FILE__, __LINE__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n")); \
    } \
  } while (0)

/* ---------------------------------------------------------------------- */
/* helpers                                                                  */

/* The nev lowest eigenvalues of A, ascending, with Krylov-Schur (HEP, smallest real, tol 1e-12). */
static PetscErrorCode LowestEigenvalues(Mat A, PetscInt nev, PetscReal evals[])
{
  EPS      eps;
  PetscInt nconv;

  PetscFunctionBeginUser;
  PetscCall(EPSCreate(PetscObjectComm((PetscObject)A), &eps));
  PetscCall(EPSSetOperators(eps, A, NULL));
  PetscCall(EPSSetProblemType(eps, EPS_HEP));
  PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
  PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
  PetscCall(EPSSetTolerances(eps, 1e-12, 1000));
  PetscCall(EPSSetDimensions(eps, nev, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCheck(nconv >= nev, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "EPS converged %" PetscInt_FMT " of %" PetscInt_FMT " eigenvalues", nconv, nev);
  for (PetscInt i = 0; i < nev; i++) {
    PetscScalar k;
    PetscCall(EPSGetEigenvalue(eps, i, &k, NULL));
    evals[i] = PetscRealPart(k);
  }
  PetscCall(PetscSortReal(nev, evals));
  PetscCall(EPSDestroy(&eps));
  PetscFunctionReturn(0);
}

/* All eigenvalues (ascending) of the n x n symmetric column-major array a (overwritten). */
static PetscErrorCode DenseSymmetricEigenvalues(PetscInt n, PetscScalar *a, PetscReal w[])
{
  PetscBLASInt bn, lwork, info;
  PetscScalar *work;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  lwork = 3 * bn + 64;
  PetscCall(PetscMalloc1(lwork, &work));
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("N", "U", &bn, a, &bn, w, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK syev info %d", (int)info);
  PetscCall(PetscFree(work));
  PetscFunctionReturn(0);
}

/* All eigenvalues of the Hamiltonian by dense LAPACK: the matrix is built sequentially on every rank
   (options prefix ref_, so -mat_type does not apply), converted with MatConvert to MATSEQDENSE. */
static PetscErrorCode HamiltonianDenseEigenvalues(const FCIIntegrals *ints, const FCIDetSpace *sp, PetscReal **w)
{
  Mat          A, D;
  PetscScalar *a, *copy;
  PetscInt     n = sp->ndet;
  PetscInt     lda;

  PetscFunctionBeginUser;
  PetscCall(FCIHamiltonianCreate(PETSC_COMM_SELF, ints, sp, 0.0, "ref_", &A));
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatDenseGetLDA(D, &lda));
  PetscCall(MatDenseGetArray(D, &a));
  PetscCall(PetscMalloc1((size_t)n * n, &copy));
  for (PetscInt j = 0; j < n; j++) PetscCall(PetscArraycpy(copy + (size_t)j * n, a + (size_t)j * lda, n));
  PetscCall(MatDenseRestoreArray(D, &a));
  PetscCall(PetscMalloc1(n, w));
  PetscCall(DenseSymmetricEigenvalues(n, copy, *w));
  PetscCall(PetscFree(copy));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode DataFile(TestCtx *ctx, const char name[], char path[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", ctx->datadir, name));
  PetscFunctionReturn(0);
}

static PetscErrorCode Space(const FCIIntegrals *ints, PetscInt sector, FCIOrdering ordering, FCIDetSpace **sp)
{
  FCIDetSpaceOptions o;

  PetscFunctionBeginUser;
  PetscCall(FCIDetSpaceOptionsDefault(&o));
  PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_WORLD, NULL, &o)); /* -fci_reference */
  o.sector   = sector;
  o.ordering = ordering;
  PetscCall(FCIDetSpaceCreate(ints, &o, sp));
  PetscFunctionReturn(0);
}

/* Builds H in the -mat_type of the command line and checks its nev lowest eigenvalues against ref[]. */
static PetscErrorCode CheckLowest(TestCtx *ctx, const char *what, const FCIIntegrals *ints, const FCIDetSpace *sp, PetscInt nev, const PetscReal ref[], PetscReal tol)
{
  Mat            A;
  PetscReal      ev[16];
  MatType        type;
  PetscLogDouble t0, t1, t2;
  MatInfo        info;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(FCIHamiltonianCreate(PETSC_COMM_WORLD, ints, sp, 0.0, NULL, &A));
  PetscCall(PetscTime(&t1));
  PetscCall(LowestEigenvalues(A, nev, ev));
  PetscCall(PetscTime(&t2));
  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %" PetscInt_FMT " determinants (%s ordering), %.0f nonzeros, %s; build %.3f s, solve %.3f s\n", what, sp->ndet, sp->ordering == FCI_ORDER_EXCITATION ? "excitation" : "lexical", info.nz_used, type, t1 - t0, t2 - t1));
  for (PetscInt i = 0; i < nev; i++) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    E%" PetscInt_FMT " = %.12f   reference %.12f   difference %.2e\n", i, (double)ev[i], (double)ref[i], (double)PetscAbsReal(ev[i] - ref[i])));
    CHECK(ctx, PetscAbsReal(ev[i] - ref[i]) <= tol, "%s: eigenvalue %" PetscInt_FMT " is %.12f, expected %.12f", what, i, (double)ev[i], (double)ref[i]);
  }
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

typedef struct {
  char dir[PETSC_MAX_PATH_LEN];
} TempDir;

static PetscErrorCode TempDirCreate(TempDir *td)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    const char *base = getenv("TMPDIR");
    PetscCall(PetscSNPrintf(td->dir, sizeof(td->dir), "%s/test_fci_XXXXXX", base && base[0] ? base : "/tmp"));
    PetscCheck(mkdtemp(td->dir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create a temporary folder %s", td->dir);
  }
  PetscCallMPI(MPI_Bcast(td->dir, sizeof(td->dir), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* Writes text to dir/name (rank 0) and returns the path. */
static PetscErrorCode TempDirWrite(TempDir *td, const char name[], const char text[], char path[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", td->dir, name));
  if (rank == 0) {
    FILE *f = fopen(path, "w");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
    fputs(text, f);
    fclose(f);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

static PetscErrorCode TempDirDestroy(TempDir *td, PetscInt nfiles, char paths[][PETSC_MAX_PATH_LEN])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    for (PetscInt i = 0; i < nfiles; i++) (void)unlink(paths[i]);
    (void)rmdir(td->dir);
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------- */
/* h2o_sto2g, n2_sto3g                                                      */

/* FCIHamiltonianCreate with the type of the options (an AIJ type takes the CSR arrays the threads
   wrote, without MatSetValues) against B, made by FCIHamiltonianAssemble (one MatSetValues a row)
   with the same options: the same type and the same entries. */
static PetscErrorCode CompareCreateWithAssemble(TestCtx *ctx, const char *what, Mat B, const FCIIntegrals *ints, const FCIDetSpace *sp)
{
  Mat       C, Ca, Ba;
  MatType   tb, tc;
  PetscBool same, equal;

  PetscFunctionBeginUser;
  PetscCall(FCIHamiltonianCreate(PETSC_COMM_WORLD, ints, sp, 0.0, NULL, &C));
  PetscCall(MatGetType(B, &tb));
  PetscCall(MatGetType(C, &tc));
  PetscCall(PetscStrcmp(tb, tc, &same));
  CHECK(ctx, same, "%s: FCIHamiltonianCreate made a %s, FCIHamiltonianAssemble a %s with the same options", what, tc, tb);
  PetscCall(MatIsSymmetricKnown(C, &same, &equal));
  CHECK(ctx, same && equal, "%s: FCIHamiltonianCreate's matrix is not marked symmetric", what);
  /* entry for entry, through AIJ copies: every type converts to AIJ */
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &Ba));
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &Ca));
  PetscCall(MatEqual(Ba, Ca, &equal));
  CHECK(ctx, equal, "%s: FCIHamiltonianCreate's entries differ from FCIHamiltonianAssemble's", what);
  PetscCall(MatMultEqual(B, C, 4, &equal));
  CHECK(ctx, equal, "%s: FCIHamiltonianCreate's products differ from FCIHamiltonianAssemble's", what);
  PetscCall(MatDestroy(&Ba));
  PetscCall(MatDestroy(&Ca));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestH2OSTO2G(TestCtx *ctx)
{
  /* HANDE test_suite/fci/H2O-RHF-sto-2g: the three lowest eigenvalues of the ISYM = 1 sector */
  const PetscReal ref[3] = {-72.786196191345, -72.317128060987, -72.213262188978};
  char            path[PETSC_MAX_PATH_LEN];
  FCIIntegrals   *ints;
  FCIDetSpace    *sp;

  PetscFunctionBeginUser;
  PetscCall(DataFile(ctx, "H2O.STO2G.INTDUMP", path));
  PetscCall(FCIDumpRead(PETSC_COMM_WORLD, path, &ints));
  CHECK(ctx, ints->norb == 7 && ints->nelec == 10 && ints->ms2 == 0 && ints->isym == 1, "H2O/STO-2G header: NORB %" PetscInt_FMT " NELEC %" PetscInt_FMT " MS2 %" PetscInt_FMT " ISYM %" PetscInt_FMT, ints->norb, ints->nelec, ints->ms2, ints->isym);
  PetscCall(Space(ints, FCI_SECTOR_NONE, FCI_ORDER_LEXICAL, &sp));
  CHECK(ctx, sp->ndet == 441, "H2O/STO-2G: %" PetscInt_FMT " determinants without symmetry, expected 441", sp->ndet);
  /* The full space holds other irreps' states between these (e.g. -72.4197 of irrep 4): its lowest is the ground state only. */
  PetscCall(CheckLowest(ctx, "H2O/STO-2G, all 441 determinants", ints, sp, 1, ref, ENERGY_TOL));
  PetscCall(FCIDetSpaceDestroy(&sp));
  for (int o = 0; o < 2; o++) {
    PetscCall(Space(ints, FCI_SECTOR_ISYM, (FCIOrdering)o, &sp));
    CHECK(ctx, sp->ndet == 133, "H2O/STO-2G: %" PetscInt_FMT " determinants in irrep 1, expected 133", sp->ndet);
    PetscCall(CheckLowest(ctx, "H2O/STO-2G, sector ISYM = 1", ints, sp, 3, ref, ENERGY_TOL));
    PetscCall(FCIDetSpaceDestroy(&sp));
  }
  {
    /* a Mat made by the caller, type from the options before any size: FCIHamiltonianAssemble sets the sizes */
    Mat       A, B;
    PetscBool equal;
    PetscCall(Space(ints, FCI_SECTOR_ISYM, FCI_ORDER_EXCITATION, &sp));
    PetscCall(FCIIntegralsView(ints, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(FCIDetSpaceView(sp, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(FCIHamiltonianCreate(PETSC_COMM_WORLD, ints, sp, 0.0, "ref_", &A));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
    PetscCall(MatSetFromOptions(B));
    PetscCall(FCIHamiltonianAssemble(ints, sp, 0.0, B));
    PetscCall(MatMultEqual(A, B, 4, &equal));
    CHECK(ctx, equal, "H2O/STO-2G: MatCreate + MatSetFromOptions + FCIHamiltonianAssemble differs from FCIHamiltonianCreate");
    PetscCall(CompareCreateWithAssemble(ctx, "H2O/STO-2G", B, ints, sp));
    {
      /* saved with MatView on a binary viewer, read back with MatLoad */
      TempDir     td;
      PetscViewer v;
      Mat         C;
      char        path[1][PETSC_MAX_PATH_LEN], info[PETSC_MAX_PATH_LEN];
      PetscCall(TempDirCreate(&td));
      PetscCall(PetscSNPrintf(path[0], sizeof(path[0]), "%s/H.bin", td.dir));
      PetscCall(PetscSNPrintf(info, sizeof(info), "%s/H.bin.info", td.dir));
      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, path[0], FILE_MODE_WRITE, &v));
      PetscCall(MatView(B, v));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, path[0], FILE_MODE_READ, &v));
      PetscCall(MatCreate(PETSC_COMM_WORLD, &C));
      PetscCall(MatSetFromOptions(C)); /* same type: an SBAIJ file holds only the upper triangle */
      PetscCall(MatLoad(C, v));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(MatMultEqual(A, C, 4, &equal));
      CHECK(ctx, equal, "H2O/STO-2G: matrix read back from %s differs", path[0]);
      PetscCall(MatDestroy(&C));
      PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
      (void)unlink(info);
      PetscCall(TempDirDestroy(&td, 1, path));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
    PetscCall(FCIDetSpaceDestroy(&sp));
  }
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestN2STO3G(TestCtx *ctx)
{
  const PetscReal ref[1] = {-107.648250974014}; /* CheMPS2 tests/test5 */
  char            path[PETSC_MAX_PATH_LEN];
  FCIIntegrals   *ints;
  FCIDetSpace    *sp;
  FCIDetSpaceOptions o;

  PetscFunctionBeginUser;
  PetscCall(DataFile(ctx, "N2.STO3G.FCIDUMP", path));
  PetscCall(FCIDumpRead(PETSC_COMM_WORLD, path, &ints));
  PetscCall(FCIDetSpaceOptionsDefault(&o));
  PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_WORLD, NULL, &o));
  PetscCall(FCIDetSpaceCreate(ints, &o, &sp));
  if (o.sector == FCI_SECTOR_NONE) CHECK(ctx, sp->ndet == 14400, "N2/STO-3G: %" PetscInt_FMT " determinants, expected 14,400", sp->ndet);
  PetscCall(CheckLowest(ctx, "N2/STO-3G", ints, sp, 1, ref, ENERGY_TOL));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscCall(Space(ints, FCI_SECTOR_ISYM, o.ordering == FCI_ORDER_LEXICAL ? FCI_ORDER_EXCITATION : FCI_ORDER_LEXICAL, &sp));
  PetscCall(CheckLowest(ctx, "N2/STO-3G, sector ISYM = 1", ints, sp, 1, ref, ENERGY_TOL));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------- */
/* hubbard                                                                  */

/* Independent Hubbard Hamiltonian in the occupation basis (Jordan-Wigner
   phases, alpha before beta), straight from the lattice, no integrals:
   all its eigenvalues. */
static PetscErrorCode HubbardDirectEigenvalues(const FCIHubbardSpec *s, PetscInt *ndet, PetscReal **w)
{
  const int   L = (int)(s->nx * s->ny);
  uint64_t   *dets;
  PetscInt    n = 0, cap = 1024;
  PetscScalar *H;
  int          bonds[256][2], nb = 0;

  PetscFunctionBeginUser;
  for (int y = 0; y < s->ny; y++)
    for (int x = 0; x < s->nx; x++) {
      const int site = x + (int)s->nx * y;
      /* bond: each neighbouring pair once; sum: the hop to x+1 mod L of every site, even onto the
         same neighbour twice (L = 2) or onto itself (L = 1) */
      const PetscBool sum = (PetscBool)(s->wrap == FCI_HUBBARD_WRAP_SUM);
      if (x + 1 < s->nx) bonds[nb][0] = site, bonds[nb++][1] = site + 1;
      else if (s->periodic_x && (s->nx > 2 || sum)) bonds[nb][0] = site, bonds[nb++][1] = (int)s->nx * y;
      if (y + 1 < s->ny) bonds[nb][0] = site, bonds[nb++][1] = site + (int)s->nx;
      else if (s->periodic_y && (s->ny > 2 || sum)) bonds[nb][0] = site, bonds[nb++][1] = x;
    }
  PetscCall(PetscMalloc1(cap, &dets));
  for (uint64_t a = 0; a < (UINT64_C(1) << L); a++) {
    if (__builtin_popcountll(a) != s->nup) continue;
    for (uint64_t b = 0; b < (UINT64_C(1) << L); b++) {
      if (__builtin_popcountll(b) != s->ndown) continue;
      if (n == cap) {
        uint64_t *nd;
        PetscCall(PetscMalloc1(2 * cap, &nd));
        PetscCall(PetscArraycpy(nd, dets, cap));
        PetscCall(PetscFree(dets));
        dets = nd;
        cap *= 2;
      }
      dets[n++] = (a << 32) | b;
    }
  }
  PetscCall(PetscCalloc1((size_t)n * n, &H));
  for (PetscInt c = 0; c < n; c++) {
    const uint64_t a = dets[c] >> 32, b = dets[c] & 0xffffffffu;
    H[(size_t)c * n + c] += s->U * __builtin_popcountll(a & b);
    for (int k = 0; k < nb; k++) {
      if (bonds[k][0] == bonds[k][1]) { /* a site hopping onto itself: -t (c+c + h.c.) = -2t n */
        H[(size_t)c * n + c] += -2 * s->t * (double)(((a >> bonds[k][0]) & 1) + ((b >> bonds[k][0]) & 1));
        continue;
      }
      for (int dir = 0; dir < 2; dir++) {
        const int from = bonds[k][dir], to = bonds[k][1 - dir];
        for (int spin = 0; spin < 2; spin++) {
          uint64_t str = spin ? b : a, nstr, target;
          int      sign = 1;
          if (!((str >> from) & 1) || ((str >> to) & 1)) continue;
          /* c+_to c_from: annihilate (sign of occupied below 'from'), then create (occupied below 'to') */
          for (int p = 0; p < from; p++) sign *= ((str >> p) & 1) ? -1 : 1;
          nstr = str & ~(UINT64_C(1) << from);
          for (int p = 0; p < to; p++) sign *= ((nstr >> p) & 1) ? -1 : 1;
          nstr |= UINT64_C(1) << to;
          target = spin ? ((a << 32) | nstr) : ((nstr << 32) | b);
          for (PetscInt r = 0; r < n; r++)
            if (dets[r] == target) {
              H[(size_t)c * n + r] += -s->t * sign;
              break;
            }
        }
      }
    }
  }
  PetscCall(PetscMalloc1(n, w));
  PetscCall(DenseSymmetricEigenvalues(n, H, *w));
  PetscCall(PetscFree(H));
  PetscCall(PetscFree(dets));
  *ndet = n;
  PetscFunctionReturn(0);
}

/* Spectrum of the builder (dense, all eigenvalues) vs the direct construction, and the lowest 3 by EPS on -mat_type. */
static PetscErrorCode CheckHubbardCase(TestCtx *ctx, const char *what, const FCIHubbardSpec *s)
{
  FCIIntegrals *ints;
  FCIDetSpace  *sp;
  PetscReal    *wb, *wd, maxdiff = 0;
  PetscInt      nd;

  PetscFunctionBeginUser;
  PetscCall(FCIHubbardCreate(s, &ints));
  PetscCall(HubbardDirectEigenvalues(s, &nd, &wd));
  for (int o = 0; o < 2; o++) {
    PetscCall(Space(ints, FCI_SECTOR_NONE, (FCIOrdering)o, &sp));
    CHECK(ctx, sp->ndet == nd, "%s: %" PetscInt_FMT " determinants, direct construction %" PetscInt_FMT, what, sp->ndet, nd);
    PetscCall(HamiltonianDenseEigenvalues(ints, sp, &wb));
    for (PetscInt i = 0; i < PetscMin(nd, sp->ndet); i++) maxdiff = PetscMax(maxdiff, PetscAbsReal(wb[i] - wd[i]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s (%s ordering): %" PetscInt_FMT " determinants, full spectrum vs direct occupation-number Hamiltonian: max difference %.2e\n", what, o ? "excitation" : "lexical", sp->ndet, (double)maxdiff));
    CHECK(ctx, maxdiff < 1e-10, "%s: spectrum differs from the direct construction by %g", what, (double)maxdiff);
    if (sp->ndet >= 20) PetscCall(CheckLowest(ctx, what, ints, sp, 1, wd, ENERGY_TOL)); /* higher ones may be degenerate */
    PetscCall(PetscFree(wb));
    PetscCall(FCIDetSpaceDestroy(&sp));
  }
  PetscCall(PetscFree(wd));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestHubbard(TestCtx *ctx)
{
  PetscFunctionBeginUser;
  /* two sites, half filling: E0 = U/2 - sqrt(U^2/4 + 4 t^2) */
  for (int k = 0; k < 4; k++) {
    const PetscReal U = (PetscReal[]){0.0, 1.0, 4.0, 8.0}[k], t = 1.0;
    FCIHubbardSpec  s = {2, 1, PETSC_FALSE, PETSC_FALSE, t, U, 1, 1, FCI_HUBBARD_WRAP_BOND};
    FCIIntegrals   *ints;
    FCIDetSpace    *sp;
    PetscReal      *w, e0 = U / 2 - PetscSqrtReal(U * U / 4 + 4 * t * t);
    PetscCall(FCIHubbardCreate(&s, &ints));
    PetscCall(Space(ints, FCI_SECTOR_NONE, FCI_ORDER_LEXICAL, &sp));
    PetscCall(HamiltonianDenseEigenvalues(ints, sp, &w));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Hubbard dimer U = %.1f: E0 = %.12f, closed form %.12f\n", (double)U, (double)w[0], (double)e0));
    CHECK(ctx, sp->ndet == 4 && PetscAbsReal(w[0] - e0) < 1e-12, "Hubbard dimer U = %g: E0 %.14f, expected %.14f", (double)U, (double)w[0], (double)e0);
    PetscCall(PetscFree(w));
    PetscCall(FCIDetSpaceDestroy(&sp));
    PetscCall(FCIIntegralsDestroy(&ints));
  }
  {
    FCIHubbardSpec ring = {6, 1, PETSC_TRUE, PETSC_FALSE, 1.0, 4.0, 3, 3, FCI_HUBBARD_WRAP_BOND};
    FCIHubbardSpec ring4 = {4, 1, PETSC_TRUE, PETSC_FALSE, 1.0, 2.5, 2, 2, FCI_HUBBARD_WRAP_BOND}; /* even filling: the boundary phase matters */
    FCIHubbardSpec latt = {2, 3, PETSC_FALSE, PETSC_FALSE, 1.0, 3.0, 3, 2, FCI_HUBBARD_WRAP_BOND};  /* 2D: hops across other orbitals */
    FCIHubbardSpec tor  = {3, 3, PETSC_TRUE, PETSC_TRUE, 0.7, 5.0, 2, 1, FCI_HUBBARD_WRAP_BOND};
    PetscCall(CheckHubbardCase(ctx, "Hubbard 6-site ring U=4 3+3", &ring));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 4-site ring U=2.5 2+2", &ring4));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 2x3 open U=3 3+2", &latt));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 3x3 torus t=0.7 U=5 2+1", &tor));
  }
  {
    /* the wrap conventions on periodic sides of length 1 and 2 (-hubbard_wrap) */
    FCIHubbardSpec l42b = {4, 2, PETSC_TRUE, PETSC_TRUE, 1.0, 4.0, 2, 2, FCI_HUBBARD_WRAP_BOND};
    FCIHubbardSpec l42s = {4, 2, PETSC_TRUE, PETSC_TRUE, 1.0, 4.0, 2, 2, FCI_HUBBARD_WRAP_SUM};
    FCIHubbardSpec l31s = {3, 1, PETSC_TRUE, PETSC_TRUE, 0.8, 2.0, 2, 1, FCI_HUBBARD_WRAP_SUM}; /* y: each site onto itself */
    FCIHubbardSpec l33s = {3, 3, PETSC_TRUE, PETSC_TRUE, 0.7, 5.0, 2, 1, FCI_HUBBARD_WRAP_SUM}; /* same as bond */
    FCIIntegrals  *ib, *is;
    PetscCall(CheckHubbardCase(ctx, "Hubbard 4x2 periodic, wrap bond, U=4 2+2", &l42b));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 4x2 periodic, wrap sum, U=4 2+2", &l42s));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 3x1 periodic, wrap sum, U=2 2+1", &l31s));
    PetscCall(CheckHubbardCase(ctx, "Hubbard 3x3 torus, wrap sum, t=0.7 U=5 2+1", &l33s));
    /* the one-electron integrals themselves: the y pair (sites 0 and 4) -t or -2t, the x ring -t either way */
    PetscCall(FCIHubbardCreate(&l42b, &ib));
    PetscCall(FCIHubbardCreate(&l42s, &is));
    CHECK(ctx, ib->h[0 * 8 + 4] == -1.0 && is->h[0 * 8 + 4] == -2.0 && ib->h[4 * 8 + 0] == -1.0 && is->h[4 * 8 + 0] == -2.0, "Hubbard 4x2 wrap: h_04 %g (bond, expected -1) and %g (sum, expected -2)", (double)ib->h[4], (double)is->h[4]);
    CHECK(ctx, ib->h[0 * 8 + 3] == -1.0 && is->h[0 * 8 + 3] == -1.0 && ib->h[0] == 0.0 && is->h[0] == 0.0, "Hubbard 4x2 wrap: x ring h_03 %g / %g, diagonal %g / %g", (double)ib->h[3], (double)is->h[3], (double)ib->h[0], (double)is->h[0]);
    PetscCall(FCIIntegralsDestroy(&ib));
    PetscCall(FCIIntegralsDestroy(&is));
  }
  {
    /* the dimer as a periodic side of length 2: closed form with t (bond) or 2t (sum) */
    for (int w = 0; w < 2; w++) {
      const PetscReal U = 3.0, t = 1.0, teff = w ? 2 * t : t, e0 = U / 2 - PetscSqrtReal(U * U / 4 + 4 * teff * teff);
      FCIHubbardSpec  s = {2, 1, PETSC_TRUE, PETSC_FALSE, t, U, 1, 1, w ? FCI_HUBBARD_WRAP_SUM : FCI_HUBBARD_WRAP_BOND};
      FCIIntegrals   *ints;
      FCIDetSpace    *sp;
      PetscReal      *ev;
      PetscCall(FCIHubbardCreate(&s, &ints));
      PetscCall(Space(ints, FCI_SECTOR_NONE, FCI_ORDER_LEXICAL, &sp));
      PetscCall(HamiltonianDenseEigenvalues(ints, sp, &ev));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Hubbard periodic dimer, wrap %s: E0 = %.12f, closed form %.12f\n", FCIHubbardWraps[s.wrap], (double)ev[0], (double)e0));
      CHECK(ctx, PetscAbsReal(ev[0] - e0) < 1e-12, "Hubbard periodic dimer, wrap %s: E0 %.14f, expected %.14f", FCIHubbardWraps[s.wrap], (double)ev[0], (double)e0);
      PetscCall(PetscFree(ev));
      PetscCall(FCIDetSpaceDestroy(&sp));
      PetscCall(FCIIntegralsDestroy(&ints));
    }
  }
  {
    /* U = 0: the ground state fills the lowest one-particle levels */
    FCIHubbardSpec s = {3, 2, PETSC_FALSE, PETSC_TRUE, 1.0, 0.0, 3, 2, FCI_HUBBARD_WRAP_BOND};
    FCIIntegrals  *ints;
    FCIDetSpace   *sp;
    PetscScalar   *h;
    PetscReal      eps[64], e0;
    PetscCall(FCIHubbardCreate(&s, &ints));
    PetscCall(PetscMalloc1(ints->norb * ints->norb, &h));
    PetscCall(PetscArraycpy(h, ints->h, ints->norb * ints->norb));
    PetscCall(DenseSymmetricEigenvalues(ints->norb, h, eps));
    e0 = 0;
    for (PetscInt i = 0; i < s.nup; i++) e0 += eps[i];
    for (PetscInt i = 0; i < s.ndown; i++) e0 += eps[i];
    PetscCall(Space(ints, FCI_SECTOR_NONE, FCI_ORDER_LEXICAL, &sp));
    PetscCall(CheckLowest(ctx, "Hubbard 3x2 U=0 3+2 vs one-particle levels", ints, sp, 1, &e0, ENERGY_TOL));
    PetscCall(FCIDetSpaceDestroy(&sp));
    PetscCall(PetscFree(h));
    PetscCall(FCIIntegralsDestroy(&ints));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TestHubbard34(TestCtx *ctx)
{
  const PetscReal ref = -4.913259209075605; /* ExactDiagonalization.jl docs, HubbardModel.md */
  FCIHubbardSpec  s   = {3, 4, PETSC_FALSE, PETSC_FALSE, 1.0, 8.0, 6, 6, FCI_HUBBARD_WRAP_BOND};
  FCIIntegrals   *ints;
  FCIDetSpace    *sp;
  FCIDetSpaceOptions o;

  PetscFunctionBeginUser;
  PetscCall(FCIHubbardCreate(&s, &ints));
  PetscCall(FCIDetSpaceOptionsDefault(&o));
  PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_WORLD, NULL, &o));
  PetscCall(FCIDetSpaceCreate(ints, &o, &sp));
  CHECK(ctx, sp->ndet == 853776, "Hubbard 3x4: %" PetscInt_FMT " determinants, expected 853,776", sp->ndet);
  PetscCall(CheckLowest(ctx, "Hubbard 3x4 open U=8 6+6", ints, sp, 1, &ref, ENERGY_TOL));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------- */
/* The threaded sweeps (FCIRowGeneratorCountRows / GetRows) on 3 threads, for all rows and for a
   block starting inside the space, against FCIRowGeneratorGetRow row by row; then a slot one
   entry too short must give an error, not an overflow. */
static PetscErrorCode CompareParallelRows(TestCtx *ctx, const char *what, const FCIIntegrals *ints, const FCIDetSpace *sp)
{
  FCIRowGenerator gen;
  const PetscInt  n = sp->ndet;
  PetscInt        maxlen, nz, *len, *lenu, *cols, *pcols, nthreads, mismatch = 0;
  PetscInt64     *offset;
  PetscScalar    *vals, *pvals;
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  PetscCall(FCIRowGeneratorCreate(ints, sp, 0.0, &gen));
  PetscCall(FCIRowGeneratorSetThreads(gen, 3));
  PetscCall(FCIRowGeneratorGetThreads(gen, &nthreads));
  PetscCall(FCIRowGeneratorGetMaxRowLength(gen, &maxlen));
  PetscCall(PetscMalloc2(maxlen, &cols, maxlen, &vals));
  PetscCall(PetscMalloc3(n, &len, n, &lenu, n + 1, &offset));
  for (PetscInt r0 = 0; r0 < n; r0 += n / 3 + 1) { /* rows r0..n-1: all of them, then two later starts */
    PetscCall(FCIRowGeneratorCountRows(gen, r0, n, 0, n, len, NULL, lenu, NULL));
    offset[0] = 0;
    for (PetscInt r = r0; r < n; r++) offset[r - r0 + 1] = offset[r - r0] + len[r - r0];
    PetscCall(PetscMalloc2(offset[n - r0], &pcols, offset[n - r0], &pvals));
    PetscCall(FCIRowGeneratorGetRows(gen, r0, n, offset, pcols, pvals));
    for (PetscInt r = r0; r < n; r++) {
      PetscInt upper = 0;
      PetscCall(FCIRowGeneratorGetRow(gen, r, &nz, cols, vals));
      for (PetscInt k = 0; k < nz; k++) upper += cols[k] >= r;
      if (nz != len[r - r0] || upper != lenu[r - r0]) mismatch++;
      else
        for (PetscInt k = 0; k < nz; k++)
          if (cols[k] != pcols[offset[r - r0] + k] || vals[k] != pvals[offset[r - r0] + k]) {
            mismatch++;
            break;
          }
    }
    PetscCall(PetscFree2(pcols, pvals));
  }
  /* a slot one entry short for the last row */
  PetscCall(FCIRowGeneratorCountRows(gen, 0, n, 0, n, len, NULL, NULL, NULL));
  offset[0] = 0;
  for (PetscInt r = 0; r < n; r++) offset[r + 1] = offset[r] + len[r] - (r == n - 1);
  PetscCall(PetscMalloc2(offset[n], &pcols, offset[n], &pvals));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FCIRowGeneratorGetRows(gen, 0, n, offset, pcols, pvals);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFree2(pcols, pvals));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: rows on %" PetscInt_FMT " threads, %" PetscInt_FMT " differing from the row-by-row ones; short slot -> error %d\n", what, nthreads, mismatch, (int)ierr));
  CHECK(ctx, mismatch == 0, "%s: %" PetscInt_FMT " rows of the threaded sweeps differ from FCIRowGeneratorGetRow", what, mismatch);
  CHECK(ctx, ierr == PETSC_ERR_ARG_WRONG, "%s: a short slot gave error %d, not PETSC_ERR_ARG_WRONG", what, (int)ierr);
  PetscCall(PetscFree3(len, lenu, offset));
  PetscCall(PetscFree2(cols, vals));
  PetscCall(FCIRowGeneratorDestroy(&gen));
  PetscFunctionReturn(0);
}

/* slater: builder rows vs one-pair Slater-Condon                           */

static PetscErrorCode CompareRows(TestCtx *ctx, const char *what, const FCIIntegrals *ints, const FCIDetSpace *sp)
{
  FCIRowGenerator gen;
  PetscInt        maxlen, *cols, nz, nnz = 0;
  PetscScalar    *vals, *H;
  uint64_t       *da, *db;
  PetscReal       maxdiff = 0, asym = 0;
  const PetscInt  n = sp->ndet;
  PetscBool       sorted = PETSC_TRUE, inrange = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(FCIRowGeneratorCreate(ints, sp, 0.0, &gen));
  PetscCall(FCIRowGeneratorGetMaxRowLength(gen, &maxlen));
  PetscCall(PetscMalloc2(maxlen, &cols, maxlen, &vals));
  PetscCall(PetscCalloc1((size_t)n * n, &H));
  PetscCall(PetscMalloc2(n, &da, n, &db));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt back;
    PetscCall(FCIDetSpaceGetDeterminant(sp, r, &da[r], &db[r]));
    PetscCall(FCIDetSpaceGetIndex(sp, da[r], db[r], &back));
    CHECK(ctx, back == r, "%s: determinant %" PetscInt_FMT " maps back to %" PetscInt_FMT, what, r, back);
  }
  for (PetscInt r = 0; r < n; r++) {
    PetscCall(FCIRowGeneratorGetRow(gen, r, &nz, cols, vals));
    nnz += nz;
    for (PetscInt k = 0; k < nz; k++) {
      if (k && cols[k] <= cols[k - 1]) sorted = PETSC_FALSE;
      if (cols[k] < 0 || cols[k] >= n) inrange = PETSC_FALSE;
      else H[(size_t)r * n + cols[k]] = vals[k];
    }
  }
  CHECK(ctx, sorted && inrange, "%s: row columns not ascending or out of range", what);
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt c = 0; c < n; c++) {
      const PetscReal ref = FCISlaterCondonElement(ints, da[r], db[r], da[c], db[c]);
      maxdiff             = PetscMax(maxdiff, PetscAbsReal(H[(size_t)r * n + c] - ref));
      asym                = PetscMax(asym, PetscAbsReal(H[(size_t)r * n + c] - H[(size_t)c * n + r]));
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %" PetscInt_FMT " determinants (%s ordering), %" PetscInt_FMT " nonzeros, max |builder - Slater-Condon| %.1e, max asymmetry %.1e\n", what, n, sp->ordering ? "excitation" : "lexical", nnz, (double)maxdiff, (double)asym));
  CHECK(ctx, maxdiff < 1e-12, "%s: builder differs from the Slater-Condon rules by %g", what, (double)maxdiff);
  CHECK(ctx, asym == 0, "%s: matrix not exactly symmetric (%g)", what, (double)asym);
  if (sp->ordering == FCI_ORDER_EXCITATION) { /* the reference first, then levels ascending */
    PetscBool ok = PETSC_TRUE;
    for (PetscInt l = 0; l < sp->nlevel; l++)
      for (PetscInt r = sp->level_start[l]; r < sp->level_start[l + 1]; r++) {
        uint64_t a0, b0;
        PetscCall(FCIDetSpaceGetDeterminant(sp, 0, &a0, &b0));
        if ((__builtin_popcountll(da[r] ^ a0) + __builtin_popcountll(db[r] ^ b0)) / 2 != l) ok = PETSC_FALSE;
      }
    CHECK(ctx, ok, "%s: excitation levels wrong", what);
  }
  PetscCall(PetscFree2(da, db));
  PetscCall(PetscFree(H));
  PetscCall(PetscFree2(cols, vals));
  PetscCall(FCIRowGeneratorDestroy(&gen));
  PetscCall(CompareParallelRows(ctx, what, ints, sp));
  PetscFunctionReturn(0);
}

/* Random real integrals with the 8-fold symmetry (no point-group zeros: every phase shows). */
static PetscErrorCode RandomIntegrals(PetscInt norb, PetscInt nelec, PetscInt ms2, FCIIntegrals **ints)
{
  PetscRandom r;
  PetscReal   v;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(r, 12345));
  PetscCall(PetscRandomSeed(r));
  PetscCall(FCIIntegralsCreate(norb, ints));
  (*ints)->nelec = nelec;
  (*ints)->ms2   = ms2;
  for (PetscInt i = 0; i < norb; i++) (*ints)->orbsym[i] = 1 + (i % 4); /* irreps 1..4 */
  PetscCall(PetscRandomGetValueReal(r, &v));
  (*ints)->ecore = 3 * v;
  for (PetscInt i = 0; i < norb; i++)
    for (PetscInt j = 0; j <= i; j++) {
      PetscCall(PetscRandomGetValueReal(r, &v));
      PetscCall(FCIIntegralsSetOneElectron(*ints, i, j, v));
      for (PetscInt k = 0; k < norb; k++)
        for (PetscInt l = 0; l <= k; l++) {
          if (k * norb + l > i * norb + j) continue;
          PetscCall(PetscRandomGetValueReal(r, &v));
          PetscCall(FCIIntegralsSetERI(*ints, i, j, k, l, 0.3 * v));
        }
    }
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestSlater(TestCtx *ctx)
{
  FCIIntegrals *ints;
  FCIDetSpace  *sp;

  PetscFunctionBeginUser;
  /* random integrals: equal and unequal spin counts, full space and a sector, both orderings */
  {
    const PetscInt cases[][3] = {
      {6, 6, 0},
      {6, 5, 1},
      {7, 6, -2},
      {4, 1, 1},  /* no beta electron */
      {3, 6, 0},  /* full shells: one determinant */
      {5, 4, -4}, /* beta only */
      {5, 9, 1},  /* one hole per spin... almost */
    };
    for (int c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
      char what[64];
      PetscCall(RandomIntegrals(cases[c][0], cases[c][1], cases[c][2], &ints));
      PetscCall(PetscSNPrintf(what, sizeof(what), "random %d orbitals NELEC %d MS2 %d", (int)cases[c][0], (int)cases[c][1], (int)cases[c][2]));
      for (int o = 0; o < 2; o++) {
        PetscInt sector = 0;
        char     swhat[64];
        PetscCall(Space(ints, FCI_SECTOR_NONE, (FCIOrdering)o, &sp));
        PetscCall(CompareRows(ctx, what, ints, sp));
        /* a symmetry sector that is not empty: irrep 2 if present, else that of the first determinant */
        for (PetscInt d = 0; d < sp->ndet; d++) {
          uint64_t a, b;
          int      g;
          PetscCall(FCIDetSpaceGetDeterminant(sp, d, &a, &b));
          g = (FCIStringIrrep(a, ints->orbsym) ^ FCIStringIrrep(b, ints->orbsym)) + 1;
          if (!sector || g == 2) sector = g;
        }
        PetscCall(FCIDetSpaceDestroy(&sp));
        PetscCall(Space(ints, sector, (FCIOrdering)o, &sp));
        PetscCall(PetscSNPrintf(swhat, sizeof(swhat), "  ... irrep %d only", (int)sector));
        PetscCall(CompareRows(ctx, swhat, ints, sp));
        PetscCall(FCIDetSpaceDestroy(&sp));
      }
      PetscCall(FCIIntegralsDestroy(&ints));
    }
  }
  /* Hubbard 2x3 with unequal spins */
  {
    FCIHubbardSpec s = {2, 3, PETSC_TRUE, PETSC_FALSE, 1.3, 2.0, 2, 3, FCI_HUBBARD_WRAP_BOND};
    PetscCall(FCIHubbardCreate(&s, &ints));
    PetscCall(Space(ints, FCI_SECTOR_NONE, FCI_ORDER_EXCITATION, &sp));
    PetscCall(CompareRows(ctx, "Hubbard 2x3 2+3", ints, sp));
    PetscCall(FCIDetSpaceDestroy(&sp));
    PetscCall(FCIIntegralsDestroy(&ints));
  }
  /* H2O/STO-2G from its file */
  if (ctx->have_data) {
    char path[PETSC_MAX_PATH_LEN];
    PetscCall(DataFile(ctx, "H2O.STO2G.INTDUMP", path));
    PetscCall(FCIDumpRead(PETSC_COMM_WORLD, path, &ints));
    for (int o = 0; o < 2; o++) {
      PetscCall(Space(ints, FCI_SECTOR_NONE, (FCIOrdering)o, &sp));
      PetscCall(CompareRows(ctx, "H2O/STO-2G", ints, sp));
      PetscCall(FCIDetSpaceDestroy(&sp));
      PetscCall(Space(ints, FCI_SECTOR_ISYM, (FCIOrdering)o, &sp));
      PetscCall(CompareRows(ctx, "H2O/STO-2G irrep 1", ints, sp));
      PetscCall(FCIDetSpaceDestroy(&sp));
    }
    PetscCall(FCIIntegralsDestroy(&ints));
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------- */
/* headers and bad input: small files in a temporary folder                 */

/* The same 2-orbital integrals in different header styles and representatives. */
static PetscErrorCode TestHeaders(TestCtx *ctx)
{
  const char *body_a = "  0.70D+00   1   1   1   1\n"
                       "  0.1E0 2 1 1 1\n"
                       "  0.05 2 1 2 1\n"
                       "  0.6 2 2 1 1\n"
                       "  0.02 2 2 2 1\n"
                       "  0.65 2 2 2 2\n"
                       "  -1.25 1 1 0 0\n"
                       "  -0.3D-01 2 1 0 0\n"
                       "  -0.5 2 2 0 0\n"
                       "  -0.6 1 0 0 0\n"
                       "  -0.1 2 0 0 0\n"
                       "  0.7 0 0 0 0\n";
  /* other representatives of the same integrals: (11|12), (21|21)->(12|12), (11|22), (12|22), h12 as h(1,2) */
  const char *body_b = "\n  7.0d-1 1 1 1 1\n"
                       "  1.0e-1 1 1 1 2\n"
                       "  5.0e-2 1 2 1 2\n"
                       "  6.0e-1 1 1 2 2\n"
                       "  2.0e-2 1 2 2 2\n"
                       "  6.5e-1 2 2 2 2\n"
                       "  -1.25 1 1 0 0\n"
                       "  -3.0e-2 1 2 0 0\n"
                       "  -5.0e-1 2 2 0 0\n"
                       "  7.0e-1 0 0 0 0\n\n";
  const char *headers[] = {
    " &FCI NORB=  2,NELEC= 2,MS2= 0,\n  ORBSYM=1,2,\n  ISYM=2,\n /\n",                      /* Molpro / CheMPS2 */
    "&FCI\nNORB=2,\nNELEC=2,\nMS2=0,\nUHF=.FALSE.,\nORBSYM=1,\n2,\nISYM=2,\n&END\n",          /* psi4, ORBSYM over two lines */
    " &FCI NORB= 2,NELEC= 2,MS2=  0\n  ORBSYM=1,2,\n  ISYM=2 UHF=.FALSE.\n &END\n",          /* HANDE */
    "&fci norb=2 , nelec = 2, ms2=0, orbsym=1,2, isym=2, iuhf=0, occ=1,0, closed=1,0 /\n",  /* one line, lower case, harmless keys */
    " &FCI NORB=2,NELEC=2,MS2=0,\n ORBSYM=1,2,\n ISYM=2,\n UHF=.FALSE.,\n TREL=.FALSE.,\n SYML=0,1,\n SYMLZ=0,0,\n PROPBITLEN=15,\n NPROP=1,1,1,\n FROZEN=0,-1\n /\n", /* NECI: trivial Lz, k-points, frozen */
    "$FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2,ISYM=2 $END\n"                                     /* $ namelist */
  };
  const int nh = (int)(sizeof(headers) / sizeof(headers[0]));
  char      paths[2 * 8 + 1][PETSC_MAX_PATH_LEN];
  TempDir   td;
  FCIIntegrals *ref = NULL;

  PetscFunctionBeginUser;
  PetscCall(TempDirCreate(&td));
  for (int k = 0; k < 2 * nh; k++) {
    char          name[32], *text;
    size_t        len;
    FCIIntegrals *ints;
    PetscCall(PetscSNPrintf(name, sizeof(name), "header%d.FCIDUMP", k));
    len = strlen(headers[k / 2]) + strlen(body_a) + strlen(body_b) + 1;
    PetscCall(PetscMalloc1(len, &text));
    PetscCall(PetscStrncpy(text, headers[k / 2], len));
    PetscCall(PetscStrlcat(text, k % 2 ? body_b : body_a, len));
    PetscCall(TempDirWrite(&td, name, text, paths[k]));
    PetscCall(PetscFree(text));
    PetscCall(FCIDumpRead(PETSC_COMM_WORLD, paths[k], &ints));
    CHECK(ctx, ints->norb == 2 && ints->nelec == 2 && ints->ms2 == 0 && ints->isym == 2 && ints->orbsym[0] == 1 && ints->orbsym[1] == 2, "header style %d: NORB %" PetscInt_FMT " NELEC %" PetscInt_FMT " MS2 %" PetscInt_FMT " ISYM %" PetscInt_FMT " ORBSYM %" PetscInt_FMT ",%" PetscInt_FMT, k / 2, ints->norb, ints->nelec, ints->ms2, ints->isym, ints->orbsym[0], ints->orbsym[1]);
    if (!ref) {
      ref = ints;
      /* spot checks of the 8-fold fill and the symmetric h */
      CHECK(ctx, ref->eri[FCI_ERI_INDEX(2, 0, 1, 1, 1)] == 0.02 && ref->eri[FCI_ERI_INDEX(2, 1, 1, 1, 0)] == 0.02 && ref->eri[FCI_ERI_INDEX(2, 1, 0, 0, 0)] == 0.1 && ref->eri[FCI_ERI_INDEX(2, 0, 0, 0, 1)] == 0.1, "8-fold fill of (21|11), (22|21)");
      CHECK(ctx, ref->eri[FCI_ERI_INDEX(2, 0, 1, 0, 1)] == 0.05 && ref->eri[FCI_ERI_INDEX(2, 1, 0, 0, 1)] == 0.05 && ref->eri[FCI_ERI_INDEX(2, 0, 0, 1, 1)] == 0.6, "8-fold fill of (21|21), (22|11)");
      CHECK(ctx, ref->h[1] == -0.03 && ref->h[2] == -0.03 && ref->h[0] == -1.25 && ref->h[3] == -0.5 && ref->ecore == 0.7, "one-electron integrals / core energy");
    } else {
      PetscBool same = (PetscBool)(ints->ecore == ref->ecore);
      for (int i = 0; i < 4; i++) same = (PetscBool)(same && ints->h[i] == ref->h[i]);
      for (int i = 0; i < 16; i++) same = (PetscBool)(same && ints->eri[i] == ref->eri[i]);
      CHECK(ctx, same, "header style %d, body %c: integrals differ from the first file", k / 2, k % 2 ? 'b' : 'a');
      PetscCall(FCIIntegralsDestroy(&ints));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %d header styles x 2 integral orders read identically\n", nh));
  {
    /* an unknown key is an error (badinput) unless -fcidump_ignore_keys names it */
    char         *text;
    size_t        len = strlen(body_a) + 128;
    FCIIntegrals *ints;
    PetscBool     same;
    PetscCall(PetscMalloc1(len, &text));
    PetscCall(PetscSNPrintf(text, len, " &FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2,ISYM=2,TREF=1.0,MYKEY=3,4 /\n%s", body_a));
    PetscCall(TempDirWrite(&td, "ignored_keys.FCIDUMP", text, paths[2 * nh]));
    PetscCall(PetscFree(text));
    PetscCall(PetscOptionsSetValue(NULL, "-fcidump_ignore_keys", "tref,MyKey"));
    PetscCall(FCIDumpRead(PETSC_COMM_WORLD, paths[2 * nh], &ints));
    PetscCall(PetscOptionsClearValue(NULL, "-fcidump_ignore_keys"));
    same = (PetscBool)(ints->ecore == ref->ecore && ints->isym == 2 && ints->orbsym[1] == 2);
    for (int i = 0; i < 16; i++) same = (PetscBool)(same && ints->eri[i] == ref->eri[i]);
    CHECK(ctx, same, "header with keys accepted by -fcidump_ignore_keys: integrals differ from the first file");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  unknown keys TREF, MYKEY accepted with -fcidump_ignore_keys tref,MyKey\n"));
    PetscCall(FCIIntegralsDestroy(&ints));
  }
  PetscCall(FCIIntegralsDestroy(&ref));
  PetscCall(TempDirDestroy(&td, 2 * nh + 1, paths));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestBadInput(TestCtx *ctx)
{
  const char *hdr = " &FCI NORB= 2,NELEC= 2,MS2= 0,\n  ORBSYM=1,1,\n  ISYM=1,\n /\n"; /* body starts at line 5 */
  struct {
    const char *name, *head, *body;
    int         line;
    const char *expect;
  } cases[] = {
    {"no_norb",      " &FCI NELEC=2,MS2=0,\n  ORBSYM=1,1,\n  ISYM=1,\n /\n", "  0.5 1 1 1 1\n", 4, "no NORB"},
    {"no_nelec",     " &FCI NORB=2,\n /\n", "  0.5 1 1 1 1\n", 2, "no NELEC"},
    {"index_big",    NULL, "  0.5 1 1 1 1\n  0.25 3 1 1 1\n", 6, "> NORB"},
    {"index_neg",    NULL, "  0.5 1 1 1 1\n  0.1 1 1 0 0\n  0.25 1 -1 1 1\n", 7, "negative"},
    {"truncated",    NULL, "  0.5 1 1 1 1\n  0.25 2 1 1\n", 6, "truncated"},
    {"overlong",     NULL, "  0.5 1 1 1 1 1\n", 5, "overlong"},
    {"nan",          NULL, "  NaN 1 1 1 1\n", 5, "not finite"},
    {"inf",          NULL, "  0.5 1 1 1 1\n  -inf 1 1 0 0\n", 6, "not finite"},
    {"overflow",     NULL, "  1.0D+999 1 1 1 1\n", 5, "not finite"},
    {"bad_number",   NULL, "  0.5 1 1 1 1\n\n  0.5x-3 2 2 1 1\n", 7, "cannot read"},
    {"bad_index",    NULL, "  0.5 1 a 1 1\n", 5, "not an integer"},
    {"bad_pattern",  NULL, "  0.5 1 0 1 0\n", 5, "index pattern"},
    {"unterminated", " &FCI NORB=2,NELEC=2,\n  ISYM=1,\n", "", 2, "end of file inside"},
    {"no_header",    "", "  0.5 1 1 1 1\n", 1, "namelist header"},
    {"empty",        "", "", 0, "empty file"},
    {"orbsym_count", " &FCI NORB=2,NELEC=2,MS2=0,\n  ORBSYM=1,1,1,\n  ISYM=1,\n /\n", "", 2, "ORBSYM has 3 values"},
    {"orbsym_range", " &FCI NORB=2,NELEC=2,MS2=0,\n  ORBSYM=1,9,\n /\n", "", 2, "outside 1..8"},
    {"norb_text",    " &FCI NORB=two,NELEC=2 /\n", "", 1, "not an integer"},
    {"nelec_ms2",    " &FCI NORB=2,NELEC=3,MS2=0 /\n", "", 1, "whole numbers"},
    {"uhf",          " &FCI NORB=2,NELEC=2,MS2=0,\n  UHF=.TRUE.\n /\n", "", 2, "not supported"},
    {"stray",        " &FCI NORB=2,NELEC=2,MS2=0, 17 /\n", "", 1, "exactly one integer"},
    {"stray_word",   " &FCI junk NORB=2,NELEC=2 /\n", "", 1, "unexpected 'junk'"},
    {"unknown_key",  " &FCI NORB=2,NELEC=2,MS2=0,\n  TREF=1.0\n /\n", "", 2, "-fcidump_ignore_keys TREF"},
    {"symlz",        " &FCI NORB=2,NELEC=2,MS2=0,\n  SYML=1,1,\n  SYMLZ=1,-1\n /\n", "", 3, "Lz label '1'"},
    {"symlz_neg",    " &FCI NORB=2,NELEC=2,SYMLZ=0,\n -1 /\n", "", 2, "orbital 2 the Lz label '-1'"},
    {"trel",         " &FCI NORB=2,NELEC=2,TREL=.TRUE. /\n", "", 1, "relativistic"},
    {"nprop",        " &FCI NORB=2,NELEC=2,NPROP=2,1,1 /\n", "", 1, "k-point"},
    {"frozen",       " &FCI NORB=2,NELEC=2,FROZEN=1,0 /\n", "", 1, "frozen orbitals"},
    {"twice",        " &FCI NORB=2,NELEC=2,\n norb=3 /\n", "", 2, "appears twice"},
    {"isym_range",   " &FCI NORB=2,NELEC=2,ISYM=9 /\n", "", 1, "ISYM = 9"},
    {"ms2_huge",     " &FCI NORB=2,NELEC=2,MS2=9223372036854775807 /\n", "", 1, "MS2 = 9223372036854775807"},
    {"nelec_huge",   " &FCI NORB=2,NELEC=9223372036854775807,MS2=-9223372036854775807 /\n", "", 1, "NELEC = 9223372036854775807"},
    {"norb_range",   " &FCI NORB=99999999999999999999,NELEC=2 /\n", "", 1, "not an integer"},
  };
  const int ncase = (int)(sizeof(cases) / sizeof(cases[0]));
  char      paths[64][PETSC_MAX_PATH_LEN];
  TempDir   td;

  PetscFunctionBeginUser;
  PetscCheck(ncase < 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d cases: make paths[] larger", ncase);
  PetscCall(TempDirCreate(&td));
  for (int k = 0; k <= ncase; k++) {
    char           text[512], expect_line[64];
    const char    *msg, *errtext, *spec = NULL;
    FCIIntegrals  *ints = NULL;
    PetscErrorCode ierr;
    PetscBool      has_file, has_line, has_what;
    if (k < ncase) {
      PetscCall(PetscSNPrintf(text, sizeof(text), "%s%s", cases[k].head ? cases[k].head : hdr, cases[k].body));
      PetscCall(TempDirWrite(&td, cases[k].name, text, paths[k]));
      PetscCall(PetscSNPrintf(expect_line, sizeof(expect_line), "line %d:", cases[k].line));
    } else { /* a file that does not exist */
      PetscCall(PetscSNPrintf(paths[k], PETSC_MAX_PATH_LEN, "%s/does_not_exist.FCIDUMP", td.dir));
      PetscCall(PetscStrncpy(expect_line, "cannot open", sizeof(expect_line)));
    }
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = FCIDumpRead(PETSC_COMM_WORLD, paths[k], &ints);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
      CHECK(ctx, PETSC_FALSE, "%s: no error", k < ncase ? cases[k].name : "missing file");
      PetscCall(FCIIntegralsDestroy(&ints));
      continue;
    }
    PetscCall(GpuMatsErrorMessage(ierr, &errtext, &spec));
    msg = spec ? spec : "";
    has_file = (PetscBool)(strstr(msg, paths[k]) != NULL);
    has_line = (PetscBool)(strstr(msg, expect_line) != NULL);
    has_what = (PetscBool)(k == ncase || strstr(msg, cases[k].expect) != NULL);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-13s -> error %d: %s\n", k < ncase ? cases[k].name : "missing file", (int)ierr, msg));
    CHECK(ctx, has_file && has_line && has_what, "%s: message '%s' should name the file, '%s' and '%s'", k < ncase ? cases[k].name : "missing file", msg, expect_line, k < ncase ? cases[k].expect : "");
    CHECK(ctx, ierr == (k < ncase ? PETSC_ERR_FILE_UNEXPECTED : PETSC_ERR_FILE_OPEN), "%s: error code %d", k < ncase ? cases[k].name : "missing file", (int)ierr);
    CHECK(ctx, ints == NULL, "%s: integrals returned with an error", k < ncase ? cases[k].name : "missing file");
  }
  PetscCall(TempDirDestroy(&td, ncase, paths));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------- */

static int Main(int argc, char **argv)
{
  TestCtx   ctx;
  char      tests[256] = "all";
  PetscBool set, all;
  struct {
    const char *name;
    PetscErrorCode (*fn)(TestCtx *);
    PetscBool needs_data, in_all;
  } table[] = {
    {"headers",   TestHeaders,   PETSC_FALSE, PETSC_TRUE },
    {"badinput",  TestBadInput,  PETSC_FALSE, PETSC_TRUE },
    {"slater",    TestSlater,    PETSC_FALSE, PETSC_TRUE },
    {"hubbard",   TestHubbard,   PETSC_FALSE, PETSC_TRUE },
    {"h2o_sto2g", TestH2OSTO2G,  PETSC_TRUE,  PETSC_TRUE },
    {"n2_sto3g",  TestN2STO3G,   PETSC_TRUE,  PETSC_TRUE },
    {"hubbard34", TestHubbard34, PETSC_FALSE, PETSC_FALSE},
  };
  const int ntab = (int)(sizeof(table) / sizeof(table[0]));
  int       ran  = 0;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  if (argc > 1 && argv[1][0] != '-') PetscCall(PetscStrncpy(ctx.datadir, argv[1], sizeof(ctx.datadir)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-data_dir", ctx.datadir, sizeof(ctx.datadir), NULL));
  if (ctx.datadir[0]) {
    char f[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(f, sizeof(f), "%s/H2O.STO2G.INTDUMP", ctx.datadir));
    PetscCall(PetscTestFile(f, 'r', &ctx.have_data));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", tests, sizeof(tests), &set));
  PetscCall(PetscStrcmp(tests, "all", &all));
  for (int t = 0; t < ntab; t++) {
    char key[64];
    PetscBool want;
    PetscCall(PetscSNPrintf(key, sizeof(key), ",%s,", table[t].name));
    {
      char list[260];
      PetscCall(PetscSNPrintf(list, sizeof(list), ",%s,", tests));
      want = (PetscBool)((all && table[t].in_all) || strstr(list, key) != NULL);
    }
    if (!want) continue;
    if (table[t].needs_data && !ctx.have_data) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: SKIPPED (no data folder%s%s)\n", table[t].name, ctx.datadir[0] ? " " : "", ctx.datadir));
      ctx.skipped++;
      continue;
    }
    {
      PetscInt before = ctx.failures;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s:\n", table[t].name));
      PetscCall(table[t].fn(&ctx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s\n", table[t].name, ctx.failures == before ? "PASS" : "FAIL"));
      ran++;
    }
  }
  PetscCheck(ran || ctx.skipped, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-test %s: no such test (headers, badinput, slater, hubbard, h2o_sto2g, n2_sto3g, hubbard34, all)", tests);
  PetscCall(SlepcFinalize());
  if (ctx.failures) return 1;
  if (ctx.skipped && !ran) return TEST_EXIT_SKIP;
  return 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
