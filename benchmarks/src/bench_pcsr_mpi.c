static const char help[] = "Multi-GPU PCSR (He and Gao 2016, section 4, Tables 3-4): time per SpMV of an\n\
mpiaijpcsr matrix on P MPI processes (one GPU each) with equal rows (PCSR-I) and equal\n\
nonzeros (PCSR-II, MatGpuMatsCreateRedistributed), with and without the communication of x,\n\
the standard deviation across processes, and the parallel efficiency T1 / (P T_P), T1 the\n\
time of the whole matrix as seqaijpcsr on the GPU of process 0 alone.\n\
  -matrix <stencil7> -size <0>   the matrix (benchmarks/src/matgen.h; 0: its default size)\n\
  -reps <100> -trials <7>        SpMVs per timed trial, and trials (the median is reported)\n\
  -label <name>                  the matrix's name in the output (default: -matrix:-size)\n\
  -csv <path>                    append a line per (partition, communication) to this file\n\
  -mat_pcsr_kernel <auto|...>    as for any pcsr matrix\n";

/* Timing: every process synchronizes its device, the processes meet at a barrier, each
   times 'reps' products ending with a device synchronization, and the trial's time of a
   process is its own; T_P is the slowest process's.  'Without communication' runs what a
   process computes in MatMult, the diagonal block times the local x plus the off-diagonal
   block times a vector of the ghost values, without the scatter that brings them. */
#include <petscmat.h>
#include <petsctime.h>
#include <gpumats.h>
#include "matgen.h"
#include <cuda_runtime.h> /* built only with CUDA (benchmarks/meson.build) */

/* Waits for the device, if the products run on one (without a GPU the host path is timed). */
static PetscErrorCode BenchSync(Mat A)
{
  PetscBool uses;

  PetscFunctionBegin;
  PetscCall(MatGpuMatsUsesDevice(A, &uses));
  if (uses) PetscCheck(cudaDeviceSynchronize() == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "cudaDeviceSynchronize failed");
  PetscFunctionReturn(0);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

typedef enum {
  RUN_FULL,      /* MatMult of the MPI matrix: scatter of x included */
  RUN_LOCAL,     /* the blocks' products only */
  RUN_SEQUENTIAL /* the whole matrix on one process */
} RunKind;

typedef struct {
  Mat A, Ad, Ao;
  Vec x, y, xd, xo, yd;
} BenchMats;

static PetscErrorCode BenchRunOnce(BenchMats *m, RunKind kind)
{
  PetscFunctionBegin;
  if (kind == RUN_LOCAL) {
    PetscCall(MatMult(m->Ad, m->xd, m->yd));
    PetscCall(MatMultAdd(m->Ao, m->xo, m->yd, m->yd));
  } else PetscCall(MatMult(m->A, m->x, m->y));
  PetscFunctionReturn(0);
}

/* Median over the trials of this process's milliseconds per SpMV. */
static PetscErrorCode BenchTime(MPI_Comm comm, BenchMats *m, RunKind kind, PetscInt reps, PetscInt trials, double *ms)
{
  double *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(trials, &t));
  for (PetscInt w = 0; w < 10; w++) PetscCall(BenchRunOnce(m, kind));
  for (PetscInt k = 0; k < trials; k++) {
    PetscLogDouble t0, t1;

    PetscCall(BenchSync(m->A));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(BenchRunOnce(m, kind));
    PetscCall(BenchSync(m->A));
    PetscCall(PetscTime(&t1));
    t[k] = 1e3 * (t1 - t0) / (double)reps;
  }
  qsort(t, (size_t)trials, sizeof(double), CompareDouble);
  *ms = t[trials / 2];
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchMatsDestroy(BenchMats *m)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&m->x));
  PetscCall(VecDestroy(&m->y));
  PetscCall(VecDestroy(&m->xd));
  PetscCall(VecDestroy(&m->xo));
  PetscCall(VecDestroy(&m->yd));
  PetscCall(MatDestroy(&m->A));
  PetscFunctionReturn(0);
}

/* The rows of [rstart, rend) of the global CSR as a pcsr matrix on comm. */
static PetscErrorCode BenchCreateMat(MPI_Comm comm, PetscInt n, PetscInt rstart, PetscInt rend, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, Mat *A)
{
  PetscInt *ptr, m = rend - rstart;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m + 1, &ptr));
  for (PetscInt i = 0; i <= m; i++) ptr[i] = rowptr[rstart + i] - rowptr[rstart];
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, m, n, n));
  PetscCall(MatSetType(*A, MATPCSR));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ptr, colidx + rowptr[rstart], vals + rowptr[rstart]));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ptr, colidx + rowptr[rstart], vals + rowptr[rstart]));
  PetscCall(PetscFree(ptr));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchMatsSetUp(BenchMats *m)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(m->A, &m->x, &m->y));
  PetscCall(VecSet(m->x, 1.0));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)m->A), &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(MatMPIAIJGetSeqAIJ(m->A, &m->Ad, &m->Ao, NULL));
  PetscCall(MatCreateVecs(m->Ad, &m->xd, &m->yd));
  PetscCall(MatCreateVecs(m->Ao, &m->xo, NULL));
  PetscCall(VecSet(m->xd, 1.0));
  PetscCall(VecSet(m->xo, 1.0));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char         matrix[64] = "stencil7", label[64] = "", csvpath[PETSC_MAX_PATH_LEN] = "";
  PetscInt     size_param = 0, reps = 100, trials = 7, n, ncols, *rowptr, *colidx;
  PetscScalar *vals;
  MatGenInfo   info;
  PetscMPIInt  size, rank;
  MPI_Comm     comm;
  double       t1 = 0;
  FILE        *csv = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "bench_pcsr_mpi options", NULL);
  PetscCall(PetscOptionsString("-matrix", "matrix name (benchmarks/src/matgen.h)", NULL, matrix, matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsInt("-size", "its size parameter (0: default)", NULL, size_param, &size_param, NULL));
  PetscCall(PetscOptionsString("-label", "the matrix's name in the output", NULL, label, label, sizeof(label), NULL));
  PetscCall(PetscOptionsInt("-reps", "SpMVs per trial", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-trials", "trials", NULL, trials, &trials, NULL));
  PetscCall(PetscOptionsString("-csv", "append results to this CSV file", NULL, csvpath, csvpath, sizeof(csvpath), NULL));
  PetscOptionsEnd();
  if (!label[0] && size_param) PetscCall(PetscSNPrintf(label, sizeof(label), "%s:%" PetscInt_FMT, matrix, size_param));
  else if (!label[0]) PetscCall(PetscStrncpy(label, matrix, sizeof(label)));
  PetscCheck(reps > 0 && trials > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-reps and -trials must be positive");

  /* every process builds the whole matrix (deterministic) and keeps its rows */
  PetscCall(MatGenCreate(matrix, size_param, 2016, &info, &n, &ncols, &rowptr, &colidx, &vals));
  PetscCheck(n == ncols, comm, PETSC_ERR_SUP, "bench_pcsr_mpi needs a square matrix; %s is %" PetscInt_FMT " x %" PetscInt_FMT, matrix, n, ncols);
  PetscCall(PetscPrintf(comm, "%s: %s (%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros) on %d processes, %.1f s to generate\n", label, info.description, n, rowptr[n], size, info.seconds));

  /* T1: the whole matrix on process 0's GPU */
  if (rank == 0) {
    BenchMats m = {0};

    PetscCall(BenchCreateMat(PETSC_COMM_SELF, n, 0, n, rowptr, colidx, vals, &m.A));
    PetscCall(BenchMatsSetUp(&m));
    PetscCall(BenchTime(PETSC_COMM_SELF, &m, RUN_SEQUENTIAL, reps, trials, &t1));
    PetscCall(BenchMatsDestroy(&m));
  }
  PetscCallMPI(MPI_Bcast(&t1, 1, MPI_DOUBLE, 0, comm));
  PetscCall(PetscPrintf(comm, "  one GPU: %.4f ms per SpMV\n", t1));
  if (rank == 0 && csvpath[0]) {
    PetscBool exists;

    PetscCall(PetscTestFile(csvpath, 'r', &exists));
    csv = fopen(csvpath, "a");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csvpath);
    if (!exists) fprintf(csv, "matrix,rows,nnz,processes,partition,communication,t1_ms,tp_ms,mean_ms,stddev_ms,efficiency,nnz_min,nnz_max\n");
  }

  if (size > 1) {
    BenchMats   rows = {0}, *parts[2];
    BenchMats   nnzp = {0};
    const char *names[2] = {"rows (PCSR-I)", "nnz (PCSR-II)"};
    PetscInt    m = PETSC_DECIDE, rend;

    PetscCall(PetscSplitOwnership(comm, &m, &n)); /* PETSc's equal rows */
    PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(BenchCreateMat(comm, n, rend - m, rend, rowptr, colidx, vals, &rows.A));
    PetscCall(MatGpuMatsCreateRedistributed(rows.A, GPUMATS_PARTITION_NNZ, &nnzp.A));
    parts[0] = &rows;
    parts[1] = &nnzp;
    for (int p = 0; p < 2; p++) {
      MatInfo    minfo;
      PetscInt64 local, nmin, nmax;

      PetscCall(BenchMatsSetUp(parts[p]));
      PetscCall(MatGetInfo(parts[p]->A, MAT_LOCAL, &minfo));
      local = (PetscInt64)minfo.nz_used;
      PetscCallMPI(MPI_Allreduce(&local, &nmin, 1, MPIU_INT64, MPI_MIN, comm));
      PetscCallMPI(MPI_Allreduce(&local, &nmax, 1, MPIU_INT64, MPI_MAX, comm));
      for (int c = 0; c < 2; c++) {
        double ms, tp, sum, sum2, mean, sd, eff;

        PetscCall(BenchTime(comm, parts[p], c ? RUN_FULL : RUN_LOCAL, reps, trials, &ms));
        PetscCallMPI(MPI_Allreduce(&ms, &tp, 1, MPI_DOUBLE, MPI_MAX, comm));
        PetscCallMPI(MPI_Allreduce(&ms, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
        ms *= ms;
        PetscCallMPI(MPI_Allreduce(&ms, &sum2, 1, MPI_DOUBLE, MPI_SUM, comm));
        mean = sum / size;
        sd   = PetscSqrtReal(PetscMax(0.0, sum2 / size - mean * mean));
        eff  = t1 / (size * tp);
        PetscCall(PetscPrintf(comm, "  %-14s %s communication: T_P %.4f ms (processes: mean %.4f, standard deviation %.4f), efficiency %.1f%%, nonzeros per process %" PetscInt64_FMT "..%" PetscInt64_FMT "\n", names[p], c ? "with   " : "without", tp, mean, sd, 100 * eff, nmin, nmax));
        if (csv) fprintf(csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,%s,%s,%.5f,%.5f,%.5f,%.5f,%.4f,%" PetscInt64_FMT ",%" PetscInt64_FMT "\n", label, n, rowptr[n], size, p ? "nnz" : "rows", c ? "yes" : "no", t1, tp, mean, sd, eff, nmin, nmax);
      }
      PetscCall(BenchMatsDestroy(parts[p]));
    }
  }
  if (csv) fclose(csv);
  PetscCall(PetscFree(rowptr));
  PetscCall(PetscFree(colidx));
  PetscCall(PetscFree(vals));
  PetscCall(PetscFinalize());
  return 0;
}
