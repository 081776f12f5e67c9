static const char help[] = "Checks MATSEQAIJPCSR / MATMPIAIJPCSR against MATAIJ on the same matrices.\n\
  -seed <2016>   seed of the random matrices\n\
  -nrandom <3>   random matrices per shape, kernel and transpose mode\n\
  -maxsize <60>  largest random dimension\n\
  -tol <1e-12>   relative error allowed\n\
  -binary_file <name>  scratch file for MatView/MatLoad\n\
Every kernel (auto, paper, fused, vector, adaptive) and transpose mode, the lazy rebuild after\n\
AIJ's mutating operations, MatDuplicate/MatConvert, MatPCSRGetInfo, MatMatMult with a dense B,\n\
MatLoad and MatGpuMatsCreateRedistributed with both partitions (the latter also of a cihybrid\n\
matrix, and its bad input), and bad input.\n";

#include <petscmat.h>
#include <gpumats.h>
#include <string.h>
#include "testmat.h"
#include "pcsr/pcsr_format.h"

static const MatPCSRKernel Kernels[] = {MAT_PCSR_KERNEL_AUTO, MAT_PCSR_KERNEL_PAPER, MAT_PCSR_KERNEL_FUSED, MAT_PCSR_KERNEL_VECTOR, MAT_PCSR_KERNEL_ADAPTIVE};
static const char *const   KernelNames[] = {"auto", "paper", "fused", "vector", "adaptive"};

/* csr as an MPI (or sequential) matrix of 'type' in the default layout; a pcsr type gets
   the kernel and transpose mode, through the API or (options true) the options database */
static PetscErrorCode CreateMatrix(MPI_Comm comm, const GlobalCSR *csr, MatType type, MatPCSRKernel kernel, MatPCSRTranspose transpose, PetscBool options, Mat *A)
{
  PetscInt  m, n, start;
  PetscBool pcsr;

  PetscFunctionBeginUser;
  PetscCall(DefaultLayout(comm, csr->M, &m, &start));
  PetscCall(DefaultLayout(comm, csr->N, &n, &start));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, csr->M, csr->N));
  PetscCall(MatSetType(*A, type));
  PetscCall(PetscStrcmp(type, MATPCSR, &pcsr));
  if (pcsr && options) {
    PetscCall(PetscOptionsSetValue(NULL, "-mat_pcsr_kernel", KernelNames[kernel]));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_pcsr_transpose", transpose == MAT_PCSR_TRANSPOSE_COPY ? "copy" : "atomic"));
  }
  PetscCall(MatSetFromOptions(*A));
  if (pcsr && options) {
    PetscCall(PetscOptionsClearValue(NULL, "-mat_pcsr_kernel"));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_pcsr_transpose"));
  }
  PetscCall(GlobalCSRAssemble(*A, csr));
  if (pcsr && !options) {
    PetscCall(MatPCSRSetKernel(*A, kernel));
    PetscCall(MatPCSRSetTranspose(*A, transpose));
  }
  if (pcsr) {
    MatPCSRKernel    k;
    MatPCSRTranspose tr;

    PetscCall(MatPCSRGetKernel(*A, &k));
    PetscCall(MatPCSRGetTranspose(*A, &tr));
    PetscCheck(k == kernel && tr == transpose, comm, PETSC_ERR_PLIB, "MatPCSRGetKernel/GetTranspose give %s/%d after %s/%d was set %s", KernelNames[k], (int)tr, KernelNames[kernel], (int)transpose, options ? "through the options" : "through the API");
  }
  PetscFunctionReturn(0);
}

/* The products run on pcsr: A (or both blocks of an MPI A) is a seqaijpcsr. */
static PetscErrorCode CheckIsPCSR(Mat A, const char *what)
{
  PetscMPIInt size;
  Mat         Ad, Ao;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscCall(CheckTypeName(A, MATSEQAIJPCSR, what));
  else {
    PetscCall(CheckTypeName(A, MATMPIAIJPCSR, what));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(CheckTypeName(Ad, MATSEQAIJPCSR, what));
    PetscCall(CheckTypeName(Ao, MATSEQAIJPCSR, what));
  }
  PetscFunctionReturn(0);
}

/* ---- 1: every shape, kernel and transpose mode ---- */
static PetscErrorCode ShapeSweep(TestCtx *t, PetscInt nrandom, PetscInt *ncases)
{
  PetscFunctionBeginUser;
  for (PetscInt shape = 0; shape < NSHAPES; shape++) {
    for (PetscInt k = 0; k < (PetscInt)(sizeof(Kernels) / sizeof(Kernels[0])); k++) {
      for (PetscInt rep = 0; rep < nrandom; rep++) {
        GlobalCSR        csr;
        Mat              Ap, Aa;
        char             desc[256];
        MatPCSRTranspose tr = (rep % 2) ? MAT_PCSR_TRANSPOSE_COPY : MAT_PCSR_TRANSPOSE_ATOMIC;

        PetscCall(GenerateShape(t->rnd, (Shape)shape, t->maxsize, &csr));
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s %" PetscInt_FMT "x%" PetscInt_FMT ", kernel %s, transpose %s", ShapeNames[shape], csr.M, csr.N, KernelNames[k], tr ? "copy" : "atomic"));
        PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, Kernels[k], tr, (PetscBool)(rep == 1), &Ap));
        PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));
        PetscCall(CheckIsPCSR(Ap, desc));
        PetscCall(CheckProducts(t, Ap, Aa, desc));
        PetscCall(MatDestroy(&Ap));
        PetscCall(MatDestroy(&Aa));
        PetscCall(GlobalCSRDestroy(&csr));
        (*ncases)++;
      }
    }
  }
  PetscFunctionReturn(0);
}

/* Rows longer than any shared-memory window of the block-staged kernels, among short ones,
   and power-law row lengths: every kernel. */
static PetscErrorCode LongRowChecks(TestCtx *t)
{
  const PetscInt N = 12000, M = 300;
  PetscInt      *len;
  GlobalCSR      csr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(M, &len));
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt i = 0; i < M; i++) {
      if (pass == 0) len[i] = (i == 7 || i == 150) ? 10000 : (i % 3); /* two rows of 10000 entries, the others 0..2 */
      else len[i] = PetscMin(N, (PetscInt)(4000.0 / ((i % 97) + 1)));  /* power law: 4000, 2000, 1333, ... */
    }
    PetscCall(GlobalCSRFill(t->rnd, M, N, len, 0.0, 0.0, &csr));
    for (PetscInt k = 0; k < (PetscInt)(sizeof(Kernels) / sizeof(Kernels[0])); k++) {
      Mat  Ap, Aa;
      char desc[128];

      PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s rows, kernel %s", pass ? "power-law" : "10000-entry", KernelNames[k]));
      PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, Kernels[k], (MatPCSRTranspose)(k % 2), PETSC_FALSE, &Ap));
      PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));
      PetscCall(CheckProducts(t, Ap, Aa, desc));
      PetscCall(MatDestroy(&Ap));
      PetscCall(MatDestroy(&Aa));
    }
    PetscCall(GlobalCSRDestroy(&csr));
  }
  PetscCall(PetscFree(len));
  PetscFunctionReturn(0);
}

/* ---- 2: the lazy rebuild after each of AIJ's mutating operations, on both matrices ---- */
typedef PetscErrorCode (*MutateFn)(TestCtx *, Mat, const GlobalCSR *);

static PetscErrorCode MutScale(TestCtx *t, Mat A, const GlobalCSR *c)
{
  PetscFunctionBeginUser;
  PetscCall(MatScale(A, -2.5));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutShift(TestCtx *t, Mat A, const GlobalCSR *c)
{
  PetscFunctionBeginUser;
  PetscCall(MatShift(A, 3.0));
  PetscFunctionReturn(0);
}

/* a fresh AIJ matrix of another pattern, the same on every call */
static PetscErrorCode OtherPattern(TestCtx *t, const GlobalCSR *c, Mat *X)
{
  GlobalCSR   o;
  PetscRandom r;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 77));
  PetscCall(PetscRandomSeed(r));
  PetscCall(GenerateSquare(r, c->M, 6, &o));
  PetscCall(CreateMatrix(t->comm, &o, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, X));
  PetscCall(GlobalCSRDestroy(&o));
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutAXPYDifferent(TestCtx *t, Mat A, const GlobalCSR *c)
{
  Mat X;

  PetscFunctionBeginUser;
  PetscCall(OtherPattern(t, c, &X));
  PetscCall(MatAXPY(A, 0.75, X, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutZeroEntries(TestCtx *t, Mat A, const GlobalCSR *c)
{
  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(A));
  PetscFunctionReturn(0);
}

/* new nonzeros (the last column of every owned row, the first row of every column) */
static PetscErrorCode MutNewNonzeros(TestCtx *t, Mat A, const GlobalCSR *c)
{
  PetscInt    rstart, rend;
  PetscScalar v = 1.25;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt j = c->N - 1 - (i % c->N);

    PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutCopyDifferent(TestCtx *t, Mat A, const GlobalCSR *c)
{
  Mat X;

  PetscFunctionBeginUser;
  PetscCall(OtherPattern(t, c, &X));
  PetscCall(MatCopy(X, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutDiagonalSet(TestCtx *t, Mat A, const GlobalCSR *c)
{
  Vec d;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(VecSet(d, 4.0));
  PetscCall(MatDiagonalSet(A, d, ADD_VALUES));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MutZeroRows(TestCtx *t, Mat A, const GlobalCSR *c)
{
  PetscInt rows[2] = {0, c->M / 2};

  PetscFunctionBeginUser;
  PetscCall(MatZeroRows(A, 2, rows, 2.0, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode LazyRebuildChecks(TestCtx *t, PetscInt *nops)
{
  const MutateFn    ops[]   = {MutScale, MutShift, MutAXPYDifferent, MutZeroEntries, MutNewNonzeros, MutCopyDifferent, MutDiagonalSet, MutZeroRows};
  const char *const names[] = {"MatScale", "MatShift", "MatAXPY(DIFFERENT_NONZERO_PATTERN)", "MatZeroEntries", "MatSetValues(new nonzeros)", "MatCopy(DIFFERENT_NONZERO_PATTERN)", "MatDiagonalSet(ADD_VALUES)", "MatZeroRows"};
  GlobalCSR         csr;
  Mat               Ap, Aa;

  PetscFunctionBeginUser;
  PetscCall(GenerateSquare(t->rnd, 40, 9, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_COPY, PETSC_FALSE, &Ap));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));
  PetscCall(CheckProducts(t, Ap, Aa, "before the operations"));
  for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
    /* new entries are allowed (MatShift, MatZeroRows and MatDiagonalSet add missing diagonal
       entries); again each time: MatCopy and MatAXPY with another pattern make new matrices */
    PetscCall(MatSetOption(Ap, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall((*ops[k])(t, Ap, &csr));
    PetscCall((*ops[k])(t, Aa, &csr));
    PetscCall(CheckIsPCSR(Ap, names[k]));
    PetscCall(CheckProducts(t, Ap, Aa, names[k]));
    (*nops)++;
  }
  PetscCall(MatDestroy(&Ap));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* ---- 3: duplicate, convert, info ---- */
static PetscErrorCode DuplicateConvertInfoChecks(TestCtx *t)
{
  GlobalCSR      csr;
  Mat            Ap, Aa, B, Ad;
  MatPCSRKernel  k;
  MatPCSRInfo    info;
  PCSRRowStats   stats;
  const char    *why;
  PetscBool      done;
  PetscInt       n;
  const PetscInt *ai;

  PetscFunctionBeginUser;
  PetscCall(GenerateShape(t->rnd, SHAPE_EMPTY_ROWS, 50, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, MAT_PCSR_KERNEL_VECTOR, MAT_PCSR_TRANSPOSE_COPY, PETSC_FALSE, &Ap));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));

  PetscCall(MatDuplicate(Ap, MAT_COPY_VALUES, &B));
  PetscCall(CheckIsPCSR(B, "MatDuplicate"));
  PetscCall(MatPCSRGetKernel(B, &k));
  PetscCheck(k == MAT_PCSR_KERNEL_VECTOR, t->comm, PETSC_ERR_PLIB, "MatDuplicate lost the kernel: %s", KernelNames[k]);
  PetscCall(CheckProducts(t, B, Aa, "MatDuplicate"));
  PetscCall(MatDestroy(&B));

  PetscCall(MatConvert(Ap, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckTypeOneOf(B, MATSEQAIJ, MATMPIAIJ, "MatConvert(pcsr -> aij)"));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(pcsr -> aij)"));
  PetscCall(MatConvert(B, MATPCSR, MAT_INPLACE_MATRIX, &B));
  PetscCall(CheckIsPCSR(B, "MatConvert(aij -> pcsr, in place)"));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(aij -> pcsr, in place)"));
  PetscCall(MatScale(B, 2.0));
  PetscCall(MatScale(Aa, 2.0));
  PetscCall(CheckProducts(t, B, Aa, "MatConvert(aij -> pcsr), then MatScale"));
  PetscCall(MatDestroy(&B));

  /* MatPCSRGetInfo against statistics computed here from the AIJ block */
  PetscCall(MatPCSRGetInfo(Ap, &info));
  if (t->size > 1) PetscCall(MatMPIAIJGetSeqAIJ(Aa, &Ad, NULL, NULL));
  else Ad = Aa;
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, NULL, &done));
  {
    PetscInt64 nnz = n ? ai[n] - ai[0] : 0, maxlen = 0, empty = 0;

    for (PetscInt i = 0; i < n; i++) {
      maxlen = PetscMax(maxlen, (PetscInt64)(ai[i + 1] - ai[i]));
      if (ai[i + 1] == ai[i]) empty++;
    }
    PetscCheck(info.nnz == nnz && info.max_row_len == maxlen && info.empty_rows == empty, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatPCSRGetInfo: nnz %" PetscInt64_FMT ", longest %" PetscInt64_FMT ", empty %" PetscInt64_FMT "; the AIJ block has %" PetscInt64_FMT ", %" PetscInt64_FMT ", %" PetscInt64_FMT, info.nnz, info.max_row_len, info.empty_rows, nnz, maxlen, empty);
    PetscCheck(info.kernel == MAT_PCSR_KERNEL_VECTOR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatPCSRGetInfo: kernel %s, set vector", KernelNames[info.kernel]);
  }
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, NULL, &done));
  PetscCall(MatDestroy(&Ap));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));

  /* the automatic choice on made-up statistics: what each rule is for */
  stats.nrows = 1000;
  stats.ncols = 1000;
  stats.nnz = 5000, stats.mean_row_len = 5, stats.max_row_len = 5, stats.stddev_row_len = 0, stats.empty_rows = 0;
  PetscCheck(PCSRChooseKernel(&stats, &why) == MAT_PCSR_KERNEL_ADAPTIVE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: 5 per row should be adaptive");
  stats.nnz = 650000, stats.mean_row_len = 650, stats.max_row_len = 900;
  PetscCheck(PCSRChooseKernel(&stats, &why) == MAT_PCSR_KERNEL_VECTOR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: 650 per row of similar lengths should be vector");
  stats.nnz = 8000, stats.mean_row_len = 8, stats.max_row_len = 3000;
  PetscCheck(PCSRChooseKernel(&stats, &why) == MAT_PCSR_KERNEL_ADAPTIVE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: one row of 3000 among rows of 8 should be adaptive");
  stats.nnz = PCSR_MAX_DEVICE_NNZ + 1;
  PetscCheck(!PCSRFitsDeviceIndices(&stats), PETSC_COMM_SELF, PETSC_ERR_PLIB, "2^31 - 2^20 + 1 nonzeros cannot fit the device copy");
  stats.nnz = PCSR_MAX_DEVICE_NNZ;
  PetscCheck(PCSRFitsDeviceIndices(&stats), PETSC_COMM_SELF, PETSC_ERR_PLIB, "2^31 - 2^20 nonzeros fit the device copy (tests/test_sizes.c has the rest)");
  PetscFunctionReturn(0);
}

/* ---- 4: C = A B with dense B (one SpMM) against AIJ's product ---- */
static PetscErrorCode DenseProductChecks(TestCtx *t)
{
  const PetscInt ks[] = {1, 3, 9};
  GlobalCSR      csr;
  Mat            Ap, Aa;

  PetscFunctionBeginUser;
  PetscCall(GenerateSquare(t->rnd, 57, 11, &csr));
  PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Ap));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));
  for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
    Mat       B, Cp, Ca;
    PetscInt  n;
    PetscReal nd, na;

    PetscCall(MatGetLocalSize(Ap, NULL, &n));
    PetscCall(MatCreateDense(t->comm, n, PETSC_DECIDE, csr.N, ks[i], NULL, &B));
    PetscCall(MatSetRandom(B, t->vrnd));
    PetscCall(MatMatMult(Ap, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cp));
    PetscCall(MatMatMult(Aa, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ca));
    PetscCall(MatScale(Ap, 0.5)); /* reuse after a change of A's values */
    PetscCall(MatScale(Aa, 0.5));
    PetscCall(MatMatMult(Ap, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Cp));
    PetscCall(MatMatMult(Aa, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ca));
    PetscCall(MatNorm(Ca, NORM_FROBENIUS, &na));
    PetscCall(MatAXPY(Cp, -1.0, Ca, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(Cp, NORM_FROBENIUS, &nd));
    PetscCheck(nd <= t->tol * na, t->comm, PETSC_ERR_PLIB, "MISMATCH MatMatMult with %" PetscInt_FMT " columns: relative error %g", ks[i], (double)(nd / na));
    t->ncompared++;
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&Cp));
    PetscCall(MatDestroy(&Ca));
  }
  PetscCall(MatDestroy(&Ap));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* ---- 5: the two partitions: MatLoad and MatGpuMatsCreateRedistributed ---- */

/* y = A x for A in any layout, compared with the AIJ matrix in the default layout. */
static PetscErrorCode CompareAcrossLayouts(TestCtx *t, Mat A, Mat Aa, const char *what)
{
  Vec x, y, xa, ya, yb;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(Aa, &xa, &ya));
  PetscCall(VecDuplicate(ya, &yb));
  PetscCall(VecSetRandom(xa, t->vrnd));
  PetscCall(GpuMatsVecRedistribute(xa, x));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Aa, xa, ya));
  PetscCall(GpuMatsVecRedistribute(y, yb));
  PetscCall(CompareVecs(t, yb, ya, what, "MatMult"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(0);
}

/* Each process's nonzeros: at most total/size + the longest row (the nnz partition's promise). */
static PetscErrorCode CheckBalanced(TestCtx *t, Mat A, PetscInt64 maxlen, const char *what)
{
  MatInfo    info;
  PetscInt64 local, total;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  local = (PetscInt64)info.nz_used;
  PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPIU_INT64, MPI_SUM, t->comm));
  PetscCheck(local <= total / t->size + maxlen + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: [%d] holds %" PetscInt64_FMT " of %" PetscInt64_FMT " nonzeros on %d processes (longest row %" PetscInt64_FMT ")", what, t->rank, local, total, t->size, maxlen);
  PetscFunctionReturn(0);
}

/* MatGpuMatsCreateRedistributed is format-neutral: a cihybrid MPI matrix, its BOUNDARY and
   backend kept, products against AIJ's in PETSc's layout. */
static PetscErrorCode RedistributeCIHybridChecks(TestCtx *t, const GlobalCSR *csr, Mat Aa)
{
  Mat         Ac, B;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(t->comm, &size));
  PetscCall(CreateMatrix(t->comm, csr, MATCIHYBRID, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Ac));
  PetscCall(MatCIHybridSetBoundary(Ac, 3));
  PetscCall(MatGpuMatsSetBackend(Ac, GPUMATS_BACKEND_HOST));
  for (PetscInt p = 0; p < 2; p++) {
    const GpuMatsPartition partition = p ? GPUMATS_PARTITION_NNZ : GPUMATS_PARTITION_ROWS;
    const char            *what      = p ? "MatGpuMatsCreateRedistributed(cihybrid, nnz)" : "MatGpuMatsCreateRedistributed(cihybrid, rows)";
    PetscInt               boundary;
    GpuMatsBackend         backend;

    PetscCall(MatGpuMatsCreateRedistributed(Ac, partition, &B));
    if (size == 1) PetscCall(CheckTypeName(B, MATSEQAIJCIHYBRID, what));
    else {
      Mat Bd, Bo;

      PetscCall(CheckTypeName(B, MATMPIAIJCIHYBRID, what));
      PetscCall(MatMPIAIJGetSeqAIJ(B, &Bd, &Bo, NULL));
      PetscCall(CheckTypeName(Bd, MATSEQAIJCIHYBRID, what));
      PetscCall(CheckTypeName(Bo, MATSEQAIJCIHYBRID, what));
    }
    if (p) PetscCall(CheckBalanced(t, B, csr->maxlen, what));
    PetscCall(MatCIHybridGetBoundary(B, &boundary));
    PetscCall(MatGpuMatsGetBackend(B, &backend));
    PetscCheck(boundary == 3 && backend == GPUMATS_BACKEND_HOST, t->comm, PETSC_ERR_PLIB, "%s: the copy has BOUNDARY %" PetscInt_FMT " and backend %d; A had 3 and host (1)", what, boundary, (int)backend);
    PetscCall(CompareAcrossLayouts(t, B, Aa, what));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDestroy(&Ac));
  PetscFunctionReturn(0);
}

/* Refusals of MatGpuMatsCreateRedistributed and MatPCSRSetPartition, each naming what is wrong. */
static PetscErrorCode RedistributeBadInputChecks(TestCtx *t, const GlobalCSR *csr)
{
  Mat            A, B = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  /* not assembled */
  PetscCall(MatCreate(t->comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, csr->M, csr->N));
  PetscCall(MatSetType(A, MATCIHYBRID));
  PetscCall(MatSetUp(A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatGpuMatsCreateRedistributed(A, GPUMATS_PARTITION_NNZ, &B);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "not assembled", "MatGpuMatsCreateRedistributed of an unassembled cihybrid matrix"));
  PetscCheck(!B, t->comm, PETSC_ERR_PLIB, "MatGpuMatsCreateRedistributed of an unassembled matrix gave a matrix");
  PetscCall(MatDestroy(&A));

  /* an unknown partition, through both functions */
  PetscCall(CreateMatrix(t->comm, csr, MATPCSR, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatGpuMatsCreateRedistributed(A, (GpuMatsPartition)42, &B);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "Unknown GpuMatsPartition", "MatGpuMatsCreateRedistributed(42)"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatPCSRSetPartition(A, (GpuMatsPartition)42);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "Unknown GpuMatsPartition", "MatPCSRSetPartition(42)"));
  PetscCall(MatDestroy(&A));

  /* on more than one process, a type that is not MPIAIJ: dense */
  if (t->size > 1) {
    PetscCall(MatCreateDense(t->comm, PETSC_DECIDE, PETSC_DECIDE, csr->M, csr->N, NULL, &A));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatGpuMatsCreateRedistributed(A, GPUMATS_PARTITION_NNZ, &B);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "is not an MPIAIJ matrix", "MatGpuMatsCreateRedistributed of a dense matrix"));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PartitionChecks(TestCtx *t)
{
  const PetscInt M = 300;
  PetscInt      *len;
  GlobalCSR      csr;
  Mat            Ap, Aa, B;
  PetscViewer    v;

  PetscFunctionBeginUser;
  /* row lengths falling from 60 to 1: equal rows are far from equal nonzeros */
  PetscCall(PetscMalloc1(M, &len));
  for (PetscInt i = 0; i < M; i++) len[i] = 1 + (60 * (M - i)) / M;
  PetscCall(GlobalCSRFill(t->rnd, M, M, len, 0.0, 0.0, &csr));
  PetscCall(PetscFree(len));
  /* settings other than the defaults, which the copies must keep */
  PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, MAT_PCSR_KERNEL_VECTOR, MAT_PCSR_TRANSPOSE_COPY, PETSC_FALSE, &Ap));
  PetscCall(MatGpuMatsSetBackend(Ap, GPUMATS_BACKEND_HOST));
  PetscCall(CreateMatrix(t->comm, &csr, MATAIJ, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &Aa));

  PetscCall(MatGpuMatsCreateRedistributed(Ap, GPUMATS_PARTITION_NNZ, &B));
  PetscCall(CheckIsPCSR(B, "MatGpuMatsCreateRedistributed(pcsr, nnz)"));
  PetscCall(CheckBalanced(t, B, csr.maxlen, "MatGpuMatsCreateRedistributed(pcsr, nnz)"));
  PetscCall(CompareAcrossLayouts(t, B, Aa, "MatGpuMatsCreateRedistributed(pcsr, nnz)"));
  {
    MatPCSRKernel    k;
    MatPCSRTranspose tr;
    GpuMatsBackend   backend;

    PetscCall(MatPCSRGetKernel(B, &k));
    PetscCall(MatPCSRGetTranspose(B, &tr));
    PetscCall(MatGpuMatsGetBackend(B, &backend));
    PetscCheck(k == MAT_PCSR_KERNEL_VECTOR && tr == MAT_PCSR_TRANSPOSE_COPY && backend == GPUMATS_BACKEND_HOST, t->comm, PETSC_ERR_PLIB, "MatGpuMatsCreateRedistributed(pcsr, nnz): the copy has kernel %s, transpose %d, backend %d; A had vector, copy (1), host (1)", KernelNames[k], (int)tr, (int)backend);
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatGpuMatsCreateRedistributed(Ap, GPUMATS_PARTITION_ROWS, &B));
  PetscCall(CheckIsPCSR(B, "MatGpuMatsCreateRedistributed(pcsr, rows)"));
  PetscCall(CompareAcrossLayouts(t, B, Aa, "MatGpuMatsCreateRedistributed(pcsr, rows)"));
  PetscCall(MatDestroy(&B));

  /* the same function on cihybrid, with its settings */
  PetscCall(RedistributeCIHybridChecks(t, &csr, Aa));
  PetscCall(RedistributeBadInputChecks(t, &csr));

  /* MatLoad: -mat_pcsr_partition nnz gives the balanced layout, rows PETSc's */
  PetscCall(PetscViewerBinaryOpen(t->comm, t->binfile, FILE_MODE_WRITE, &v));
  PetscCall(MatView(Aa, v));
  PetscCall(PetscViewerDestroy(&v));
  for (PetscInt p = 0; p < 2; p++) {
    const char *what = p ? "MatLoad with -mat_pcsr_partition nnz" : "MatLoad with -mat_pcsr_partition rows";

    PetscCall(MatCreate(t->comm, &B));
    PetscCall(MatSetType(B, MATPCSR));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_pcsr_partition", p ? "nnz" : "rows"));
    PetscCall(MatSetFromOptions(B));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_pcsr_partition"));
    PetscCall(PetscViewerBinaryOpen(t->comm, t->binfile, FILE_MODE_READ, &v));
    PetscCall(MatLoad(B, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckIsPCSR(B, what));
    if (p) PetscCall(CheckBalanced(t, B, csr.maxlen, what));
    else {
      PetscInt m, ma;

      PetscCall(MatGetLocalSize(B, &m, NULL));
      PetscCall(MatGetLocalSize(Aa, &ma, NULL));
      PetscCheck(m == ma, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " local rows, PETSc's layout has %" PetscInt_FMT, what, m, ma);
    }
    PetscCall(CompareAcrossLayouts(t, B, Aa, what));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDestroy(&Ap));
  PetscCall(MatDestroy(&Aa));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

/* ---- 6: bad input gets an error whose message says what is wrong ---- */
static PetscErrorCode BadInputChecks(TestCtx *t)
{
  GlobalCSR      csr;
  Mat            A, B, C = NULL;
  PetscErrorCode ierr;
  PetscBool      uses;

  PetscFunctionBeginUser;
  PetscCall(GenerateSquare(t->rnd, 20, 4, &csr));
  PetscCall(MatCreate(t->comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 20, 20));
  PetscCall(MatSetType(A, MATPCSR));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatPCSRSetKernel(A, (MatPCSRKernel)42);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "Unknown MatPCSRKernel", "MatPCSRSetKernel(42)"));
  PetscCall(MatSetUp(A));
  {
    MatPCSRInfo info;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatPCSRGetInfo(A, &info);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "not assembled", "MatPCSRGetInfo before assembly"));
  }
  PetscCall(MatDestroy(&A));

  /* A (20 x 20) B (7 x 2): sizes that do not match */
  PetscCall(CreateMatrix(t->comm, &csr, MATPCSR, MAT_PCSR_KERNEL_AUTO, MAT_PCSR_TRANSPOSE_ATOMIC, PETSC_FALSE, &A));
  PetscCall(MatCreateDense(t->comm, PETSC_DECIDE, PETSC_DECIDE, 7, 2, NULL, &B));
  PetscCall(MatSetRandom(B, t->vrnd));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, t->comm, PETSC_ERR_PLIB, "MatMatMult of a 20x20 pcsr matrix and a 7x2 dense one: expected an error");
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C)); /* MatMatMult created C before it refused the sizes */

  /* -mat_gpumats_backend cuda without a usable device */
  PetscCall(MatGpuMatsUsesDevice(A, &uses));
  if (!uses) {
    Vec x, y;

    PetscCall(MatGpuMatsSetBackend(A, GPUMATS_BACKEND_CUDA));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(A, x, y);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "-mat_gpumats_backend cuda", "MatMult with -mat_gpumats_backend cuda and no device"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(GlobalCSRDestroy(&csr));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx  t;
  PetscInt nrandom = 3, ncases = 0, nops = 0, seed = 2016;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_pcsr_ops", 60));
  PetscOptionsBegin(t.comm, NULL, "test_pcsr_ops options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random matrices", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-nrandom", "random matrices per shape and kernel", NULL, nrandom, &nrandom, NULL));
  PetscCall(PetscOptionsInt("-maxsize", "largest random dimension", NULL, t.maxsize, &t.maxsize, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative error allowed", NULL, t.tol, &t.tol, NULL));
  PetscCall(PetscOptionsString("-binary_file", "scratch file for MatView/MatLoad", NULL, t.binfile, t.binfile, sizeof(t.binfile), NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, seed));

  PetscCall(ShapeSweep(&t, nrandom, &ncases));
  PetscCall(LongRowChecks(&t));
  PetscCall(LazyRebuildChecks(&t, &nops));
  PetscCall(DuplicateConvertInfoChecks(&t));
  PetscCall(DenseProductChecks(&t));
  PetscCall(PartitionChecks(&t));
  PetscCall(BadInputChecks(&t));
  PetscCall(PetscPrintf(t.comm, "test_pcsr_ops on %d rank(s): all passed, %" PetscInt_FMT " random matrices, %" PetscInt_FMT " mutating operations, %" PetscInt_FMT " products compared with MATAIJ, largest relative error %.3g (tolerance %g)\n", t.size, ncases, nops, t.ncompared, (double)t.maxerr, (double)t.tol));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
