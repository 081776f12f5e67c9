/* Host side of benchmarks/src/bench_cihybrid: see bench_host.h. */
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

/* The whole matrix as CSR: the row lengths, then the rows (both sweeps in parallel). */
static PetscErrorCode BenchFCIRows(FCIRowGenerator gen, PetscInt n, PetscInt **rowptr_out, PetscInt **colidx_out, PetscScalar **vals_out)
{
  PetscInt   *len, *rowptr;
  PetscInt64 *offset;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &len, n + 1, &offset));
  PetscCall(FCIRowGeneratorCountRows(gen, 0, n, 0, n, len, NULL, NULL, NULL));
  offset[0] = 0;
  for (PetscInt i = 0; i < n; i++) offset[i + 1] = offset[i] + len[i];
  PetscCheck(offset[n] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The FCI matrix has %" PetscInt64_FMT " nonzeros, more than PetscInt holds (%" PetscInt_FMT ")", offset[n], PETSC_MAX_INT);
  PetscCall(PetscMalloc1(n + 1, &rowptr));
  for (PetscInt i = 0; i <= n; i++) rowptr[i] = (PetscInt)offset[i];
  PetscCall(PetscMalloc1((size_t)offset[n], colidx_out));
  PetscCall(PetscMalloc1((size_t)offset[n], vals_out));
  PetscCall(FCIRowGeneratorGetRows(gen, 0, n, offset, *colidx_out, *vals_out));
  PetscCall(PetscFree2(len, offset));
  *rowptr_out = rowptr;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchFCIMatrix(BenchFCIInfo *info, PetscInt *n, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals)
{
  char               fcidump[PETSC_MAX_PATH_LEN] = "", sector[64] = "no symmetry restriction";
  PetscBool          has_fcidump, hubbard = PETSC_FALSE, set;
  FCIHubbardSpec     hs = {3, 4, PETSC_FALSE, PETSC_FALSE, 1.0, 8.0, 0, 0, FCI_HUBBARD_WRAP_BOND};
  FCIIntegrals      *ints;
  FCIDetSpaceOptions opts;
  FCIDetSpace       *space;
  FCIRowGenerator    gen;
  PetscLogDouble     t0, t1, t2;
  PetscInt           nthreads;
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
  PetscCall(FCIRowGeneratorGetThreads(gen, &nthreads));
  info->threads = (int)nthreads;
  PetscCall(BenchFCIRows(gen, space->ndet, rowptr, colidx, vals));
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
