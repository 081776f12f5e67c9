static char help[] = "Lowest eigenvalues of a synthetic Configuration-Interaction Hamiltonian.\n\n"
                     "Builds a symmetric paper-like CI matrix (ci_synthetic.h) in the matrix type chosen with\n"
                     "-mat_type (default aij; with -dll_append <build>/libgpumats.so also cihybrid) and solves\n"
                     "for its smallest eigenvalues with SLEPc's Krylov-Schur (all -eps_ options apply).\n"
                     "With -check (default) it solves again on the matrix converted to MATAIJ and exits\n"
                     "with status 1 if the eigenvalues differ by more than -check_tol relative to the\n"
                     "largest one.\n\n";

#include <slepceps.h>
#include "ci_synthetic.h"

/* Assembly of the symmetric matrix.  CISyntheticRow(i) gives only the upper
   part of row i (columns j >= i); row r of the full matrix is the upper part
   of row r plus the column r entries of the upper rows i < r.  Each rank
   therefore generates, in ascending order, every upper row i < rend (rows
   are independent and cheap to generate) and keeps
     - for an owned row i: its upper part,
     - for an entry (i,j) with i < j and j owned: the mirrored entry (j,i),
       appended to the list of row j's lower entries (ascending in i).
   When the sweep reaches an owned row r, all rows i < r are done, so its
   lower list is complete: the full, sorted row goes in with one MatSetValues
   of a locally owned row.  No rank sets another rank's entries, so the
   assembly needs no communication, and a first sweep that only counts gives
   the exact preallocation.  The price is that the last rank generates the
   whole upper triangle, twice: fine for the sizes this example is for. */

typedef struct {
  PetscInt     rstart, rend;
  PetscInt    *dnz, *onz; /* nonzeros of each owned row in the diagonal / off-diagonal block */
  PetscInt    *lptr;      /* owned row r's lower entries are lcol/lval[lptr[r-rstart], lptr[r-rstart+1]) */
  PetscInt    *lcol;
  PetscScalar *lval;
} CILowerPart;

/* First sweep: counts the nonzeros of each owned row, split by block, and its lower entries. */
static PetscErrorCode CICountRows(const CISyntheticSpec *spec, CILowerPart *lp, PetscInt *cols, PetscScalar *vals)
{
  const PetscInt rstart = lp->rstart, rend = lp->rend, m = rend - rstart;
  PetscInt       i, k, nz;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(m, &lp->dnz, m, &lp->onz, m + 1, &lp->lptr));
  for (i = 0; i < rend; i++) {
    CISyntheticRow(spec, i, &nz, cols, vals);
    for (k = 0; k < nz; k++) {
      const PetscInt j = cols[k];
      if (i >= rstart) { /* (i,j) of an owned row: j >= i >= rstart */
        if (j < rend) lp->dnz[i - rstart]++;
        else lp->onz[i - rstart]++;
      }
      if (j != i && j >= rstart && j < rend) { /* its mirror (j,i) */
        if (i >= rstart) lp->dnz[j - rstart]++;
        else lp->onz[j - rstart]++;
        lp->lptr[j - rstart + 1]++;
      }
    }
  }
  for (i = 0; i < m; i++) lp->lptr[i + 1] += lp->lptr[i];
  PetscCall(PetscMalloc2(lp->lptr[m], &lp->lcol, lp->lptr[m], &lp->lval));
  PetscFunctionReturn(0);
}

/* Second sweep: collects the lower entries and inserts every owned row once it is complete. */
static PetscErrorCode CIInsertRows(const CISyntheticSpec *spec, CILowerPart *lp, PetscInt *cols, PetscScalar *vals, Mat A)
{
  const PetscInt rstart = lp->rstart, rend = lp->rend, m = rend - rstart;
  PetscInt       i, k, nz, *fill, maxlower = 0, *rowcols;
  PetscScalar   *rowvals;

  PetscFunctionBeginUser;
  for (i = 0; i < m; i++) maxlower = PetscMax(maxlower, lp->lptr[i + 1] - lp->lptr[i]);
  PetscCall(PetscMalloc1(m, &fill));
  PetscCall(PetscArraycpy(fill, lp->lptr, m));
  PetscCall(PetscMalloc2(maxlower + CISyntheticMaxRowLength(spec), &rowcols, maxlower + CISyntheticMaxRowLength(spec), &rowvals));
  for (i = 0; i < rend; i++) {
    CISyntheticRow(spec, i, &nz, cols, vals);
    for (k = 0; k < nz; k++) {
      const PetscInt j = cols[k];
      if (j != i && j >= rstart && j < rend) {
        lp->lcol[fill[j - rstart]]   = i;
        lp->lval[fill[j - rstart]++] = vals[k];
      }
    }
    if (i >= rstart) {
      const PetscInt lo = lp->lptr[i - rstart], nlower = lp->lptr[i - rstart + 1] - lo;
      PetscCall(PetscArraycpy(rowcols, lp->lcol + lo, nlower));
      PetscCall(PetscArraycpy(rowvals, lp->lval + lo, nlower));
      PetscCall(PetscArraycpy(rowcols + nlower, cols, nz));
      PetscCall(PetscArraycpy(rowvals + nlower, vals, nz));
      PetscCall(MatSetValues(A, 1, &i, nlower + nz, rowcols, rowvals, INSERT_VALUES));
    }
  }
  PetscCall(PetscFree2(rowcols, rowvals));
  PetscCall(PetscFree(fill));
  PetscFunctionReturn(0);
}

/* Creates the full symmetric matrix of 'spec' (spec->symmetric must be true) in the type given by -mat_type. */
static PetscErrorCode CICreateMatrix(MPI_Comm comm, const CISyntheticSpec *spec, Mat *A)
{
  CILowerPart  lp;
  PetscInt     m = PETSC_DECIDE, n = spec->n, *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(PetscSplitOwnership(comm, &m, &n));
  PetscCallMPI(MPI_Scan(&m, &lp.rend, 1, MPIU_INT, MPI_SUM, comm));
  lp.rstart = lp.rend - m;

  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, m, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));

  PetscCall(PetscMalloc2(CISyntheticMaxRowLength(spec), &cols, CISyntheticMaxRowLength(spec), &vals));
  PetscCall(CICountRows(spec, &lp, cols, vals));
  PetscCall(MatXAIJSetPreallocation(*A, 1, lp.dnz, lp.onz, NULL, NULL)); /* AIJ, BAIJ and their subtypes */
  PetscCall(MatSeqSELLSetPreallocation(*A, 0, lp.dnz));                  /* SELL is not covered by the above */
  PetscCall(MatMPISELLSetPreallocation(*A, 0, lp.dnz, 0, lp.onz));
  PetscCall(MatSetOption(*A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(CIInsertRows(spec, &lp, cols, vals, *A));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));

  PetscCall(PetscFree2(lp.lcol, lp.lval));
  PetscCall(PetscFree3(lp.dnz, lp.onz, lp.lptr));
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(0);
}

/* Solves for the smallest eigenvalues of A: Krylov-Schur, Hermitian, nev 4 unless -eps_ options say
   otherwise.  Returns the number of converged eigenvalues, at most nev, and the eigenvalues (to free). */
static PetscErrorCode CISolve(Mat A, PetscBool report, PetscInt *nfound, PetscReal **eigenvalues)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  EPS                eps;
  EPSType            type;
  PetscInt           nev, nconv, its, i;
  PetscLogStage      stage;
  PetscLogEvent      mult_event;
  PetscEventPerfInfo mult_info;
  PetscLogDouble     t0, t1, times[2], max_times[2];

  PetscFunctionBeginUser;
  PetscCall(EPSCreate(comm, &eps));
  PetscCall(EPSSetOperators(eps, A, NULL));
  PetscCall(EPSSetProblemType(eps, EPS_HEP));
  PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
  PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
  PetscCall(EPSSetDimensions(eps, 4, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetFromOptions(eps));

  /* A stage of its own, so that MatMult's time is the time spent inside this solve. */
  PetscCall(PetscLogStageRegister(report ? "CI eigensolve" : "CI check solve", &stage));
  PetscCall(PetscLogEventGetId("MatMult", &mult_event));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscTime(&t0));
  PetscCall(EPSSolve(eps));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogEventGetPerfInfo(stage, mult_event, &mult_info));

  PetscCall(EPSGetType(eps, &type));
  PetscCall(EPSGetDimensions(eps, &nev, NULL, NULL));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(EPSGetIterationNumber(eps, &its));
  *nfound = PetscMin(nev, nconv);
  PetscCall(PetscMalloc1(*nfound, eigenvalues));
  if (report) PetscCall(PetscPrintf(comm, "Eigensolver: %s, nev %" PetscInt_FMT ", converged %" PetscInt_FMT ", iterations %" PetscInt_FMT "\n", type, nev, nconv, its));
  if (report) PetscCall(PetscPrintf(comm, "  k        eigenvalue       relative residual\n"));
  for (i = 0; i < *nfound; i++) {
    PetscScalar kr, ki;
    PetscReal   error;
    PetscCall(EPSGetEigenpair(eps, i, &kr, &ki, NULL, NULL));
    PetscCall(EPSComputeError(eps, i, EPS_ERROR_RELATIVE, &error));
    (*eigenvalues)[i] = PetscRealPart(kr);
    if (report) PetscCall(PetscPrintf(comm, "%3" PetscInt_FMT "  %22.15e  %10.3e\n", i, (double)PetscRealPart(kr), (double)error));
  }
  times[0] = t1 - t0;
  times[1] = mult_info.time;
  PetscCallMPI(MPI_Allreduce(times, max_times, 2, MPI_DOUBLE, MPI_MAX, comm));
  if (report)
    PetscCall(PetscPrintf(comm, "Solve time %.4f s, MatMult %.4f s (%.1f%% of the solve, %d calls)\n", max_times[0], max_times[1], max_times[0] > 0 ? 100.0 * max_times[1] / max_times[0] : 0.0,
                          mult_info.count));
  PetscCall(EPSDestroy(&eps));
  PetscFunctionReturn(0);
}

/* Solves again with A converted to MATAIJ; passed: the same number of eigenvalues converged and
   they differ by at most tol relative to the largest of them. */
static PetscErrorCode CICheckAgainstAIJ(Mat A, PetscInt nfound, const PetscReal eigenvalues[], PetscReal tol, PetscBool *passed)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  Mat        B;
  MatType    type;
  PetscInt   nref, i;
  PetscReal *reference, scale = 0, diff = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(CISolve(B, PETSC_FALSE, &nref, &reference));
  if (nref != nfound) {
    PetscCall(PetscPrintf(comm, "Check against MATAIJ FAILED: %" PetscInt_FMT " eigenvalues converged with %s, %" PetscInt_FMT " with MATAIJ\n", nfound, type, nref));
    *passed = PETSC_FALSE;
  } else {
    for (i = 0; i < nref; i++) {
      scale = PetscMax(scale, PetscAbsReal(reference[i]));
      diff  = PetscMax(diff, PetscAbsReal(eigenvalues[i] - reference[i]));
    }
    *passed = diff <= tol * scale ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(comm, "Check against MATAIJ %s: largest eigenvalue difference %.3e relative (tolerance %.1e)\n", *passed ? "passed" : "FAILED", (double)(scale > 0 ? diff / scale : diff), (double)tol));
  }
  PetscCall(PetscFree(reference));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  CISyntheticSpec spec;
  Mat             A;
  MatType         type;
  MatInfo         info;
  PetscInt        nfound;
  PetscReal      *eigenvalues, check_tol = 1e-10, ref_fraction = 0.10, ref_density = 0.20, density = 0.01;
  PetscBool       check = PETSC_TRUE, isaij, passed = PETSC_TRUE;
  PetscInt        n = 3000, seed = 2018;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin()); /* MatMult's share of the solve time comes from the event log */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Synthetic CI eigenproblem", NULL);
  PetscCall(PetscOptionsInt("-n", "Matrix dimension", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-ci_ref_fraction", "Fraction of the columns in the dense reference block", NULL, ref_fraction, &ref_fraction, NULL));
  PetscCall(PetscOptionsReal("-ci_ref_density", "Density inside the reference block", NULL, ref_density, &ref_density, NULL));
  PetscCall(PetscOptionsReal("-ci_density", "Density outside the reference block", NULL, density, &density, NULL));
  PetscCall(PetscOptionsInt("-ci_seed", "Seed of the matrix generator", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-check", "Solve again with the matrix converted to MATAIJ and compare the eigenvalues", NULL, check, &check, NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Largest eigenvalue difference allowed by -check, relative to the largest eigenvalue", NULL, check_tol, &check_tol, NULL));
  PetscOptionsEnd();
  PetscCheck(n > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": the dimension must be positive", n);
  PetscCheck(seed >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-ci_seed %" PetscInt_FMT ": the seed must be nonnegative", seed);

  spec.n            = n;
  spec.ref_fraction = (double)ref_fraction;
  spec.ref_density  = (double)ref_density;
  spec.density      = (double)density;
  spec.symmetric    = PETSC_TRUE;
  spec.seed         = (unsigned long)seed;
  PetscCall(CICreateMatrix(PETSC_COMM_WORLD, &spec, &A));
  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Matrix: type %s, n = %" PetscInt_FMT ", nnz = %.0f\n", type, n, info.nz_used));

  PetscCall(CISolve(A, PETSC_TRUE, &nfound, &eigenvalues));
  PetscCheck(nfound > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "No eigenvalue converged: raise -eps_max_it or -eps_ncv");

  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJ, MATMPIAIJ, ""));
  if (check && isaij) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Check skipped: the matrix is already of type %s\n", type));
  else if (check) PetscCall(CICheckAgainstAIJ(A, nfound, eigenvalues, check_tol, &passed));
  PetscCall(PetscFree(eigenvalues));
  PetscCall(MatDestroy(&A));
  PetscCall(SlepcFinalize());
  return passed ? 0 : 1;
}
