static const char help[] = "Checks MATSEQAIJCIHYBRID / MATMPIAIJCIHYBRID against MATAIJ on the same matrices.\n\
Part 1: products (MatMult, MatMultAdd incl. y==z, MatMultTranspose, MatMultTransposeAdd incl. y==z)\n\
        on random matrices of every awkward shape, boundary and split.\n\
Part 2: the format follows every change of the AIJ master (lazy rebuild), MatDuplicate,\n\
        MatConvert, MatGetDiagonal, MatBindToCPU, MatView/MatLoad, MatCIHybridGetInfo.\n\
Options:\n\
  -seed <s>          seed of the random matrices (default 20180345)\n\
  -ncases <n>        random cases after the fixed sweep of shape x boundary x split (default 64)\n\
  -max_size <n>      largest random dimension (default 90)\n\
  -also_mpi <bool>   on one rank, run everything on MATMPIAIJCIHYBRID too (default true)\n\
  -binary_file <f>   temporary file of the MatView/MatLoad round trip\n\
  -vec_type <t>      type of the test vectors (default: what the cihybrid matrix asks for)\n\
  -verbose           one line per case\n\
The sweep sets -mat_cihybrid_boundary/-mat_cihybrid_split itself; other matrix options\n\
(-mat_gpumats_backend, ...) reach the cihybrid matrices through MatSetFromOptions.\n";

#include <petscmat.h>
#include <gpumats.h>
#include <gpumats_cihybrid_format.h> /* CIHybridChooseBoundary: the automatic BOUNDARY checked */
#include <stdio.h>
#include <string.h>

#include "testmat.h"

/* ------------------------------------------------------------------ */
/* building PETSc matrices from a GlobalCSR                            */
/* ------------------------------------------------------------------ */
typedef enum {
  SET_API_BEFORE_ASSEMBLY,
  SET_API_AFTER_ASSEMBLY,
  SET_OPTIONS_DB
} SetMode;
static const char *const SetModeNames[] = {"set before assembly", "set after assembly", "set through the options database"};

typedef struct {
  PetscInt         boundary; /* MAT_CIHYBRID_BOUNDARY_AUTO for auto */
  MatCIHybridSplit split;
  SetMode          mode;
} CIHSettings;

static const char *SplitName(MatCIHybridSplit s)
{
  return s == MAT_CIHYBRID_SPLIT_ENTRIES ? "entries" : "columns";
}

/* PETSc's default layout, computed here so the test knows which rows and columns each rank owns. */
static PetscErrorCode ApplySettings(Mat A, const CIHSettings *s)
{
  PetscFunctionBeginUser;
  PetscCall(MatCIHybridSetBoundary(A, s->boundary));
  PetscCall(MatCIHybridSetSplit(A, s->split));
  PetscFunctionReturn(0);
}

/* type: a cihybrid type (with settings s) or MATAIJ (s == NULL) */
static PetscErrorCode CreateMatrix(MPI_Comm comm, const GlobalCSR *csr, MatType type, const CIHSettings *s, Mat *A)
{
  PetscInt m, n, rstart, cstart;

  PetscFunctionBeginUser;
  PetscCall(DefaultLayout(comm, csr->M, &m, &rstart));
  PetscCall(DefaultLayout(comm, csr->N, &n, &cstart));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, csr->M, csr->N));
  PetscCall(MatSetType(*A, type));
  if (s) {
    if (s->mode == SET_OPTIONS_DB) {
      char value[64];

      if (s->boundary == MAT_CIHYBRID_BOUNDARY_AUTO) PetscCall(PetscSNPrintf(value, sizeof(value), "auto"));
      else PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, s->boundary));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_cihybrid_boundary", value));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_cihybrid_split", SplitName(s->split)));
      PetscCall(MatSetFromOptions(*A));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_cihybrid_boundary"));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_cihybrid_split"));
    } else {
      PetscCall(MatSetFromOptions(*A)); /* -mat_gpumats_backend and friends */
      if (s->mode == SET_API_BEFORE_ASSEMBLY) PetscCall(ApplySettings(*A, s));
    }
  }
  PetscCall(GlobalCSRAssemble(*A, csr));
  if (s && s->mode == SET_API_AFTER_ASSEMBLY) PetscCall(ApplySettings(*A, s));
  if (s) { /* the settings arrived, whichever way they were given */
    PetscInt         b;
    MatCIHybridSplit split;

    PetscCall(MatCIHybridGetBoundary(*A, &b));
    PetscCall(MatCIHybridGetSplit(*A, &split));
    PetscCheck(b == s->boundary, comm, PETSC_ERR_PLIB, "MatCIHybridGetBoundary() gives %" PetscInt_FMT " after the boundary was %s as %" PetscInt_FMT, b, SetModeNames[s->mode], s->boundary);
    PetscCheck(split == s->split, comm, PETSC_ERR_PLIB, "MatCIHybridGetSplit() gives %s after the split was %s as %s", SplitName(split), SetModeNames[s->mode], SplitName(s->split));
  }
  PetscFunctionReturn(0);
}

/* The products really run on the format: A (or both blocks of an MPI A) is a seqaijcihybrid
   whose four product operations are not MATSEQAIJ's. A test that compares with MATAIJ would
   otherwise pass for a type that forgot to install its kernels. */
static PetscErrorCode CheckFormatInUse(TestCtx *t, Mat A, const char *what)
{
  PetscBool   ismpi;
  Mat         blocks[2] = {A, NULL};
  MatOperation ops[4]   = {MATOP_MULT, MATOP_MULT_ADD, MATOP_MULT_TRANSPOSE, MATOP_MULT_TRANSPOSE_ADD};
  const char *names[4]  = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd"};
  const char *bnames[2] = {"diagonal block", "off-diagonal block"};
  PetscInt    b, k;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &blocks[0], &blocks[1], NULL));
  for (b = 0; b < 2; b++) {
    char msg[600];

    if (!blocks[b]) continue;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s%s%s", what, ismpi ? ", " : "", ismpi ? bnames[b] : ""));
    PetscCall(CheckTypeName(blocks[b], MATSEQAIJCIHYBRID, msg));
    for (k = 0; k < 4; k++) {
      void (*fc)(void) = NULL, (*fa)(void) = NULL;

      PetscCall(MatGetOperation(blocks[b], ops[k], &fc));
      PetscCall(MatGetOperation(t->plain, ops[k], &fa));
      PetscCheck(fc && fc != fa, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s is MATSEQAIJ's, not the cihybrid kernel's", msg, names[k]);
    }
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* part 1: the random sweep                                            */
/* ------------------------------------------------------------------ */
typedef enum {
  BND_0,
  BND_1,
  BND_31,
  BND_32,
  BND_33,
  BND_LONGEST,
  BND_BEYOND,
  BND_AUTO,
  BND_RANDOM,
  NBND
} BoundaryChoice;

static PetscErrorCode ChooseBoundary(PetscRandom r, BoundaryChoice c, MatCIHybridSplit split, const GlobalCSR *csr, PetscInt *b)
{
  /* entries split: the longest row; columns split: the number of columns */
  PetscInt longest = split == MAT_CIHYBRID_SPLIT_ENTRIES ? csr->maxlen : csr->N, extra;

  PetscFunctionBeginUser;
  switch (c) {
  case BND_0:
    *b = 0;
    break;
  case BND_1:
    *b = 1;
    break;
  case BND_31:
    *b = 31;
    break;
  case BND_32:
    *b = 32;
    break;
  case BND_33:
    *b = 33;
    break;
  case BND_LONGEST:
    *b = longest;
    break;
  case BND_BEYOND:
    PetscCall(RandInt(r, 1, 40, &extra));
    *b = longest + extra;
    break;
  case BND_AUTO:
    *b = MAT_CIHYBRID_BOUNDARY_AUTO;
    break;
  default:
    PetscCall(RandInt(r, 0, longest + 1, b));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCase(TestCtx *t, MatType type, PetscInt icase, Shape shape, BoundaryChoice bc, MatCIHybridSplit split, SetMode mode)
{
  GlobalCSR   csr = {0};
  CIHSettings s;
  Mat         Ac, Aa;
  char        desc[512];

  PetscFunctionBeginUser;
  PetscCall(GenerateShape(t->rnd, shape, t->maxsize, &csr));
  s.split = split;
  s.mode  = mode;
  PetscCall(ChooseBoundary(t->rnd, bc, split, &csr, &s.boundary));
  if (s.boundary == MAT_CIHYBRID_BOUNDARY_AUTO)
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "case %" PetscInt_FMT ": %s %" PetscInt_FMT " x %" PetscInt_FMT " '%s' (%" PetscInt_FMT " nonzeros, longest row %" PetscInt_FMT "), boundary auto, split %s, %s", icase, type, csr.M, csr.N, ShapeNames[shape], csr.nnz, csr.maxlen, SplitName(split), SetModeNames[mode]));
  else
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "case %" PetscInt_FMT ": %s %" PetscInt_FMT " x %" PetscInt_FMT " '%s' (%" PetscInt_FMT " nonzeros, longest row %" PetscInt_FMT "), boundary %" PetscInt_FMT ", split %s, %s", icase, type, csr.M, csr.N, ShapeNames[shape], csr.nnz, csr.maxlen, s.boundary, SplitName(split), SetModeNames[mode]));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "%s\n", desc));
  PetscCall(CreateMatrix(t->comm, &csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, &Aa));
  PetscCall(CheckProducts(t, Ac, Aa, desc));
  PetscCall(CheckFormatInUse(t, Ac, desc));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

static PetscErrorCode RandomSweep(TestCtx *t, MatType type, PetscInt nrandom, PetscInt *ncases)
{
  PetscInt icase = 0, shape, bc, split, i;

  PetscFunctionBeginUser;
  /* every shape with every boundary choice and both splits */
  for (shape = 0; shape < NSHAPES; shape++) {
    for (bc = 0; bc < NBND; bc++) {
      for (split = 0; split < 2; split++) {
        PetscCall(RunCase(t, type, icase, (Shape)shape, (BoundaryChoice)bc, (MatCIHybridSplit)split, (SetMode)(icase % 3)));
        icase++;
      }
    }
  }
  /* then random combinations */
  for (i = 0; i < nrandom; i++) {
    PetscInt sh, b, sp, mode;

    PetscCall(RandInt(t->rnd, 0, NSHAPES - 1, &sh));
    PetscCall(RandInt(t->rnd, 0, NBND - 1, &b));
    PetscCall(RandInt(t->rnd, 0, 1, &sp));
    PetscCall(RandInt(t->rnd, 0, 2, &mode));
    PetscCall(RunCase(t, type, icase, (Shape)sh, (BoundaryChoice)b, (MatCIHybridSplit)sp, (SetMode)mode));
    icase++;
  }
  *ncases = icase;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ */
/* part 2: the format follows the AIJ master                           */
/* ------------------------------------------------------------------ */
typedef enum {
  LAZY_SCALE,
  LAZY_SHIFT,
  LAZY_AXPY_SAME,
  LAZY_AXPY_SUBSET,
  LAZY_AXPY_DIFFERENT,
  LAZY_ZERO_ENTRIES,
  LAZY_SETVALUES_INSERT,
  LAZY_SETVALUES_ADD,
  LAZY_SETVALUES_NEW_DIAGBLOCK,
  LAZY_SETVALUES_NEW_OFFDIAGBLOCK,
  LAZY_COPY_SAME,
  LAZY_COPY_DIFFERENT,
  LAZY_DIAGONALSET_INSERT,
  LAZY_DIAGONALSET_ADD,
  LAZY_ZERO_ROWS,
  LAZY_ZERO_ROWS_NODIAG,
  LAZY_SEQAIJ_GETARRAY,
  NLAZY
} LazyOp;
static const char *const LazyOpNames[] = {"MatScale", "MatShift", "MatAXPY(SAME_NONZERO_PATTERN)", "MatAXPY(SUBSET_NONZERO_PATTERN)", "MatAXPY(DIFFERENT_NONZERO_PATTERN)", "MatZeroEntries", "MatSetValues(INSERT, existing entry)", "MatSetValues(ADD, existing entry)", "MatSetValues(new nonzero, diagonal block)", "MatSetValues(new nonzero, off-diagonal block)", "MatCopy(SAME_NONZERO_PATTERN)", "MatCopy(DIFFERENT_NONZERO_PATTERN)", "MatDiagonalSet(INSERT_VALUES)", "MatDiagonalSet(ADD_VALUES)", "MatZeroRows(rows with a diagonal entry)", "MatZeroRows(rows missing their diagonal entry)", "MatSeqAIJGetArray (write)"};

/* A position (i, j) to set from rank 0: an existing entry (want_new false) or one
   not in the pattern, in the diagonal block of the owner of row i or outside it. */
static PetscErrorCode FindPosition(TestCtx *t, const GlobalCSR *csr, PetscBool want_new, PetscBool offdiag_block, PetscInt *gi, PetscInt *gj, PetscBool *found)
{
  PetscInt     i, j, nrows_rank, cols_rank, p, rowstart = 0, colstart = 0;
  PetscMPIInt  owner;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  /* the last row: owned by the last rank, so rank 0 sets it off-process when size > 1 */
  for (i = csr->M - 1; i >= 0 && !*found; i--) {
    /* owner of row i and its column range, from PETSc's default layout */
    rowstart = 0;
    colstart = 0;
    for (owner = 0; owner < t->size; owner++) {
      nrows_rank = csr->M / t->size + ((csr->M % t->size) > owner);
      cols_rank  = csr->N / t->size + ((csr->N % t->size) > owner);
      if (i < rowstart + nrows_rank) break;
      rowstart += nrows_rank;
      colstart += cols_rank;
    }
    for (p = 0; p < csr->N && !*found; p++) {
      PetscBool has, in_diag;

      j       = (p + 5 * i) % csr->N; /* spread the choice over the columns */
      in_diag = (PetscBool)(j >= colstart && j < colstart + cols_rank);
      if (in_diag == offdiag_block) continue;
      PetscCall(GlobalCSRHasEntry(csr, i, j, &has));
      if (has == !want_new) {
        *gi    = i;
        *gj    = j;
        *found = PETSC_TRUE;
      }
    }
  }
  PetscFunctionReturn(0);
}

/* Apply op to A (of type 'type'; X matrices are created with the same type). */
static PetscErrorCode ApplyLazyOp(TestCtx *t, LazyOp op, Mat A, MatType type, const GlobalCSR *csr, const GlobalCSR *same, const GlobalCSR *subset, const GlobalCSR *other, Vec D, PetscBool *applied)
{
  Mat       X;
  PetscInt  i, j;
  PetscBool found;

  PetscFunctionBeginUser;
  *applied = PETSC_TRUE;
  switch (op) {
  case LAZY_SCALE:
    PetscCall(MatScale(A, -2.5));
    break;
  case LAZY_SHIFT:
    PetscCall(MatShift(A, 3.25));
    break;
  case LAZY_AXPY_SAME:
  case LAZY_AXPY_SUBSET:
  case LAZY_AXPY_DIFFERENT:
    PetscCall(CreateMatrix(t->comm, op == LAZY_AXPY_SAME ? same : op == LAZY_AXPY_SUBSET ? subset : other, type, NULL, &X));
    PetscCall(MatAXPY(A, 0.75, X, op == LAZY_AXPY_SAME ? SAME_NONZERO_PATTERN : op == LAZY_AXPY_SUBSET ? SUBSET_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&X));
    break;
  case LAZY_ZERO_ENTRIES:
    PetscCall(MatZeroEntries(A));
    break;
  case LAZY_SETVALUES_INSERT:
  case LAZY_SETVALUES_ADD:
  case LAZY_SETVALUES_NEW_DIAGBLOCK:
  case LAZY_SETVALUES_NEW_OFFDIAGBLOCK: {
    PetscBool   want_new = (PetscBool)(op == LAZY_SETVALUES_NEW_DIAGBLOCK || op == LAZY_SETVALUES_NEW_OFFDIAGBLOCK);
    PetscScalar v        = 7.125;

    PetscCall(FindPosition(t, csr, want_new, (PetscBool)(op == LAZY_SETVALUES_NEW_OFFDIAGBLOCK), &i, &j, &found));
    if (!found && !want_new) PetscCall(FindPosition(t, csr, want_new, PETSC_TRUE, &i, &j, &found));
    if (!found) {
      *applied = PETSC_FALSE; /* e.g. no off-diagonal block on one rank */
      break;
    }
    if (!t->rank) PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, op == LAZY_SETVALUES_ADD ? ADD_VALUES : INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  } break;
  case LAZY_COPY_SAME:
  case LAZY_COPY_DIFFERENT:
    PetscCall(CreateMatrix(t->comm, op == LAZY_COPY_SAME ? same : other, type, NULL, &X));
    PetscCall(MatCopy(X, A, op == LAZY_COPY_SAME ? SAME_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&X));
    break;
  case LAZY_DIAGONALSET_INSERT:
    PetscCall(MatDiagonalSet(A, D, INSERT_VALUES));
    break;
  case LAZY_DIAGONALSET_ADD:
    PetscCall(MatDiagonalSet(A, D, ADD_VALUES));
    break;
  case LAZY_ZERO_ROWS:
  case LAZY_ZERO_ROWS_NODIAG: {
    /* LAZY_ZERO_ROWS: rows whose diagonal entry exists (values change only).
       LAZY_ZERO_ROWS_NODIAG: rows without a diagonal entry: MatZeroRows rewrites their first
       entry into the diagonal (the structure changes). Rows that are empty in the diagonal
       block are avoided: there PETSc (3.18 to 3.22) inserts the diagonal with MatSetValues,
       reallocates, and then writes the next zeroed row into the freed array (valgrind; a
       crash with 3.22 on a 6 x 6 MATSEQAIJ). */
    PetscInt  rows[3], nrows = 0, rstart, rend, len;
    PetscBool has, ismpi;
    Mat       Ad = A;

    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
    if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    for (i = rstart; i < rend && nrows < 3; i++) {
      PetscCall(GlobalCSRHasEntry(csr, i, i, &has));
      PetscCall(MatGetRow(Ad, i - rstart, &len, NULL, NULL));
      PetscCall(MatRestoreRow(Ad, i - rstart, NULL, NULL, NULL));
      if (op == LAZY_ZERO_ROWS ? has : !has && len > 0) rows[nrows++] = i;
    }
    PetscCall(MatZeroRows(A, nrows, rows, 2.0, NULL, NULL));
  } break;
  case LAZY_SEQAIJ_GETARRAY: {
    PetscScalar *a;
    PetscInt     nz;
    MatInfo      info;

    if (t->size > 1 || csr->nnz == 0) {
      *applied = PETSC_FALSE;
      break;
    }
    {
      PetscBool ismpi;
      Mat       S = A;

      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
      if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &S, NULL, NULL));
      PetscCall(MatGetInfo(S, MAT_LOCAL, &info));
      nz = (PetscInt)info.nz_used;
      PetscCall(MatSeqAIJGetArray(S, &a));
      for (i = 0; i < nz; i += 3) a[i] = 3.0 * a[i] + 1.0;
      PetscCall(MatSeqAIJRestoreArray(S, &a));
    }
  } break;
  default:
    SETERRQ(t->comm, PETSC_ERR_PLIB, "unknown lazy op");
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LazyRebuildChecks(TestCtx *t, MatType type, const char *expected_type, PetscInt *nops)
{
  GlobalCSR   csr = {0}, same = {0}, subset = {0}, other = {0};
  CIHSettings configs[] = {
    {3,                          MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY},
    {12,                         MAT_CIHYBRID_SPLIT_COLUMNS, SET_API_AFTER_ASSEMBLY },
    {MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_ENTRIES, SET_OPTIONS_DB         },
  };
  PetscInt c, op;

  PetscFunctionBeginUser;
  *nops = 0;
  PetscCall(GenerateSquare(t->rnd, 47, 40, &csr));
  PetscCall(GlobalCSRSamePattern(t->rnd, &csr, 1.0, &same));
  PetscCall(GlobalCSRSamePattern(t->rnd, &csr, 0.6, &subset));
  PetscCall(GenerateSquare(t->rnd, 47, 40, &other));
  for (c = 0; c < (PetscInt)(sizeof(configs) / sizeof(configs[0])); c++) {
    for (op = 0; op < NLAZY; op++) {
      Mat       Ac, Aa;
      Vec       D;
      PetscBool applied_c, applied_a;
      char      desc[512];

      PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s 47 x 47, boundary %" PetscInt_FMT " (-1: auto), split %s", type, configs[c].boundary, SplitName(configs[c].split)));
      if (t->verbose) PetscCall(PetscPrintf(t->comm, "lazy rebuild: %s, %s\n", desc, LazyOpNames[op]));
      PetscCall(CreateMatrix(t->comm, &csr, type, &configs[c], &Ac));
      PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, &Aa));
      /* ops that add the diagonal or new entries may allocate */
      PetscCall(MatSetOption(Ac, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(CreateTestVecs(Aa, NULL, &D));
      PetscCall(VecSetRandom(D, t->vrnd));
      {
        char before[600];

        PetscCall(PetscSNPrintf(before, sizeof(before), "%s, before %s", desc, LazyOpNames[op]));
        PetscCall(CheckProducts(t, Ac, Aa, before)); /* the format is built now */
      }
      PetscCall(ApplyLazyOp(t, (LazyOp)op, Ac, type, &csr, &same, &subset, &other, D, &applied_c));
      PetscCall(ApplyLazyOp(t, (LazyOp)op, Aa, MATAIJ, &csr, &same, &subset, &other, D, &applied_a));
      PetscCheck(applied_c == applied_a, t->comm, PETSC_ERR_PLIB, "test: op applied to one matrix only");
      if (applied_c) {
        char after[600];

        PetscCall(PetscSNPrintf(after, sizeof(after), "%s, after %s", desc, LazyOpNames[op]));
        PetscCall(CheckTypeName(Ac, expected_type, after));
        PetscCall(CheckProducts(t, Ac, Aa, after));
        PetscCall(CheckFormatInUse(t, Ac, after)); /* an MPI disassembly makes a new off-diagonal block */
        /* and once more after a second change of the same kind: values refresh on a built format */
        PetscCall(MatScale(Ac, 0.5));
        PetscCall(MatScale(Aa, 0.5));
        PetscCall(PetscSNPrintf(after, sizeof(after), "%s, after %s and MatScale", desc, LazyOpNames[op]));
        PetscCall(CheckProducts(t, Ac, Aa, after));
        (*nops)++;
      }
      PetscCall(VecDestroy(&D));
      PetscCall(MatDestroy(&Ac));
      PetscCall(MatDestroy(&Aa));
    }
  }
  PetscCall(GlobalCSRDestroy(&csr));
  PetscCall(GlobalCSRDestroy(&same));
  PetscCall(GlobalCSRDestroy(&subset));
  PetscCall(GlobalCSRDestroy(&other));
  PetscFunctionReturn(0);
}

/* MatDuplicate keeps the type and the settings, and the copy is independent of the original. */
static PetscErrorCode DuplicateChecks(TestCtx *t, MatType type, const char *expected_type, const GlobalCSR *csr)
{
  CIHSettings      s = {5, MAT_CIHYBRID_SPLIT_COLUMNS, SET_API_BEFORE_ASSEMBLY};
  Mat              Ac, Aa, B, Bz, Aaz;
  PetscInt         b;
  MatCIHybridSplit split;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(t->comm, csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, csr, MATAIJ, NULL, &Aa));
  PetscCall(CheckProducts(t, Ac, Aa, "original, before MatDuplicate"));

  PetscCall(MatDuplicate(Ac, MAT_COPY_VALUES, &B));
  PetscCall(CheckTypeName(B, expected_type, "MatDuplicate(MAT_COPY_VALUES)"));
  PetscCall(CheckFormatInUse(t, B, "MatDuplicate(MAT_COPY_VALUES)"));
  PetscCall(MatCIHybridGetBoundary(B, &b));
  PetscCall(MatCIHybridGetSplit(B, &split));
  PetscCheck(b == s.boundary && split == s.split, t->comm, PETSC_ERR_PLIB, "MatDuplicate: the copy has boundary %" PetscInt_FMT " split %s, the original boundary %" PetscInt_FMT " split %s", b, SplitName(split), s.boundary, SplitName(s.split));
  /* change and destroy the original: the copy must not share its format */
  PetscCall(MatScale(Ac, 4.0));
  PetscCall(CheckProducts(t, B, Aa, "MatDuplicate(MAT_COPY_VALUES) copy, after MatScale of the original"));
  PetscCall(MatDestroy(&Ac));
  PetscCall(CheckProducts(t, B, Aa, "MatDuplicate(MAT_COPY_VALUES) copy, after MatDestroy of the original"));

  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &Bz));
  PetscCall(MatDuplicate(Aa, MAT_DO_NOT_COPY_VALUES, &Aaz));
  PetscCall(CheckTypeName(Bz, expected_type, "MatDuplicate(MAT_DO_NOT_COPY_VALUES)"));
  PetscCall(CheckProducts(t, Bz, Aaz, "MatDuplicate(MAT_DO_NOT_COPY_VALUES)"));
  PetscCall(MatCopy(B, Bz, SAME_NONZERO_PATTERN));
  PetscCall(CheckProducts(t, Bz, Aa, "MatDuplicate(MAT_DO_NOT_COPY_VALUES), then MatCopy of the values"));

  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Bz));
  PetscCall(MatDestroy(&Aaz));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

/* On one rank, a MATMPIAIJCIHYBRID may legitimately convert to seqaij or mpiaij, and
   MatConvert(.., "cihybrid") resolves the root name to seqaijcihybrid or keeps mpiaijcihybrid;
   on more ranks only the MPI types are right. */
static PetscErrorCode ConvertChecks(TestCtx *t, MatType type, const char *expected_type, const GlobalCSR *csr)
{
  CIHSettings s = {2, MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY};
  Mat         Ac, Aa, B;
  const char *aij_types[2], *cih_types[2], *from_aij; /* from_aij: what MATAIJ on this comm converts to */
  MatType     targets[2];
  PetscInt    k;

  PetscFunctionBeginUser;
  if (t->size > 1) {
    aij_types[0] = aij_types[1] = MATMPIAIJ;
    cih_types[0] = cih_types[1] = MATMPIAIJCIHYBRID;
    from_aij                    = MATMPIAIJCIHYBRID;
  } else {
    aij_types[0] = MATSEQAIJ;
    aij_types[1] = !strcmp(expected_type, MATMPIAIJCIHYBRID) ? MATMPIAIJ : MATSEQAIJ;
    cih_types[0] = MATSEQAIJCIHYBRID;
    cih_types[1] = expected_type;
    from_aij     = MATSEQAIJCIHYBRID;
  }
  targets[0] = MATCIHYBRID; /* the root name */
  targets[1] = from_aij;    /* the full name */
  PetscCall(CreateMatrix(t->comm, csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, csr, MATAIJ, NULL, &Aa));
  PetscCall(CheckProducts(t, Ac, Aa, "before MatConvert"));

  /* cihybrid -> aij */
  PetscCall(MatConvert(Ac, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckTypeOneOf(B, aij_types[0], aij_types[1], "MatConvert(cihybrid -> aij, MAT_INITIAL_MATRIX)"));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> aij, MAT_INITIAL_MATRIX)"));
  PetscCall(CheckProducts(t, Ac, Aa, "the source of MatConvert(cihybrid -> aij, MAT_INITIAL_MATRIX)"));
  PetscCall(MatScale(B, 2.0));
  PetscCall(MatScale(Aa, 2.0));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> aij, MAT_INITIAL_MATRIX), then MatScale"));
  PetscCall(MatScale(Aa, 0.5));
  PetscCall(MatDestroy(&B));

  PetscCall(MatDuplicate(Ac, MAT_COPY_VALUES, &B));
  PetscCall(MatConvert(B, MATAIJ, MAT_INPLACE_MATRIX, &B));
  PetscCall(CheckTypeOneOf(B, aij_types[0], aij_types[1], "MatConvert(cihybrid -> aij, MAT_INPLACE_MATRIX)"));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> aij, MAT_INPLACE_MATRIX)"));
  if (csr->M == csr->N) {
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* the diagonal may be missing */
    PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatShift(B, 1.0));
    PetscCall(MatShift(Aa, 1.0));
    PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> aij, MAT_INPLACE_MATRIX), then MatShift"));
    PetscCall(MatShift(Aa, -1.0));
  } else { /* PETSc 3.22.5's MatShift crashes on a wide MPIAIJ whose diagonal must go to the off-diagonal block */
    PetscCall(MatScale(B, 3.0));
    PetscCall(MatScale(Aa, 3.0));
    PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> aij, MAT_INPLACE_MATRIX), then MatScale"));
    PetscCall(MatScale(Aa, 1.0 / 3.0));
  }
  PetscCall(MatDestroy(&B));

  /* aij -> cihybrid, through the root name and the full name */
  for (k = 0; k < 2; k++) {
    char what[256];

    PetscCall(PetscSNPrintf(what, sizeof(what), "MatConvert(aij -> %s, MAT_INITIAL_MATRIX)", targets[k]));
    PetscCall(MatConvert(Aa, targets[k], MAT_INITIAL_MATRIX, &B));
    PetscCall(CheckTypeName(B, from_aij, what));
    PetscCall(CheckProducts(t, B, Aa, what));
    PetscCall(CheckFormatInUse(t, B, what));
    PetscCall(MatDestroy(&B));

    PetscCall(PetscSNPrintf(what, sizeof(what), "MatConvert(aij -> %s, MAT_INPLACE_MATRIX)", targets[k]));
    PetscCall(MatDuplicate(Aa, MAT_COPY_VALUES, &B));
    PetscCall(MatConvert(B, targets[k], MAT_INPLACE_MATRIX, &B));
    PetscCall(CheckTypeName(B, from_aij, what));
    PetscCall(CheckProducts(t, B, Aa, what));
    PetscCall(CheckFormatInUse(t, B, what));
    /* the converted matrix follows later changes like one created as cihybrid */
    PetscCall(MatScale(B, -3.0));
    PetscCall(MatScale(Aa, -3.0));
    PetscCall(PetscStrlcat(what, ", then MatScale", sizeof(what)));
    PetscCall(CheckProducts(t, B, Aa, what));
    PetscCall(MatScale(Aa, -1.0 / 3.0));
    PetscCall(MatDestroy(&B));
  }

  /* cihybrid -> cihybrid is a copy */
  PetscCall(MatConvert(Ac, MATCIHYBRID, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckTypeOneOf(B, cih_types[0], cih_types[1], "MatConvert(cihybrid -> cihybrid, MAT_INITIAL_MATRIX)"));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(cihybrid -> cihybrid, MAT_INITIAL_MATRIX)"));
  PetscCall(MatDestroy(&B));

  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode DiagonalChecks(TestCtx *t, MatType type, const GlobalCSR *csr, const char *what)
{
  CIHSettings s = {MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY};
  Mat         Ac, Aa;
  Vec         dc, da;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(t->comm, csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, csr, MATAIJ, NULL, &Aa));
  PetscCall(CheckProducts(t, Ac, Aa, what));
  PetscCall(CreateTestVecs(Ac, NULL, &dc));
  PetscCall(VecDuplicate(dc, &da));
  PetscCall(VecSetRandom(dc, t->vrnd));
  PetscCall(MatGetDiagonal(Ac, dc));
  PetscCall(MatGetDiagonal(Aa, da));
  PetscCall(CompareVecs(t, dc, da, what, "MatGetDiagonal"));
  PetscCall(VecDestroy(&dc));
  PetscCall(VecDestroy(&da));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode BindChecks(TestCtx *t, MatType type, const GlobalCSR *csr)
{
  CIHSettings s = {4, MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY};
  Mat         Ac, Aa;
  PetscBool   uses_before, uses;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(t->comm, csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, csr, MATAIJ, NULL, &Aa));
#if defined(PETSC_HAVE_DEVICE)
  { /* like PETSc's GPU types, a new matrix is not bound: else nothing would ever run on the device */
    PetscBool bound;

    PetscCall(MatBoundToCPU(Ac, &bound));
    PetscCheck(!bound, t->comm, PETSC_ERR_PLIB, "a new %s matrix is bound to the CPU (MatBoundToCPU() gives true before any MatBindToCPU()): its products never use the device unless the user unbinds it", type);
  }
#endif
  PetscCall(MatGpuMatsUsesDevice(Ac, &uses_before));
  { /* the same answer by name: programs that load the library with -dll_append (ci_eigen, the FCI
       builders) cannot call MatGpuMatsUsesDevice() */
    PetscErrorCode (*by_name)(Mat, PetscBool *) = NULL;
    PetscBool uses_by_name = (PetscBool)!uses_before;

    PetscCall(PetscObjectQueryFunction((PetscObject)Ac, "MatGpuMatsUsesDevice_C", &by_name));
    PetscCheck(by_name, t->comm, PETSC_ERR_PLIB, "a %s matrix composes no MatGpuMatsUsesDevice_C", type);
    PetscCall((*by_name)(Ac, &uses_by_name));
    PetscCheck(uses_by_name == uses_before, t->comm, PETSC_ERR_PLIB, "%s: MatGpuMatsUsesDevice_C gives %d, MatGpuMatsUsesDevice() %d", type, (int)uses_by_name, (int)uses_before);
  }
  PetscCall(CheckMemType(Ac, "before MatBindToCPU"));
  PetscCall(CheckProducts(t, Ac, Aa, "before MatBindToCPU"));
  PetscCall(MatBindToCPU(Ac, PETSC_TRUE));
  PetscCall(CheckMemType(Ac, "bound to the CPU"));
  PetscCall(MatGpuMatsUsesDevice(Ac, &uses));
  PetscCheck(!uses, t->comm, PETSC_ERR_PLIB, "MatGpuMatsUsesDevice() says the device is used after MatBindToCPU(A, PETSC_TRUE)");
  PetscCall(CheckProducts(t, Ac, Aa, "bound to the CPU"));
  PetscCall(MatScale(Ac, 1.5));
  PetscCall(MatScale(Aa, 1.5));
  PetscCall(CheckProducts(t, Ac, Aa, "bound to the CPU, after MatScale"));
  PetscCall(MatBindToCPU(Ac, PETSC_FALSE));
  PetscCall(MatGpuMatsUsesDevice(Ac, &uses));
  PetscCheck(uses == uses_before, t->comm, PETSC_ERR_PLIB, "MatGpuMatsUsesDevice() gives %d after MatBindToCPU(A, PETSC_FALSE), %d before binding", (int)uses, (int)uses_before);
  PetscCall(CheckMemType(Ac, "unbound again"));
  PetscCall(CheckProducts(t, Ac, Aa, "unbound again (values changed while bound)"));
  PetscCall(CheckFormatInUse(t, Ac, "unbound again"));
  PetscCall(MatScale(Ac, 2.0));
  PetscCall(MatScale(Aa, 2.0));
  PetscCall(CheckProducts(t, Ac, Aa, "unbound again, after MatScale"));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode OpenBinary(MPI_Comm comm, const char *file, PetscFileMode mode, PetscViewer *v)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerCreate(comm, v));
  PetscCall(PetscViewerSetType(*v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(*v, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(*v, mode));
  PetscCall(PetscViewerFileSetName(*v, file));
  PetscFunctionReturn(0);
}

static PetscErrorCode ViewLoadChecks(TestCtx *t, MatType type, const char *expected_type, const GlobalCSR *csr)
{
  CIHSettings s = {7, MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY};
  Mat         Ac, Aa, B;
  PetscViewer v;
  PetscBool   equal;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(t->comm, csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, csr, MATAIJ, NULL, &Aa));
  PetscCall(CheckProducts(t, Ac, Aa, "before MatView(binary)")); /* a built format must not change what is written */

  PetscCall(OpenBinary(t->comm, t->binfile, FILE_MODE_WRITE, &v));
  PetscCall(MatView(Ac, v));
  PetscCall(PetscViewerDestroy(&v));

  PetscCall(OpenBinary(t->comm, t->binfile, FILE_MODE_READ, &v));
  PetscCall(MatCreate(t->comm, &B));
  PetscCall(MatSetType(B, type));
  PetscCall(MatLoad(B, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCallMPI(MPI_Barrier(t->comm));
  if (!t->rank) PetscCheck(remove(t->binfile) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "cannot remove the temporary file %s", t->binfile);

  PetscCall(CheckTypeName(B, expected_type, "MatLoad into a cihybrid matrix"));
  PetscCall(CheckFormatInUse(t, B, "MatLoad into a cihybrid matrix"));
  PetscCall(MatEqual(B, Ac, &equal));
  PetscCheck(equal, t->comm, PETSC_ERR_PLIB, "MatView/MatLoad binary round trip of a %s matrix changed its entries (MatEqual false)", type);
  PetscCall(CheckProducts(t, B, Aa, "loaded with MatLoad from the binary file"));

  /* ASCII info: the format statistics must print (a built and a fresh matrix) */
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_(t->comm), PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(Ac, PETSC_VIEWER_STDOUT_(t->comm)));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_(t->comm)));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDuplicate(Ac, MAT_COPY_VALUES, &B));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_(t->comm), PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(B, PETSC_VIEWER_STDOUT_(t->comm)));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_(t->comm)));

  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

/* The sequential matrix whose format MatCIHybridGetInfo describes: A or its diagonal block. */
static PetscErrorCode InfoBlock(Mat A, const char *seq_type, Mat *S)
{
  PetscBool ismpi;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  *S = A;
  if (ismpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, S, NULL, NULL));
    PetscCall(CheckTypeName(*S, seq_type, "the diagonal block of an MPI cihybrid matrix"));
  }
  PetscFunctionReturn(0);
}

/* width and ELL nonzeros of S for a boundary, counted from the AIJ rows */
static PetscErrorCode ExpectedSplit(Mat S, MatCIHybridSplit split, PetscInt boundary, PetscInt *width, PetscInt64 *nnz_ell, PetscInt64 *nnz)
{
  PetscInt i, m, len, k, s;
  const PetscInt *cols;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(S, &m, NULL));
  *width   = 0;
  *nnz_ell = 0;
  *nnz     = 0;
  for (i = 0; i < m; i++) {
    PetscCall(MatGetRow(S, i, &len, &cols, NULL));
    if (split == MAT_CIHYBRID_SPLIT_ENTRIES) s = PetscMin(len, boundary);
    else
      for (s = 0, k = 0; k < len; k++) s += cols[k] < boundary;
    *width = PetscMax(*width, s);
    *nnz_ell += s;
    *nnz += len;
    PetscCall(MatRestoreRow(S, i, &len, &cols, NULL)); /* zeroes len */
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckInfo(TestCtx *t, Mat Ac, const char *seq_type, PetscInt boundary, MatCIHybridSplit split, const char *what)
{
  MatCIHybridInfo info;
  Mat             S;
  PetscInt        width = 0, b;
  PetscInt64      nnz_ell = 0, nnz = 0;
  PetscBool       uses, ok, exact;
  MatCIHybridSplit sp;
  char            msg[1024];

  PetscFunctionBeginUser;
  PetscCall(MatCIHybridGetBoundary(Ac, &b));
  PetscCall(MatCIHybridGetSplit(Ac, &sp));
  PetscCheck(b == boundary && sp == split, t->comm, PETSC_ERR_PLIB, "%s: MatCIHybridGetBoundary/GetSplit give %" PetscInt_FMT "/%s, set %" PetscInt_FMT "/%s", what, b, SplitName(sp), boundary, SplitName(split));
  { /* the kernel round trip (seq and MPI); the products do not depend on it on the host */
    MatCIHybridKernel k, k0;

    PetscCall(MatCIHybridGetKernel(Ac, &k0));
    PetscCall(MatCIHybridSetKernel(Ac, MAT_CIHYBRID_KERNEL_PAPER));
    PetscCall(MatCIHybridGetKernel(Ac, &k));
    PetscCheck(k == MAT_CIHYBRID_KERNEL_PAPER, t->comm, PETSC_ERR_PLIB, "%s: MatCIHybridGetKernel gives %d after MatCIHybridSetKernel(paper)", what, (int)k);
    PetscCall(MatCIHybridSetKernel(Ac, k0));
  }
  PetscCall(MatCIHybridGetInfo(Ac, &info));
  PetscCall(MatGpuMatsUsesDevice(Ac, &uses));
  PetscCall(InfoBlock(Ac, seq_type, &S));
  /* With an explicit boundary the split is known in advance; with auto it follows info.boundary.
     The column boundary of the diagonal block of an MPI matrix may be global or local: there only
     the sums are checked. */
  exact = (PetscBool)(S == Ac || split == MAT_CIHYBRID_SPLIT_ENTRIES);
  PetscCall(ExpectedSplit(S, split, boundary == MAT_CIHYBRID_BOUNDARY_AUTO ? info.boundary : boundary, &width, &nnz_ell, &nnz));
  ok = PETSC_TRUE;
  msg[0] = 0;
  if (info.nnz != nnz || info.nnz_ell + info.nnz_csr != nnz) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "nnz %" PetscInt64_FMT " = nnz_ell %" PetscInt64_FMT " + nnz_csr %" PetscInt64_FMT " but the AIJ has %" PetscInt64_FMT, info.nnz, info.nnz_ell, info.nnz_csr, nnz));
  } else if (exact && (info.nnz_ell != nnz_ell || info.width != width)) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "nnz_ell %" PetscInt64_FMT " width %" PetscInt_FMT ", counted from the AIJ rows: nnz_ell %" PetscInt64_FMT " width %" PetscInt_FMT, info.nnz_ell, info.width, nnz_ell, width));
  } else if (split == MAT_CIHYBRID_SPLIT_ENTRIES && info.width > info.boundary) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "width %" PetscInt_FMT " > boundary %" PetscInt_FMT " in entries mode", info.width, info.boundary));
  } else if (info.pitch < info.width || info.padding < 0 || info.boundary < 0) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "pitch %" PetscInt_FMT " < width %" PetscInt_FMT ", or negative padding %" PetscInt64_FMT " or boundary %" PetscInt_FMT, info.pitch, info.width, info.padding, info.boundary));
  } else if (S == Ac && boundary != MAT_CIHYBRID_BOUNDARY_AUTO && split == MAT_CIHYBRID_SPLIT_COLUMNS && info.boundary != boundary) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "boundary %" PetscInt_FMT " was set in columns mode, info says %" PetscInt_FMT, boundary, info.boundary));
  } else if (S == Ac && boundary == MAT_CIHYBRID_BOUNDARY_AUTO && split == MAT_CIHYBRID_SPLIT_ENTRIES) { /* the layout made on the device or the host chooses as the builder does */
    const PetscInt *ia, *ja;
    PetscInt        n, expected = -1;
    PetscBool       done;

    PetscCall(MatGetRowIJ(S, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    if (done) expected = CIHybridChooseBoundary(n, ia, NULL);
    PetscCall(MatRestoreRowIJ(S, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    if (expected >= 0 && info.boundary != expected) {
      ok = PETSC_FALSE;
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "automatic boundary %" PetscInt_FMT ", CIHybridChooseBoundary on the AIJ rows gives %" PetscInt_FMT, info.boundary, expected));
    }
  }
  if (ok && info.on_device != uses) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "on_device %d after a multiply but MatGpuMatsUsesDevice() says %d", (int)info.on_device, (int)uses));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, GPUMATS_MPI_BOOL, MPI_LAND, t->comm));
  if (!ok) {
    PetscCall(PetscSynchronizedPrintf(t->comm, "[%d] %s: MatCIHybridGetInfo: %s\n", t->rank, what, msg[0] ? msg : "fine on this rank"));
    PetscCall(PetscSynchronizedFlush(t->comm, PETSC_STDOUT));
  }
  PetscCheck(ok, t->comm, PETSC_ERR_PLIB, "%s: MatCIHybridGetInfo is inconsistent with the AIJ matrix (see above)", what);
  PetscFunctionReturn(0);
}

static PetscErrorCode InfoChecks(TestCtx *t, MatType type, const char *seq_type)
{
  GlobalCSR   csr = {0};
  CIHSettings s   = {0, MAT_CIHYBRID_SPLIT_ENTRIES, SET_API_BEFORE_ASSEMBLY};
  Mat         Ac, Aa;
  PetscInt    entries_b[] = {0, 1, 7, 31, 32, 33, 200, MAT_CIHYBRID_BOUNDARY_AUTO};
  PetscInt    columns_b[] = {0, 1, 20, 64, 500, MAT_CIHYBRID_BOUNDARY_AUTO};
  PetscInt    k;
  char        what[256];

  PetscFunctionBeginUser;
  PetscCall(GenerateShape(t->rnd, SHAPE_LONG_ROWS, t->maxsize, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, type, &s, &Ac));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, NULL, &Aa));
  /* change the boundary and the split of a built matrix: the format must follow */
  for (k = 0; k < (PetscInt)(sizeof(entries_b) / sizeof(entries_b[0])); k++) {
    PetscCall(MatCIHybridSetSplit(Ac, MAT_CIHYBRID_SPLIT_ENTRIES));
    PetscCall(MatCIHybridSetBoundary(Ac, entries_b[k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "info: %s, boundary %" PetscInt_FMT " (-1: auto) entries, set on a built matrix", type, entries_b[k]));
    PetscCall(CheckProducts(t, Ac, Aa, what));
    PetscCall(CheckInfo(t, Ac, seq_type, entries_b[k], MAT_CIHYBRID_SPLIT_ENTRIES, what));
  }
  for (k = 0; k < (PetscInt)(sizeof(columns_b) / sizeof(columns_b[0])); k++) {
    PetscCall(MatCIHybridSetSplit(Ac, MAT_CIHYBRID_SPLIT_COLUMNS));
    PetscCall(MatCIHybridSetBoundary(Ac, columns_b[k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "info: %s, boundary %" PetscInt_FMT " (-1: auto) columns, set on a built matrix", type, columns_b[k]));
    PetscCall(CheckProducts(t, Ac, Aa, what));
    PetscCall(CheckInfo(t, Ac, seq_type, columns_b[k], MAT_CIHYBRID_SPLIT_COLUMNS, what));
  }
  /* a structural change of a built matrix shows in the statistics */
  PetscCall(MatSetOption(Ac, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  {
    PetscInt    rstart, rend, i, j, N;
    PetscScalar v = 1.0;

    PetscCall(MatGetOwnershipRange(Ac, &rstart, &rend));
    PetscCall(MatGetSize(Ac, NULL, &N));
    for (i = rstart; i < rend; i++) {
      for (j = 0; j < N; j += 3) {
        PetscCall(MatSetValues(Ac, 1, &i, 1, &j, &v, ADD_VALUES));
        PetscCall(MatSetValues(Aa, 1, &i, 1, &j, &v, ADD_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(Ac, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Ac, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Aa, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Aa, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "info: %s, columns split, after new nonzeros", type));
  PetscCall(CheckProducts(t, Ac, Aa, what));
  PetscCall(CheckInfo(t, Ac, seq_type, MAT_CIHYBRID_BOUNDARY_AUTO, MAT_CIHYBRID_SPLIT_COLUMNS, what));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

static PetscErrorCode PropertyChecks(TestCtx *t, MatType type, PetscInt *nchecks)
{
  const char *expected_type, *seq_type = MATSEQAIJCIHYBRID;
  PetscBool   ismpi;
  GlobalCSR   square = {0}, rect = {0};
  PetscInt    nlazy;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(type, MATMPIAIJCIHYBRID, &ismpi));
  if (t->size > 1) ismpi = PETSC_TRUE;
  expected_type = ismpi ? MATMPIAIJCIHYBRID : MATSEQAIJCIHYBRID;

  PetscCall(LazyRebuildChecks(t, type, expected_type, &nlazy));
  PetscCall(GenerateSquare(t->rnd, 61, 45, &square));
  PetscCall(GenerateShape(t->rnd, SHAPE_RANDOM, t->maxsize, &rect));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatDuplicate\n"));
  PetscCall(DuplicateChecks(t, type, expected_type, &square));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatConvert\n"));
  PetscCall(ConvertChecks(t, type, expected_type, &square));
  PetscCall(ConvertChecks(t, type, expected_type, &rect));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatGetDiagonal\n"));
  PetscCall(DiagonalChecks(t, type, &square, "MatGetDiagonal, square"));
  /* MPIAIJ itself supports MatGetDiagonal only for square matrices */
  if (!ismpi) PetscCall(DiagonalChecks(t, type, &rect, "MatGetDiagonal, rectangular"));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatBindToCPU\n"));
  PetscCall(BindChecks(t, type, &square));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatView/MatLoad\n"));
  PetscCall(ViewLoadChecks(t, type, expected_type, &square));
  PetscCall(ViewLoadChecks(t, type, expected_type, &rect));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "MatCIHybridGetInfo\n"));
  PetscCall(InfoChecks(t, type, seq_type));
  *nchecks = nlazy + 8;
  PetscCall(GlobalCSRDestroy(&square));
  PetscCall(GlobalCSRDestroy(&rect));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx   t;
  PetscInt  seed = 20180345, nrandom = 64, ntypes = 1, k, ncases = 0, nchecks = 0;
  PetscBool also_mpi = PETSC_TRUE;
  MatType   types[2];

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_cihybrid_ops", 90));
  PetscOptionsBegin(t.comm, NULL, "test_cihybrid_ops options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random matrices", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-ncases", "random cases after the fixed sweep", NULL, nrandom, &nrandom, NULL));
  PetscCall(PetscOptionsInt("-max_size", "largest random dimension", NULL, t.maxsize, &t.maxsize, NULL));
  PetscCall(PetscOptionsBool("-also_mpi", "on one rank, test MATMPIAIJCIHYBRID too", NULL, also_mpi, &also_mpi, NULL));
  PetscCall(PetscOptionsString("-binary_file", "temporary file of the MatView/MatLoad round trip", NULL, t.binfile, t.binfile, sizeof(t.binfile), NULL));
  PetscCall(PetscOptionsBool("-verbose", "one line per case", NULL, t.verbose, &t.verbose, NULL));
  PetscOptionsEnd();

  PetscCall(TestCtxSeed(&t, seed));

  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 0, 0, 0, NULL, &t.plain));
  types[0] = MATCIHYBRID; /* the root name: seqaijcihybrid on one rank, mpiaijcihybrid on more */
  if (t.size == 1 && also_mpi) types[ntypes++] = MATMPIAIJCIHYBRID;
  for (k = 0; k < ntypes; k++) {
    PetscCall(RandomSweep(&t, types[k], nrandom, &ncases));
    PetscCall(PropertyChecks(&t, types[k], &nchecks));
    PetscCall(PetscPrintf(t.comm, "test_cihybrid_ops: %s (as %s) on %d rank(s): %" PetscInt_FMT " random matrices and %" PetscInt_FMT " property checks passed\n", types[k], t.size > 1 || k > 0 ? MATMPIAIJCIHYBRID : MATSEQAIJCIHYBRID, t.size, ncases, nchecks));
  }
  PetscCall(PetscPrintf(t.comm, "test_cihybrid_ops: all passed, %" PetscInt_FMT " products compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
