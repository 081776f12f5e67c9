/* Matrices that change (issue 20), on a matrix read from a file: the refresh loop of bench_refresh
   (values replaced on the same pattern step after step, each step followed by MatMults) on a loaded
   matrix H0 instead of a DMDA stencil, e.g. the H2O/6-31G Hamiltonian written by
   examples/ci_eigen -save: a parameter sweep H(s) over a CI Hamiltonian.  The matrix type comes from
   -mat_type (aij, aijcusparse, pcsr, cihybrid, diag; the gpumats types loaded with -dll_append):
   the program is the same for all.

     bench_refresh_matrix -f H.bin -mat_type pcsr -dll_append libgpumats.so
                          [-path setvalues|coo|algebra] [-coo_memory device|copied|host] [-steps 20] [-mults 50]
                          [-shift 0.5] [-warmup 1] [-label TEXT] [-csv FILE]

   H0 is read from FILE (PETSc binary, MatLoad as MATAIJ, each rank its rows as MatLoad splits them)
   before the clock starts, and its locally owned entries listed row by row in global indices.  The
   values of step s (s = 0 at creation, 1..steps in the loop): h_ij (1 + 0.01 s) off the diagonal,
   h_ii (1 + 0.01 s) + shift s on it, on H0's pattern (every stored entry changes every step; a
   diagonal entry H0 does not store stays out).  Creation (timed): MatCreate with H0's sizes and
   layout, MatSetFromOptions (-mat_type), MatXAIJSetPreallocation with H0's row lengths (in the
   diagonal and off-diagonal blocks), then the values of step 0 as each step puts them in:
     -path setvalues  MatSetValues row by row (INSERT_VALUES), MatAssemblyBegin/End;
     -path coo        (at creation first MatSetPreallocationCOO with H0's pattern, the global
                      indices of the local rows in row order) the values of all entries into one
                      array, MatSetValuesCOO; with a PETSc with CUDA and a GPU the array is on the
                      device, made there (-coo_memory device, the default there: (1 + 0.01 s) times
                      H0's values, + shift s on the diagonal, one vector operation) or made on the
                      host and copied with cudaMemcpy (-coo_memory copied), or the host array
                      itself (-coo_memory host);
     -path algebra    (creation as setvalues; H0 must store every diagonal entry) MatScale by
                      (1 + 0.01 s) / (1 + 0.01 (s - 1)) and MatShift by what then brings the
                      diagonal to its value: a parameter sweep H0 (1 + t) + sigma I;
   then -mults MatMults y = A x, x (random) and y made by MatCreateVecs of A after creation,
   outside the clock.
   Timed (wall clock, the device synchronised with cudaDeviceSynchronize before each reading
   where PETSc has CUDA, and the ranks with a barrier), as in bench_refresh:
     create_s        creation, with the values of step 0;
     first_mult_s    the first MatMult after that (the format built and uploaded);
     update_s        the sum over the steps of putting the new values in, host work and whatever
                     device work it started;
     insert_s        -path coo: of update_s, the time of MatSetValuesCOO alone (the device
                     synchronised before and after it); the rest is the benchmark making the values;
     refresh_mult_s  the sum over the steps of the first MatMult after that;
     steady_mult_ms  the median of all other MatMults;
     total_s         the whole: creation to the end of the last step (less making the vectors).
   -warmup (default on) first makes, fills and multiplies a 4x4 tridiagonal matrix of the same type
   and path, so that the one-time costs of a program (CUDA context, library handles) do not land in
   first_mult_s.  After the loop the product is checked twice against MATAIJ: a row-by-row copy of
   the matrix (the format against its own values) and the same copy refilled by MatSetValues with
   H0's pattern and the values of the last step computed again from H0 (the values against what
   they should be); a relative error above 1e-12 stops the program with an error (no CSV line).  One
   line of results a run; -csv FILE appends it (the file's base name in the column `matrix`), -label
   names the configuration. */
#include "bench_refresh_common.h"
#include "../../tests/testexit.h"

static const char help[] = "A matrix read from a file whose values change step after step: value update (MatSetValues or MatSetValuesCOO) and MatMults, each timed\n";

/* The locally owned entries of H0, row by row in global indices, and the values of a step */
typedef struct {
  PetscInt     m, M, N, nloc;    /* local rows, global rows and columns, local columns */
  PetscCount   n;                /* local entries */
  PetscCount  *off;              /* local row r: entries off[r] .. off[r + 1] - 1 */
  PetscInt    *i, *j;            /* global row and column of each entry (NULL once handed to MatSetPreallocationCOO) */
  PetscInt    *dnnz, *onnz;      /* a row's entries in the columns of the diagonal block, and the others */
  PetscCount  *diag, ndiag;      /* the entries on the diagonal */
  PetscScalar *h;                /* H0's values */
  PetscScalar *v;                /* the values of the step last computed */
  PetscReal    shift;
} Entries;

static PetscErrorCode EntriesCreate(Mat H0, PetscReal shift, Entries *E)
{
  PetscInt rstart, rend, cstart, cend, ncols;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(E, sizeof(*E)));
  E->shift = shift;
  PetscCall(MatGetSize(H0, &E->M, &E->N));
  PetscCall(MatGetLocalSize(H0, &E->m, &E->nloc));
  PetscCall(MatGetOwnershipRange(H0, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(H0, &cstart, &cend));
  PetscCall(PetscMalloc3(E->m + 1, &E->off, E->m, &E->dnnz, E->m, &E->onnz));
  E->off[0] = 0;
  for (PetscInt r = 0; r < E->m; r++) { /* the row lengths first, to allocate */
    PetscCall(MatGetRow(H0, rstart + r, &ncols, NULL, NULL));
    E->off[r + 1] = E->off[r] + ncols;
    PetscCall(MatRestoreRow(H0, rstart + r, &ncols, NULL, NULL));
  }
  E->n = E->off[E->m];
  PetscCall(PetscMalloc1(E->n, &E->i)); /* one by one: i and j are freed before the others */
  PetscCall(PetscMalloc1(E->n, &E->j));
  PetscCall(PetscMalloc1(E->n, &E->h));
  PetscCall(PetscMalloc1(E->n, &E->v));
  PetscCall(PetscMalloc1(E->m, &E->diag));
  for (PetscInt r = 0; r < E->m; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    const PetscCount   e0 = E->off[r];

    PetscCall(MatGetRow(H0, rstart + r, &ncols, &cols, &vals));
    E->dnnz[r] = E->onnz[r] = 0;
    for (PetscInt q = 0; q < ncols; q++) {
      E->i[e0 + q] = rstart + r;
      E->j[e0 + q] = cols[q];
      E->h[e0 + q] = vals[q];
      if (cols[q] >= cstart && cols[q] < cend) E->dnnz[r]++;
      else E->onnz[r]++;
      if (cols[q] == rstart + r) E->diag[E->ndiag++] = e0 + q;
    }
    PetscCall(MatRestoreRow(H0, rstart + r, &ncols, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of step s into E->v: h_ij (1 + 0.01 s), + shift s on the diagonal */
static void EntriesValues(Entries *E, PetscInt s)
{
  const PetscReal f = 1.0 + 0.01 * (PetscReal)s;

  for (PetscCount e = 0; e < E->n; e++) E->v[e] = E->h[e] * f;
  for (PetscCount d = 0; d < E->ndiag; d++) E->v[E->diag[d]] += E->shift * (PetscReal)s;
}

static PetscErrorCode EntriesDestroy(Entries *E)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(E->off, E->dnnz, E->onnz));
  PetscCall(PetscFree(E->i));
  PetscCall(PetscFree(E->j));
  PetscCall(PetscFree(E->h));
  PetscCall(PetscFree(E->v));
  PetscCall(PetscFree(E->diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -coo_memory device: the values of every step made of H0's (E->h) and d = 1 on the diagonal */
static PetscErrorCode MadeCOOParts(const Entries *E, COOValues *dv)
{
  PetscScalar *d;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(E->n, &d));
  for (PetscCount k = 0; k < E->ndiag; k++) d[E->diag[k]] = 1.0;
  PetscCall(COOValuesSetParts(dv, E->n, E->h, d, NULL));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the loop calls (RefreshOps): a matrix of the type with H0's pattern, and its values */
typedef struct {
  Entries                E;
  const RefreshSettings *set;
  COOValues              dv; /* -path coo: where MatSetValuesCOO reads the values */
} Run;

/* step s: the values computed, then put in by the path's calls */
static PetscErrorCode RunUpdate(void *ctx, PetscInt s, Mat A)
{
  Run     *r = (Run *)ctx;
  Entries *E = &r->E;

  PetscFunctionBeginUser;
  if (r->set->algebra && s > 0) { /* E->v is not kept up to date on this path */
    const PetscReal f = (1.0 + 0.01 * (PetscReal)s) / (1.0 + 0.01 * (PetscReal)(s - 1));

    PetscCall(MatScale(A, f));
    PetscCall(MatShift(A, E->shift * ((PetscReal)s - (PetscReal)(s - 1) * f)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (r->set->coo) {
    const PetscScalar *v;

    if (!r->set->made) EntriesValues(E, s);
    PetscCall(COOValuesGet(&r->dv, E->v, 1.0 + 0.01 * (PetscReal)s, E->shift * (PetscReal)s, 0.0, &v));
    PetscCall(COOValuesInsert(&r->dv, A, v));
    PetscCall(COOValuesRestore(&r->dv, &v));
  } else {
    EntriesValues(E, s);
    for (PetscInt row = 0; row < E->m; row++) {
      const PetscCount e = E->off[row];

      PetscCall(MatSetValues(A, 1, &E->i[e], (PetscInt)(E->off[row + 1] - e), &E->j[e], &E->v[e], INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* creation: the matrix of -mat_type with H0's layout and row lengths, the COO pattern on that path,
   the values of step 0 */
static PetscErrorCode RunCreate(void *ctx, Mat *A)
{
  Run     *r = (Run *)ctx;
  Entries *E = &r->E;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, E->m, E->nloc, E->M, E->N));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatXAIJSetPreallocation(*A, 1, E->dnnz, E->onnz, NULL, NULL));
  if (r->set->coo) {
    /* PETSc may change the index arrays: not used after */
    PetscCall(MatSetPreallocationCOO(*A, E->n, E->i, E->j));
    PetscCall(PetscFree(E->i));
    PetscCall(PetscFree(E->j));
    PetscCall(COOValuesCreate(r->set, E->n, &r->dv));
    if (r->set->made) PetscCall(MadeCOOParts(E, &r->dv));
  }
  PetscCall(RunUpdate(ctx, 0, *A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunDestroy(Run *r)
{
  PetscFunctionBeginUser;
  PetscCall(COOValuesDestroy(&r->dv));
  PetscCall(EntriesDestroy(&r->E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 4x4 tridiagonal matrix of the same type made, filled (same path) and multiplied once: the
   program's one-time costs */
static PetscErrorCode WarmUp(const RefreshSettings *set)
{
  Run        r   = {.set = set};
  RefreshOps ops = {RunCreate, RunUpdate, &r, &r.dv};
  Mat        T;
  PetscInt   rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 4, 4, 3, NULL, 2, NULL, &T));
  PetscCall(MatGetOwnershipRange(T, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++)
    for (PetscInt col = PetscMax(row - 1, 0); col <= PetscMin(row + 1, 3); col++) PetscCall(MatSetValue(T, row, col, col == row ? 2.0 : -1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(T, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(T, MAT_FINAL_ASSEMBLY));
  PetscCall(EntriesCreate(T, set->shift, &r.E));
  PetscCall(MatDestroy(&T));
  PetscCall(RefreshWarmUp(&ops, NULL, NULL));
  PetscCall(RunDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The check (RefreshCheck) with H0's pattern and the values of step `step` computed again from H0 */
static PetscErrorCode Check(Mat H0, PetscReal shift, PetscInt step, Mat A, Vec x, PetscReal *err_copy, PetscReal *err_values)
{
  Entries E;

  PetscFunctionBeginUser;
  PetscCall(EntriesCreate(H0, shift, &E));
  EntriesValues(&E, step);
  PetscCall(RefreshCheck(A, x, E.n, E.i, E.j, E.v, err_copy, err_values));
  PetscCall(EntriesDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int Main(int argc, char **argv)
{
  char            file[PETSC_MAX_PATH_LEN] = "";
  const char     *base;
  PetscBool       given;
  RefreshSettings set;
  Clock           clk;
  Run             r = {.set = &set};
  RefreshOps      ops = {RunCreate, RunUpdate, &r, &r.dv};
  RefreshTimes    tm = {0, 0, 0, 0, 0, 0, 0, 0};
  RefreshCase     rc = {NULL, "matrix", NULL, "", ""};
  PetscViewer     viewer;
  Mat             H0, A;
  Vec             x = NULL, y = NULL; /* made by MatCreateVecs of A */
  long long       nnz, nnz_l;
  PetscReal       err_copy, err_values;

  PetscFunctionBeginUser;
  PetscCall(RefreshInitialize(&argc, &argv, help, &clk, &set));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_refresh_matrix options", NULL);
  PetscCall(PetscOptionsString("-f", "The matrix H0 (PETSc binary, e.g. written by ci_eigen -save)", NULL, file, file, sizeof(file), &given));
  PetscOptionsEnd();
  PetscCall(RefreshSetFromOptions(&clk, "a 4x4 tridiagonal matrix", &set));
  if (!given || !file[0]) { /* -help alone: the options printed, nothing to run */
    PetscBool asked;

    PetscCall(PetscOptionsHasHelp(NULL, &asked));
    if (asked) {
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCheck(given && file[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-f FILE: the matrix to load (PETSc binary) is needed");
  base = strrchr(file, '/');
  base = base ? base + 1 : file;
  if (set.warmup) PetscCall(WarmUp(&set));

  /* H0, and its local entries, before the clock starts */
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &viewer));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &H0));
  PetscCall(MatSetType(H0, MATAIJ));
  PetscCall(MatLoad(H0, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(EntriesCreate(H0, set.shift, &r.E));
  PetscCheck(r.E.M == r.E.N, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "%s: a square matrix is needed, not %" PetscInt_FMT " x %" PetscInt_FMT, file, r.E.M, r.E.N);
  PetscCheck(!set.algebra || r.E.ndiag == r.E.m, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s, -path algebra: %" PetscInt_FMT " of this process's %" PetscInt_FMT " diagonal entries are not stored, and MatShift would add them: use -path setvalues or coo", file, r.E.m - (PetscInt)r.E.ndiag, r.E.m);
  nnz_l = (long long)r.E.n;
  PetscCallMPI(MPI_Allreduce(&nnz_l, &nnz, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD));

  PetscCall(RefreshLoop(&set, &ops, &A, &x, &y, &tm));
  PetscCall(RunDestroy(&r)); /* its arrays, before the check makes its own */

  /* the check, after the loop, against the values of the last step */
  PetscCall(Check(H0, set.shift, set.steps, A, x, &err_copy, &err_values));
  rc.name = rc.cols = base;
  PetscCall(RefreshReport(&set, &rc, A, nnz, &tm, err_copy, err_values));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H0));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscFinalize());
  return 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
