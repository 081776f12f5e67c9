/* The matrix set of the SpMV benchmarks (benchmarks/src/bench_pcsr): structured (PDE
   stencils, elasticity, a multi-field flow problem), power-law (R-MAT), circuit-like
   and CI Hamiltonians, each a host CSR matrix built by name with a size parameter.
   Deterministic (hash-based values and edges: the same matrix on any number of
   OpenMP threads), values random but nonzero, columns ascending and unique in each row.
   Plain C, OpenMP where the compiler has it. */
#pragma once
#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct {
  char     name[32];         /* as given to MatGenCreate */
  PetscInt size;             /* the size parameter actually used (the default when 0 was given) */
  char     description[512]; /* one line: how the matrix was made */
  double   seconds;          /* generation time on the host */
  int      threads;          /* OpenMP threads of the generation (1 without OpenMP) */
} MatGenInfo;

/* One line per matrix name: what the size parameter means and its default (for -help). */
extern const char MatGenHelp[];

/* The matrix 'name' of parameter 'size' (0: the default size of that name), as CSR:
   rowptr (nrows + 1), colidx and vals (rowptr[nrows]), from PetscMalloc1.  Names:
     stencil5 N      2-D 5-point stencil on an N x N grid
     stencil7 N      3-D 7-point stencil on an N x N x N grid
     stencil27 N     3-D 27-point stencil on an N x N x N grid
     elasticity N    3-D Q1 elasticity on N x N x N nodes, 3 dof a node (81 a row inside)
     navierstokes N  driven cavity (SNES ex19): 4 fields on N x N nodes, 5-point star (20 a row inside)
     rmat S          Graph500 R-MAT graph of 2^S vertices, edge factor 16
     circuit N       N nodes: 2-6 near neighbours each, plus 4 nets on 1-5% of the nodes
     fci             the FCI matrix of -fcidump / -hubbard_* (benchmarks/src/bench_host.h; size ignored) */
PetscErrorCode MatGenCreate(const char *name, PetscInt size, unsigned long long seed, MatGenInfo *info, PetscInt *nrows, PetscInt *ncols, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals);

/* Checks a CSR matrix: rowptr[0] == 0 and nondecreasing, columns in [0, ncols) and
   strictly ascending in each row, values finite (an error saying which row otherwise);
   returns the number of explicit zeros. */
PetscErrorCode MatGenCheckCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscInt64 *zeros);

/* The benchmarks' random numbers (splitmix64): the next 64 bits of the stream 'state',
   and a double uniform in [-1, 1) from them. */
unsigned long long MatGenRandom(unsigned long long *state);
double             MatGenUniform(unsigned long long *state);

#if defined(__cplusplus)
}
#endif
