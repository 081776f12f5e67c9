static char help[] = "Lowest eigenvalues of a Configuration-Interaction Hamiltonian: the project's main job.\n\n"
                     "Matrix source (one of them; default: the published 3x4 Hubbard model below):\n"
                     "  -hubbard [<Lx>x<Ly>]   Hubbard model written as integrals (h_ij = -t per bond, (ii|ii) = U);\n"
                     "                         -hubbard_lx, -hubbard_ly, -hubbard_periodic, -hubbard_t, -hubbard_u,\n"
                     "                         -hubbard_nup, -hubbard_ndown (default 3x4, open, t 1, U 8, half filling);\n"
                     "                         -hubbard_wrap bond|sum: a periodic side of length 2 has one bond h = -t\n"
                     "                         (bond, default: each neighbouring pair bonded once) or h = -2t (sum: the\n"
                     "                         hop x -> x+1 mod L of every site, as codes that sum over neighbours); a\n"
                     "                         periodic side of length 1 has no bond (bond) or h_ii = -2t (sum)\n"
                     "  -fcidump <file>        integrals of an FCIDUMP file\n"
                     "                         both: -fci_sector none|isym|1..8, -fci_ordering lexical|excitation,\n"
                     "                         -fci_reference lowest|aufbau, -fci_droptol <tol>, -fci_threads <n> (rows built on\n"
                     "                         OpenMP threads: default OMP_NUM_THREADS, else the cores shared by the node's ranks),\n"
                     "                         -fci_assembly auto|host|device (device: the rows made on the GPU straight into\n"
                     "                         a cihybrid matrix, no host copy, each process its own rows; auto, the default,\n"
                     "                         does so for cihybrid with a GPU and the lexical ordering, else builds on the host)\n"
                     "  -synthetic             paper-like synthetic CI matrix (ci_synthetic.h): -n, -ci_ref_fraction,\n"
                     "                         -ci_ref_density, -ci_density, -ci_seed\n"
                     "  -load <file>           a PETSc binary matrix (MatLoad)\n"
                     "  -save <file>           writes the matrix as PETSc binary (MatView) once built\n"
                     "The matrix type comes from -mat_type (default aij; cihybrid with -dll_append\n"
                     "<build>/libgpumats.so).  SLEPc solves for the smallest eigenvalues: Krylov-Schur, HEP,\n"
                     "-eps_nev 4 (or the number of references), -eps_tol 1e-10 unless -eps_ options say otherwise.\n"
                     "  -reference <E1,E2,...>  reference energies, lowest first (also repeated -reference E);\n"
                     "                          the default 3x4 Hubbard case has its published -4.913259209075605\n"
                     "  -ref_tol <tol>          largest |computed - reference| allowed (default 1e-8): exit status 1 beyond\n"
                     "  -check [-check_tol t]   also solve with the matrix converted to MATAIJ and compare (default off)\n"
                     "  -csv <file> [-csv_label s]  appends one line of results (a header first if the file is new)\n"
                     "  -ci_log_gpu_time <bool>  wait for the GPU kernels in the event timers, so that the MatMult share\n"
                     "                          is real (default true; false: no extra synchronisation in the solve)\n\n";

#include <slepceps.h>
#include <petscversion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpumats.h" /* names and types only: the library is not linked but loaded with -dll_append */
#include "ci_synthetic.h"
#include "ci_save.h"
#include "fci.h"
#include "common/gpumats_compat.h" /* the PETSc versions' differences */

#define CI_MAX_REFERENCES 64

/* The published case (ExactDiagonalization.jl documentation, docs/src/examples/HubbardModel.md):
   3x4 lattice, open boundaries, t = 1, U = 8, 6 up + 6 down electrons, 853,776 determinants. */
static const FCIHubbardSpec CIHubbardPublished       = {3, 4, PETSC_FALSE, PETSC_FALSE, 1.0, 8.0, 6, 6, FCI_HUBBARD_WRAP_BOND};
static const PetscReal      CIHubbardPublishedEnergy = -4.913259209075605;

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

typedef enum {
  CI_SOURCE_HUBBARD,
  CI_SOURCE_FCIDUMP,
  CI_SOURCE_SYNTHETIC,
  CI_SOURCE_LOAD
} CISource;

/* What a solve found and how long its parts took (largest over the ranks). */
typedef struct {
  char           type[64];
  PetscReal      tol;
  PetscInt       nev, nconv, nfound, its;
  PetscReal     *eig, *res;                /* nfound each, ascending */
  PetscLogDouble solve, mult, product, fmt; /* fmt: the gpumats format build and upload inside the solve */
  int            nmult, nproduct;
} CISolveResult;

/* Time and count of the event 'name' in 'stage'; zero when the event is not registered. */
static PetscErrorCode CIEventTime(PetscLogStage stage, const char name[], PetscLogDouble *time, int *count)
{
  PetscLogEvent      event;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  *time  = 0;
  *count = 0;
  PetscCall(PetscLogEventGetId(name, &event));
  if (event < 0) PetscFunctionReturn(0);
  PetscCall(PetscMemzero(&info, sizeof(info)));
  PetscCall(PetscLogEventGetPerfInfo(stage, event, &info));
  *time  = info.time;
  *count = info.count;
  PetscFunctionReturn(0);
}

/* Smallest eigenvalues of A: Krylov-Schur, Hermitian, smallest real, nev (default), tolerance 1e-10,
   then -eps_ options.  The solve runs in a log stage of its own, so the event times are its own. */
static PetscErrorCode CISolve(Mat A, PetscInt nev, const char stagename[], CISolveResult *r)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);
  EPS            eps;
  EPSType        type;
  PetscLogStage  stage;
  PetscLogDouble t0, t1, t[6], tmax[6], tt;
  int            c;
  PetscInt       maxit;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(EPSCreate(comm, &eps));
  PetscCall(EPSSetOperators(eps, A, NULL));
  PetscCall(EPSSetProblemType(eps, EPS_HEP));
  PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
  PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
  PetscCall(EPSSetDimensions(eps, nev, GPUMATS_DEFAULT_COUNT, GPUMATS_DEFAULT_COUNT));
  PetscCall(EPSSetTolerances(eps, 1e-10, GPUMATS_DEFAULT_COUNT));
  PetscCall(EPSSetFromOptions(eps));

  PetscCall(PetscLogStageRegister(stagename, &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscTime(&t0));
  PetscCall(EPSSolve(eps));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());

  PetscCall(EPSGetType(eps, &type));
  PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
  PetscCall(EPSGetTolerances(eps, &r->tol, &maxit));
  PetscCall(EPSGetDimensions(eps, &r->nev, NULL, NULL));
  PetscCall(EPSGetConverged(eps, &r->nconv));
  PetscCall(EPSGetIterationNumber(eps, &r->its));
  r->nfound = PetscMin(r->nev, r->nconv);
  PetscCall(PetscMalloc2(r->nfound, &r->eig, r->nfound, &r->res));
  for (PetscInt i = 0; i < r->nfound; i++) {
    PetscScalar kr, ki;
    PetscCall(EPSGetEigenpair(eps, i, &kr, &ki, NULL, NULL));
    PetscCall(EPSComputeError(eps, i, EPS_ERROR_RELATIVE, &r->res[i]));
    r->eig[i] = PetscRealPart(kr);
  }
  /* SLEPc sorts by the 'which' criterion already: ascending; keep the residuals with their values */
  for (PetscInt i = 1; i < r->nfound; i++)
    for (PetscInt j = i; j > 0 && r->eig[j] < r->eig[j - 1]; j--) {
      PetscReal e = r->eig[j], s = r->res[j];
      r->eig[j] = r->eig[j - 1], r->res[j] = r->res[j - 1];
      r->eig[j - 1] = e, r->res[j - 1] = s;
    }
  PetscCall(EPSDestroy(&eps));

  /* Operator applications: MatMult (one vector: Krylov-Schur, Lanczos, ...) and the product with a dense
     block (block solvers such as LOBPCG: SLEPc's BVMatMult calls MatMatMult / MatProduct AB, logged as
     MatMatMultSym and MatMatMultNum from PETSc 3.18 to 3.22). */
  t[0] = t1 - t0;
  PetscCall(CIEventTime(stage, "MatMult", &t[1], &r->nmult));
  PetscCall(CIEventTime(stage, "MatMatMultNum", &t[2], &r->nproduct));
  PetscCall(CIEventTime(stage, "MatMatMultSym", &t[3], &c));
  PetscCall(CIEventTime(stage, "GpuMatsBuild", &t[4], &c));
  PetscCall(CIEventTime(stage, "GpuMatsUpload", &tt, &c));
  t[4] += tt;
  t[5] = 0;
  PetscCallMPI(MPI_Allreduce(t, tmax, 6, MPI_DOUBLE, MPI_MAX, comm));
  r->solve   = tmax[0];
  r->mult    = tmax[1];
  r->product = tmax[2] + tmax[3];
  r->fmt     = tmax[4];
  PetscFunctionReturn(0);
}

static PetscErrorCode CISolveResultReset(CISolveResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(r->eig, r->res));
  PetscFunctionReturn(0);
}

static double CIPercent(PetscLogDouble part, PetscLogDouble whole)
{
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* Prints the solve's summary and its eigenvalues against the references; *passed: every reference has an
   eigenvalue within ref_tol. */
static PetscErrorCode CIReport(MPI_Comm comm, const CISolveResult *r, PetscInt nref, const PetscReal ref[], PetscReal ref_tol, PetscBool *passed)
{
  PetscInt nrows = PetscMax(r->nfound, nref), nbad = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Eigensolver: %s, nev %" PetscInt_FMT ", tol %.1e, converged %" PetscInt_FMT ", iterations %" PetscInt_FMT "\n", r->type, r->nev, (double)r->tol, r->nconv, r->its));
  PetscCall(PetscPrintf(comm, "Solve time %.3f s: MatMult %.3f s (%.1f%%, %d calls)", r->solve, r->mult, CIPercent(r->mult, r->solve), r->nmult));
  if (r->nproduct) PetscCall(PetscPrintf(comm, ", MatMatMult/MatProduct %.3f s (%.1f%%, %d products)", r->product, CIPercent(r->product, r->solve), r->nproduct));
  if (r->fmt > 0) PetscCall(PetscPrintf(comm, "; gpumats format build/upload %.3f s (%.1f%%, inside the first product)", r->fmt, CIPercent(r->fmt, r->solve)));
  PetscCall(PetscPrintf(comm, "\n"));
  PetscCall(PetscPrintf(comm, "  k              energy   rel. residual            reference    difference\n"));
  for (PetscInt i = 0; i < nrows; i++) {
    if (i < r->nfound) PetscCall(PetscPrintf(comm, "%3" PetscInt_FMT "  %20.12f   %10.3e", i, (double)r->eig[i], (double)r->res[i]));
    else PetscCall(PetscPrintf(comm, "%3" PetscInt_FMT "  %20s   %10s", i, "(not converged)", ""));
    if (i < nref) {
      if (i < r->nfound) {
        const PetscReal diff = r->eig[i] - ref[i];
        const PetscBool ok   = PetscAbsReal(diff) <= ref_tol ? PETSC_TRUE : PETSC_FALSE;
        PetscCall(PetscPrintf(comm, "  %20.12f   %11.3e  %s", (double)ref[i], (double)diff, ok ? "ok" : "FAILED"));
        if (!ok) nbad++;
      } else {
        PetscCall(PetscPrintf(comm, "  %20.12f   %11s  FAILED", (double)ref[i], "-"));
        nbad++;
      }
    }
    PetscCall(PetscPrintf(comm, "\n"));
  }
  *passed = nbad ? PETSC_FALSE : PETSC_TRUE;
  if (nref)
    PetscCall(PetscPrintf(comm, "Reference check %s: %" PetscInt_FMT " of %" PetscInt_FMT " energies within %.1e\n", nbad ? "FAILED" : "passed", nref - nbad, nref, (double)ref_tol));
  else PetscCall(PetscPrintf(comm, "No reference energies given (-reference E1,E2,...)\n"));
  PetscFunctionReturn(0);
}

/* Appends the solve's results as one CSV line to 'file' (with the header if the file is empty). */
static PetscErrorCode CIWriteCSV(Mat A, const char file[], const char label[], PetscLogDouble build, const CISolveResult *r)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt rank, size;
  MatType     type;
  MatInfo     info;
  PetscInt    N;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  if (rank == 0) {
    FILE *f = fopen(file, "a");
    long  at;

    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s to append the results", file);
    at = ftell(f);
    if (at == 0) fprintf(f, "label,mat_type,ranks,eps_type,n,nnz,build_s,solve_s,matmult_s,matmult_calls,matmatmult_s,matmatmult_calls,format_s,iterations,converged,e0,e1,e2,e3\n");
    fprintf(f, "%s,%s,%d,%s,%ld,%.0f,%.4f,%.4f,%.4f,%d,%.4f,%d,%.4f,%ld,%ld", label, type, (int)size, r->type, (long)N, info.nz_used, build, r->solve, r->mult, r->nmult, r->product, r->nproduct, r->fmt, (long)r->its, (long)r->nconv);
    for (PetscInt i = 0; i < 4; i++) {
      if (i < r->nfound) fprintf(f, ",%.12f", (double)r->eig[i]);
      else fprintf(f, ",");
    }
    fprintf(f, "\n");
    PetscCheck(fclose(f) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the results to %s", file);
  }
  PetscFunctionReturn(0);
}

/* Solves again with A converted to MATAIJ; passed: the same number of eigenvalues converged and they
   differ by at most tol relative to the largest of them. */
static PetscErrorCode CICheckAgainstAIJ(Mat A, const CISolveResult *r, PetscReal tol, PetscBool *passed)
{
  MPI_Comm      comm = PetscObjectComm((PetscObject)A);
  Mat           B;
  MatType       type;
  CISolveResult c;
  PetscReal     scale = 0, diff = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(CISolve(B, r->nev, "CI check solve", &c));
  if (c.nfound != r->nfound) {
    PetscCall(PetscPrintf(comm, "Check against MATAIJ FAILED: %" PetscInt_FMT " eigenvalues converged with %s, %" PetscInt_FMT " with MATAIJ\n", r->nfound, type, c.nfound));
    *passed = PETSC_FALSE;
  } else {
    for (PetscInt i = 0; i < c.nfound; i++) {
      scale = PetscMax(scale, PetscAbsReal(c.eig[i]));
      diff  = PetscMax(diff, PetscAbsReal(r->eig[i] - c.eig[i]));
    }
    *passed = diff <= tol * scale ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(comm, "Check against MATAIJ %s: largest eigenvalue difference %.3e relative (tolerance %.1e; MATAIJ solve %.3f s)\n", *passed ? "passed" : "FAILED", (double)(scale > 0 ? diff / scale : diff), (double)tol, c.solve));
  }
  PetscCall(CISolveResultReset(&c));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* Where A's products run.  gpumats types answer through their composed MatGpuMatsUsesDevice_C (the
   library is loaded with -dll_append, not linked, so no symbol of it is called directly). */
static PetscErrorCode CIReportDevice(Mat A)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  PetscErrorCode (*uses_device)(Mat, PetscBool *) = NULL;
  PetscErrorCode (*get_info)(Mat, MatCIHybridInfo *) = NULL;
  MatType     type;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", &uses_device));
  if (uses_device) {
    PetscBool   uses = PETSC_FALSE;
    PetscMPIInt mine, ndev;
    PetscCall((*uses_device)(A, &uses));
    mine = uses ? 1 : 0;
    PetscCallMPI(MPI_Allreduce(&mine, &ndev, 1, MPI_INT, MPI_SUM, comm));
    if (size == 1) PetscCall(PetscPrintf(comm, "Products: gpumats %s on the %s\n", type, ndev ? "device (CUDA)" : "host (no CUDA build or no usable device)"));
    else if (ndev == 0) PetscCall(PetscPrintf(comm, "Products: gpumats %s on the host on all %d ranks (no CUDA build or no usable device)\n", type, size));
    else if (ndev == size) PetscCall(PetscPrintf(comm, "Products: gpumats %s on the device (CUDA) on all %d ranks\n", type, size));
    else PetscCall(PetscPrintf(comm, "Products: gpumats %s on the device (CUDA) on %d of %d ranks, on the host elsewhere\n", type, ndev, size));
  } else {
    PetscBool device = (strstr(type, "cusparse") || strstr(type, "hipsparse") || strstr(type, "kokkos") || strstr(type, "viennacl")) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(comm, "Products: PETSc's %s on the %s\n", type, device ? "device" : "host"));
  }
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridGetInfo_C", &get_info));
  if (get_info) {
    MatCIHybridInfo info;
    PetscCall(PetscMemzero(&info, sizeof(info)));
    PetscCall((*get_info)(A, &info));
    PetscCall(PetscPrintf(comm, "cihybrid format%s: boundary %" PetscInt_FMT ", ELLPACK width %" PetscInt_FMT " (pitch %" PetscInt_FMT "), %" PetscInt64_FMT " nonzeros in ELLPACK + %" PetscInt64_FMT " in CSR, padding %" PetscInt64_FMT ", %.1f MB on host, %.1f MB on device\n",
                          size > 1 ? " (rank 0's diagonal block)" : "", info.boundary, info.width, info.pitch, info.nnz_ell, info.nnz_csr, info.padding, info.bytes_host / 1048576.0, info.bytes_device / 1048576.0));
    if (info.compressed)
      PetscCall(PetscPrintf(comm, "cihybrid compressed: %.2f bytes a nonzero read by a product, dictionary of %" PetscInt_FMT " values covering %.1f%% of the nonzeros, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escaped columns\n", info.bytes_per_nonzero, info.dict_count,
                            info.nnz ? 100.0 * (double)(info.nnz - info.nnz_explicit) / (double)info.nnz : 100.0, info.nnz_explicit, info.escapes));
  }
  PetscFunctionReturn(0);
}

/* Expected nonzeros of rows [a,b) of the mirrored symmetric synthetic matrix (ci_synthetic.c): the
   diagonal, the upper part (n-1-r) p(r) and the lower part sum_{i<r} p(i), where p is ref_density in
   the first R = round(ref_fraction n) rows and density below them. */
static double CISyntheticExpectedNonzeros(const CISyntheticSpec *spec, PetscInt a, PetscInt b)
{
  const double n = (double)spec->n, R = PetscMin(PetscMax(floor(spec->ref_fraction * n + 0.5), 0.0), n);
  const double pr = PetscMin(spec->ref_density, 1.0), pd = PetscMin(spec->density, 1.0);
  double       nz = (double)(b - a);

  for (int part = 0; part < 2; part++) {
    const double s = part ? PetscMax((double)a, R) : (double)a, e = part ? (double)b : PetscMin((double)b, R);
    const double cnt = e - s, sumr = (s + e - 1) * cnt / 2, p = part ? pd : pr;

    if (cnt <= 0) continue;
    nz += p * (cnt * (n - 1) - sumr);                                /* upper */
    nz += part ? pr * R * cnt + pd * (sumr - R * cnt) : pr * sumr; /* lower */
  }
  return nz;
}

/* Refuses a synthetic matrix that cannot be built here before any of it is allocated: more nonzeros
   on a process than PetscInt indexes, or more memory (the AIJ matrix and the mirrored lower entries,
   (value + index) twice per nonzero) than the process's share of this node's memory. */
static PetscErrorCode CISyntheticCheckSize(MPI_Comm comm, const CISyntheticSpec *spec)
{
  PetscInt    m = PETSC_DECIDE, n = spec->n, rend;
  PetscMPIInt size, nodesize;
  MPI_Comm    node;
  double      mine[2], most[2], total, local, bytes, memory;
  long        pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscSplitOwnership(comm, &m, &n));
  PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nodesize));
  PetscCallMPI(MPI_Comm_free(&node));
  local   = CISyntheticExpectedNonzeros(spec, rend - m, rend);
  bytes   = 2 * local * (double)(sizeof(PetscScalar) + sizeof(PetscInt)) + 4 * (double)m * sizeof(PetscInt);
  memory  = pages > 0 && pagesize > 0 ? (double)pages * (double)pagesize / nodesize : PETSC_MAX_REAL;
  mine[0] = local;
  mine[1] = bytes / memory;
  PetscCallMPI(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm));
  PetscCheck(most[0] < (double)PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "-synthetic -n %" PetscInt_FMT ": about %.3g nonzeros, %.3g on one process, more than the %" PetscInt_FMT " a process can index with this PETSc's PetscInt: lower -n, -ci_ref_density or -ci_density, or use more processes", spec->n, total, most[0], PETSC_MAX_INT);
  PetscCheck(most[1] <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-synthetic -n %" PetscInt_FMT ": about %.3g nonzeros need %.3g times the memory a process has on this node (%.3g GB for each of its %d process%s): lower -n, -ci_ref_density or -ci_density, or use more nodes", spec->n, total, most[1], memory / 1e9, (int)nodesize, nodesize > 1 ? "es" : "");
  PetscFunctionReturn(0);
}

/* "<Lx>x<Ly>" or "<L>" (a chain) */
static PetscErrorCode CIParseLattice(const char str[], PetscInt *lx, PetscInt *ly)
{
  char *end;
  long  a, b = 1;

  PetscFunctionBeginUser;
  a = strtol(str, &end, 10);
  if (end != str && (*end == 'x' || *end == 'X')) {
    const char *s = end + 1;
    b             = strtol(s, &end, 10);
    PetscCheck(end != s, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-hubbard '%s': expected <Lx>x<Ly>, e.g. 3x4", str);
  }
  PetscCheck(end != str && *end == 0 && a > 0 && b > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-hubbard '%s': expected <Lx>x<Ly> (e.g. 3x4) or <L> for a chain", str);
  *lx = (PetscInt)a;
  *ly = (PetscInt)b;
  PetscFunctionReturn(0);
}

/* PETSc 3.18's PetscOptionsInt converts with strtol and casts to PetscInt: with 32-bit indices
   "-n 4294967297" silently reads as 1.  The integer options that ci_eigen (and the solver's sizes) read
   are checked against PetscInt's range first; a value that is no integer at all is left to
   PetscOptionsInt's own error. */
static PetscErrorCode CICheckIntOptionRange(const char name[])
{
  const char *value = NULL;
  PetscBool   set;
  char       *end;
  long long   v;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsFindPair(NULL, NULL, name, &value, &set));
  if (!set || !value || !value[0]) PetscFunctionReturn(0);
  errno = 0;
  v     = strtoll(value, &end, 10);
  if (end == value || *end) PetscFunctionReturn(0);
  PetscCheck(errno != ERANGE && v >= (long long)PETSC_MIN_INT && v <= (long long)PETSC_MAX_INT, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s %s: out of range; the integers of this PETSc (PetscInt, %d bits) hold %" PetscInt_FMT "..%" PetscInt_FMT, name, value, (int)(8 * sizeof(PetscInt)), PETSC_MIN_INT, PETSC_MAX_INT);
  PetscFunctionReturn(0);
}

/* A real option given as NaN or infinity: named here, before PETSc 3.19+'s own range check refuses it
   without the option's name ("Newly set value nan. less than allowed bound"). */
static PetscErrorCode CICheckRealOptionFinite(const char name[])
{
  const char *value = NULL;
  PetscBool   set;
  char       *end;
  double      v;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsFindPair(NULL, NULL, name, &value, &set));
  if (!set || !value || !value[0]) PetscFunctionReturn(0);
  v = strtod(value, &end);
  PetscCheck(end == value || *end || !PetscIsInfOrNanReal((PetscReal)v), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s %s: must be finite", name, value);
  PetscFunctionReturn(0);
}

/* "-hubbard ''" (an empty shell variable, say) is not "-hubbard" alone, which means the default 3x4:
   refuse it rather than run the 30-second default case. */
static PetscErrorCode CICheckEmptyLattice(int argc, char **argv)
{
  PetscFunctionBeginUser;
  for (int a = 1; a + 1 < argc; a++) PetscCheck(strcmp(argv[a], "-hubbard") || argv[a + 1][0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-hubbard '': expected <Lx>x<Ly> (e.g. 3x4) or <L> for a chain; leave the value out for the default 3x4");
  PetscFunctionReturn(0);
}

/* A repeated -reference: the options database keeps only the last one, so when the command line has
   several, all of them (each a comma list) are read from argv, in order. */
static PetscErrorCode CIRepeatedReferences(int argc, char **argv, PetscReal ref[], PetscInt *nref, PetscBool *set)
{
  int count = 0;

  PetscFunctionBeginUser;
  for (int a = 1; a < argc; a++)
    if (!strcmp(argv[a], "-reference")) count++;
  if (count < 2) PetscFunctionReturn(0);
  *nref = 0;
  *set  = PETSC_TRUE;
  for (int a = 1; a < argc; a++) {
    char *list, *tok, *next;
    if (strcmp(argv[a], "-reference")) continue;
    PetscCheck(a + 1 < argc, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-reference needs a value");
    PetscCall(PetscStrallocpy(argv[a + 1], &list));
    for (tok = list; tok; tok = next) {
      next = strchr(tok, ',');
      if (next) *next++ = 0;
      if (!*tok) continue;
      PetscCheck(*nref < CI_MAX_REFERENCES, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "At most %d reference energies", CI_MAX_REFERENCES);
      PetscCall(PetscOptionsStringToReal(tok, &ref[(*nref)++]));
    }
    PetscCall(PetscFree(list));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  char               fcidump[PETSC_MAX_PATH_LEN] = "", loadfile[PETSC_MAX_PATH_LEN] = "", savefile[PETSC_MAX_PATH_LEN] = "", lattice[64] = "";
  char               csvfile[PETSC_MAX_PATH_LEN] = "", csvlabel[64] = "ci_eigen";
  PetscBool          has_fcidump = PETSC_FALSE, has_load = PETSC_FALSE, has_save = PETSC_FALSE, has_lattice = PETSC_FALSE, synthetic = PETSC_FALSE, has_csv = PETSC_FALSE;
  PetscBool          hubbard_set = PETSC_FALSE, set, check = PETSC_FALSE, ref_set, ref_passed = PETSC_TRUE, check_passed = PETSC_TRUE, isaij;
  CISource           source;
  FCIHubbardSpec     hs = CIHubbardPublished;
  PetscBool          periodic = PETSC_FALSE;
  CISyntheticSpec    spec;
  PetscReal          droptol = 0, ref[CI_MAX_REFERENCES], ref_tol = 1e-8, check_tol = 1e-10;
  PetscReal          ref_fraction = 0.10, ref_density = 0.20, density = 0.01;
  PetscInt           n = 3000, seed = 2018, nref = 0, nsources, N, nev;
  FCIIntegrals      *ints  = NULL;
  FCIDetSpace       *space = NULL;
  FCIDetSpaceOptions dopts;
  Mat                A;
  MatType            type;
  MatInfo            info;
  PetscLogDouble     t0, t1, t2, tb[2], tbmax[2];
  CISolveResult      res;
  PetscMPIInt        size;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLogDefaultBegin()); /* the MatMult share of the solve comes from the event log */
#if defined(PETSC_HAVE_DEVICE)
  {
    PetscBool gpu_time = PETSC_TRUE;

    /* GPU kernels run asynchronously: without this an event's time is the launch only, and the
       MatMult share of a GPU solve comes out near zero.  It costs one synchronisation a product. */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-ci_log_gpu_time", &gpu_time, NULL));
    if (gpu_time) PetscCall(PetscLogGpuTime());
  }
#endif

  {
    const char *intopts[] = {"-hubbard_lx", "-hubbard_ly", "-hubbard_nup", "-hubbard_ndown", "-n", "-ci_seed", "-fci_threads", "-eps_nev", "-eps_ncv", "-eps_mpd", "-eps_max_it"};

    const char *realopts[] = {"-hubbard_t", "-hubbard_u", "-ci_ref_fraction", "-ci_ref_density", "-ci_density", "-ref_tol", "-check_tol", "-fci_droptol"};

    for (size_t k = 0; k < sizeof(intopts) / sizeof(intopts[0]); k++) PetscCall(CICheckIntOptionRange(intopts[k]));
    for (size_t k = 0; k < sizeof(realopts) / sizeof(realopts[0]); k++) PetscCall(CICheckRealOptionFinite(realopts[k]));
  }
  PetscCall(CICheckEmptyLattice(argc, argv));

  PetscOptionsBegin(comm, NULL, "CI eigenproblem", NULL);
  PetscCall(PetscOptionsString("-fcidump", "FCIDUMP file of the integrals", NULL, fcidump, fcidump, sizeof(fcidump), &has_fcidump));
  PetscCall(PetscOptionsString("-hubbard", "Hubbard model on an <Lx>x<Ly> lattice (the default source)", NULL, lattice, lattice, sizeof(lattice), &has_lattice));
  if (has_lattice && lattice[0]) PetscCall(CIParseLattice(lattice, &hs.nx, &hs.ny));
  PetscCall(PetscOptionsInt("-hubbard_lx", "Hubbard lattice: sites in x", NULL, hs.nx, &hs.nx, &set));
  hubbard_set = (PetscBool)(has_lattice || set);
  PetscCall(PetscOptionsInt("-hubbard_ly", "Hubbard lattice: sites in y (1: a chain)", NULL, hs.ny, &hs.ny, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCall(PetscOptionsBool("-hubbard_periodic", "Hubbard lattice: periodic boundaries", NULL, periodic, &periodic, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCall(PetscOptionsReal("-hubbard_t", "Hubbard hopping t", NULL, hs.t, &hs.t, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCall(PetscOptionsReal("-hubbard_u", "Hubbard on-site repulsion U", NULL, hs.U, &hs.U, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCheck(hs.nx > 0 && hs.ny > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Hubbard lattice %" PetscInt_FMT "x%" PetscInt_FMT ": both sides must be positive", hs.nx, hs.ny);
  hs.nup   = (hs.nx * hs.ny + 1) / 2; /* half filling */
  hs.ndown = (hs.nx * hs.ny) / 2;
  PetscCall(PetscOptionsEnum("-hubbard_wrap", "Hubbard: periodic sides of length 1 and 2 bonded once (bond) or term by term (sum)", NULL, FCIHubbardWraps, (PetscEnum)hs.wrap, (PetscEnum *)&hs.wrap, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCall(PetscOptionsInt("-hubbard_nup", "Hubbard: up electrons (default: half filling)", NULL, hs.nup, &hs.nup, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  PetscCall(PetscOptionsInt("-hubbard_ndown", "Hubbard: down electrons (default: half filling)", NULL, hs.ndown, &hs.ndown, &set));
  hubbard_set = (PetscBool)(hubbard_set || set);
  hs.periodic_x = hs.periodic_y = periodic;
  PetscCall(PetscOptionsReal("-fci_droptol", "FCI Hamiltonian: drop off-diagonal entries of at most this magnitude", NULL, droptol, &droptol, NULL));
  PetscCall(PetscOptionsBool("-synthetic", "Synthetic paper-like CI matrix (ci_synthetic.h)", NULL, synthetic, &synthetic, NULL));
  PetscCall(PetscOptionsInt("-n", "Synthetic: matrix dimension", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-ci_ref_fraction", "Synthetic: fraction of the columns in the dense reference block", NULL, ref_fraction, &ref_fraction, NULL));
  PetscCall(PetscOptionsReal("-ci_ref_density", "Synthetic: density inside the reference block", NULL, ref_density, &ref_density, NULL));
  PetscCall(PetscOptionsReal("-ci_density", "Synthetic: density outside the reference block", NULL, density, &density, NULL));
  PetscCall(PetscOptionsInt("-ci_seed", "Synthetic: seed of the matrix generator", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsString("-load", "Read the matrix from this PETSc binary file (MatLoad)", NULL, loadfile, loadfile, sizeof(loadfile), &has_load));
  PetscCall(PetscOptionsString("-save", "Write the matrix to this PETSc binary file (MatView) once built", NULL, savefile, savefile, sizeof(savefile), &has_save));
  nref = CI_MAX_REFERENCES;
  PetscCall(PetscOptionsRealArray("-reference", "Reference energies, lowest first (comma list; the option may be repeated)", NULL, ref, &nref, &ref_set));
  PetscCall(PetscOptionsReal("-ref_tol", "Largest |energy - reference| allowed", NULL, ref_tol, &ref_tol, NULL));
  PetscCall(PetscOptionsBool("-check", "Solve again with the matrix converted to MATAIJ and compare the eigenvalues", NULL, check, &check, NULL));
  PetscCall(PetscOptionsString("-csv", "Append one line of results to this CSV file", NULL, csvfile, csvfile, sizeof(csvfile), &has_csv));
  PetscCall(PetscOptionsString("-csv_label", "First column of the -csv line", NULL, csvlabel, csvlabel, sizeof(csvlabel), NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Largest eigenvalue difference allowed by -check, relative to the largest eigenvalue", NULL, check_tol, &check_tol, NULL));
  PetscOptionsEnd();
  if (!ref_set) nref = 0;
  PetscCall(CIRepeatedReferences(argc, argv, ref, &nref, &ref_set));
  PetscCheck(!has_fcidump || fcidump[0], comm, PETSC_ERR_ARG_WRONG, "-fcidump needs a file name");
  PetscCheck(!has_load || loadfile[0], comm, PETSC_ERR_ARG_WRONG, "-load needs a file name");
  PetscCheck(!has_save || savefile[0], comm, PETSC_ERR_ARG_WRONG, "-save needs a file name");
  PetscCheck(!has_csv || csvfile[0], comm, PETSC_ERR_ARG_WRONG, "-csv needs a file name");
  if (has_save) PetscCall(CISaveCheckTarget(comm, savefile));
  PetscCheck(ref_tol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ref_tol %g: must be nonnegative", (double)ref_tol);
  PetscCheck(check_tol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-check_tol %g: must be nonnegative", (double)check_tol);
  PetscCheck(droptol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fci_droptol %g: must be nonnegative (0 keeps every entry)", (double)droptol);
  PetscCheck(!PetscIsInfOrNanReal(hs.t), comm, PETSC_ERR_ARG_OUTOFRANGE, "-hubbard_t %g: must be finite", (double)hs.t);
  PetscCheck(!PetscIsInfOrNanReal(hs.U), comm, PETSC_ERR_ARG_OUTOFRANGE, "-hubbard_u %g: must be finite", (double)hs.U);
  PetscCheck(ref_fraction >= 0 && ref_fraction <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ci_ref_fraction %g: must be in [0, 1] (the share of the columns in the reference block)", (double)ref_fraction);
  PetscCheck(ref_density >= 0 && ref_density <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ci_ref_density %g: must be in [0, 1] (a probability)", (double)ref_density);
  PetscCheck(density >= 0 && density <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ci_density %g: must be in [0, 1] (a probability)", (double)density);
  for (PetscInt i = 0; i < nref; i++) PetscCheck(!PetscIsInfOrNanReal(ref[i]), comm, PETSC_ERR_ARG_OUTOFRANGE, "-reference: energy %" PetscInt_FMT " is %g; the references must be finite", i + 1, (double)ref[i]);

  nsources = (has_fcidump ? 1 : 0) + (has_load ? 1 : 0) + (synthetic ? 1 : 0) + (hubbard_set ? 1 : 0);
  PetscCheck(nsources <= 1, comm, PETSC_ERR_ARG_INCOMP, "Give one matrix source: -fcidump, -hubbard (or -hubbard_*), -synthetic or -load");
  source = has_fcidump ? CI_SOURCE_FCIDUMP : has_load ? CI_SOURCE_LOAD : synthetic ? CI_SOURCE_SYNTHETIC : CI_SOURCE_HUBBARD;

  /* ---- the matrix ---- */
  PetscCall(PetscTime(&t0));
  t1 = t0;
  switch (source) {
  case CI_SOURCE_HUBBARD:
  case CI_SOURCE_FCIDUMP:
    if (source == CI_SOURCE_HUBBARD) {
      PetscCall(FCIHubbardCreate(&hs, &ints));
      PetscCall(PetscPrintf(comm, "Hubbard model: %" PetscInt_FMT "x%" PetscInt_FMT " lattice, %s boundaries, t = %.10g, U = %.10g, %" PetscInt_FMT " up + %" PetscInt_FMT " down electrons\n", hs.nx, hs.ny, periodic ? "periodic" : "open", (double)hs.t, (double)hs.U, hs.nup, hs.ndown));
      if (periodic)
        PetscCall(PetscPrintf(comm, "Hubbard wrap convention: %s (%s)%s\n", FCIHubbardWraps[hs.wrap],
                              hs.wrap == FCI_HUBBARD_WRAP_BOND ? "each neighbouring pair bonded once: h = -t on a periodic side of length 2, no bond on one of length 1" : "the hop x -> x+1 mod L of every site: h = -2t on a periodic side of length 2, h_ii = -2t on one of length 1",
                              FCIHubbardWrapMatters(&hs) ? "; this lattice has such a side, -hubbard_wrap changes it" : "; no side of length 1 or 2, both conventions agree"));
    } else {
      PetscCall(FCIDumpRead(comm, fcidump, &ints));
      PetscCall(PetscPrintf(comm, "FCIDUMP %s: %" PetscInt_FMT " orbitals, %" PetscInt_FMT " electrons, MS2 %" PetscInt_FMT ", ISYM %" PetscInt_FMT ", core energy %.10f\n", fcidump, ints->norb, ints->nelec, ints->ms2, ints->isym, (double)ints->ecore));
    }
    PetscCall(FCIDetSpaceOptionsDefault(&dopts));
    PetscCall(FCIDetSpaceOptionsSetFromOptions(comm, NULL, &dopts));
    PetscCall(FCIDetSpaceCreate(ints, &dopts, &space));
    {
      char sector[64] = "no symmetry restriction";
      if (space->restricted) PetscCall(PetscSNPrintf(sector, sizeof(sector), "irrep %" PetscInt_FMT, space->sector + 1));
      PetscCall(PetscPrintf(comm, "Determinants: %" PetscInt_FMT " (%" PetscInt_FMT " alpha x %" PetscInt_FMT " beta strings, %s, %s ordering)\n", space->ndet, space->nstr_a, space->nstr_b, sector, space->ordering == FCI_ORDER_EXCITATION ? "excitation" : "lexical"));
    }
    PetscCall(PetscTime(&t1));
    PetscCall(FCIHamiltonianCreate(comm, ints, space, droptol, NULL, &A));
    /* the published case fills in its reference unless references were given */
    if (source == CI_SOURCE_HUBBARD && !ref_set && hs.nx == CIHubbardPublished.nx && hs.ny == CIHubbardPublished.ny && !periodic && hs.t == CIHubbardPublished.t && hs.U == CIHubbardPublished.U && hs.nup == CIHubbardPublished.nup && hs.ndown == CIHubbardPublished.ndown && space->ndet == 853776 && droptol == 0) {
      ref[0] = CIHubbardPublishedEnergy;
      nref   = 1;
      PetscCall(PetscPrintf(comm, "Reference: %.15f (ExactDiagonalization.jl documentation, HubbardModel.md)\n", (double)ref[0]));
    }
    break;
  case CI_SOURCE_SYNTHETIC:
    PetscCheck(n > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": the dimension must be positive", n);
    PetscCheck(seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ci_seed %" PetscInt_FMT ": the seed must be nonnegative", seed);
    spec.n            = n;
    spec.ref_fraction = (double)ref_fraction;
    spec.ref_density  = (double)ref_density;
    spec.density      = (double)density;
    spec.symmetric    = PETSC_TRUE;
    spec.seed         = (unsigned long)seed;
    PetscCall(PetscPrintf(comm, "Synthetic CI matrix: n = %" PetscInt_FMT ", reference block %.3f of the columns at density %.3f, density %.4f elsewhere, seed %" PetscInt_FMT "\n", n, (double)ref_fraction, (double)ref_density, (double)density, seed));
    PetscCall(CISyntheticCheckSize(comm, &spec));
    PetscCall(CICreateMatrix(comm, &spec, &A));
    break;
  case CI_SOURCE_LOAD: {
    PetscViewer v;
    PetscCall(PetscPrintf(comm, "Matrix from %s\n", loadfile));
    PetscCall(MatCreate(comm, &A));
    PetscCall(MatSetFromOptions(A)); /* aij unless -mat_type: an sbaij file holds the upper triangle, load it as sbaij */
    PetscCall(PetscViewerBinaryOpen(comm, loadfile, FILE_MODE_READ, &v));
    PetscCall(MatLoad(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  } break;
  }
  PetscCall(PetscTime(&t2));
  tb[0] = t2 - t0;
  tb[1] = t2 - t1;
  PetscCallMPI(MPI_Allreduce(tb, tbmax, 2, MPI_DOUBLE, MPI_MAX, comm));

  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(comm, "Matrix: type %s on %d rank%s, n = %" PetscInt_FMT ", nnz = %.0f (%.1f per row)\n", type, (int)size, size > 1 ? "s" : "", N, info.nz_used, N ? info.nz_used / N : 0.0));
  if (source == CI_SOURCE_HUBBARD || source == CI_SOURCE_FCIDUMP) {
    PetscErrorCode (*device_only)(Mat, PetscBool *) = NULL;
    PetscBool only = PETSC_FALSE;

    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridIsDeviceOnly_C", &device_only));
    if (device_only) PetscCall((*device_only)(A, &only));
    PetscCall(PetscPrintf(comm, "Build time %.3f s (Hamiltonian %.3f s, made on the %s)\n", tbmax[0], tbmax[1], only ? "GPU straight into the cihybrid arrays, no host copy" : "host"));
  }
  else PetscCall(PetscPrintf(comm, "Build time %.3f s\n", tbmax[0]));
  /* SLEPc would cap -eps_nev at the dimension without a word, and a reference beyond the dimension can
     never be met: both are errors; the default nev (4, or the number of references) is capped with a note */
  {
    PetscInt  user_nev;
    PetscBool nev_set;

    PetscCall(PetscOptionsGetInt(NULL, NULL, "-eps_nev", &user_nev, &nev_set));
    PetscCheck(nref <= N, comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " reference energies, but the matrix of dimension %" PetscInt_FMT " has only %" PetscInt_FMT " eigenvalues: give at most %" PetscInt_FMT " references", nref, N, N, N);
    PetscCheck(!nev_set || user_nev <= N, comm, PETSC_ERR_ARG_OUTOFRANGE, "-eps_nev %" PetscInt_FMT ": the matrix has dimension %" PetscInt_FMT ", so at most %" PetscInt_FMT " eigenvalues: give -eps_nev %" PetscInt_FMT " or less", user_nev, N, N, N);
    nev = PetscMax(4, nref);
    if (!nev_set && nev > N) {
      PetscCall(PetscPrintf(comm, "The matrix has dimension %" PetscInt_FMT ": solving for all its %" PetscInt_FMT " eigenvalues instead of the default %" PetscInt_FMT "\n", N, N, nev));
      nev = N;
    }
  }
  if (has_save) {
    PetscCall(CISaveMatrix(A, savefile));
    PetscCall(PetscPrintf(comm, "Matrix saved to %s\n", savefile));
  }

  /* ---- the eigenproblem ---- */
  PetscCall(CISolve(A, nev, "CI eigensolve", &res));
  PetscCall(CIReportDevice(A));
  PetscCall(CIReport(comm, &res, nref, ref, ref_tol, &ref_passed));
  PetscCall(PetscPrintf(comm, "Time to solution %.3f s: matrix %.3f s + eigensolve %.3f s\n", tbmax[0] + res.solve, tbmax[0], res.solve));
  if (has_csv) PetscCall(CIWriteCSV(A, csvfile, csvlabel, tbmax[0], &res));
  PetscCheck(res.nfound > 0, comm, PETSC_ERR_NOT_CONVERGED, "No eigenvalue converged: raise -eps_max_it or -eps_ncv");

  if (check) {
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJ, MATMPIAIJ, ""));
    if (isaij) PetscCall(PetscPrintf(comm, "Check skipped: the matrix is already of type %s\n", type));
    else PetscCall(CICheckAgainstAIJ(A, &res, check_tol, &check_passed));
  }
  PetscCall(CISolveResultReset(&res));
  PetscCall(MatDestroy(&A));
  PetscCall(FCIDetSpaceDestroy(&space));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscCall(SlepcFinalize());
  return (ref_passed && check_passed) ? 0 : 1;
}
