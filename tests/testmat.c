/* The matrix-type tests' shared helpers (testmat.h). */
#include "testmat.h"
#include <gpumats.h> /* MatGpuMatsUsesDevice */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* the test context                                                    */
/* ------------------------------------------------------------------ */


/* ------------------------------------------------------------------ */
/* random numbers                                                      */
/* ------------------------------------------------------------------ */
/* uniform integer in [lo, hi] */
PetscErrorCode RandInt(PetscRandom r, PetscInt lo, PetscInt hi, PetscInt *v)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *v = lo + (PetscInt)(u * (PetscReal)(hi - lo + 1));
  if (*v > hi) *v = hi;
  PetscFunctionReturn(0);
}

PetscErrorCode RandBool(PetscRandom r, PetscReal probability, PetscBool *b)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *b = u < probability ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* nonzero value in [-1, 1) */
PetscErrorCode RandValue(PetscRandom r, PetscScalar *v)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(r, &u));
  *v = 2.0 * u - 1.0;
  if (*v == 0.0) *v = 0.5;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* random matrices                                                     */
/* ------------------------------------------------------------------ */
const char *const ShapeNames[] = {"random", "0x0", "1x1", "one row", "one column", "no rows (0xN)", "no columns (Mx0)", "mostly empty rows", "no entries", "one dense row", "explicit zeros", "long rows (25..70)"};

PetscErrorCode GlobalCSRDestroy(GlobalCSR *csr)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(csr->rowptr, csr->cols, csr->vals));
  PetscCall(PetscMemzero(csr, sizeof(*csr)));
  PetscFunctionReturn(0);
}

/* Allocates a CSR of M x N with the given row lengths and draws distinct random
   columns (partial Fisher-Yates) and values; zero_fraction of the values, and
   all values of a row with probability zero_rows, are explicit zeros. */
PetscErrorCode GlobalCSRFill(PetscRandom r, PetscInt M, PetscInt N, const PetscInt *len, PetscReal zero_fraction, PetscReal zero_rows, GlobalCSR *csr)
{
  PetscInt *perm, i, k, nnz = 0;

  PetscFunctionBeginUser;
  for (i = 0; i < M; i++) nnz += len[i];
  csr->M      = M;
  csr->N      = N;
  csr->nnz    = nnz;
  csr->maxlen = 0;
  PetscCall(PetscMalloc3(M + 1, &csr->rowptr, nnz + 1, &csr->cols, nnz + 1, &csr->vals));
  PetscCall(PetscMalloc1(N + 1, &perm));
  for (k = 0; k < N; k++) perm[k] = k;
  csr->rowptr[0] = 0;
  for (i = 0; i < M; i++) {
    PetscBool zero_row = PETSC_FALSE;

    PetscCheck(len[i] >= 0 && len[i] <= N, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test generator: row length %" PetscInt_FMT " of %" PetscInt_FMT " columns", len[i], N);
    PetscCall(RandBool(r, zero_rows, &zero_row));
    for (k = 0; k < len[i]; k++) {
      PetscInt  j, tmp;
      PetscBool zero = PETSC_FALSE;

      PetscCall(RandInt(r, k, N - 1, &j));
      tmp     = perm[k];
      perm[k] = perm[j];
      perm[j] = tmp;
      PetscCall(RandBool(r, zero_fraction, &zero));
      csr->cols[csr->rowptr[i] + k] = perm[k];
      if (zero || zero_row) csr->vals[csr->rowptr[i] + k] = 0.0;
      else PetscCall(RandValue(r, &csr->vals[csr->rowptr[i] + k]));
    }
    csr->rowptr[i + 1] = csr->rowptr[i] + len[i];
    csr->maxlen        = PetscMax(csr->maxlen, len[i]);
  }
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(0);
}

PetscErrorCode GenerateShape(PetscRandom r, Shape shape, PetscInt maxsize, GlobalCSR *csr)
{
  PetscInt  M = 0, N = 0, i, *len, dense = -1;
  PetscReal zero_fraction = 0.0, zero_rows = 0.0;

  PetscFunctionBeginUser;
  switch (shape) {
  case SHAPE_0X0:
    break;
  case SHAPE_1X1:
    M = N = 1;
    break;
  case SHAPE_ONE_ROW:
    M = 1;
    PetscCall(RandInt(r, 1, 3 * maxsize, &N));
    break;
  case SHAPE_ONE_COLUMN:
    N = 1;
    PetscCall(RandInt(r, 1, maxsize, &M));
    break;
  case SHAPE_NO_ROWS:
    PetscCall(RandInt(r, 1, maxsize, &N));
    break;
  case SHAPE_NO_COLUMNS:
    PetscCall(RandInt(r, 1, maxsize, &M));
    break;
  case SHAPE_DENSE_ROW:
    PetscCall(RandInt(r, 2, maxsize, &M));
    PetscCall(RandInt(r, 34, 2 * maxsize + 34, &N));
    PetscCall(RandInt(r, 0, M - 1, &dense));
    break;
  case SHAPE_LONG_ROWS:
    PetscCall(RandInt(r, 1, maxsize, &M));
    PetscCall(RandInt(r, 70, 2 * maxsize + 70, &N));
    break;
  default:
    PetscCall(RandInt(r, 1, maxsize, &M));
    PetscCall(RandInt(r, 1, maxsize, &N));
  }
  if (shape == SHAPE_EXPLICIT_ZEROS) {
    zero_fraction = 0.4;
    zero_rows     = 0.15;
  }
  PetscCall(PetscMalloc1(M + 1, &len));
  for (i = 0; i < M; i++) {
    PetscBool empty = PETSC_FALSE;

    switch (shape) {
    case SHAPE_1X1:
      len[i] = 1;
      break;
    case SHAPE_ONE_ROW:
      PetscCall(RandInt(r, 1, N, &len[i]));
      break;
    case SHAPE_ONE_COLUMN:
      PetscCall(RandInt(r, 0, 1, &len[i]));
      break;
    case SHAPE_NO_COLUMNS:
    case SHAPE_NO_ENTRIES:
      len[i] = 0;
      break;
    case SHAPE_EMPTY_ROWS:
      PetscCall(RandBool(r, 0.7, &empty));
      if (empty) len[i] = 0;
      else PetscCall(RandInt(r, 1, PetscMin(N, 40), &len[i]));
      break;
    case SHAPE_DENSE_ROW:
      if (i == dense) len[i] = N;
      else PetscCall(RandInt(r, 0, PetscMin(N, 6), &len[i]));
      break;
    case SHAPE_EXPLICIT_ZEROS:
      PetscCall(RandInt(r, 0, PetscMin(N, 40), &len[i]));
      break;
    case SHAPE_LONG_ROWS:
      PetscCall(RandInt(r, 25, 70, &len[i]));
      break;
    default: /* random: short rows, some empty */
      PetscCall(RandBool(r, 0.1, &empty));
      if (empty) len[i] = 0;
      else PetscCall(RandInt(r, 0, PetscMin(N, 12), &len[i]));
    }
  }
  PetscCall(GlobalCSRFill(r, M, N, len, zero_fraction, zero_rows, csr));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* A square n x n matrix, rows of 0..maxlen entries (diagonal present only by chance). */
PetscErrorCode GenerateSquare(PetscRandom r, PetscInt n, PetscInt maxlen, GlobalCSR *csr)
{
  PetscInt *len, i;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &len));
  for (i = 0; i < n; i++) PetscCall(RandInt(r, 0, PetscMin(n, maxlen), &len[i]));
  PetscCall(GlobalCSRFill(r, n, n, len, 0.05, 0.0, csr));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* Same pattern as src, new values; keep_fraction < 1 drops entries (a subset pattern). */
PetscErrorCode GlobalCSRSamePattern(PetscRandom r, const GlobalCSR *src, PetscReal keep_fraction, GlobalCSR *dst)
{
  PetscInt i, k, nnz = 0;

  PetscFunctionBeginUser;
  dst->M      = src->M;
  dst->N      = src->N;
  dst->maxlen = 0;
  PetscCall(PetscMalloc3(src->M + 1, &dst->rowptr, src->nnz + 1, &dst->cols, src->nnz + 1, &dst->vals));
  dst->rowptr[0] = 0;
  for (i = 0; i < src->M; i++) {
    for (k = src->rowptr[i]; k < src->rowptr[i + 1]; k++) {
      PetscBool keep = PETSC_TRUE;

      if (keep_fraction < 1.0) PetscCall(RandBool(r, keep_fraction, &keep));
      if (!keep) continue;
      dst->cols[nnz] = src->cols[k];
      PetscCall(RandValue(r, &dst->vals[nnz]));
      nnz++;
    }
    dst->rowptr[i + 1] = nnz;
    dst->maxlen        = PetscMax(dst->maxlen, dst->rowptr[i + 1] - dst->rowptr[i]);
  }
  dst->nnz = nnz;
  PetscFunctionReturn(0);
}

PetscErrorCode GlobalCSRHasEntry(const GlobalCSR *csr, PetscInt i, PetscInt j, PetscBool *has)
{
  PetscInt k;

  PetscFunctionBeginUser;
  *has = PETSC_FALSE;
  for (k = csr->rowptr[i]; k < csr->rowptr[i + 1]; k++)
    if (csr->cols[k] == j) *has = PETSC_TRUE;
  PetscFunctionReturn(0);
}


PetscErrorCode DefaultLayout(MPI_Comm comm, PetscInt N, PetscInt *n, PetscInt *start)
{
  PetscInt end;

  PetscFunctionBeginUser;
  *n = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(comm, n, &N));
  PetscCallMPI(MPI_Scan(n, &end, 1, MPIU_INT, MPI_SUM, comm));
  *start = end - *n;
  PetscFunctionReturn(0);
}

PetscErrorCode CheckTypeName(Mat A, const char *expected, const char *what)
{
  PetscBool   same;
  const char *name;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, expected, &same));
  PetscCall(MatGetType(A, &name));
  PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s: the matrix has type %s, expected %s", what, name, expected);
  PetscFunctionReturn(0);
}

/* one of two acceptable type names (pass the same name twice for one) */
PetscErrorCode CheckMemType(Mat A, const char *what)
{
  PetscFunctionBegin;
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  {
    PetscMemType m;
    PetscBool    uses;
    MatType      type;

    PetscCall(MatGetType(A, &type));
    PetscCall(MatGpuMatsUsesDevice(A, &uses));
    PetscCall(MatGetCurrentMemType(A, &m));
    PetscCheck((PetscBool)PetscMemTypeDevice(m) == uses, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s %s: MatGetCurrentMemType() gives %s memory, but its products run on the %s", type, what, PetscMemTypeDevice(m) ? "device" : "host", uses ? "device" : "host");
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckTypeOneOf(Mat A, const char *t1, const char *t2, const char *what)
{
  PetscBool   same1, same2;
  const char *name;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, t1, &same1));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, t2, &same2));
  PetscCall(MatGetType(A, &name));
  PetscCheck(same1 || same2, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s: the matrix has type %s, expected %s (or %s)", what, name, t1, t2);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* comparing products                                                  */
/* ------------------------------------------------------------------ */
/* Vectors compatible with A: right (columns) and left (rows), of the type A asks for unless -vec_type says otherwise. */
PetscErrorCode CreateTestVecs(Mat A, Vec *right, Vec *left)
{
  PetscInt m, n, M, N;
  VecType  vtype;
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetVecType(A, &vtype));
  if (right) {
    PetscCall(VecCreate(comm, right));
    PetscCall(VecSetSizes(*right, n, N));
    PetscCall(VecSetType(*right, vtype));
    PetscCall(VecSetFromOptions(*right));
  }
  if (left) {
    PetscCall(VecCreate(comm, left));
    PetscCall(VecSetSizes(*left, m, M));
    PetscCall(VecSetType(*left, vtype));
    PetscCall(VecSetFromOptions(*left));
  }
  PetscFunctionReturn(0);
}

/* ||yc - ya|| / ||ya||  (absolute when ya == 0); NaN compares as a failure */
PetscErrorCode CompareVecs(TestCtx *t, Vec yc, Vec ya, const char *desc, const char *op)
{
  Vec       d;
  PetscReal na, nd, err;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(ya, &d));
  PetscCall(VecWAXPY(d, -1.0, ya, yc));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(ya, NORM_2, &na));
  PetscCall(VecDestroy(&d));
  err = na > 0.0 ? nd / na : nd;
  PetscCheck(err <= t->tol, t->comm, PETSC_ERR_PLIB, "MISMATCH %s, %s: relative error %g > %g (||y_aij|| = %g)", desc, op, (double)err, (double)t->tol, (double)na);
  t->maxerr = PetscMax(t->maxerr, err);
  t->ncompared++;
  PetscFunctionReturn(0);
}

/* All four products, the Add forms also with y == z, each compared with the AIJ matrix Aa. */
PetscErrorCode CheckProducts(TestCtx *t, Mat Ac, Mat Aa, const char *desc)
{
  Vec       x, y0, yc, ya, xt, yt0, ytc, yta;
  PetscInt  m, n;
  PetscBool square;

  PetscFunctionBeginUser;
  PetscCall(CreateTestVecs(Ac, &x, &yc));
  PetscCall(CreateTestVecs(Ac, &ytc, &xt));
  PetscCall(VecDuplicate(yc, &ya));
  PetscCall(VecDuplicate(yc, &y0));
  PetscCall(VecDuplicate(ytc, &yta));
  PetscCall(VecDuplicate(ytc, &yt0));
  PetscCall(VecSetRandom(x, t->vrnd));
  PetscCall(VecSetRandom(y0, t->vrnd));
  PetscCall(VecSetRandom(xt, t->vrnd));
  PetscCall(VecSetRandom(yt0, t->vrnd));

  /* outputs start with junk so that an entry left unwritten shows */
  PetscCall(VecSetRandom(yc, t->vrnd));
  PetscCall(MatMult(Ac, x, yc));
  PetscCall(MatMult(Aa, x, ya));
  PetscCall(CompareVecs(t, yc, ya, desc, "MatMult"));
  PetscCall(VecSetRandom(yc, t->vrnd));
  PetscCall(MatMult(Ac, x, yc));
  PetscCall(CompareVecs(t, yc, ya, desc, "MatMult (again, nothing changed)"));

  PetscCall(VecSetRandom(yc, t->vrnd));
  PetscCall(MatMultAdd(Ac, x, y0, yc));
  PetscCall(MatMultAdd(Aa, x, y0, ya));
  PetscCall(CompareVecs(t, yc, ya, desc, "MatMultAdd"));
  PetscCall(VecCopy(y0, yc));
  PetscCall(VecCopy(y0, ya));
  PetscCall(MatMultAdd(Ac, x, yc, yc));
  PetscCall(MatMultAdd(Aa, x, ya, ya));
  PetscCall(CompareVecs(t, yc, ya, desc, "MatMultAdd with y == z"));

  PetscCall(VecSetRandom(ytc, t->vrnd));
  PetscCall(MatMultTranspose(Ac, xt, ytc));
  PetscCall(MatMultTranspose(Aa, xt, yta));
  PetscCall(CompareVecs(t, ytc, yta, desc, "MatMultTranspose"));
  PetscCall(VecSetRandom(ytc, t->vrnd));
  PetscCall(MatMultTransposeAdd(Ac, xt, yt0, ytc));
  PetscCall(MatMultTransposeAdd(Aa, xt, yt0, yta));
  PetscCall(CompareVecs(t, ytc, yta, desc, "MatMultTransposeAdd"));
  PetscCall(VecCopy(yt0, ytc));
  PetscCall(VecCopy(yt0, yta));
  PetscCall(MatMultTransposeAdd(Ac, xt, ytc, ytc));
  PetscCall(MatMultTransposeAdd(Aa, xt, yta, yta));
  PetscCall(CompareVecs(t, ytc, yta, desc, "MatMultTransposeAdd with y == z"));

  /* square with equal layouts: the added vector may be x itself */
  PetscCall(MatGetLocalSize(Ac, &m, &n));
  square = (PetscBool)(m == n);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &square, 1, GPUMATS_MPI_BOOL, MPI_LAND, t->comm));
  if (square) {
    PetscCall(VecCopy(xt, x)); /* same layout: x is also a left vector */
    PetscCall(VecSetRandom(yc, t->vrnd));
    PetscCall(MatMultAdd(Ac, x, x, yc));
    PetscCall(MatMultAdd(Aa, x, x, ya));
    PetscCall(CompareVecs(t, yc, ya, desc, "MatMultAdd with y == x"));
  }

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&yc));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt0));
  PetscCall(VecDestroy(&ytc));
  PetscCall(VecDestroy(&yta));
  PetscFunctionReturn(0);
}

/* Preallocates A (sizes and type set) for its local rows of csr, sets them and assembles. */
PetscErrorCode GlobalCSRAssemble(Mat A, const GlobalCSR *csr)
{
  PetscInt    m, rstart, rend, cstart, cend, i, k, *dnnz, *onnz;
  PetscLayout rmap, cmap;

  PetscFunctionBeginUser;
  PetscCall(MatGetLayouts(A, &rmap, &cmap));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutSetUp(cmap));
  PetscCall(PetscLayoutGetRange(rmap, &rstart, &rend));
  PetscCall(PetscLayoutGetRange(cmap, &cstart, &cend));
  m = rend - rstart;
  PetscCall(PetscCalloc2(m + 1, &dnnz, m + 1, &onnz));
  for (i = 0; i < m; i++) {
    for (k = csr->rowptr[rstart + i]; k < csr->rowptr[rstart + i + 1]; k++) {
      if (csr->cols[k] >= cstart && csr->cols[k] < cend) dnnz[i]++;
      else onnz[i]++;
    }
  }
  PetscCall(MatXAIJSetPreallocation(A, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree2(dnnz, onnz)); /* before the assembly, which a test may expect to fail */
  for (i = rstart; i < rend; i++) PetscCall(MatSetValues(A, 1, &i, csr->rowptr[i + 1] - csr->rowptr[i], csr->cols + csr->rowptr[i], csr->vals + csr->rowptr[i], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The context of a test program 'name' on PETSC_COMM_WORLD: tolerance 1e-12, the
   scratch file name_np<size>.bin; TestCtxSeed draws the random streams afterwards
   (matrices: the same on every rank; vectors: one stream per rank). */
PetscErrorCode TestCtxInit(TestCtx *t, const char *name, PetscInt maxsize)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->comm    = PETSC_COMM_WORLD;
  t->tol     = 1e-12;
  t->maxsize = maxsize;
  PetscCallMPI(MPI_Comm_size(t->comm, &t->size));
  PetscCallMPI(MPI_Comm_rank(t->comm, &t->rank));
  PetscCall(PetscSNPrintf(t->binfile, sizeof(t->binfile), "%s_np%d.bin", name, t->size));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCtxSeed(TestCtx *t, PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &t->rnd));
  PetscCall(PetscRandomSetType(t->rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetSeed(t->rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(t->rnd));
  PetscCall(PetscRandomCreate(t->comm, &t->vrnd));
  PetscCall(PetscRandomSetType(t->vrnd, PETSCRANDER48));
  PetscCall(PetscRandomSetInterval(t->vrnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(t->vrnd, (unsigned long)seed + 1 + (unsigned long)t->rank));
  PetscCall(PetscRandomSeed(t->vrnd));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCtxDestroy(TestCtx *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRandomDestroy(&t->rnd));
  PetscCall(PetscRandomDestroy(&t->vrnd));
  PetscCall(MatDestroy(&t->plain));
  PetscFunctionReturn(0);
}

/* ierr must be an error whose message contains must_contain ("what" names the case) */
PetscErrorCode ExpectError(PetscErrorCode ierr, const char *must_contain, const char *what)
{
  const char *text;
  const char *specific = NULL;

  PetscFunctionBeginUser;
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: expected an error, there was none", what);
  PetscCall(GpuMatsErrorMessage(ierr, &text, &specific));
  PetscCheck(specific && strstr(specific, must_contain), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the error message does not say '%s': %s", what, must_contain, specific ? specific : "(none)");
  PetscFunctionReturn(0);
}

int TestMain(int argc, char **argv, const char help[], PetscErrorCode (*run)(void))
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ierr = run();
  if (ierr) PetscCallMPI(MPI_Abort(PETSC_COMM_WORLD, 1));
  PetscCall(PetscFinalize());
  return 0;
}

PetscErrorCode TestLimitAddressSpace(struct rlimit *saved, PetscBool *limited)
{
  FILE         *f;
  unsigned long pages = 0;
  struct rlimit lim;

  PetscFunctionBeginUser;
  *limited = PETSC_FALSE;
  f        = fopen("/proc/self/statm", "r");
  if (!f) PetscFunctionReturn(0);
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  if (!pages || getrlimit(RLIMIT_AS, saved)) PetscFunctionReturn(0);
  lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30);
  lim.rlim_max = saved->rlim_max;
  if (saved->rlim_cur != RLIM_INFINITY && saved->rlim_cur < lim.rlim_cur) PetscFunctionReturn(0);
  if (!setrlimit(RLIMIT_AS, &lim)) *limited = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TestRestoreAddressSpace(const struct rlimit *saved, PetscBool *limited)
{
  PetscFunctionBeginUser;
  if (*limited) PetscCheck(!setrlimit(RLIMIT_AS, saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot restore the address-space limit");
  *limited = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode ExpectSameEntries(Mat A, Mat B, const char *what, PetscInt *nnz)
{
  PetscInt rstart, rend, total = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           na, nb;
    const PetscInt    *ca, *cb;
    const PetscScalar *va, *vb;

    PetscCall(MatGetRow(A, r, &na, &ca, &va));
    PetscCall(MatGetRow(B, r, &nb, &cb, &vb));
    PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries, the reference %" PetscInt_FMT, what, r, na, nb);
    for (PetscInt k = 0; k < na; k++)
      PetscCheck(ca[k] == cb[k] && va[k] == vb[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " entry %" PetscInt_FMT ": (%" PetscInt_FMT ", %.17g), the reference (%" PetscInt_FMT ", %.17g)", what, r, k, ca[k], (double)PetscRealPart(va[k]), cb[k], (double)PetscRealPart(vb[k]));
    total += na;
    PetscCall(MatRestoreRow(A, r, &na, &ca, &va));
    PetscCall(MatRestoreRow(B, r, &nb, &cb, &vb));
  }
  if (nnz) *nnz = total;
  PetscFunctionReturn(0);
}
