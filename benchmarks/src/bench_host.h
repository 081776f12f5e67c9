/* Host side of benchmarks/src/bench_cihybrid (plain C, OpenMP where the compiler has
   it): the FCI matrices (-fcidump, -hubbard_*) as a host CSR matrix built row
   by row with the FCI row generator, and a row-parallel reference product for
   blocks of columns. */
#pragma once
#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct {
  PetscBool used;             /* -fcidump or a -hubbard_* option was given */
  char      description[512]; /* source, determinants, sector, ordering */
  double    setup_seconds;    /* integrals, determinant space, row-generator tables */
  double    rows_seconds;     /* the rows into CSR */
  int       threads;          /* OpenMP threads of the row sweep (1 without OpenMP) */
  PetscInt  maxlen;           /* the generator's bound on a row's length */
} BenchFCIInfo;

/* The matrix of -fcidump <file> (with -fci_sector, -fci_ordering, -fci_reference of
   FCIDetSpaceOptionsSetFromOptions) or of the Hubbard model of -hubbard_lx/-hubbard_ly
   (-hubbard_t, -hubbard_u; open boundaries, half filling).  Without any of these options
   info->used is false and nothing is allocated.  The arrays come from PetscMalloc1
   (columns ascending in each row, explicit zeros dropped but the diagonal kept). */
PetscErrorCode BenchFCIMatrix(BenchFCIInfo *info, PetscInt *n, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals);

/* C = A B and absC = |A||B| for k columns: B (ncols x k, leading dimension ldb), C and
   absC (nrows x k, leading dimension ldc), column-major; rows in parallel. */
void BenchCSRMultBlock(PetscInt nrows, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscInt k, const double *B, PetscInt ldb, double *C, double *absC, PetscInt ldc);

/* Threads the OpenMP loops above use (1 without OpenMP). */
int BenchHostThreads(void);

#if defined(__cplusplus)
}
#endif
