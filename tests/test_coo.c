static char help[] = "COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of cihybrid, pcsr and diag against MATAIJ.\n"
                     "  -mat_type <cihybrid|pcsr|diag|mpidiag>  the type under test (all when not given; mpidiag: on one process, where diag is seqdiag)\n"
                     "  -seed <n>  -rounds <n>  -show_errors: print the refusals of out-of-range indices\n\n";

/* The same random COO input (duplicates, negative indices that PETSc ignores, entries of rows that
   other ranks own, a rank with no entry, 0 x 0 and 1 x 1 matrices) goes into the type under test and
   into MATAIJ: the four products and the entries must agree, after the first MatSetValuesCOO, after
   new values (INSERT_VALUES: the format must follow, not stay stale) and after ADD_VALUES.  Indices
   out of range must be refused as MATAIJ refuses them.  With a CUDA PETSc the values (and the
   indices) also come from device arrays, and new device values must not go through the host
   (seq and MPI): no upload of the format follows them. */
#include <gpumats.h>
#include "testmat.h"
#include <string.h>
#include "gpumats_config.h"
#if defined(PETSC_HAVE_CUDA) && GPUMATS_HAVE_CUDA
  #include "cuda/common/gpumats_cuda.h" /* the device copies of the arrays: plain CUDA, no PETSc memory tracker */
  #define TEST_DEVICE_ARRAYS 1
#endif

/* MatSetValuesCOO on a MatDuplicate of a COO matrix refused (-duplicate 0: not tried) */
static PetscBool test_duplicate = PETSC_TRUE;

typedef struct {
  PetscCount   n;
  PetscInt    *i, *j;
  PetscScalar *v[3]; /* first values, new values (INSERT), increments (ADD) */
} COO;

static PetscErrorCode COODestroy(COO *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->i));
  PetscCall(PetscFree(c->j));
  for (int k = 0; k < 3; k++) PetscCall(PetscFree(c->v[k]));
  PetscFunctionReturn(0);
}

/* This rank's entries: mostly its own rows, some rows of any rank, some negative indices, some
   repeated (i,j) pairs; 'count' entries, 0 for a rank with nothing to give. */
static PetscErrorCode COOGenerate(PetscRandom r, PetscInt M, PetscInt N, PetscInt rstart, PetscInt rend, PetscInt count, COO *c)
{
  PetscFunctionBeginUser;
  c->n = count;
  PetscCall(PetscMalloc1(count, &c->i));
  PetscCall(PetscMalloc1(count, &c->j));
  for (int k = 0; k < 3; k++) PetscCall(PetscMalloc1(count, &c->v[k]));
  for (PetscInt e = 0; e < count; e++) {
    PetscBool dup, remote, negi, negj;
    PetscInt  neg;

    PetscCall(RandBool(r, 0.2, &dup));
    PetscCall(RandBool(r, 0.25, &remote));
    if (dup && e > 0) {
      PetscInt p;

      PetscCall(RandInt(r, 0, e - 1, &p));
      c->i[e] = c->i[p];
      c->j[e] = c->j[p];
    } else {
      if (M > 0 && (remote || rend == rstart)) PetscCall(RandInt(r, 0, M - 1, &c->i[e]));
      else if (rend > rstart) PetscCall(RandInt(r, rstart, rend - 1, &c->i[e]));
      else c->i[e] = -1;
      if (N > 0) PetscCall(RandInt(r, 0, N - 1, &c->j[e]));
      else c->j[e] = -1;
      /* near the diagonal often, so that diag gets few diagonals */
      if (N > 0 && c->i[e] >= 0 && e % 3) c->j[e] = PetscMin(N - 1, c->i[e] % N);
    }
    PetscCall(RandBool(r, 0.05, &negi));
    PetscCall(RandBool(r, 0.05, &negj));
    PetscCall(RandInt(r, 1, 3, &neg));
    if (negi) c->i[e] = -neg;
    if (negj) c->j[e] = -neg;
    for (int k = 0; k < 3; k++) PetscCall(RandValue(r, &c->v[k][e]));
  }
  PetscFunctionReturn(0);
}

/* The entries of a case: random (duplicates, negative indices, other ranks' rows), or a CSR
   pattern of this rank's rows given each entry once, in AIJ's order (the device keeps no map from
   the COO entries to the stored ones) or shuffled (it keeps only which entry each stored one is) */
typedef enum {
  COO_RANDOM,
  COO_CSR,
  COO_CSR_SHUFFLED
} COOKind;

/* COO_CSR or COO_CSR_SHUFFLED: about `count` entries of this rank's rows, some rows empty, no
   negative index */
static PetscErrorCode COOGenerateCSR(PetscRandom r, PetscInt N, PetscInt rstart, PetscInt rend, PetscInt count, PetscBool shuffled, COO *c)
{
  const PetscInt per = rend > rstart && N > 0 ? 2 * count / (rend - rstart) + 1 : 0;
  PetscInt      *cols;

  PetscFunctionBeginUser;
  c->n = 0;
  PetscCall(PetscMalloc1(per + 1, &cols));
  PetscCall(PetscMalloc1((rend - rstart) * per + 1, &c->i));
  PetscCall(PetscMalloc1((rend - rstart) * per + 1, &c->j));
  for (int k = 0; k < 3; k++) PetscCall(PetscMalloc1((rend - rstart) * per + 1, &c->v[k]));
  for (PetscInt i = rstart; i < rend && per; i++) {
    PetscInt k;

    PetscCall(RandInt(r, 0, per, &k)); /* some rows empty */
    for (PetscInt q = 0; q < k; q++) PetscCall(RandInt(r, 0, N - 1, &cols[q]));
    PetscCall(PetscSortRemoveDupsInt(&k, cols));
    for (PetscInt q = 0; q < k; q++, c->n++) {
      c->i[c->n] = i;
      c->j[c->n] = cols[q];
      for (int v = 0; v < 3; v++) PetscCall(RandValue(r, &c->v[v][c->n]));
    }
  }
  for (PetscCount e = c->n - 1; shuffled && e > 0; e--) { /* Fisher-Yates */
    PetscInt o, ti, tj;

    PetscCall(RandInt(r, 0, (PetscInt)e, &o));
    ti      = c->i[e];
    tj      = c->j[e];
    c->i[e] = c->i[o];
    c->j[e] = c->j[o];
    c->i[o] = ti;
    c->j[o] = tj;
    for (int v = 0; v < 3; v++) {
      const PetscScalar t = c->v[v][e];

      c->v[v][e] = c->v[v][o];
      c->v[v][o] = t;
    }
  }
  PetscCall(PetscFree(cols));
  PetscFunctionReturn(0);
}

/* PETSc 3.22 may change the index arrays it is given: every call gets a copy. */
static PetscErrorCode Preallocate(Mat A, const COO *c)
{
  PetscInt *i, *j;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->n, &i, c->n, &j));
  PetscCall(PetscArraycpy(i, c->i, c->n));
  PetscCall(PetscArraycpy(j, c->j, c->n));
  PetscCall(MatSetPreallocationCOO(A, c->n, i, j));
  PetscCall(PetscFree2(i, j));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateMat(MPI_Comm comm, const char *type, PetscInt M, PetscInt N, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*A, type));
  if (strcmp(type, MATAIJ)) PetscCall(MatSetFromOptions(*A));
  PetscFunctionReturn(0);
}

/* The type (and for the AIJ subclasses on several ranks, both blocks) is the format. */
static PetscErrorCode CheckFormat(TestCtx *t, Mat A, const char *root, const char *what)
{
  char seq[64], mpi[64];

  PetscFunctionBeginUser;
  if (!strcmp(root, "diag") || !strcmp(root, "mpidiag")) { /* mpidiag: asked for on one process too */
    PetscCall(CheckTypeName(A, t->size > 1 || !strcmp(root, "mpidiag") ? "mpidiag" : "seqdiag", what));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSNPrintf(seq, sizeof(seq), "seqaij%s", root));
  PetscCall(PetscSNPrintf(mpi, sizeof(mpi), "mpiaij%s", root));
  if (t->size == 1) PetscCall(CheckTypeName(A, seq, what));
  else {
    Mat  Ad, Ao;
    char blk[256];

    PetscCall(CheckTypeName(A, mpi, what));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(PetscSNPrintf(blk, sizeof(blk), "%s, diagonal block", what));
    PetscCall(CheckTypeName(Ad, seq, blk));
    PetscCall(PetscSNPrintf(blk, sizeof(blk), "%s, off-diagonal block", what));
    PetscCall(CheckTypeName(Ao, seq, blk));
  }
  PetscFunctionReturn(0);
}

/* Same entries as the MATAIJ reference (up to the order duplicates are summed in), and the same products. */
static PetscErrorCode Compare(TestCtx *t, Mat A, Mat B, const char *root, const char *what)
{
  Mat       C;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(CheckFormat(t, A, root, what));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  PetscCall(MatDestroy(&C));
  PetscCheck(nd <= t->tol * PetscMax(nb, 1.0), t->comm, PETSC_ERR_PLIB, "MISMATCH %s: entries differ from MATAIJ's, ||A - A_aij||_F = %g (||A_aij||_F = %g)", what, (double)nd, (double)nb);
  PetscCall(CheckProducts(t, A, B, what));
  PetscFunctionReturn(0);
}

/* Another layout of the same entries (diag: the other scheme, where a square matrix has one;
   cihybrid: another BOUNDARY), whose new places the next values must find; *changed false for
   the other types */
static PetscErrorCode ChangeLayout(Mat A, const char *type, PetscInt M, PetscInt N, PetscBool *changed)
{
  PetscFunctionBeginUser;
  *changed = PETSC_FALSE;
  if (!strcmp(type, MATDIAG) || !strcmp(type, MATMPIDIAG)) {
    MatDiagScheme scheme = MAT_DIAG_SCHEME_HM;

    PetscCall(MatDiagGetScheme(A, &scheme));
    PetscCall(MatDiagSetScheme(A, scheme == MAT_DIAG_SCHEME_HM && M == N ? MAT_DIAG_SCHEME_CDM : MAT_DIAG_SCHEME_HM));
    *changed = PETSC_TRUE;
  } else if (strstr(type, "cihybrid")) {
    PetscCall(MatCIHybridSetBoundary(A, 1));
    *changed = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

#if defined(TEST_DEVICE_ARRAYS)
/* A device copy of 'bytes' bytes; *ok false (nothing allocated) where no device is usable. */
static PetscErrorCode DeviceCopy(const void *host, size_t bytes, void **dev, PetscBool *ok)
{
  PetscFunctionBeginUser;
  *dev = NULL;
  PetscCall(GpuMatsCUDAInitialize(ok, NULL));
  if (!*ok) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAMalloc(dev, bytes ? bytes : 1, "test_coo device array"));
  if (bytes) PetscCall(GpuMatsCUDACopyToDevice(*dev, host, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode DeviceFree(void **dev)
{
  PetscFunctionBeginUser;
  PetscCall(GpuMatsCUDAFree(*dev));
  *dev = NULL;
  PetscFunctionReturn(0);
}

/* Uploads and builds of gpumats formats (its log events) on this process so far */
static PetscErrorCode FormatTransfers(PetscInt *count)
{
  const char *names[] = {"GpuMatsUpload", "GpuMatsBuild"};

  PetscFunctionBeginUser;
  *count = 0;
  for (int k = 0; k < 2; k++) {
    PetscLogEvent      event;
    PetscEventPerfInfo info;

    PetscCall(PetscLogEventGetId(names[k], &event));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
    *count += info.count;
  }
  PetscFunctionReturn(0);
}

/* New values from device memory go into the device copy, seq and MPI: after them a product
   uploads nothing (through the host, the values would go up again) */
static PetscErrorCode CheckStaysOnDevice(TestCtx *t, Mat A, const void *dv, const char *desc)
{
  Vec      x, y;
  PetscInt before, after, moved;
  MatInfo  info;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  if (info.nz_used == 0) PetscFunctionReturn(0); /* no device copy is kept of a matrix without entries */
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y)); /* the device copy current */
  PetscCall(FormatTransfers(&before));
  PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv, INSERT_VALUES));
  PetscCall(MatMult(A, x, y));
  PetscCall(FormatTransfers(&after));
  moved = after - before;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT, MPI_MAX, t->comm));
  PetscCheck(moved == 0, t->comm, PETSC_ERR_PLIB, "MISMATCH %s: values from device memory went through the host (%" PetscInt_FMT " uploads of the format after them)", desc, moved);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* The same matrix from device arrays: values only, then indices and values. */
static PetscErrorCode CheckDeviceArrays(TestCtx *t, const char *type, PetscInt M, PetscInt N, const COO *c, Mat B, const char *desc)
{
  Mat       A;
  void     *dv[3] = {NULL, NULL, NULL}, *di = NULL, *dj = NULL;
  PetscBool ok, all = PETSC_TRUE, changed;
  char      what[256];

  PetscFunctionBeginUser;
  for (int k = 0; k < 3; k++) {
    PetscCall(DeviceCopy(c->v[k], c->n * sizeof(PetscScalar), &dv[k], &ok));
    all = (PetscBool)(all && ok);
  }
  PetscCall(DeviceCopy(c->i, c->n * sizeof(PetscInt), &di, &ok));
  all = (PetscBool)(all && ok);
  PetscCall(DeviceCopy(c->j, c->n * sizeof(PetscInt), &dj, &ok));
  all = (PetscBool)(all && ok);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &all, 1, GPUMATS_MPI_BOOL, MPI_LAND, t->comm));
  if (!all) {
    PetscCall(PetscPrintf(t->comm, "%s: no usable device, device arrays not tried\n", desc));
  } else {
    /* B holds the first values again (the caller's last step) */
    PetscCall(CreateMat(t->comm, type, M, N, &A));
    PetscCall(Preallocate(A, c));
    PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[0], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, device values", desc));
    PetscCall(Compare(t, A, B, type, what));
    PetscCall(MatDestroy(&A));

    PetscCall(CreateMat(t->comm, type, M, N, &A));
    PetscCall(MatSetPreallocationCOO(A, c->n, (PetscInt *)di, (PetscInt *)dj));
    PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[1], INSERT_VALUES));
    PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[0], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, device indices and values", desc));
    PetscCall(Compare(t, A, B, type, what));
    /* device values added, then inserted again (pcsr takes them on the device: the host copy and
       the device copy must both follow) */
    PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[2], ADD_VALUES));
    PetscCall(MatSetValuesCOO(B, c->v[2], ADD_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, device values added", desc));
    PetscCall(Compare(t, A, B, type, what));
    PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[0], INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, c->v[0], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, device values inserted after an addition", desc));
    PetscCall(Compare(t, A, B, type, what));
    PetscCall(CheckStaysOnDevice(t, A, dv[0], what));
    PetscCall(ChangeLayout(A, type, M, N, &changed)); /* the device map follows the new places */
    if (changed) {
      PetscCall(MatSetValuesCOO(A, (const PetscScalar *)dv[1], INSERT_VALUES));
      PetscCall(MatSetValuesCOO(B, c->v[1], INSERT_VALUES));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s, device values after a change of layout", desc));
      PetscCall(Compare(t, A, B, type, what));
      PetscCall(MatSetValuesCOO(B, c->v[0], INSERT_VALUES));
    }
    PetscCall(MatDestroy(&A));
  }
  for (int k = 0; k < 3; k++) PetscCall(DeviceFree(&dv[k]));
  PetscCall(DeviceFree(&di));
  PetscCall(DeviceFree(&dj));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode CheckCase(TestCtx *t, PetscRandom r, const char *type, PetscInt M, PetscInt N, PetscInt per_rank, PetscBool rank1_empty, COOKind kind)
{
  Mat       A, B;
  COO       c;
  PetscInt  m, rstart;
  char      desc[256], what[300];
  PetscBool changed;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCall(DefaultLayout(t->comm, M, &m, &rstart));
  if (kind != COO_RANDOM) PetscCall(COOGenerateCSR(r, N, rstart, rstart + m, (rank1_empty && t->rank == 1 % t->size) ? 0 : per_rank, (PetscBool)(kind == COO_CSR_SHUFFLED), &c));
  else PetscCall(COOGenerate(r, M, N, rstart, rstart + m, (rank1_empty && t->rank == 1 % t->size) ? 0 : per_rank, &c));
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " entries a rank%s%s", type, M, N, per_rank, rank1_empty ? ", rank 1 none" : "", kind == COO_CSR ? ", each once in AIJ's order" : kind == COO_CSR_SHUFFLED ? ", each once, shuffled" : ""));
  if (t->verbose) PetscCall(PetscPrintf(t->comm, "%s\n", desc));

  PetscCall(CreateMat(t->comm, type, M, N, &A));
  PetscCall(CreateMat(t->comm, MATAIJ, M, N, &B));
  PetscCall(Preallocate(A, &c));
  PetscCall(Preallocate(B, &c));
  PetscCall(MatSetValuesCOO(A, c.v[0], INSERT_VALUES));
  PetscCall(MatSetValuesCOO(B, c.v[0], INSERT_VALUES));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, first values", desc));
  PetscCall(Compare(t, A, B, type, what));

  /* new values: the format's copy must follow */
  PetscCall(MatSetValuesCOO(A, c.v[1], INSERT_VALUES));
  PetscCall(MatSetValuesCOO(B, c.v[1], INSERT_VALUES));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, new values (INSERT_VALUES)", desc));
  PetscCall(Compare(t, A, B, type, what));

  PetscCall(MatSetValuesCOO(A, c.v[2], ADD_VALUES));
  PetscCall(MatSetValuesCOO(B, c.v[2], ADD_VALUES));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, ADD_VALUES", desc));
  PetscCall(Compare(t, A, B, type, what));

  /* INSERT_VALUES after ADD_VALUES: the first values again, nothing of before left */
  PetscCall(MatSetValuesCOO(A, c.v[0], INSERT_VALUES));
  PetscCall(MatSetValuesCOO(B, c.v[0], INSERT_VALUES));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, first values again", desc));
  PetscCall(Compare(t, A, B, type, what));

  /* another layout stores the same entries elsewhere; new values must find their new places */
  PetscCall(ChangeLayout(A, type, M, N, &changed));
  if (changed) {
    PetscCall(MatSetValuesCOO(A, c.v[1], INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, c.v[1], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, new values after a change of layout", desc));
    PetscCall(Compare(t, A, B, type, what));
    PetscCall(MatSetValuesCOO(A, c.v[0], INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, c.v[0], INSERT_VALUES));
  }

  /* a duplicate does not carry the COO preallocation (PETSc 3.18's MATAIJ reads NULL maps then):
     MatSetValuesCOO is refused until MatSetPreallocationCOO is called on it */
  if (test_duplicate) {
    Mat            A2;
    PetscErrorCode ierr;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, MatSetValuesCOO on a duplicate", desc));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetValuesCOO(A2, c.v[1], INSERT_VALUES);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "without MatSetPreallocationCOO", what));
    PetscCall(Preallocate(A2, &c));
    PetscCall(MatSetValuesCOO(A2, c.v[0], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, duplicate after its own preallocation", desc));
    PetscCall(Compare(t, A2, B, type, what));
    PetscCall(MatDestroy(&A2));
  }

  /* the usual assembly still works on a COO matrix: a scaled copy through MatScale */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(B, 2.0));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, scaled", desc));
  PetscCall(Compare(t, A, B, type, what));

  /* the same entries preallocated again (diag keeps its diagonals: every one is used, none is
     missing), new values */
  PetscCall(Preallocate(A, &c));
  PetscCall(Preallocate(B, &c));
  PetscCall(MatSetValuesCOO(A, c.v[1], INSERT_VALUES));
  PetscCall(MatSetValuesCOO(B, c.v[1], INSERT_VALUES));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, the same MatSetPreallocationCOO again", desc));
  PetscCall(Compare(t, A, B, type, what));

  /* a second preallocation with other entries on the same matrices */
  {
    COO c2;

    PetscCall(PetscMemzero(&c2, sizeof(c2)));
    PetscCall(COOGenerate(r, M, N, rstart, rstart + m, (rank1_empty && t->rank == 1 % t->size) ? 0 : per_rank, &c2));
    PetscCall(Preallocate(A, &c2));
    PetscCall(Preallocate(B, &c2));
    PetscCall(MatSetValuesCOO(A, c2.v[0], INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, c2.v[0], INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, second MatSetPreallocationCOO", desc));
    PetscCall(Compare(t, A, B, type, what));
    PetscCall(COODestroy(&c2));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));

  /* the reference again with the first values, for the device arrays */
  PetscCall(CreateMat(t->comm, MATAIJ, M, N, &B));
  PetscCall(Preallocate(B, &c));
  PetscCall(MatSetValuesCOO(B, c.v[0], INSERT_VALUES));

#if defined(TEST_DEVICE_ARRAYS)
  PetscCall(CheckDeviceArrays(t, type, M, N, &c, B, desc));
#endif
  PetscCall(MatDestroy(&B));
  PetscCall(COODestroy(&c));
  PetscFunctionReturn(0);
}

/* An index past the matrix on every rank: refused with PETSC_ERR_ARG_OUTOFRANGE and a message that
   names the index (PETSc 3.22's MATAIJ refuses so; the MATAIJ of a PETSc 3.18 built without debugging
   does not check and writes past its arrays, so it is not run here), and the matrix can still be
   destroyed. */
static PetscErrorCode CheckOutOfRange(TestCtx *t, const char *type, PetscBool column, PetscBool show)
{
  const PetscInt M = 7, N = 5;
  PetscInt       i[3] = {0, 1, 2}, j[3] = {0, 1, 2};
  PetscErrorCode ierr;
  char           bad[32];
  Mat            A;
  const char    *text;
  const char    *specific = NULL;

  PetscFunctionBeginUser;
  if (column) j[1] = N + 3;
  else i[1] = M + 3;
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%" PetscInt_FMT, column ? N + 3 : M + 3));
  PetscCall(CreateMat(t->comm, type, M, N, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetPreallocationCOO(A, 3, i, j);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, t->comm, PETSC_ERR_PLIB, "%s: a COO %s index %s in a %" PetscInt_FMT " x %" PetscInt_FMT " matrix was accepted", type, column ? "column" : "row", bad, M, N);
  PetscCall(GpuMatsErrorMessage(ierr, &text, &specific));
  if (show) PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s, bad %s index %s: error %d: %s\n", t->rank, type, column ? "column" : "row", bad, (int)ierr, specific ? specific : "(none)"));
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s refuses a COO %s index out of range with error code %d, not PETSC_ERR_ARG_OUTOFRANGE (%d): %s", type, column ? "column" : "row", (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE, specific ? specific : "(none)");
  PetscCheck(specific && strstr(specific, bad), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the refusal of COO %s index %s does not name it: %s", type, column ? "column" : "row", bad, specific ? specific : "(none)");
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx     t;
  PetscRandom r;
  PetscInt    seed = 7, rounds = 3;
  char        only[64] = "";
  PetscBool   given, show = PETSC_FALSE, skip_range = PETSC_FALSE, fill_given;
  const char *types[] = {"cihybrid", "pcsr", "diag", "mpidiag"};

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
#if defined(TEST_DEVICE_ARRAYS)
  PetscCall(PetscLogDefaultBegin()); /* the format's uploads counted (CheckStaysOnDevice) */
#endif
  PetscCall(TestCtxInit(&t, "coo", 40));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rounds", &rounds, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &t.verbose, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-show_errors", &show, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-duplicate", &test_duplicate, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", only, sizeof(only), &given));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_range", &skip_range, NULL));
  PetscCall(TestCtxSeed(&t, seed));
  /* random entries spread over many diagonals: diag must take them (its fill limit is for users) */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_diag_max_fill", &fill_given));
  if (!fill_given) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "1e9"));
  /* entries differ between ranks */
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetType(r, PETSCRANDER48));
  PetscCall(PetscRandomSetSeed(r, (unsigned long)(seed * 1000 + t.rank)));
  PetscCall(PetscRandomSeed(r));

  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
    const char *type = types[k];

    if (given && strcmp(only, type)) continue;
    if (!strcmp(type, MATMPIDIAG) && t.size > 1) continue; /* diag is mpidiag there already */
    PetscCall(CheckCase(&t, r, type, 0, 0, 0, PETSC_FALSE, COO_RANDOM));
    PetscCall(CheckCase(&t, r, type, 0, 0, 3, PETSC_FALSE, COO_RANDOM)); /* only ignored (negative) entries can be in a 0 x 0 */
    PetscCall(CheckCase(&t, r, type, 1, 1, 0, PETSC_FALSE, COO_RANDOM));
    PetscCall(CheckCase(&t, r, type, 1, 1, 4, PETSC_FALSE, COO_RANDOM));
    PetscCall(CheckCase(&t, r, type, 3, 2, 2, PETSC_FALSE, COO_RANDOM));
    PetscCall(CheckCase(&t, r, type, 24, 24, 200, PETSC_FALSE, COO_RANDOM)); /* square, many diagonals on both sides: HM and CDM place them apart */
    PetscCall(CheckCase(&t, r, type, 600, 600, 2500, PETSC_FALSE, COO_RANDOM)); /* thousands of stored entries, some rows empty: many blocks of the device kernels (256 entries each) */
    PetscCall(CheckCase(&t, r, type, 600, 500, 2500, PETSC_FALSE, COO_CSR));          /* each entry once, as AIJ stores them (no map on the device) */
    PetscCall(CheckCase(&t, r, type, 600, 500, 2500, PETSC_FALSE, COO_CSR_SHUFFLED)); /* each once, shuffled (the device map without jmap) */
    for (PetscInt round = 0; round < rounds; round++) {
      PetscInt M, N, per;

      PetscCall(RandInt(t.rnd, 1, t.maxsize, &M));
      PetscCall(RandInt(t.rnd, 1, t.maxsize, &N));
      if (round == 0) N = M;
      PetscCall(RandInt(t.rnd, 0, 3 * M, &per));
      PetscCall(CheckCase(&t, r, type, M, N, per, PETSC_FALSE, COO_RANDOM));
      PetscCall(CheckCase(&t, r, type, M, N, per, PETSC_TRUE, COO_RANDOM));
    }
    if (!skip_range) {
      PetscCall(CheckOutOfRange(&t, type, PETSC_FALSE, show));
      PetscCall(CheckOutOfRange(&t, type, PETSC_TRUE, show));
    }
    PetscCall(PetscPrintf(t.comm, "coo %s: ok (%" PetscInt_FMT " comparisons, largest relative error %g)\n", type, t.ncompared, (double)t.maxerr));
  }
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
