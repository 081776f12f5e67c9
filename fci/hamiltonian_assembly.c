/* The FCI Hamiltonian assembled into a PETSc Mat (hamiltonian.h): on the GPU straight into a
   cihybrid matrix; on the host by the threads of each process, either as the CSR arrays that an
   AIJ matrix takes without a copy (FCIHamiltonianCreate) or through one MatSetValues a row for
   any other type (FCIHamiltonianAssemble). */
#include "hamiltonian_impl.h"
#include <gpumats.h>
#include "gpumats_compat.h" /* the PETSc versions' container destroys */
#if FCI_HAVE_CUDA
  #include "hamiltonian_device.h"
#endif
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
  #define FCI_OMP(...) _Pragma(#__VA_ARGS__)
#else
  #define FCI_OMP(...)
#endif

/* Threads of each rank for the row sweeps: -fci_threads, else OMP_NUM_THREADS where set, else
   OpenMP's default (the cores) shared among the ranks of the node. */
static PetscErrorCode FCIThreadsPerRank(MPI_Comm comm, PetscInt *nthreads)
{
  PetscBool set;

  PetscFunctionBeginUser;
  *nthreads = 1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fci_threads", nthreads, &set));
  PetscCheck(!set || *nthreads >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fci_threads %" PetscInt_FMT ": at least one thread is needed", *nthreads);
#if defined(_OPENMP)
  if (!set) {
    *nthreads = omp_get_max_threads();
    if (!getenv("OMP_NUM_THREADS")) {
      MPI_Comm    node;
      PetscMPIInt nlocal;

      PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      PetscCallMPI(MPI_Comm_size(node, &nlocal));
      PetscCallMPI(MPI_Comm_free(&node));
      *nthreads = PetscMax(1, *nthreads / nlocal);
    }
  }
#endif
  PetscFunctionReturn(0);
}

/* The first write to each page of a fresh multi-GB AIJ value array is a page fault.  Taken one
   row at a time in the serial insertion they cost more than the copy itself (a 200M-entry
   SeqAIJ matrix: 5.3 s of MatSetValues, 1.0 s after touching the values first), so the threads
   take them first, each on its own part.  Other types (SBAIJ) are left alone. */
static PetscErrorCode FCITouchAIJValues(Mat A, PetscInt nthreads)
{
  Mat       blocks[2] = {NULL, NULL};
  PetscBool seq, mpi;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (seq) blocks[0] = A;
  else if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &blocks[0], &blocks[1], NULL));
  for (int b = 0; b < 2; b++) {
    MatInfo      info;
    PetscScalar *a;
    PetscInt64   n;

    if (!blocks[b]) continue;
    PetscCall(MatGetInfo(blocks[b], MAT_LOCAL, &info));
    n = (PetscInt64)info.nz_allocated;
    PetscCall(MatSeqAIJGetArrayWrite(blocks[b], &a));
    FCI_OMP(omp parallel for num_threads(nthreads) schedule(static))
    for (PetscInt64 p = 0; p < n; p += 4096) memset(a + p, 0, (size_t)PetscMin(4096, n - p) * sizeof(PetscScalar));
    PetscCall(MatSeqAIJRestoreArrayWrite(blocks[b], &a));
  }
  PetscFunctionReturn(0);
}

/* Rows generated at once by the threads of the value sweep: at most this many entries
   (192 MB), or one row if it is longer */
#define FCI_ASSEMBLY_BLOCK_ENTRIES ((PetscInt64)1 << 24)

typedef enum {
  FCI_ASSEMBLY_AUTO,
  FCI_ASSEMBLY_HOST,
  FCI_ASSEMBLY_DEVICE
} FCIAssembly;
static const char *const FCIAssemblies[] = {"auto", "host", "device", "FCIAssembly", "FCI_ASSEMBLY_", NULL};

/* -fci_host_sweeps: the host build makes each row once into blocks of its thread and copies the
   rows into place (one), or counts the rows, then makes them again in place (two).  The copy is
   bound by memory and page faults, the second making of the rows divides among the threads: on
   2 cores one sweep took the H2O/6-31G sector from 3.6-4.5 s to 2.4-2.5 s, on 16 it lost 0.1-0.2 s
   (its copy of 3.3 GB took 0.35-0.43 s).  auto: one sweep up to FCI_ONE_SWEEP_MAX_THREADS threads. */
#define FCI_ONE_SWEEP_MAX_THREADS 4

typedef enum {
  FCI_SWEEPS_AUTO,
  FCI_SWEEPS_ONE,
  FCI_SWEEPS_TWO
} FCISweeps;
static const char *const FCISweepsNames[] = {"auto", "one", "two", "FCISweeps", "FCI_SWEEPS_", NULL};

/* Can A be assembled on the device?  If not, why (for the error or the -info line). */
static PetscErrorCode FCIDeviceAssemblyPossible(Mat A, const FCIDetSpace *space, PetscBool *possible, char why[], size_t len)
{
  PetscErrorCode (*assemble)(Mat, const MatCIHybridDeviceRows *) = NULL;
  PetscErrorCode (*uses)(Mat, PetscBool *)                        = NULL;
  PetscErrorCode (*split)(Mat, MatCIHybridSplit *)                = NULL;
  PetscErrorCode (*compress)(Mat, MatCIHybridCompress *)          = NULL;
  PetscBool           device = PETSC_FALSE;
  MatCIHybridSplit    s      = MAT_CIHYBRID_SPLIT_ENTRIES;
  MatCIHybridCompress c      = MAT_CIHYBRID_COMPRESS_NONE;

  PetscFunctionBeginUser;
  *possible = PETSC_FALSE;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridAssembleOnDevice_C", &assemble));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", &uses));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridGetSplit_C", &split));
  if (uses) PetscCall((*uses)(A, &device));
  if (split) PetscCall((*split)(A, &s));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridGetCompress_C", &compress));
  if (compress) PetscCall((*compress)(A, &c));
  if (!FCI_HAVE_CUDA) PetscCall(PetscSNPrintf(why, len, "the FCI builders were compiled without CUDA"));
  else if (!assemble) {
    MatType type;
    PetscCall(MatGetType(A, &type));
    PetscCall(PetscSNPrintf(why, len, "the matrix is of type %s, not a cihybrid matrix (-mat_type cihybrid)", type));
  }
  else if (!device) PetscCall(PetscSNPrintf(why, len, "its products run on the host (no GPU, or -mat_gpumats_backend host)"));
  else if (s != MAT_CIHYBRID_SPLIT_ENTRIES) PetscCall(PetscSNPrintf(why, len, "-mat_cihybrid_split columns is built on the host only"));
  else if (c != MAT_CIHYBRID_COMPRESS_NONE) PetscCall(PetscSNPrintf(why, len, "-mat_cihybrid_compress is made from the host arrays (the builder on the host)"));
  else if (space->perm) PetscCall(PetscSNPrintf(why, len, "the device rows come in the lexical ordering only (-fci_ordering lexical)"));
  else *possible = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Each process's rows made on its GPU straight into A's device arrays: no host matrix, no upload. */
static PetscErrorCode FCIHamiltonianAssembleDevice(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, Mat A)
{
#if FCI_HAVE_CUDA
  PetscErrorCode (*assemble)(Mat, const MatCIHybridDeviceRows *) = NULL;
  FCIDeviceRows         rows;
  MatCIHybridDeviceRows generator;
  PetscLogDouble        t0, t1;
  PetscInt              rstart, rend;
  PetscErrorCode        ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatCIHybridAssembleOnDevice_C", &assemble));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscTime(&t0));
  PetscCall(FCIDeviceRowsCreate(ints, space, droptol, rstart, rend, &rows, &generator));
  ierr = (*assemble)(A, &generator);
  PetscCall(FCIDeviceRowsDestroy(&rows));
  PetscCall(ierr);
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(A, "FCI Hamiltonian rows %" PetscInt_FMT "..%" PetscInt_FMT " of %" PetscInt_FMT " determinants made on the GPU of this process: %g s\n", rstart, rend, space->ndet, t1 - t0));
  PetscFunctionReturn(0);
#else
  PetscFunctionBeginUser;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The FCI builders were compiled without CUDA");
#endif
}

/* Sizes ndet x ndet where the caller set none, else checked; the layouts set up. */
static PetscErrorCode FCIHamiltonianSetUpLayout(const FCIDetSpace *space, Mat A)
{
  PetscInt    M, N;
  PetscLayout rmap, cmap;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &M, &N));
  if (M < 0 && N < 0) PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, space->ndet, space->ndet));
  else PetscCheck(M == space->ndet && N == space->ndet, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "Matrix of %" PetscInt_FMT " x %" PetscInt_FMT " for %" PetscInt_FMT " determinants", M, N, space->ndet);
  PetscCall(MatGetLayouts(A, &rmap, &cmap));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutSetUp(cmap));
  PetscFunctionReturn(0);
}

/* -fci_assembly: made on the GPU when chosen or possible (*done), else the reason on -info. */
static PetscErrorCode FCIHamiltonianTryDevice(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, Mat A, PetscBool *done)
{
  FCIAssembly assembly = FCI_ASSEMBLY_AUTO;
  PetscBool   possible;
  char        why[256];
  const char *prefix;

  PetscFunctionBeginUser;
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscOptionsGetEnum(NULL, prefix, "-fci_assembly", FCIAssemblies, (PetscEnum *)&assembly, NULL));
  *done = PETSC_FALSE;
  if (assembly == FCI_ASSEMBLY_HOST) PetscFunctionReturn(0); /* no device asked: its context waits for the first product */
  PetscCall(FCIDeviceAssemblyPossible(A, space, &possible, why, sizeof(why)));
  PetscCheck(possible || assembly != FCI_ASSEMBLY_DEVICE, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "-fci_assembly device: the Hamiltonian cannot be made on the GPU: %s", why);
  *done = (PetscBool)(assembly != FCI_ASSEMBLY_HOST && possible);
  if (*done) PetscCall(FCIHamiltonianAssembleDevice(ints, space, droptol, A));
  else if (assembly == FCI_ASSEMBLY_AUTO) PetscCall(PetscInfo(A, "FCI Hamiltonian assembled on the host: %s\n", why));
  PetscFunctionReturn(0);
}

static PetscErrorCode FCIHamiltonianMarkSymmetric(Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The generator with the threads of this process (FCIThreadsPerRank) */
static PetscErrorCode FCIHamiltonianGenerator(MPI_Comm comm, const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, FCIRowGenerator *gen)
{
  PetscInt nthreads;

  PetscFunctionBeginUser;
  PetscCall(FCIRowGeneratorCreate(ints, space, droptol, gen));
  PetscCall(FCIThreadsPerRank(comm, &nthreads));
  PetscCall(FCIRowGeneratorSetThreads(*gen, nthreads));
  PetscFunctionReturn(0);
}

/* Any type: exact counts, preallocation, then the threads make blocks of rows and each row goes
   in with one MatSetValues. */
static PetscErrorCode FCIHamiltonianInsertRows(FCIRowGenerator gen, Mat A)
{
  PetscInt       m, rstart, rend, cstart, cend, nthreads, maxlen, *dnz, *onz, *dnzu, *onzu, *bcols;
  PetscInt64    *offset, cap;
  PetscScalar   *bvals;
  PetscBool      sbaij;
  PetscLogDouble t0, t1, t2, t3, tgen = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &sbaij, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
  PetscCall(FCIRowGeneratorGetThreads(gen, &nthreads));
  PetscCall(FCIRowGeneratorGetMaxRowLength(gen, &maxlen));
  /* sweep 1: exact counts */
  PetscCall(PetscMalloc4(m, &dnz, m, &onz, m, &dnzu, m, &onzu));
  PetscCall(PetscTime(&t0));
  PetscCall(FCIRowGeneratorCountRows(gen, rstart, rend, cstart, cend, dnz, onz, dnzu, onzu));
  PetscCall(PetscTime(&t1));
  PetscCall(MatXAIJSetPreallocation(A, 1, dnz, onz, dnzu, onzu));
  PetscCall(MatSetUp(A));
  PetscCall(PetscMalloc1(m + 1, &offset));
  offset[0] = 0;
  for (PetscInt i = 0; i < m; i++) offset[i + 1] = offset[i] + dnz[i] + onz[i];
  PetscCall(PetscFree4(dnz, onz, dnzu, onzu));
  PetscCall(MatSetOption(A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  if (sbaij) PetscCall(MatSetOption(A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
  /* every MatSetValues below inserts a whole row, columns ascending, into its empty preallocated
     slot: AIJ then copies the row instead of searching for each entry (2.2x faster insertion on
     the 3x4 Hubbard matrix) */
  PetscCall(MatSetOption(A, MAT_SORTED_FULL, PETSC_TRUE));
  PetscCall(FCITouchAIJValues(A, nthreads));

  /* sweep 2: blocks of rows generated by the threads, then inserted one row at a time */
  PetscCall(PetscTime(&t2));
  cap = PetscMin(offset[m], PetscMax(FCI_ASSEMBLY_BLOCK_ENTRIES, (PetscInt64)maxlen));
  PetscCall(PetscMalloc2((size_t)cap, &bcols, (size_t)cap, &bvals));
  for (PetscInt r0 = rstart, r1; r0 < rend; r0 = r1) {
    for (r1 = r0 + 1; r1 < rend && offset[r1 + 1 - rstart] - offset[r0 - rstart] <= cap; r1++) { }
    PetscCall(PetscTimeSubtract(&tgen));
    PetscCall(FCIRowGeneratorGetRows(gen, r0, r1, offset + (r0 - rstart), bcols, bvals));
    PetscCall(PetscTimeAdd(&tgen));
    for (PetscInt r = r0; r < r1; r++) {
      const PetscInt64 o = offset[r - rstart] - offset[r0 - rstart];
      PetscCall(MatSetValues(A, 1, &r, (PetscInt)(offset[r - rstart + 1] - offset[r - rstart]), bcols + o, bvals + o, INSERT_VALUES));
    }
  }
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(A, "FCI Hamiltonian rows %" PetscInt_FMT "..%" PetscInt_FMT " on %" PetscInt_FMT " threads: counting sweep %g s, preallocation and first touch %g s, value sweep %g s (rows %g s, MatSetValues %g s)\n", rstart, rend, nthreads, t1 - t0, t2 - t1, t3 - t2, tgen, t3 - t2 - tgen));
  PetscCall(PetscFree2(bcols, bvals));
  PetscCall(PetscFree(offset));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_NO_OFF_PROC_ENTRIES, PETSC_FALSE));
  PetscCall(MatSetOption(A, MAT_SORTED_FULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIHamiltonianAssemble(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, Mat A)
{
  FCIRowGenerator gen;
  PetscBool       done;

  PetscFunctionBeginUser;
  PetscCall(FCIHamiltonianSetUpLayout(space, A));
  PetscCall(FCIHamiltonianTryDevice(ints, space, droptol, A, &done));
  if (!done) {
    PetscCall(FCIHamiltonianGenerator(PetscObjectComm((PetscObject)A), ints, space, droptol, &gen));
    PetscCall(FCIHamiltonianInsertRows(gen, A));
    PetscCall(FCIRowGeneratorDestroy(&gen));
  }
  PetscCall(FCIHamiltonianMarkSymmetric(A));
  PetscFunctionReturn(0);
}

/* The CSR arrays of one process, which its AIJ matrix uses in place: freed with the matrix
   (composed as a container, destroyed with it) */
typedef struct {
  PetscInt    *i, *j, *oi, *oj;
  PetscScalar *a, *oa;
} FCICSRArrays;

static PetscErrorCode FCICSRArraysDestroy(void *ctx)
{
  FCICSRArrays *c = (FCICSRArrays *)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->i));
  PetscCall(PetscFree(c->j));
  PetscCall(PetscFree(c->a));
  PetscCall(PetscFree(c->oi));
  PetscCall(PetscFree(c->oj));
  PetscCall(PetscFree(c->oa));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(0);
}

static PetscErrorCode FCICSRArraysContainerDestroy(void *arg)
{
  PetscFunctionBeginUser;
  PetscCall(FCICSRArraysDestroy(GpuMatsContainerCtx(arg)));
  PetscFunctionReturn(0);
}

/* Row offsets from the counts; AIJ's offsets are PetscInt */
static PetscErrorCode FCICSROffsets(PetscInt m, const PetscInt count[], PetscInt offset[])
{
  PetscInt64 total = 0;

  PetscFunctionBeginUser;
  offset[0] = 0;
  for (PetscInt r = 0; r < m; r++) {
    total += count[r];
    PetscCheck(total <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "The Hamiltonian rows of this process have more than %" PetscInt_FMT " entries: use more processes or a PETSc configured with 64-bit indices", (PetscInt)PETSC_MAX_INT);
    offset[r + 1] = (PetscInt)total;
  }
  PetscFunctionReturn(0);
}

/* The row offsets from the lengths, and the arrays they give (the other block's when onz) */
static PetscErrorCode FCICSRArraysAllocate(PetscInt m, const PetscInt dnz[], const PetscInt onz[], FCICSRArrays *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m + 1, &c->i));
  PetscCall(FCICSROffsets(m, dnz, c->i));
  PetscCall(PetscMalloc1(c->i[m] + 1, &c->j));
  PetscCall(PetscMalloc1(c->i[m] + 1, &c->a));
  if (!onz) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(m + 1, &c->oi));
  PetscCall(FCICSROffsets(m, onz, c->oi));
  PetscCall(PetscMalloc1(c->oi[m] + 1, &c->oj));
  PetscCall(PetscMalloc1(c->oi[m] + 1, &c->oa));
  PetscFunctionReturn(0);
}

/* The CSR arrays of rows rstart..rend-1 (split at the columns cstart..cend-1 when mpi) made by the
   threads in one sweep: each row made once into blocks of its thread, the offsets, then the
   threads copy the rows where they belong, each a contiguous range (touching those pages first).
   That holds part of the rows twice for a moment.  Else (-fci_host_sweeps, or without the memory
   for the blocks) two sweeps: counting, offsets, then each row made again and written in place;
   *onesweep, and *how says which and why.  t: the start, the end of the first sweep, the end. */
static PetscErrorCode FCICSRArraysMake(FCIRowGenerator gen, PetscBool mpi, PetscInt m, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, FCICSRArrays *c, PetscBool *onesweep, const char **how, PetscLogDouble t[3])
{
  PetscInt      *dnz, *onz, nthreads;
  FCISplitRows   rows = NULL;
  FCISweeps      sweeps = FCI_SWEEPS_AUTO;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-fci_host_sweeps", FCISweepsNames, (PetscEnum *)&sweeps, NULL));
  PetscCall(FCIRowGeneratorGetThreads(gen, &nthreads));
  PetscCall(PetscMalloc2(m, &dnz, mpi ? m : 0, &onz));
  PetscCall(PetscTime(&t[0]));
  if (sweeps == FCI_SWEEPS_ONE || (sweeps == FCI_SWEEPS_AUTO && nthreads <= FCI_ONE_SWEEP_MAX_THREADS)) {
    PetscCall(FCIRowGeneratorSweepSplitRows(gen, rstart, rend, cstart, cend, dnz, mpi ? onz : NULL, &rows));
    *how = rows ? "rows made in one sweep" : "two sweeps (no memory for the blocks of one): counting sweep";
    *onesweep = rows ? PETSC_TRUE : PETSC_FALSE;
  } else *how = sweeps == FCI_SWEEPS_TWO ? "two sweeps (-fci_host_sweeps two): counting sweep" : "two sweeps (more than " PetscStringize(FCI_ONE_SWEEP_MAX_THREADS) " threads): counting sweep";
  if (!rows) PetscCall(FCIRowGeneratorCountRows(gen, rstart, rend, cstart, cend, dnz, mpi ? onz : NULL, NULL, NULL));
  PetscCall(PetscTime(&t[1]));
  ierr = FCICSRArraysAllocate(m, dnz, mpi ? onz : NULL, c);
  if (!ierr) ierr = rows ? FCISplitRowsCopy(rows, c->i, c->j, c->a, c->oi, c->oj, c->oa) : FCIRowGeneratorGetSplitRows(gen, rstart, rend, cstart, cend, c->i, c->j, c->a, c->oi, c->oj, c->oa);
  PetscCall(FCISplitRowsDestroy(&rows)); /* on an error too */
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(ierr);
  PetscCall(PetscTime(&t[2]));
  PetscFunctionReturn(0);
}

/* B of T's sizes, type and options prefix, from the CSR arrays the threads make (FCICSRArraysMake). */
static PetscErrorCode FCIHamiltonianFromArrays(FCIRowGenerator gen, Mat T, Mat *B)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)T);
  FCICSRArrays  *c;
  PetscContainer container;
  PetscInt       m, n, M, N, rstart, rend, cstart, cend, nthreads;
  PetscBool      mpi, onesweep = PETSC_FALSE;
  const char    *how = "";
  MatType        type;
  const char    *prefix;
  PetscLogDouble t[3] = {0, 0, 0}, t3, tc[2];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(T, &m, &n));
  PetscCall(MatGetSize(T, &M, &N));
  PetscCall(MatGetOwnershipRange(T, &rstart, &rend));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)T, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatGetOwnershipRangeColumn(T, &cstart, &cend));
  else cstart = 0, cend = N;
  PetscCall(FCIRowGeneratorGetThreads(gen, &nthreads));
  PetscCall(PetscNew(&c));
  ierr = FCICSRArraysMake(gen, mpi, m, rstart, rend, cstart, cend, c, &onesweep, &how, t);
  if (!ierr) ierr = mpi ? MatCreateMPIAIJWithSplitArrays(comm, m, n, M, N, c->i, c->j, c->a, c->oi, c->oj, c->oa, B) : MatCreateSeqAIJWithArrays(comm, m, N, c->i, c->j, c->a, B);
  if (ierr) { /* the arrays are the matrix's only once it exists */
    PetscCall(FCICSRArraysDestroy(c));
    PetscCall(ierr);
  }
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, c));
  PetscCall(GpuMatsContainerSetDestroy(container, FCICSRArraysContainerDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*B, "FCICSRArrays", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(PetscTime(&tc[0]));
  PetscCall(MatGetType(T, &type));
  PetscCall(MatConvert(*B, type, MAT_INPLACE_MATRIX, B));
  PetscCall(PetscTime(&tc[1]));
  PetscCall(MatGetOptionsPrefix(T, &prefix));
  PetscCall(MatSetOptionsPrefix(*B, prefix));
  PetscCall(MatSetFromOptions(*B));
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(*B, "FCI Hamiltonian rows %" PetscInt_FMT "..%" PetscInt_FMT " on %" PetscInt_FMT " threads: %s %g s, %s %g s, %s taking the arrays %g s (AIJ's %g s, the conversion %g s, the options %g s)\n", rstart, rend, nthreads, how, t[1] - t[0], onesweep ? "copied into place" : "rows written in place", t[2] - t[1], type, t3 - t[2], tc[0] - t[2], tc[1] - tc[0], t3 - tc[1]));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIHamiltonianCreate(MPI_Comm comm, const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, const char prefix[], Mat *A)
{
  Mat             T;
  FCIRowGenerator gen;
  PetscBool       done, seqaij, mpiaij;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, &T));
  PetscCall(MatSetSizes(T, PETSC_DECIDE, PETSC_DECIDE, space->ndet, space->ndet));
  if (prefix) PetscCall(MatSetOptionsPrefix(T, prefix));
  PetscCall(MatSetFromOptions(T));
  PetscCall(FCIHamiltonianSetUpLayout(space, T));
  PetscCall(FCIHamiltonianTryDevice(ints, space, droptol, T, &done));
  if (!done) {
    /* AIJ and its subclasses (named by prefix) take the arrays; the others get MatSetValues */
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)T, MATSEQAIJ, &seqaij));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)T, MATMPIAIJ, &mpiaij));
    PetscCall(FCIHamiltonianGenerator(comm, ints, space, droptol, &gen));
    if (seqaij || mpiaij) {
      PetscCall(FCIHamiltonianFromArrays(gen, T, A));
      PetscCall(MatDestroy(&T));
    } else PetscCall(FCIHamiltonianInsertRows(gen, T));
    PetscCall(FCIRowGeneratorDestroy(&gen));
  }
  if (T) *A = T;
  PetscCall(FCIHamiltonianMarkSymmetric(*A));
  PetscFunctionReturn(0);
}
