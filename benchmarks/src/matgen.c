/* The benchmarks' matrix set: see matgen.h.  Every random choice is a hash of
   (seed, row, entry) or (seed, edge), so the matrix does not depend on the number
   of threads or the order rows are made in. */
#include "matgen.h"
#include "bench_host.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
  #define MATGEN_OMP(...) _Pragma(#__VA_ARGS__)
#else
  #define MATGEN_OMP(...)
#endif

const char MatGenHelp[] = "    stencil5 N (2000)       2-D 5-point stencil, N x N grid (DMDA star structure)\n\
    stencil7 N (160)        3-D 7-point stencil, N^3 grid\n\
    stencil27 N (100)       3-D 27-point stencil, N^3 grid (DMDA box structure)\n\
    elasticity N (70)       3-D Q1 elasticity (KSP ex56), N^3 nodes, 3 dof a node, 81 nonzeros a row inside\n\
    navierstokes N (700)    driven cavity (SNES ex19), N x N nodes, 4 fields, 20 nonzeros a row inside\n\
    rmat S (20)             Graph500 R-MAT, 2^S rows, edge factor 16, power-law rows\n\
    circuit N (2000000)     N nodes, 2-6 near neighbours each, 4 nets on 1-5% of the nodes\n\
    fci                     the FCI matrix of -fcidump/-hubbard_* (size ignored)\n";

static unsigned long long MatGenMix(unsigned long long z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

unsigned long long MatGenRandom(unsigned long long *state)
{
  return MatGenMix(*state += 0x9e3779b97f4a7c15ULL);
}

double MatGenUniform(unsigned long long *state)
{
  return (double)(MatGenRandom(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* 64 random bits for (seed, a, b) */
static unsigned long long MatGenHash(unsigned long long seed, unsigned long long a, unsigned long long b)
{
  return MatGenMix(MatGenMix(seed + 0x9e3779b97f4a7c15ULL * (a + 1)) + 0x9e3779b97f4a7c15ULL * (b + 1));
}

static double MatGenUnit(unsigned long long bits) /* [0, 1) */
{
  return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

/* The value of entry (i, j): magnitude in [0.1, 1), random sign */
static PetscScalar MatGenValue(unsigned long long seed, PetscInt i, PetscInt j)
{
  const unsigned long long h   = MatGenHash(seed ^ 0x76616c7565ULL, (unsigned long long)i, (unsigned long long)j);
  const double             mag = 0.1 + 0.9 * MatGenUnit(h);

  return (h & 1) ? -mag : mag;
}

static PetscErrorCode MatGenCheckRows(const char *name, PetscInt size, PetscInt64 rows)
{
  PetscFunctionBegin;
  PetscCheck(size > 0 && rows > 0 && rows <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Matrix %s of size %" PetscInt_FMT ": %" PetscInt64_FMT " rows, need 1 to %" PetscInt_FMT, name, size, rows, PETSC_MAX_INT);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Matrices whose rows are made independently: row(ctx, r, cols) writes row r's columns,
   ascending and unique, to cols and returns their number; with cols NULL it only counts. */
typedef PetscInt (*MatGenRowFunction)(const void *ctx, PetscInt r, PetscInt *cols);

static PetscErrorCode MatGenFromRows(const char *name, PetscInt n, MatGenRowFunction row, const void *ctx, unsigned long long seed, PetscInt **rowptr_out, PetscInt **colidx_out, PetscScalar **vals_out)
{
  PetscInt    *rowptr, *colidx;
  PetscScalar *vals;
  PetscInt64   nnz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &rowptr));
  rowptr[0] = 0;
  MATGEN_OMP(omp parallel for schedule(dynamic, 1024))
  for (PetscInt r = 0; r < n; r++) rowptr[r + 1] = row(ctx, r, NULL);
  for (PetscInt r = 0; r < n; r++) nnz += rowptr[r + 1];
  PetscCheck(nnz <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Matrix %s has %" PetscInt64_FMT " nonzeros, more than PetscInt holds: use a smaller size", name, nnz);
  for (PetscInt r = 0; r < n; r++) rowptr[r + 1] += rowptr[r];
  PetscCall(PetscMalloc1((size_t)nnz, &colidx));
  PetscCall(PetscMalloc1((size_t)nnz, &vals));
  MATGEN_OMP(omp parallel for schedule(dynamic, 1024))
  for (PetscInt r = 0; r < n; r++) {
    row(ctx, r, colidx + rowptr[r]);
    for (PetscInt q = rowptr[r]; q < rowptr[r + 1]; q++) vals[q] = MatGenValue(seed, r, colidx[q]);
  }
  *rowptr_out = rowptr;
  *colidx_out = colidx;
  *vals_out   = vals;
  PetscFunctionReturn(0);
}

/* A DMDA-like grid (natural ordering: x fastest, then y, then z; dof interlaced):
   every field of a node coupled to every field of its stencil neighbours. */
typedef struct {
  PetscInt  nx, ny, nz, dof;
  PetscBool box; /* the 27-node (3-D) or 9-node (2-D) box, else the star */
} MatGenGrid;

static PetscInt MatGenGridRow(const void *ctx, PetscInt r, PetscInt *cols)
{
  const MatGenGrid *g    = (const MatGenGrid *)ctx;
  const PetscInt    node = r / g->dof, i = node % g->nx, j = (node / g->nx) % g->ny, k = node / (g->nx * g->ny);
  PetscInt          n    = 0;

  /* neighbours in lexicographic (z, y, x) order: ascending node numbers */
  for (PetscInt dk = -1; dk <= 1; dk++)
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        const PetscInt ii = i + di, jj = j + dj, kk = k + dk;

        if (ii < 0 || ii >= g->nx || jj < 0 || jj >= g->ny || kk < 0 || kk >= g->nz) continue;
        if (!g->box && PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk) > 1) continue;
        for (PetscInt f = 0; f < g->dof; f++, n++)
          if (cols) cols[n] = ((kk * g->ny + jj) * g->nx + ii) * g->dof + f;
      }
  return n;
}

static PetscErrorCode MatGenGridCreate(const char *name, PetscInt size, const MatGenGrid *g, unsigned long long seed, PetscInt *n, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals)
{
  PetscFunctionBegin;
  PetscCall(MatGenCheckRows(name, size, (PetscInt64)g->nx * g->ny * g->nz * g->dof));
  *n = g->nx * g->ny * g->nz * g->dof;
  PetscCall(MatGenFromRows(name, *n, MatGenGridRow, g, seed, rowptr, colidx, vals));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* Circuit-like: node i couples to itself and 2..6 random nodes within +-window (not
   symmetric); MATGEN_NETS nets (ground, supplies) sit at evenly spread nodes and join
   a random fraction of all nodes, both ways: dense rows and dense columns. */
#define MATGEN_NETS          4
#define MATGEN_CIRCUIT_SPAN  500
#define MATGEN_CIRCUIT_NEIGH 6
static const double MatGenNetFractions[MATGEN_NETS] = {0.05, 0.03, 0.02, 0.01};

typedef struct {
  PetscInt           n, window;
  unsigned long long seed;
  PetscInt           net[MATGEN_NETS];
  unsigned long long threshold[MATGEN_NETS]; /* node i is on net k when its hash is below */
} MatGenCircuit;

static PetscBool MatGenOnNet(const MatGenCircuit *c, int k, PetscInt i)
{
  return (PetscBool)(i != c->net[k] && MatGenHash(c->seed ^ 0x6e6574ULL, (unsigned long long)k, (unsigned long long)i) < c->threshold[k]);
}

/* Sorts a short list and drops repeats; returns the new length. */
static PetscInt MatGenSortUnique(PetscInt n, PetscInt *a)
{
  PetscInt u = 0;

  for (PetscInt i = 1; i < n; i++)
    for (PetscInt j = i; j > 0 && a[j - 1] > a[j]; j--) {
      const PetscInt t = a[j];

      a[j]     = a[j - 1];
      a[j - 1] = t;
    }
  for (PetscInt i = 0; i < n; i++)
    if (!u || a[u - 1] != a[i]) a[u++] = a[i];
  return u;
}

/* Row i without the members of a net it is: the diagonal, the neighbours, the nets i is on. */
static PetscInt MatGenCircuitBase(const MatGenCircuit *c, PetscInt i, PetscInt *cols)
{
  const PetscInt nneigh = 2 + (PetscInt)(MatGenHash(c->seed, (unsigned long long)i, 0) % 5);
  PetscInt       n      = 0;

  cols[n++] = i;
  for (PetscInt q = 0; q < nneigh; q++) {
    const unsigned long long h   = MatGenHash(c->seed, (unsigned long long)i, (unsigned long long)q + 1);
    const PetscInt           off = 1 + (PetscInt)((h >> 1) % (unsigned long long)c->window);
    PetscInt                 j   = (h & 1) ? i + off : i - off;

    if (j < 0 || j >= c->n) j = (h & 1) ? i - off : i + off; /* reflected at the ends */
    if (j >= 0 && j < c->n) cols[n++] = j;
  }
  for (int k = 0; k < MATGEN_NETS; k++)
    if (MatGenOnNet(c, k, i)) cols[n++] = c->net[k];
  return MatGenSortUnique(n, cols);
}

static PetscInt MatGenCircuitRow(const void *ctx, PetscInt r, PetscInt *cols)
{
  const MatGenCircuit *c = (const MatGenCircuit *)ctx;
  PetscInt             base[1 + MATGEN_CIRCUIT_NEIGH + MATGEN_NETS], nbase = MatGenCircuitBase(c, r, base), n = 0, b = 0;
  int                  net = -1;

  for (int k = 0; k < MATGEN_NETS; k++)
    if (c->net[k] == r) net = k;
  if (net < 0) {
    if (cols) memcpy(cols, base, (size_t)nbase * sizeof(PetscInt));
    return nbase;
  }
  /* a net's row: its own entries merged with every node on the net */
  for (PetscInt i = 0; i < c->n; i++) {
    if (!MatGenOnNet(c, net, i)) continue;
    for (; b < nbase && base[b] < i; b++, n++)
      if (cols) cols[n] = base[b];
    if (b < nbase && base[b] == i) b++;
    if (cols) cols[n] = i;
    n++;
  }
  for (; b < nbase; b++, n++)
    if (cols) cols[n] = base[b];
  return n;
}

/* ------------------------------------------------------------------------ */
/* Graph500's Kronecker (R-MAT) generator: each of 16 * 2^scale edges picks one quadrant
   of the adjacency matrix per level with probabilities a, b, c, d (the per-level noise of
   the reference code left out); vertex labels randomly permuted as in Graph500. */
static int MatGenCompareInt(const void *a, const void *b)
{
  const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;

  return (x > y) - (x < y);
}

static PetscErrorCode MatGenRMAT(PetscInt scale, unsigned long long seed, PetscInt *nrows, PetscInt **rowptr_out, PetscInt **colidx_out, PetscScalar **vals_out)
{
  const double       a = 0.57, b = 0.19, c = 0.19; /* d = 0.05 */
  PetscInt           n, *perm, *erow, *ecol, *count, *fill, *colidx, *unique, *rowptr, *cols;
  PetscInt64         m, nnz = 0;
  PetscScalar       *vals;
  unsigned long long state = seed;

  PetscFunctionBegin;
  PetscCheck(scale >= 1 && scale <= 26, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Matrix rmat: scale %" PetscInt_FMT ", need 1 to 26 (16 * 2^scale edges must fit PetscInt)", scale);
  n = (PetscInt)1 << scale;
  m = 16 * (PetscInt64)n;
  PetscCall(PetscMalloc1(n, &perm));
  for (PetscInt i = 0; i < n; i++) perm[i] = i;
  for (PetscInt i = n - 1; i > 0; i--) { /* Fisher-Yates */
    const PetscInt j = (PetscInt)(MatGenRandom(&state) % (unsigned long long)(i + 1)), t = perm[i];

    perm[i] = perm[j];
    perm[j] = t;
  }
  PetscCall(PetscMalloc2((size_t)m, &erow, (size_t)m, &ecol));
  MATGEN_OMP(omp parallel for schedule(static))
  for (PetscInt64 e = 0; e < m; e++) {
    unsigned long long s = MatGenHash(seed, (unsigned long long)e, 0);
    PetscInt           r = 0, col = 0;

    for (PetscInt level = 0; level < scale; level++) {
      const double u = MatGenUnit(MatGenRandom(&s));

      r <<= 1;
      col <<= 1;
      if (u >= a + b + c) {
        r |= 1;
        col |= 1;
      } else if (u >= a + b) r |= 1;
      else if (u >= a) col |= 1;
    }
    erow[e] = perm[r];
    ecol[e] = perm[col];
  }
  PetscCall(PetscFree(perm));

  /* bucket the edges by row, then sort each row and merge duplicates */
  PetscCall(PetscCalloc1(n + 1, &count));
  MATGEN_OMP(omp parallel for schedule(static))
  for (PetscInt64 e = 0; e < m; e++) {
    MATGEN_OMP(omp atomic)
    count[erow[e] + 1]++;
  }
  for (PetscInt r = 0; r < n; r++) count[r + 1] += count[r];
  PetscCall(PetscMalloc1(n, &fill));
  PetscCall(PetscArraycpy(fill, count, n));
  PetscCall(PetscMalloc1((size_t)m, &cols));
  MATGEN_OMP(omp parallel for schedule(static))
  for (PetscInt64 e = 0; e < m; e++) {
    PetscInt p;

    MATGEN_OMP(omp atomic capture)
    p = fill[erow[e]]++;
    cols[p] = ecol[e];
  }
  PetscCall(PetscFree2(erow, ecol));
  PetscCall(PetscFree(fill));
  PetscCall(PetscMalloc1(n, &unique));
  MATGEN_OMP(omp parallel for schedule(dynamic, 256))
  for (PetscInt r = 0; r < n; r++) {
    PetscInt *row = cols + count[r], len = count[r + 1] - count[r], u = 0;

    qsort(row, (size_t)len, sizeof(PetscInt), MatGenCompareInt);
    for (PetscInt q = 0; q < len; q++)
      if (!u || row[u - 1] != row[q]) row[u++] = row[q];
    unique[r] = u;
  }
  PetscCall(PetscMalloc1(n + 1, &rowptr));
  rowptr[0] = 0;
  for (PetscInt r = 0; r < n; r++) rowptr[r + 1] = rowptr[r] + unique[r];
  nnz = rowptr[n];
  PetscCall(PetscMalloc1((size_t)nnz, &colidx));
  PetscCall(PetscMalloc1((size_t)nnz, &vals));
  MATGEN_OMP(omp parallel for schedule(dynamic, 256))
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt q = 0; q < unique[r]; q++) {
      colidx[rowptr[r] + q] = cols[count[r] + q];
      vals[rowptr[r] + q]   = MatGenValue(seed, r, cols[count[r] + q]);
    }
  PetscCall(PetscFree(cols));
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(unique));
  *nrows      = n;
  *rowptr_out = rowptr;
  *colidx_out = colidx;
  *vals_out   = vals;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
PetscErrorCode MatGenCreate(const char *name, PetscInt size, unsigned long long seed, MatGenInfo *info, PetscInt *nrows, PetscInt *ncols, PetscInt **rowptr, PetscInt **colidx, PetscScalar **vals)
{
  const struct {
    const char *name;
    PetscInt    size;
  } defaults[] = {
    {"stencil5",     2000   },
    {"stencil7",     160    },
    {"stencil27",    100    },
    {"elasticity",   70     },
    {"navierstokes", 700    },
    {"rmat",         20     },
    {"circuit",      2000000},
    {"fci",          0      }
  };
  const char    *domain = "built directly, no DM: the structure of a DMDA (natural ordering, dof interlaced, one process, no periodicity)";
  char          *d      = info->description;
  const size_t   dlen   = sizeof(info->description);
  PetscBool      known  = PETSC_FALSE;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscCall(PetscStrncpy(info->name, name, sizeof(info->name)));
  for (size_t k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
    if (!strcmp(name, defaults[k].name)) {
      known      = PETSC_TRUE;
      info->size = size > 0 ? size : defaults[k].size;
    }
  PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown matrix '%s'; the names:\n%s", name, MatGenHelp);
  size          = info->size;
  info->threads = BenchHostThreads();
  PetscCall(PetscTime(&t0));
  if (!strcmp(name, "stencil5") || !strcmp(name, "stencil7") || !strcmp(name, "stencil27") || !strcmp(name, "elasticity") || !strcmp(name, "navierstokes")) {
    const PetscBool three_d = (PetscBool)(strcmp(name, "stencil5") && strcmp(name, "navierstokes"));
    MatGenGrid      g       = {size, size, three_d ? size : 1, 1, PETSC_FALSE};

    if (!strcmp(name, "stencil27")) g.box = PETSC_TRUE;
    if (!strcmp(name, "elasticity")) {
      g.box = PETSC_TRUE;
      g.dof = 3;
    }
    if (!strcmp(name, "navierstokes")) g.dof = 4;
    PetscCall(MatGenGridCreate(name, size, &g, seed, nrows, rowptr, colidx, vals));
    if (!strcmp(name, "stencil5")) snprintf(d, dlen, "2-D 5-point stencil on a %dx%d grid; %s", (int)size, (int)size, domain);
    else if (!strcmp(name, "stencil7")) snprintf(d, dlen, "3-D 7-point stencil on a %dx%dx%d grid; %s", (int)size, (int)size, (int)size, domain);
    else if (!strcmp(name, "stencil27")) snprintf(d, dlen, "3-D 27-point stencil on a %dx%dx%d grid (DMDA box stencil); %s", (int)size, (int)size, (int)size, domain);
    else if (!strcmp(name, "elasticity"))
      snprintf(d, dlen, "3-D Q1 hexahedral elasticity as KSP ex56: %dx%dx%d nodes, 3 dof a node, each node coupled to the 27 nodes of its 8 elements (81 nonzeros a row inside); %s", (int)size, (int)size, (int)size, domain);
    else snprintf(d, dlen, "driven cavity as SNES ex19: %dx%d nodes, 4 fields (u, v, vorticity, temperature), 5-point star, every field coupled to every field (20 nonzeros a row inside); %s", (int)size, (int)size, domain);
  } else if (!strcmp(name, "rmat")) {
    PetscCall(MatGenRMAT(size, seed, nrows, rowptr, colidx, vals));
    snprintf(d, dlen, "R-MAT (Graph500 Kronecker, a=0.57 b=0.19 c=0.19 d=0.05, no per-level noise), scale %d: %d vertices, 16 x %d directed edges, labels randomly permuted, duplicates merged, self-loops kept", (int)size, (int)*nrows, (int)*nrows);
  } else if (!strcmp(name, "circuit")) {
    MatGenCircuit c;

    PetscCheck(size >= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Matrix circuit: %" PetscInt_FMT " nodes, need at least 64", size);
    c.n      = size;
    c.window = PetscMin(MATGEN_CIRCUIT_SPAN, size - 1);
    c.seed   = seed;
    for (int k = 0; k < MATGEN_NETS; k++) {
      c.net[k]       = (PetscInt)((2 * k + 1) * (PetscInt64)size / (2 * MATGEN_NETS));
      c.threshold[k] = (unsigned long long)(MatGenNetFractions[k] * 18446744073709551616.0);
    }
    *nrows = size;
    PetscCall(MatGenFromRows(name, size, MatGenCircuitRow, &c, seed, rowptr, colidx, vals));
    snprintf(d, dlen, "circuit-like, %d nodes: the diagonal and 2-6 random nodes within +-%d (not symmetric), plus %d nets (dense rows and columns at evenly spread nodes) joined to 5%%, 3%%, 2%%, 1%% of the nodes", (int)size, (int)c.window, MATGEN_NETS);
  } else {
    BenchFCIInfo fci;

    PetscCall(BenchFCIMatrix(&fci, nrows, rowptr, colidx, vals));
    PetscCheck(fci.used, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Matrix fci: give -fcidump <file> (and -fci_sector ...) or -hubbard_lx/-hubbard_ly");
    info->threads = fci.threads;
    PetscCall(PetscStrncpy(d, fci.description, dlen));
  }
  PetscCall(PetscTime(&t1));
  *ncols        = *nrows;
  info->seconds = t1 - t0;
  PetscFunctionReturn(0);
}

PetscErrorCode MatGenCheckCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscInt64 *zeros)
{
  PetscFunctionBegin;
  *zeros = 0;
  PetscCheck(rowptr[0] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR: rowptr[0] is %" PetscInt_FMT ", not 0", rowptr[0]);
  for (PetscInt i = 0; i < nrows; i++) {
    PetscCheck(rowptr[i + 1] >= rowptr[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR: row %" PetscInt_FMT " ends (%" PetscInt_FMT ") before it starts (%" PetscInt_FMT ")", i, rowptr[i + 1], rowptr[i]);
    for (PetscInt q = rowptr[i]; q < rowptr[i + 1]; q++) {
      PetscCheck(colidx[q] >= 0 && colidx[q] < ncols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR: row %" PetscInt_FMT " has column %" PetscInt_FMT ", outside [0, %" PetscInt_FMT ")", i, colidx[q], ncols);
      PetscCheck(q == rowptr[i] || colidx[q] > colidx[q - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR: row %" PetscInt_FMT ": column %" PetscInt_FMT " after %" PetscInt_FMT " (columns must ascend, without repeats)", i, colidx[q], colidx[q - 1]);
      PetscCheck(!PetscIsInfOrNanScalar(vals[q]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR: row %" PetscInt_FMT ", column %" PetscInt_FMT ": value %g is not finite", i, colidx[q], (double)PetscRealPart(vals[q]));
      if (vals[q] == 0.0) (*zeros)++;
    }
  }
  PetscFunctionReturn(0);
}
