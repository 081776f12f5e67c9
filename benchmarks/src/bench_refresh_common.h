/* The refresh loop of issue 20, shared by its benchmarks (bench_refresh.c: a DMDA operator;
   bench_refresh_matrix.c: a matrix read from a file): the options both take, the clock (the device
   synchronised and the ranks together before each reading), the timed loop itself (creation, first
   MatMult, then -steps times new values and -mults MatMults), the values array MatSetValuesCOO reads
   (made on the device, copied there, or on the host), the check against MATAIJ and the report (a printed line, a CSV line).  What differs, how the
   matrix is made and what its values are at each step, comes as two callbacks (RefreshOps). */
#pragma once
#include <petscmat.h>
#include <stdarg.h>
#if defined(PETSC_HAVE_CUDA)
  #include <cuda_runtime.h>
#endif

#include "gpumats_compat.h" /* PETSC_SUCCESS before 3.19 */

typedef struct {
  PetscBool   device; /* there is a GPU to synchronise */
  PetscMPIInt size;
} Clock;

/* The options of the loop, the same in every refresh benchmark */
typedef struct {
  char      path[16];                /* setvalues, coo or algebra */
  char      memory[8];               /* coo: device, copied or host values */
  char      csv[PETSC_MAX_PATH_LEN]; /* append the results there */
  char      label[64];               /* this configuration's name in the CSV */
  PetscInt  steps, mults;
  PetscReal shift;     /* the diagonal moves by shift * step */
  PetscBool warmup;    /* a tiny matrix of the type made, filled and multiplied first */
  PetscBool coo;       /* -path coo */
  PetscBool algebra;   /* -path algebra: the new values by MatScale and a diagonal change */
  PetscBool on_device; /* -path coo with the values on the device (made there or copied) */
  PetscBool made;      /* made there: -coo_memory device */
  const Clock *clk;    /* the clock the loop reads */
} RefreshSettings;

/* PETSc started, the clock, and the settings with their defaults (device values where there is a GPU) */
static PetscErrorCode RefreshInitialize(int *argc, char ***argv, const char *help, Clock *clk, RefreshSettings *set)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(argc, argv, NULL, help));
  PetscCall(PetscMemzero(set, sizeof(*set)));
  PetscCall(PetscStrncpy(set->path, "setvalues", sizeof(set->path)));
  PetscCall(PetscStrncpy(set->memory, "host", sizeof(set->memory)));
  set->steps  = 20;
  set->mults  = 50;
  set->shift  = 0.5;
  set->warmup = PETSC_TRUE;
  set->clk    = clk;
  clk->device = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &clk->size));
#if defined(PETSC_HAVE_CUDA)
  {
    int ndev = 0;

    clk->device = (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) ? PETSC_TRUE : PETSC_FALSE;
    if (clk->device) PetscCall(PetscStrncpy(set->memory, "device", sizeof(set->memory)));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -path, -coo_memory, -steps, -mults, -shift, -warmup (what the warm-up makes: `tiny`), -label, -csv */
static PetscErrorCode RefreshSetFromOptions(const Clock *clk, const char *tiny, RefreshSettings *set)
{
  char warmup_help[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(warmup_help, sizeof(warmup_help), "Make and multiply %s of the type first", tiny));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Refresh loop options", NULL);
  PetscCall(PetscOptionsString("-path", "How the values change: setvalues (MatSetValues + assembly), coo (MatSetValuesCOO) or algebra (MatScale, then MatShift or MatDiagonalSet)", NULL, set->path, set->path, sizeof(set->path), NULL));
  PetscCall(PetscOptionsString("-coo_memory", "The values given to MatSetValuesCOO: device (made there by vector operations; PETSc with CUDA), copied (made on the host, copied to the device) or host", NULL, set->memory, set->memory, sizeof(set->memory), NULL));
  PetscCall(PetscOptionsInt("-steps", "Value changes", NULL, set->steps, &set->steps, NULL));
  PetscCall(PetscOptionsInt("-mults", "MatMults after each change", NULL, set->mults, &set->mults, NULL));
  PetscCall(PetscOptionsReal("-shift", "The diagonal moves by shift * step", NULL, set->shift, &set->shift, NULL));
  PetscCall(PetscOptionsBool("-warmup", warmup_help, NULL, set->warmup, &set->warmup, NULL));
  PetscCall(PetscOptionsString("-label", "Name of this configuration in the CSV", NULL, set->label, set->label, sizeof(set->label), NULL));
  PetscCall(PetscOptionsString("-csv", "Append the results to this file", NULL, set->csv, set->csv, sizeof(set->csv), NULL));
  PetscOptionsEnd();
  PetscCheck(!strcmp(set->path, "setvalues") || !strcmp(set->path, "coo") || !strcmp(set->path, "algebra"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-path %s: setvalues, coo or algebra", set->path);
  PetscCheck(!strcmp(set->memory, "device") || !strcmp(set->memory, "copied") || !strcmp(set->memory, "host"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-coo_memory %s: device, copied or host", set->memory);
  PetscCheck(set->steps >= 1 && set->mults >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-steps at least 1, -mults at least 2");
  set->coo       = strcmp(set->path, "coo") ? PETSC_FALSE : PETSC_TRUE;
  set->algebra   = strcmp(set->path, "algebra") ? PETSC_FALSE : PETSC_TRUE;
  set->made      = (set->coo && !strcmp(set->memory, "device")) ? PETSC_TRUE : PETSC_FALSE;
  set->on_device = (set->made || (set->coo && !strcmp(set->memory, "copied"))) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!set->on_device || clk->device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-coo_memory %s needs a PETSc with CUDA and a GPU: use -coo_memory host", set->memory);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clock: device work finished and the ranks together before each reading */
static PetscErrorCode Now(const Clock *clk, PetscLogDouble *t)
{
  PetscFunctionBeginUser;
#if defined(PETSC_HAVE_CUDA)
  if (clk->device) {
    cudaError_t e = cudaDeviceSynchronize();

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaDeviceSynchronize: %s", cudaGetErrorString(e));
  }
#endif
  if (clk->size > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* The median of v[0..k-1], k >= 1 (v sorted on the way) */
static double Median(double *v, size_t k)
{
  qsort(v, k, sizeof(double), CompareDouble);
  return (k % 2) ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* ||A x - B x|| / ||B x|| */
static PetscErrorCode RelativeError(Mat A, Mat B, Vec x, PetscReal *err)
{
  Vec       y, z;
  PetscReal num, den;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, z));
  PetscCall(VecNorm(z, NORM_2, &den));
  PetscCall(VecAXPY(y, -1.0, z));
  PetscCall(VecNorm(y, NORM_2, &num));
  *err = den > 0 ? num / den : num;
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATAIJ copy of A, row by row (MatGetRow) into a preallocated matrix: MatConvert to MATAIJ has no
   specialized path from aijcusparse in PETSc 3.22, and its generic one inserts without
   preallocation, which took minutes for the 273M entries of the H2O/6-31G Hamiltonian */
static PetscErrorCode RefreshCopyToAIJ(Mat A, Mat *B)
{
  PetscInt           rstart, rend, cstart, cend, ncols;
  PetscInt          *dnz, *onz;
  const PetscInt    *cols;
  const PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
  PetscCall(PetscCalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscCall(MatGetRow(A, r, &ncols, &cols, NULL));
    for (PetscInt k = 0; k < ncols; k++) {
      if (cols[k] >= cstart && cols[k] < cend) dnz[r - rstart]++;
      else onz[r - rstart]++;
    }
    PetscCall(MatRestoreRow(A, r, &ncols, &cols, NULL));
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, rend - rstart, cend - cstart, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*B, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*B, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*B, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscCall(MatGetRow(A, r, &ncols, &cols, &vals));
    PetscCall(MatSetValues(*B, 1, &r, ncols, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, r, &ncols, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The check after the loop: A against a MATAIJ copy of itself (the format against its own values),
   then against the same copy refilled with the expected entries, n of them in global indices with
   a row's entries together (MatSetValues a row: the values against what they should be) */
static PetscErrorCode RefreshCheck(Mat A, Vec x, PetscCount n, const PetscInt *i, const PetscInt *j, const PetscScalar *v, PetscReal *err_copy, PetscReal *err_values)
{
  Mat B;

  PetscFunctionBeginUser;
  PetscCall(RefreshCopyToAIJ(A, &B));
  PetscCall(RelativeError(A, B, x, err_copy));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatZeroEntries(B));
  for (PetscCount e = 0, f; e < n; e = f) { /* a row's entries are together: one MatSetValues a row */
    for (f = e + 1; f < n && i[f] == i[e];) f++;
    PetscCall(MatSetValues(B, 1, &i[e], (PetscInt)(f - e), &j[e], &v[e], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(RelativeError(A, B, x, err_values));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values array MatSetValuesCOO reads: the host array (host), its copy on the device (copied),
   or values made on the device (device), as a GPU assembler hands them over: those of step s are
   a_s v0 + b_s d + c_s e, the arrays v0 (step 0), d and e (NULL: none) uploaded once, the sum made
   by PETSc's vector operations on VECSEQCUDA vectors (two kernels a step).  COOValuesInsert gives
   them to the matrix and adds the time MatSetValuesCOO takes alone to `insert`. */
typedef struct {
  PetscBool      copied;
  PetscScalar   *d_v;
  size_t         bytes;
  Vec            v0, d, e, w; /* made */
  const Clock   *clk;
  PetscLogDouble insert; /* seconds in MatSetValuesCOO, summed */
} COOValues;

static PetscErrorCode COOValuesCreate(const RefreshSettings *set, PetscCount n, COOValues *dv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(dv, sizeof(*dv)));
  dv->clk    = set->clk;
  dv->copied = (PetscBool)(set->on_device && !set->made);
  dv->bytes  = (size_t)n * sizeof(PetscScalar);
#if defined(PETSC_HAVE_CUDA)
  if (dv->copied) {
    cudaError_t e = cudaMalloc((void **)&dv->d_v, dv->bytes ? dv->bytes : 1);

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaMalloc of %zu bytes for the COO values: %s", dv->bytes, cudaGetErrorString(e));
  }
#else
  PetscCheck(!set->on_device, PETSC_COMM_SELF, PETSC_ERR_SUP, "-coo_memory %s needs a PETSc with CUDA", set->memory);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOValuesVec(PetscCount n, const PetscScalar *h, Vec *v)
{
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, (PetscInt)n, (PetscInt)n));
  PetscCall(VecSetType(*v, VECSEQCUDA));
  if (!h) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayWrite(*v, &a));
  PetscCall(PetscArraycpy(a, h, n));
  PetscCall(VecRestoreArrayWrite(*v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -coo_memory device: the parts the values of every step are made of (host arrays of n, e may be NULL) */
static PetscErrorCode COOValuesSetParts(COOValues *dv, PetscCount n, const PetscScalar *v0, const PetscScalar *d, const PetscScalar *e)
{
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(COOValuesVec(n, v0, &dv->v0));
  PetscCall(COOValuesVec(n, d, &dv->d));
  if (e) PetscCall(COOValuesVec(n, e, &dv->e));
  PetscCall(COOValuesVec(n, NULL, &dv->w));
  PetscCall(VecSet(dv->w, 0.0));
  /* uploaded now, outside the steps */
  PetscCall(VecNorm(dv->v0, NORM_1, &norm));
  PetscCall(VecNorm(dv->d, NORM_1, &norm));
  if (dv->e) PetscCall(VecNorm(dv->e, NORM_1, &norm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The array to give MatSetValuesCOO: made on the device (a v0 + b d + c e), the host values h
   copied there, or h itself; COOValuesRestore after */
static PetscErrorCode COOValuesGet(COOValues *dv, const PetscScalar *h, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar **v)
{
  PetscFunctionBeginUser;
  *v = h;
  if (dv->w) {
    PetscMemType mtype;

    PetscCall(VecAXPBYPCZ(dv->w, a, b, 0.0, dv->v0, dv->d));
    if (dv->e) PetscCall(VecAXPY(dv->w, c, dv->e));
    PetscCall(VecGetArrayReadAndMemType(dv->w, v, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO values made on the device are not there");
  }
#if defined(PETSC_HAVE_CUDA)
  if (dv->copied) {
    cudaError_t e = cudaMemcpy(dv->d_v, h, dv->bytes, cudaMemcpyHostToDevice);

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemcpy of the COO values to the device: %s", cudaGetErrorString(e));
    *v = dv->d_v;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOValuesInsert(COOValues *dv, Mat A, const PetscScalar *v)
{
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(Now(dv->clk, &t0));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscCall(Now(dv->clk, &t1));
  dv->insert += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOValuesRestore(COOValues *dv, const PetscScalar **v)
{
  PetscFunctionBeginUser;
  if (dv->w) PetscCall(VecRestoreArrayReadAndMemType(dv->w, v));
  *v = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOValuesDestroy(COOValues *dv)
{
  PetscFunctionBeginUser;
#if defined(PETSC_HAVE_CUDA)
  if (dv->d_v) PetscCheck(cudaFree(dv->d_v) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree of the COO values");
#endif
  dv->d_v = NULL;
  PetscCall(VecDestroy(&dv->v0));
  PetscCall(VecDestroy(&dv->d));
  PetscCall(VecDestroy(&dv->e));
  PetscCall(VecDestroy(&dv->w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x random (PetscRandom, -random_type and the like), y zero, both where the products read them */
static PetscErrorCode RefreshVectors(Vec x, Vec y)
{
  PetscRandom rnd;
  PetscReal   norm;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)x), &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecSet(y, 0.0));
  PetscCall(VecNorm(x, NORM_2, &norm)); /* x where the products read it before the clock starts */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a benchmark gives the loop: how its matrix is made with the values of step 0 (creation), and
   how the values of step s >= 1 are put in (coo: where the time of MatSetValuesCOO is summed, -path coo) */
typedef struct {
  PetscErrorCode (*create)(void *ctx, Mat *A);
  PetscErrorCode (*update)(void *ctx, PetscInt step, Mat A);
  void            *ctx;
  const COOValues *coo;
} RefreshOps;

/* The warm-up: a tiny matrix made by ops->create (with the values of step 0) and multiplied once,
   x and y given or, when NULL, made by MatCreateVecs of the matrix; the matrix destroyed after */
static PetscErrorCode RefreshWarmUp(const RefreshOps *ops, Vec x, Vec y)
{
  Mat       A;
  Vec       u = x, v = y;
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(ops->create(ops->ctx, &A));
  if (!x) PetscCall(MatCreateVecs(A, &u, &v));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, v));
  PetscCall(VecNorm(v, NORM_2, &norm));
  PetscCall(MatDestroy(&A));
  if (!x) {
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The results of the loop, in seconds (steady: the median MatMult; steps: the steps alone, what
   follows the first MatMult; total: from creation on; insert: of the updates, MatSetValuesCOO
   alone, -path coo, the rest being the benchmark making the values) */
typedef struct {
  PetscLogDouble create, first, update, refresh, steady, steps, total, insert;
} RefreshTimes;

/* The timed loop.  Creation, then the first MatMult; steps 1..set->steps: the update, the first
   MatMult after it, set->mults - 1 more.  With *x NULL the vectors are made after creation by
   MatCreateVecs of the matrix (random x), outside the clock: total leaves that out. */
static PetscErrorCode RefreshLoop(const RefreshSettings *set, const RefreshOps *ops, Mat *A, Vec *x, Vec *y, RefreshTimes *tm)
{
  const Clock   *clk = set->clk;
  const size_t   k   = (size_t)set->steps * (size_t)(set->mults - 1);
  double        *steady;
  PetscLogDouble t0, t1, t2, start, vectors = 0, insert0 = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(k, &steady));
  tm->update = tm->refresh = tm->insert = 0;
  PetscCall(Now(clk, &t0));
  start = t0;
  PetscCall(ops->create(ops->ctx, A));
  PetscCall(Now(clk, &t1));
  tm->create = t1 - t0;
  if (!*x) {
    PetscCall(MatCreateVecs(*A, x, y));
    PetscCall(RefreshVectors(*x, *y));
    PetscCall(Now(clk, &t0));
    vectors = t0 - t1;
    t1      = t0;
  }
  PetscCall(MatMult(*A, *x, *y));
  PetscCall(Now(clk, &t2));
  tm->first = t2 - t1;
  tm->steps = t2;
  if (ops->coo) insert0 = ops->coo->insert;

  for (PetscInt s = 1; s <= set->steps; s++) {
    PetscCall(Now(clk, &t0));
    PetscCall(ops->update(ops->ctx, s, *A));
    PetscCall(Now(clk, &t1));
    PetscCall(MatMult(*A, *x, *y));
    PetscCall(Now(clk, &t2));
    tm->update += t1 - t0;
    tm->refresh += t2 - t1;
    for (PetscInt m = 1; m < set->mults; m++) {
      t0 = t2;
      PetscCall(MatMult(*A, *x, *y));
      PetscCall(Now(clk, &t2));
      steady[(s - 1) * (set->mults - 1) + (m - 1)] = t2 - t0;
    }
  }
  tm->steps  = t2 - tm->steps;
  if (ops->coo) tm->insert = ops->coo->insert - insert0;
  tm->total  = t2 - start - vectors;
  tm->steady = Median(steady, k);
  PetscCall(PetscFree(steady));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line appended to the CSV file set->csv by rank 0, the header first when the file is empty
   (nothing without -csv) */
static PetscErrorCode RefreshCSV(const RefreshSettings *set, const char *header, const char *fmt, ...)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  if (!set->csv[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    FILE   *f = fopen(set->csv, "a");
    va_list ap;

    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", set->csv);
    if (ftell(f) == 0) fprintf(f, "%s\n", header);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a run reports of its case: `name` begins the printed line; the CSV columns `head` (their
   values `cols`) come after label,mat_type,path and `tail_head` (values `tail`, each beginning with
   a comma, or empty) at the end of the line */
typedef struct {
  const char *name, *head, *cols, *tail_head, *tail;
} RefreshCase;

/* The results: one line printed, the error if the check failed (either relative error above 1e-12:
   then no CSV line), the CSV line */
static PetscErrorCode RefreshReport(const RefreshSettings *set, const RefreshCase *c, Mat A, long long nnz, const RefreshTimes *tm, PetscReal err_copy, PetscReal err_values)
{
  MatType  type;
  PetscInt rows;
  char     header[512];

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetSize(A, &rows, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s%s%s, %s%s: %" PetscInt_FMT " rows, %lld nonzeros; create %.4f s, first MatMult %.4f s; %" PetscInt_FMT " steps: updates %.4f s, first MatMults after them %.4f s, steady MatMult %.4f ms (median of %" PetscInt_FMT "), MatSetValuesCOO %.4f s of the updates, the steps %.4f s; whole %.4f s; relative error %.2e (copy) %.2e (values)\n", c->name, type, set->label[0] ? " " : "", set->label, set->path, set->coo ? (set->made ? ", values made on the device" : set->on_device ? ", values copied to the device" : ", host values") : "", rows, nnz, tm->create, tm->first, set->steps, tm->update, tm->refresh, 1e3 * tm->steady, set->steps * (set->mults - 1), tm->insert, tm->steps, tm->total, (double)err_copy, (double)err_values));
  PetscCheck(err_copy <= 1e-12 && err_values <= 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, -path %s: MatMult differs from MATAIJ's by %.3e (copy of the matrix) and %.3e (the values of step %" PetscInt_FMT "), more than 1e-12", type, set->path, (double)err_copy, (double)err_values, set->steps);
  PetscCall(PetscSNPrintf(header, sizeof(header), "label,mat_type,path,%s,rows,nonzeros,create_s,first_mult_s,update_s,refresh_mult_s,steady_mult_ms,total_s,steps,mults,coo_memory,ranks,rel_error,steps_s,insert_s%s", c->head, c->tail_head));
  PetscCall(RefreshCSV(set, header, "%s,%s,%s,%s,%ld,%lld,%.5f,%.5f,%.5f,%.5f,%.5f,%.4f,%ld,%ld,%s,%d,%.2e,%.4f,%.5f%s\n", set->label, type, set->path, c->cols, (long)rows, nnz, tm->create, tm->first, tm->update, tm->refresh, 1e3 * tm->steady, tm->total, (long)set->steps, (long)set->mults, set->coo ? set->memory : "-", set->clk->size, (double)PetscMax(err_copy, err_values), tm->steps, tm->insert, c->tail));
  PetscFunctionReturn(PETSC_SUCCESS);
}
