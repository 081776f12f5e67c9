static const char help[] = "A compressed cihybrid matrix (MatCIHybridSetCompress) against MATAIJ and against the\n\
same matrix uncompressed: MatMult, MatMultAdd, MatMultTranspose(Add), MatMatMult with a dense\n\
matrix, after MatScale, MatShift, MatDiagonalSet, MatAXPY and MatSetValues, across a MatDuplicate,\n\
and with the compression turned off and on again.  The matrix has the traits the format is for\n\
and its edge cases: values drawn from a pool (some more than the dictionary holds, so some are\n\
explicit), -0.0 and both signs, and columns far apart (gaps that do not fit 16 bits, escaped).\n\
Where both cihybrid matrices multiply on the host, their results must agree bit for bit.\n\
Options:\n\
  -n <n>      rows and columns (default 70000: gaps above 65533 need more than that)\n\
  -pool <p>   distinct magnitudes drawn from (default 5000, more than the 4096 of the dictionary)\n\
  -k <k>      columns of the dense matrix of MatMatMult (default 3)\n\
  -seed <s>   seed (default 7)\n";

#include <petscmat.h>
#include <gpumats.h>

typedef struct {
  MPI_Comm  comm;
  PetscInt  n, pool, k;
  PetscInt  checks;
  PetscReal worst; /* largest relative difference with MATAIJ */
} TestCtx;

/* The value of entry (i, j): from a pool of magnitudes, the frequent ones more often, with a
   sign; the same on every rank */
static PetscScalar EntryValue(PetscInt i, PetscInt j, PetscInt pool, unsigned long seed)
{
  unsigned long long h = (unsigned long long)i * 2654435761ULL ^ (unsigned long long)j * 40503ULL ^ seed * 97ULL;
  PetscInt           idx;

  h ^= h >> 17;
  h *= 0xed5a4f1bULL;
  h ^= h >> 29;
  idx = (PetscInt)(h % 8 == 0 ? (h >> 8) % (unsigned long long)pool : (h >> 8) % 64); /* most from 64 values */
  if (idx == 5) return -0.0;
  return (h & 0x10000 ? -1.0 : 1.0) * (0.125 + 0.001 * (PetscReal)idx + 1e-9 * (PetscReal)(idx * idx));
}

/* n x n: the diagonal, two neighbours, column 0 and two far columns (i + n/2 + 1, i + 3n/4,
   modulo n), but for the last n/16 rows, whose far columns are 0 too: the gap from column 0 to
   their diagonal is too large for 16 bits once n > 65535 (escaped columns). */
static PetscErrorCode CreateMatrix(TestCtx *t, MatType type, PetscBool compress, unsigned long seed, Mat *A)
{
  PetscInt rstart, rend, n = t->n;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(t->comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  if (compress) PetscCall(MatCIHybridSetCompress(*A, MAT_CIHYBRID_COMPRESS_FULL));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscBool last    = (PetscBool)(i >= n - n / 16);
    PetscInt        cols[6] = {i, (i + 1) % n, (i + n - 1) % n, last ? 0 : (i + n / 2 + 1) % n, last ? 0 : (i + 3 * n / 4) % n, 0}, nc = 6;
    PetscScalar     vals[6];

    for (PetscInt c = 0; c < nc; c++) vals[c] = c == 0 ? 4.0 + (PetscReal)(i % 3) : EntryValue(i, cols[c], t->pool, seed);
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, ADD_VALUES)); /* repeated columns add up */
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* the sequential matrix whose format MatCIHybridGetInfo describes */
static PetscErrorCode GetInfo(Mat A, MatCIHybridInfo *info)
{
  PetscFunctionBeginUser;
  PetscCall(MatCIHybridGetInfo(A, info));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(TestCtx *t, const char *what, Vec yref, Vec yplain, Vec y, PetscBool exact)
{
  PetscReal nref, d, dplain;
  Vec       r;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(y, &r));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nref));
  PetscCall(VecWAXPY(r, -1.0, yref, y));
  PetscCall(VecNorm(r, NORM_INFINITY, &d));
  PetscCall(VecWAXPY(r, -1.0, yplain, y));
  PetscCall(VecNorm(r, NORM_INFINITY, &dplain));
  PetscCall(VecDestroy(&r));
  d /= nref > 0 ? nref : 1.0;
  t->worst = PetscMax(t->worst, d);
  t->checks++;
  PetscCheck(d <= 1e-13, t->comm, PETSC_ERR_PLIB, "%s: the compressed matrix differs from MATAIJ by %g (relative, infinity norm)", what, (double)d);
  PetscCheck(!exact || dplain == 0, t->comm, PETSC_ERR_PLIB, "%s: on the host the compressed matrix must give the plain one's results bit for bit; they differ by %g", what, (double)dplain);
  PetscCheck(exact || dplain <= 1e-13 * (nref > 0 ? nref : 1.0), t->comm, PETSC_ERR_PLIB, "%s: the compressed matrix differs from the plain one by %g", what, (double)dplain);
  PetscFunctionReturn(0);
}

/* every product of C (compressed), P (plain cihybrid) and R (MATAIJ), which hold the same entries */
static PetscErrorCode CompareProducts(TestCtx *t, const char *stage, Mat R, Mat P, Mat C)
{
  MatCIHybridInfo ic, ip;
  Vec             x, y0, yr, yp, yc, xt, ytr, ytp, ytc;
  Mat             B, Dr, Dp, Dc;
  PetscBool       exact;
  char            what[128];
  PetscInt        N;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(C, &x, &yc));
  PetscCall(VecDuplicate(yc, &yr));
  PetscCall(VecDuplicate(yc, &yp));
  PetscCall(VecDuplicate(yc, &y0));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(y0, NULL));
  PetscCall(MatMult(R, x, yr));
  PetscCall(MatMult(P, x, yp));
  PetscCall(MatMult(C, x, yc));
  PetscCall(GetInfo(C, &ic));
  PetscCall(GetInfo(P, &ip));
  PetscCheck(ic.compressed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatCIHybridGetInfo says the matrix set to compress is not compressed", stage);
  PetscCheck(!ip.compressed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatCIHybridGetInfo says the plain matrix is compressed", stage);
  exact = (PetscBool)(!ic.on_device && !ip.on_device);
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatMult", stage));
  PetscCall(Compare(t, what, yr, yp, yc, exact));
  PetscCall(MatMultAdd(R, x, y0, yr));
  PetscCall(MatMultAdd(P, x, y0, yp));
  PetscCall(MatMultAdd(C, x, y0, yc));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatMultAdd", stage));
  PetscCall(Compare(t, what, yr, yp, yc, exact));
  /* transpose: the device takes atomics, so never bit for bit there */
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(VecDuplicate(x, &ytr));
  PetscCall(VecDuplicate(x, &ytp));
  PetscCall(VecDuplicate(x, &ytc));
  PetscCall(MatMultTranspose(R, y0, ytr));
  PetscCall(MatMultTranspose(P, y0, ytp));
  PetscCall(MatMultTranspose(C, y0, ytc));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatMultTranspose", stage));
  PetscCall(Compare(t, what, ytr, ytp, ytc, exact));
  PetscCall(VecSetRandom(xt, NULL));
  PetscCall(MatMultTransposeAdd(R, y0, xt, ytr));
  PetscCall(MatMultTransposeAdd(P, y0, xt, ytp));
  PetscCall(MatMultTransposeAdd(C, y0, xt, ytc));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatMultTransposeAdd", stage));
  PetscCall(Compare(t, what, ytr, ytp, ytc, exact));
  /* MatMatMult with a dense B of k columns */
  PetscCall(VecGetSize(x, &N));
  PetscCall(MatCreateDense(t->comm, PETSC_DECIDE, PETSC_DECIDE, N, t->k, NULL, &B));
  PetscCall(MatSetRandom(B, NULL));
  PetscCall(MatMatMult(R, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dr));
  PetscCall(MatMatMult(P, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dp));
  PetscCall(MatMatMult(C, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
  for (PetscInt j = 0; j < t->k; j++) {
    Vec cr, cp, cc;

    PetscCall(MatDenseGetColumnVecRead(Dr, j, &cr));
    PetscCall(MatDenseGetColumnVecRead(Dp, j, &cp));
    PetscCall(MatDenseGetColumnVecRead(Dc, j, &cc));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatMatMult column %" PetscInt_FMT, stage, j));
    PetscCall(Compare(t, what, cr, cp, cc, PETSC_FALSE)); /* the plain matrix takes SpMM kernels of their own order */
    PetscCall(MatDenseRestoreColumnVecRead(Dr, j, &cr));
    PetscCall(MatDenseRestoreColumnVecRead(Dp, j, &cp));
    PetscCall(MatDenseRestoreColumnVecRead(Dc, j, &cc));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Dr));
  PetscCall(MatDestroy(&Dp));
  PetscCall(MatDestroy(&Dc));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&yp));
  PetscCall(VecDestroy(&yc));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&ytr));
  PetscCall(VecDestroy(&ytp));
  PetscCall(VecDestroy(&ytc));
  PetscFunctionReturn(0);
}

/* the same change on the three matrices */
typedef PetscErrorCode (*Change)(Mat, Mat);

static PetscErrorCode ScaleShift(Mat A, Mat X)
{
  PetscFunctionBeginUser;
  (void)X;
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatShift(A, 0.25));
  PetscFunctionReturn(0);
}

static PetscErrorCode DiagonalSet(Mat A, Mat X)
{
  Vec d;

  PetscFunctionBeginUser;
  (void)X;
  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(VecSet(d, 0.375));
  PetscCall(MatDiagonalSet(A, d, INSERT_VALUES));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

static PetscErrorCode AXPY(Mat A, Mat X)
{
  PetscFunctionBeginUser;
  PetscCall(MatAXPY(A, 0.75, X, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetValues(Mat A, Mat X)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  (void)X;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i += 7) {
    PetscScalar v = -0.0625;

    PetscCall(MatSetValues(A, 1, &i, 1, &i, &v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  TestCtx         t;
  Mat             R, P, C, Rx, D;
  MatCIHybridInfo info;
  PetscInt        seed = 7;
  PetscMPIInt     size;
  const struct {
    const char *name;
    Change      change;
  } changes[] = {
    {"after MatScale and MatShift", ScaleShift},
    {"after MatDiagonalSet",        DiagonalSet},
    {"after MatAXPY",               AXPY       },
    {"after MatSetValues",          SetValues  },
  };

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  t.comm   = PETSC_COMM_WORLD;
  t.n      = 70000;
  t.pool   = 5000;
  t.k      = 3;
  t.checks = 0;
  t.worst  = 0;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &t.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pool", &t.pool, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &t.k, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCheck(t.n >= 8 && t.pool >= 64 && t.k >= 1, t.comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be >= 8, -pool >= 64, -k >= 1");

  PetscCall(CreateMatrix(&t, MATAIJ, PETSC_FALSE, (unsigned long)seed, &R));
  PetscCall(CreateMatrix(&t, MATCIHYBRID, PETSC_FALSE, (unsigned long)seed, &P));
  PetscCall(CreateMatrix(&t, MATCIHYBRID, PETSC_TRUE, (unsigned long)seed, &C));
  PetscCall(CompareProducts(&t, "assembled", R, P, C));
  PetscCall(GetInfo(C, &info));
  PetscCall(PetscPrintf(t.comm, "compressed (rank 0's diagonal block): %.2f bytes a nonzero, dictionary of %" PetscInt_FMT " values, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escaped columns, products on the %s\n", info.bytes_per_nonzero, info.dict_count, info.nnz_explicit, info.escapes, info.on_device ? "device" : "host"));
  /* on one rank, the default sizes reach every part of the layout */
  PetscCallMPI(MPI_Comm_size(t.comm, &size));
  if (size == 1 && t.n == 70000 && t.pool == 5000) PetscCheck(info.nnz_explicit > 0 && info.dict_count > 0 && info.escapes > 0, t.comm, PETSC_ERR_PLIB, "the matrix was meant to have explicit values, a dictionary and escaped columns: %" PetscInt64_FMT " explicit, %" PetscInt_FMT " in the dictionary, %" PetscInt64_FMT " escaped", info.nnz_explicit, info.dict_count, info.escapes);

  /* changes of the values: the compressed form is made again */
  PetscCall(CreateMatrix(&t, MATAIJ, PETSC_FALSE, (unsigned long)seed + 1, &Rx)); /* MatAXPY's X */
  for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
    PetscCall(changes[c].change(R, Rx));
    PetscCall(changes[c].change(P, Rx));
    PetscCall(changes[c].change(C, Rx));
    PetscCall(CompareProducts(&t, changes[c].name, R, P, C));
  }
  PetscCall(MatDestroy(&Rx));

  /* a duplicate keeps the setting; off and on again */
  PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &D));
  PetscCall(CompareProducts(&t, "MatDuplicate", R, P, D));
  PetscCall(MatDestroy(&D));
  PetscCall(MatCIHybridSetCompress(C, MAT_CIHYBRID_COMPRESS_NONE));
  PetscCall(GetInfo(C, &info));
  PetscCheck(!info.compressed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the compression was turned off but MatCIHybridGetInfo says compressed");
  PetscCall(MatCIHybridSetCompress(C, MAT_CIHYBRID_COMPRESS_FULL));
  PetscCall(CompareProducts(&t, "compressed again", R, P, C));

  PetscCall(PetscPrintf(t.comm, "test_cihybrid_compressed: all passed, %" PetscInt_FMT " results compared, largest relative difference with MATAIJ %.2e (tolerance 1e-13)\n", t.checks, (double)t.worst));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&C));
  PetscCall(PetscFinalize());
  return 0;
}
