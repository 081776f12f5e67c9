/* Host side of examples/bench_cihybrid: see bench_host.h. */
#include "bench_host.h"
#include "fci.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
  #include <omp.h>
  #define BENCH_OMP(...) _Pragma(#__VA_ARGS__)
#else
  #define BENCH_OMP(...)
#endif

int BenchHostThreads(void)
{
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* The rows of one chunk, in plain malloc memory (threads allocate them). */
typedef struct {
  PetscInt    *cols;
  PetscScalar *vals;
  size_t       nnz;
} BenchRowChunk;

/* Rows in chunks of consecutive rows, handed out dynamically to the threads; each
   chunk grows its own buffers, then the chunks are copied into the final arrays.
   rowptr[i+1] holds the length of row i until the prefix sum. */
static PetscErrorCode BenchFCIRows(FCIRowGenerator gen, PetscBool need_work, PetscInt maxlen, PetscInt n, PetscInt **rowptr_out, PetscInt **colidx_out, PetscScalar **vals_out)
{
  const PetscInt nchunks = PetscMax(1, PetscMin(n, 64 * (PetscInt)BenchHostThreads()));
  BenchRowChunk *chunks;
  PetscInt      *rowptr, *colidx = NULL;
  PetscScalar   *vals = NULL;
  PetscInt64     total = 0;
  int            failed = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &rowptr));
  PetscCall(PetscCalloc1(nchunks, &chunks));
  rowptr[0] = 0;
  BENCH_OMP(omp parallel)
  {
    PetscInt      *wcols = NULL;
    PetscScalar   *wvals = NULL;
    unsigned char *wlev  = NULL;

    if (need_work) { /* the excitation ordering's work rows, one set per thread */
      wcols = (PetscInt *)malloc((size_t)maxlen * sizeof(PetscInt));
      wvals = (PetscScalar *)malloc((size_t)maxlen * sizeof(PetscScalar));
      wlev  = (unsigned char *)malloc((size_t)maxlen);
      if (!wcols || !wvals || !wlev) {
        BENCH_OMP(omp atomic write)
        failed = 1;
      }
    }
    BENCH_OMP(omp for schedule(dynamic, 1))
    for (PetscInt c = 0; c < nchunks; c++) {
      const PetscInt lo = (PetscInt)((PetscInt64)n * c / nchunks), hi = (PetscInt)((PetscInt64)n * (c + 1) / nchunks);
      size_t         cap = (size_t)(hi - lo) * (size_t)PetscMin(maxlen, 64) + (size_t)maxlen, used = 0;
      PetscInt      *cols;
      PetscScalar   *vv;
      int            stop;

      BENCH_OMP(omp atomic read)
      stop = failed;
      if (stop || lo == hi) continue;
      cols = (PetscInt *)malloc(cap * sizeof(PetscInt));
      vv   = (PetscScalar *)malloc(cap * sizeof(PetscScalar));
      for (PetscInt i = lo; i < hi && cols && vv; i++) {
        if (used + (size_t)maxlen > cap) {
          const size_t newcap = cap + cap / 2 + (size_t)maxlen;
          PetscInt    *c2     = (PetscInt *)realloc(cols, newcap * sizeof(PetscInt));
          PetscScalar *v2;

          if (!c2) break; /* cols is still valid: freed below */
          cols = c2;
          v2   = (PetscScalar *)realloc(vv, newcap * sizeof(PetscScalar));
          if (!v2) break;
          vv  = v2;
          cap = newcap;
        }
        rowptr[i + 1] = FCIRowGeneratorGetRowThreadSafe(gen, i, cols + used, vv + used, wcols, wvals, wlev);
        used += (size_t)rowptr[i + 1];
        if (i + 1 == hi) { /* complete */
          chunks[c].cols = cols;
          chunks[c].vals = vv;
          chunks[c].nnz  = used;
          cols           = NULL;
          vv             = NULL;
        }
      }
      if (cols || vv || !chunks[c].cols) { /* a failed allocation left the chunk incomplete */
        free(cols);
        free(vv);
        BENCH_OMP(omp atomic write)
        failed = 1;
      }
    }
    free(wcols);
    free(wvals);
    free(wlev);
  }
  if (!failed) {
    for (PetscInt c = 0; c < nchunks; c++) total += (PetscInt64)chunks[c].nnz;
    if (total <= PETSC_MAX_INT) {
      PetscCall(PetscMalloc1((size_t)total, &colidx));
      PetscCall(PetscMalloc1((size_t)total, &vals));
      for (PetscInt i = 0; i < n; i++) rowptr[i + 1] += rowptr[i];
      BENCH_OMP(omp parallel for schedule(dynamic, 1))
      for (PetscInt c = 0; c < nchunks; c++) {
        const PetscInt lo = (PetscInt)((PetscInt64)n * c / nchunks);

        if (chunks[c].nnz) {
          memcpy(colidx + rowptr[lo], chunks[c].cols, chunks[c].nnz * sizeof(PetscInt));
          memcpy(vals + rowptr[lo], chunks[c].vals, chunks[c].nnz * sizeof(PetscScalar));
        }
      }
    }
  }
  for (PetscInt c = 0; c < nchunks; c++) {
    free(chunks[c].cols);
    free(chunks[c].vals);
  }
  PetscCall(PetscFree(chunks));
  if (failed || total > PETSC_MAX_INT) PetscCall(PetscFree(rowptr));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory while generating the FCI rows");
  PetscCheck(total <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The FCI matrix has %" PetscInt64_FMT " nonzeros, more than PetscInt holds (%" PetscInt_FMT ")", total, PETSC_MAX_INT);
  *rowptr_out = rowptr;
  *colidx_out = colidx;
  *vals_out   = vals;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchFCIMatrix(BenchFCIInfo *info, PetscInt *n, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals)
{
  char               fcidump[PETSC_MAX_PATH_LEN] = "", sector[64] = "no symmetry restriction";
  PetscBool          has_fcidump, hubbard = PETSC_FALSE, set;
  FCIHubbardSpec     hs = {3, 4, PETSC_FALSE, PETSC_FALSE, 1.0, 8.0, 0, 0};
  FCIIntegrals      *ints;
  FCIDetSpaceOptions opts;
  FCIDetSpace       *space;
  FCIRowGenerator    gen;
  PetscLogDouble     t0, t1, t2;
  size_t             len;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fcidump", fcidump, sizeof(fcidump), &has_fcidump));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-hubbard_lx", &hs.nx, &set));
  hubbard = (PetscBool)(hubbard || set);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-hubbard_ly", &hs.ny, &set));
  hubbard = (PetscBool)(hubbard || set);
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-hubbard_t", &hs.t, &set));
  hubbard = (PetscBool)(hubbard || set);
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-hubbard_u", &hs.U, &set));
  hubbard = (PetscBool)(hubbard || set);
  if (!has_fcidump && !hubbard) PetscFunctionReturn(0);
  PetscCheck(!(has_fcidump && hubbard), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Give one matrix source: -fcidump or -hubbard_*");
  PetscCheck(!has_fcidump || fcidump[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-fcidump needs a file name");
  info->used = PETSC_TRUE;

  PetscCall(PetscTime(&t0));
  if (hubbard) {
    PetscCheck(hs.nx > 0 && hs.ny > 0 && hs.nx * hs.ny <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Hubbard lattice %" PetscInt_FMT "x%" PetscInt_FMT ": sides must be positive, at most 64 sites", hs.nx, hs.ny);
    hs.nup   = (hs.nx * hs.ny + 1) / 2; /* half filling */
    hs.ndown = (hs.nx * hs.ny) / 2;
    PetscCall(FCIHubbardCreate(&hs, &ints));
    snprintf(info->description, sizeof(info->description), "Hubbard %dx%d (open, t %g, U %g, %d+%d electrons)", (int)hs.nx, (int)hs.ny, (double)hs.t, (double)hs.U, (int)hs.nup, (int)hs.ndown); /* C's %g: PETSc's prints 1. for 1 */
  } else {
    const char *base = strrchr(fcidump, '/');

    PetscCall(FCIDumpRead(PETSC_COMM_SELF, fcidump, &ints));
    PetscCall(PetscSNPrintf(info->description, sizeof(info->description), "FCIDUMP %s (%" PetscInt_FMT " orbitals, %" PetscInt_FMT " electrons, MS2 %" PetscInt_FMT ", ISYM %" PetscInt_FMT ")", base ? base + 1 : fcidump, ints->norb, ints->nelec, ints->ms2, ints->isym));
  }
  PetscCall(FCIDetSpaceOptionsDefault(&opts));
  PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_SELF, NULL, &opts));
  PetscCall(FCIDetSpaceCreate(ints, &opts, &space));
  PetscCall(FCIRowGeneratorCreate(ints, space, 0.0, &gen));
  PetscCall(FCIRowGeneratorGetMaxRowLength(gen, &info->maxlen));
  PetscCall(PetscTime(&t1));
  info->threads = BenchHostThreads();
  PetscCall(BenchFCIRows(gen, space->perm ? PETSC_TRUE : PETSC_FALSE, info->maxlen, space->ndet, rowptr, colidx, vals));
  PetscCall(PetscTime(&t2));
  info->setup_seconds = t1 - t0;
  info->rows_seconds  = t2 - t1;
  *n                  = space->ndet;
  if (space->restricted) PetscCall(PetscSNPrintf(sector, sizeof(sector), "irrep %" PetscInt_FMT, space->sector + 1));
  PetscCall(PetscStrlen(info->description, &len));
  PetscCall(PetscSNPrintf(info->description + len, sizeof(info->description) - len, ", %" PetscInt_FMT " determinants (%s, %s ordering)", space->ndet, sector, space->ordering == FCI_ORDER_EXCITATION ? "excitation" : "lexical"));
  PetscCall(FCIRowGeneratorDestroy(&gen));
  PetscCall(FCIDetSpaceDestroy(&space));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

void BenchCSRMultBlock(PetscInt nrows, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscInt k, const double *B, PetscInt ldb, double *C, double *absC, PetscInt ldc)
{
  BENCH_OMP(omp parallel for schedule(dynamic, 256))
  for (PetscInt i = 0; i < nrows; i++)
    for (PetscInt j = 0; j < k; j++) {
      const double *b = B + (size_t)j * (size_t)ldb;
      double        s = 0.0, a = 0.0;

      for (PetscInt q = rowptr[i]; q < rowptr[i + 1]; q++) {
        const double t = vals[q] * b[colidx[q]];

        s += t;
        a += fabs(t);
      }
      C[(size_t)j * (size_t)ldc + i]    = s;
      absC[(size_t)j * (size_t)ldc + i] = a;
    }
}
