/* Matrices that change (issue 20): a 3-D DMDA operator from DMCreateMatrix whose values are
   replaced, on the same pattern, step after step, each step followed by MatMults: what a
   time-stepping or Newton code does to its matrix.  The matrix type comes from -dm_mat_type
   (aij, aijcusparse, pcsr, cihybrid, diag; the gpumats types loaded with -dll_append): the
   program is the same for all.

     bench_refresh -n 160 -stencil star -dm_mat_type pcsr -dll_append libgpumats.so
                   [-dof 1] [-path setvalues|coo] [-coo_memory device|host] [-steps 20] [-mults 50]
                   [-shift 0.5] [-warmup 1] [-dm_vec_type cuda|standard] [-label TEXT] [-csv FILE]

   The values of step s (s = 0 at creation, 1..steps in the loop): -(1 + 0.01 q)(1 + 0.01 s) for
   the q-th neighbour of the stencil, 2 (neighbours)(1 + 0.01 s) + shift s + 0.001 ((i+j+k) mod 5)
   on the diagonal, so that every entry changes every step and a misplaced one shows.  With -dof d
   (an elasticity-like operator: d unknowns a point, each row coupled to all d unknowns of the point
   and of each neighbour) the entry of component c2 in component c's row is the above times
   0.25 + 0.05 (c + 2 c2) for c2 != c, -(0.25 + 0.05 (c + 2 c2))(1 + 0.01 s) at the point itself.
   Each step (a) puts the new values in:
     -path setvalues  MatSetValuesStencil row by row (INSERT_VALUES), MatAssemblyBegin/End;
     -path coo        the values of all entries into one array (in the order of the COO pattern
                      given once with MatSetPreallocationCOO after DMCreateMatrix), then
                      MatSetValuesCOO; with a PETSc with CUDA the array passed is on the device
                      (a host array copied with cudaMemcpy each step, -coo_memory device, the
                      default there) or the host array itself (-coo_memory host);
   then (b) -mults MatMults y = A x.
   Timed (wall clock, the device synchronised with cudaDeviceSynchronize before each reading
   where PETSc has CUDA, and the ranks with a barrier):
     create_s        DMCreateMatrix and the first values (with the COO preallocation for -path coo);
     first_mult_s    the first MatMult after that (the format built and uploaded);
     update_s        the sum over the steps of (a), host work and whatever device work it started;
     refresh_mult_s  the sum over the steps of the first MatMult after (a): the refresh as the
                     user pays it;
     steady_mult_ms  the median of all other MatMults;
     total_s         the whole: creation to the end of the last step.
   -warmup (default on) first makes, fills and multiplies a 4^3 matrix of the same type, so that
   the one-time costs of a program (CUDA context, library handles) do not land in first_mult_s.
   After the loop the product is checked twice against MATAIJ: a MatConvert copy of the matrix
   (the format against its own values) and the same copy refilled with the values of the last
   step by MatSetValues (the values against what they should be); a relative error above 1e-12
   stops the program with an error (no CSV line).  One line of results a run; -csv FILE appends
   it, -label names the configuration. */
#include <petscdmda.h>
#include "bench_stencil.h"
#include <petscmat.h>
#if defined(PETSC_HAVE_CUDA)
  #include <cuda_runtime.h>
#endif

#define BENCH_MAX_DOF 4 /* -dof at most */

#if !PETSC_VERSION_GE(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

static const char help[] = "DMDA operator whose values change step after step: value update (MatSetValuesStencil or MatSetValuesCOO) and MatMults, each timed\n";

typedef struct {
  PetscBool box;       /* 27-point operator, else 7-point */
  PetscInt  dof;       /* unknowns a grid point, each coupled to every one of its neighbours' */
  PetscReal shift;     /* the diagonal moves by shift * step */
  BenchStencil st;      /* its neighbours */
} Problem;

typedef struct {
  PetscBool   device; /* there is a GPU to synchronise */
  PetscMPIInt size;
} Clock;

static inline PetscScalar OffDiagonal(PetscInt q, PetscInt step)
{
  return -(1.0 + 0.01 * (PetscReal)q) * (1.0 + 0.01 * (PetscReal)step);
}

/* the weight of component c2 in component c's equation, c2 != c (an elasticity-like coupling of
   the unknowns of a point and of its neighbours) */
static inline PetscScalar Coupling(PetscInt c, PetscInt c2)
{
  return 0.25 + 0.05 * (PetscReal)(c + 2 * c2);
}

static inline PetscScalar Diagonal(const Problem *p, PetscInt i, PetscInt j, PetscInt k, PetscInt step)
{
  return 2.0 * (PetscReal)p->st.nnb * (1.0 + 0.01 * (PetscReal)step) + p->shift * (PetscReal)step + 0.001 * (PetscReal)((i + j + k) % 5);
}

/* The entries of the locally owned rows, row by row (the neighbours in stencil order, the diagonal
   last), as calls of visit(row, the columns, the values): one definition of the pattern and the
   values for both paths and the check */
typedef PetscErrorCode (*RowVisitor)(void *ctx, const MatStencil *row, PetscInt n, const MatStencil *col, const PetscScalar *v);

static PetscErrorCode ForEachRow(DM da, const Problem *p, PetscInt step, RowVisitor visit, void *ctx)
{
  DMDALocalInfo info;
  MatStencil    row, col[27 * BENCH_MAX_DOF];
  PetscScalar   v[27 * BENCH_MAX_DOF];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++)
        for (PetscInt c = 0; c < p->dof; c++) {
          PetscInt n = 0;

          row.i = i;
          row.j = j;
          row.k = k;
          row.c = c;
          for (PetscInt q = 0; q < p->st.nnb; q++) {
            if (!BenchInside(&info, i + p->st.nb[q][0], j + p->st.nb[q][1], k + p->st.nb[q][2])) continue;
            for (PetscInt c2 = 0; c2 < p->dof; c2++) {
              col[n].i = i + p->st.nb[q][0];
              col[n].j = j + p->st.nb[q][1];
              col[n].k = k + p->st.nb[q][2];
              col[n].c = c2;
              v[n++]   = OffDiagonal(q, step) * (c2 == c ? 1.0 : Coupling(c, c2));
            }
          }
          for (PetscInt c2 = 0; c2 < p->dof; c2++) {
            col[n]   = row;
            col[n].c = c2;
            v[n++]   = c2 == c ? Diagonal(p, i, j, k, step) : -Coupling(c, c2) * (1.0 + 0.01 * (PetscReal)step);
          }
          PetscCall(visit(ctx, &row, n, col, v));
        }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -path setvalues: one MatSetValuesStencil a row */
static PetscErrorCode SetRowStencil(void *ctx, const MatStencil *row, PetscInt n, const MatStencil *col, const PetscScalar *v)
{
  PetscFunctionBeginUser;
  PetscCall(MatSetValuesStencil((Mat)ctx, 1, row, n, col, v, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FillStencil(DM da, const Problem *p, PetscInt step, Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(ForEachRow(da, p, step, SetRowStencil, A));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO entries: global row and column indices (the DMDA's local-to-global map of the ghosted
   points) and the values, in ForEachRow's order */
typedef struct {
  DMDALocalInfo          info;
  ISLocalToGlobalMapping l2g;
  PetscCount             n;
  PetscInt              *i, *j; /* NULL: values only */
  PetscScalar           *v;
} COO;

static inline PetscInt GhostedIndex(const DMDALocalInfo *info, const MatStencil *s)
{
  return (((s->k - info->gzs) * info->gym + (s->j - info->gys)) * info->gxm + (s->i - info->gxs)) * info->dof + s->c;
}

static PetscErrorCode COOAddRow(void *ctx, const MatStencil *row, PetscInt n, const MatStencil *col, const PetscScalar *v)
{
  COO *c = (COO *)ctx;

  PetscFunctionBeginUser;
  if (c->i) {
    PetscInt r = GhostedIndex(&c->info, row);

    for (PetscInt q = 0; q < n; q++) {
      c->i[c->n + q] = r;
      c->j[c->n + q] = GhostedIndex(&c->info, &col[q]);
    }
  }
  for (PetscInt q = 0; q < n; q++) c->v[c->n + q] = v[q];
  c->n += n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries of step `step` into c->v (and c->i, c->j when they are allocated, mapped to global) */
static PetscErrorCode COOFill(DM da, const Problem *p, PetscInt step, COO *c)
{
  PetscFunctionBeginUser;
  c->n = 0;
  PetscCall(ForEachRow(da, p, step, COOAddRow, c));
  if (c->i) {
    PetscCall(ISLocalToGlobalMappingApply(c->l2g, (PetscInt)c->n, c->i, c->i));
    PetscCall(ISLocalToGlobalMappingApply(c->l2g, (PetscInt)c->n, c->j, c->j));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The number of local entries (to allocate the COO arrays) */
static PetscCount COOCount(const DMDALocalInfo *info, const Problem *p)
{
  PetscCount n = 0;

  for (PetscInt k = info->zs; k < info->zs + info->zm; k++)
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
      for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
        n += p->dof * p->dof;
        for (PetscInt q = 0; q < p->st.nnb; q++)
          if (BenchInside(info, i + p->st.nb[q][0], j + p->st.nb[q][1], k + p->st.nb[q][2])) n += p->dof * p->dof;
      }
  return n;
}

static PetscErrorCode COOCreate(DM da, const Problem *p, PetscBool indices, COO *c)
{
  PetscCount n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(DMDAGetLocalInfo(da, &c->info));
  PetscCall(DMGetLocalToGlobalMapping(da, &c->l2g));
  n = COOCount(&c->info, p);
  if (indices) {
    PetscCall(PetscMalloc1(n, &c->i));
    PetscCall(PetscMalloc1(n, &c->j));
  }
  PetscCall(PetscMalloc1(n, &c->v));
  c->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COODestroy(COO *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->i));
  PetscCall(PetscFree(c->j));
  PetscCall(PetscFree(c->v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values array MatSetValuesCOO reads: the host array, or its copy on the device */
typedef struct {
  PetscBool    on_device;
  PetscScalar *d_v;
  size_t       bytes;
} COOValues;

static PetscErrorCode COOValuesCreate(PetscBool on_device, PetscCount n, COOValues *dv)
{
  PetscFunctionBeginUser;
  dv->on_device = on_device;
  dv->d_v       = NULL;
  dv->bytes     = (size_t)n * sizeof(PetscScalar);
#if defined(PETSC_HAVE_CUDA)
  if (on_device) {
    cudaError_t e = cudaMalloc((void **)&dv->d_v, dv->bytes ? dv->bytes : 1);

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaMalloc of %zu bytes for the COO values: %s", dv->bytes, cudaGetErrorString(e));
  }
#else
  PetscCheck(!on_device, PETSC_COMM_SELF, PETSC_ERR_SUP, "-coo_memory device needs a PETSc with CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The array to give MatSetValuesCOO: on the device, the host values copied there */
static PetscErrorCode COOValuesGet(COOValues *dv, const COO *c, const PetscScalar **v)
{
  PetscFunctionBeginUser;
  *v = c->v;
#if defined(PETSC_HAVE_CUDA)
  if (dv->on_device) {
    cudaError_t e = cudaMemcpy(dv->d_v, c->v, dv->bytes, cudaMemcpyHostToDevice);

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemcpy of the COO values to the device: %s", cudaGetErrorString(e));
    *v = dv->d_v;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOValuesDestroy(COOValues *dv)
{
  PetscFunctionBeginUser;
#if defined(PETSC_HAVE_CUDA)
  if (dv->d_v) PetscCheck(cudaFree(dv->d_v) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree of the COO values");
#endif
  dv->d_v = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -path coo, one step: the values into the host array, to the device if asked, MatSetValuesCOO */
static PetscErrorCode FillCOO(DM da, const Problem *p, PetscInt step, COO *c, COOValues *dv, Mat A)
{
  const PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(COOFill(da, p, step, c));
  PetscCall(COOValuesGet(dv, c, &v));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clock: device work finished and the ranks together before each reading */
static PetscErrorCode Now(const Clock *clk, PetscLogDouble *t)
{
  PetscFunctionBeginUser;
#if defined(PETSC_HAVE_CUDA)
  if (clk->device) {
    cudaError_t e = cudaDeviceSynchronize();

    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaDeviceSynchronize: %s", cudaGetErrorString(e));
  }
#endif
  if (clk->size > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* ||A x - B x|| / ||B x|| */
static PetscErrorCode RelativeError(Mat A, Mat B, Vec x, PetscReal *err)
{
  Vec       y, z;
  PetscReal num, den;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, z));
  PetscCall(VecNorm(z, NORM_2, &den));
  PetscCall(VecAXPY(y, -1.0, z));
  PetscCall(VecNorm(y, NORM_2, &num));
  *err = den > 0 ? num / den : num;
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference: a MATAIJ copy of A (MatConvert), and the same copy refilled with the values of
   step `step` computed here (MatSetValues with the global COO indices) */
static PetscErrorCode Check(DM da, const Problem *p, PetscInt step, Mat A, Vec x, PetscReal *err_copy, PetscReal *err_values)
{
  Mat B;
  COO c;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(RelativeError(A, B, x, err_copy));
  PetscCall(COOCreate(da, p, PETSC_TRUE, &c));
  PetscCall(COOFill(da, p, step, &c));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatZeroEntries(B));
  for (PetscCount e = 0, f; e < c.n; e = f) { /* a row's entries are together: one MatSetValues a row */
    for (f = e + 1; f < c.n && c.i[f] == c.i[e];) f++;
    PetscCall(MatSetValues(B, 1, &c.i[e], (PetscInt)(f - e), &c.j[e], &c.v[e], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(RelativeError(A, B, x, err_values));
  PetscCall(COODestroy(&c));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The n^3 DMDA; its vectors VECCUDA where there is a GPU (-dm_vec_type standard for host vectors),
   its matrix type from -dm_mat_type */
static PetscErrorCode MakeDA(PetscInt n, const Problem *p, PetscBool device, DM *da)
{
  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, p->box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, p->dof, 1, NULL, NULL, NULL, da));
#if defined(PETSC_HAVE_CUDA)
  if (device) PetscCall(DMSetVecType(*da, VECCUDA));
#else
  (void)device;
#endif
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 4^3 matrix of the same type made, filled and multiplied once: the program's one-time costs */
static PetscErrorCode WarmUp(const Problem *p, PetscBool device, PetscBool coo, PetscBool on_device)
{
  DM        da;
  Mat       A;
  Vec       x, y;
  COO       c;
  COOValues dv;
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(MakeDA(4, p, device, &da));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(DMCreateMatrix(da, &A));
  if (coo) {
    PetscCall(COOCreate(da, p, PETSC_TRUE, &c));
    PetscCall(COOFill(da, p, 0, &c));
    PetscCall(MatSetPreallocationCOO(A, c.n, c.i, c.j));
    PetscCall(COOValuesCreate(on_device, c.n, &dv));
    PetscCall(FillCOO(da, p, 1, &c, &dv, A));
    PetscCall(COOValuesDestroy(&dv));
    PetscCall(COODestroy(&c));
  } else PetscCall(FillStencil(da, p, 1, A));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &norm));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       n = 40, steps = 20, mults = 50;
  char           stencil[8] = "star", path[16] = "setvalues", memory[8] = "host", csv[PETSC_MAX_PATH_LEN] = "", label[64] = "", type[64];
  Problem        p = {PETSC_FALSE, 1, 0.5, {0, {{0}}}};
  PetscBool      coo, on_device, warmup = PETSC_TRUE;
  Clock          clk = {PETSC_FALSE, 1};
  DM             da;
  Mat            A;
  Vec            x, y;
  COO            c;
  COOValues      dv = {PETSC_FALSE, NULL, 0};
  PetscRandom    rnd;
  PetscInt       rows;
  PetscCount     nnz_local;
  long long      nnz, nnz_l;
  double        *steady;
  PetscLogDouble t0, t1, t2, start, create, first, update = 0, refresh = 0, total, median;
  PetscReal      err_copy, err_values;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &clk.size));
#if defined(PETSC_HAVE_CUDA)
  {
    int ndev = 0;

    clk.device = (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) ? PETSC_TRUE : PETSC_FALSE;
    if (clk.device) PetscCall(PetscStrncpy(memory, "device", sizeof(memory)));
  }
#endif
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_refresh options", NULL);
  PetscCall(PetscOptionsInt("-n", "Grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-stencil", "star (7-point) or box (27-point)", NULL, stencil, stencil, sizeof(stencil), NULL));
  PetscCall(PetscOptionsString("-path", "How the values change: setvalues (MatSetValuesStencil + assembly) or coo (MatSetValuesCOO)", NULL, path, path, sizeof(path), NULL));
  PetscCall(PetscOptionsString("-coo_memory", "Where the values given to MatSetValuesCOO live: device (PETSc with CUDA) or host", NULL, memory, memory, sizeof(memory), NULL));
  PetscCall(PetscOptionsInt("-dof", "Unknowns a grid point (3: an elasticity-like operator, every unknown of a point coupled to every one of its neighbours')", NULL, p.dof, &p.dof, NULL));
  PetscCall(PetscOptionsInt("-steps", "Value changes", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsInt("-mults", "MatMults after each change", NULL, mults, &mults, NULL));
  PetscCall(PetscOptionsReal("-shift", "The diagonal moves by shift * step", NULL, p.shift, &p.shift, NULL));
  PetscCall(PetscOptionsBool("-warmup", "Make and multiply a 4^3 matrix of the type first", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsString("-label", "Name of this configuration in the CSV", NULL, label, label, sizeof(label), NULL));
  PetscCall(PetscOptionsString("-csv", "Append the results to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscOptionsEnd();
  PetscCheck(!strcmp(stencil, "star") || !strcmp(stencil, "box"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-stencil %s: star or box", stencil);
  PetscCheck(p.dof >= 1 && p.dof <= BENCH_MAX_DOF, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dof %" PetscInt_FMT ": 1 to %d unknowns a grid point", p.dof, BENCH_MAX_DOF);
  PetscCheck(!strcmp(path, "setvalues") || !strcmp(path, "coo"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-path %s: setvalues or coo", path);
  PetscCheck(!strcmp(memory, "device") || !strcmp(memory, "host"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-coo_memory %s: device or host", memory);
  PetscCheck(n >= 2 && steps >= 1 && mults >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n at least 2, -steps at least 1, -mults at least 2");
  p.box     = strcmp(stencil, "box") ? PETSC_FALSE : PETSC_TRUE;
  coo       = strcmp(path, "coo") ? PETSC_FALSE : PETSC_TRUE;
  on_device = (coo && !strcmp(memory, "device")) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!on_device || clk.device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-coo_memory device needs a PETSc with CUDA and a GPU: use -coo_memory host");
  BenchStencilSet(&p.st, p.box);
  if (warmup) PetscCall(WarmUp(&p, clk.device, coo, on_device));

  PetscCall(MakeDA(n, &p, clk.device, &da));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecSet(y, 0.0));
  PetscCall(VecNorm(x, NORM_2, &err_copy)); /* x where the products read it before the clock starts */
  PetscCall(PetscMalloc1((size_t)steps * (size_t)(mults - 1), &steady));

  /* creation: DMCreateMatrix and the values of step 0 (the COO pattern first on that path) */
  PetscCall(Now(&clk, &t0));
  start = t0;
  PetscCall(DMCreateMatrix(da, &A));
  if (coo) {
    PetscCall(COOCreate(da, &p, PETSC_TRUE, &c));
    PetscCall(COOFill(da, &p, 0, &c));
    PetscCall(MatSetPreallocationCOO(A, c.n, c.i, c.j));
    PetscCall(PetscFree(c.i));
    PetscCall(PetscFree(c.j));
    PetscCall(COOValuesCreate(on_device, c.n, &dv));
    PetscCall(FillCOO(da, &p, 0, &c, &dv, A));
  } else PetscCall(FillStencil(da, &p, 0, A));
  PetscCall(Now(&clk, &t1));
  PetscCall(MatMult(A, x, y));
  PetscCall(Now(&clk, &t2));
  create = t1 - t0;
  first  = t2 - t1;

  for (PetscInt s = 1; s <= steps; s++) {
    PetscCall(Now(&clk, &t0));
    if (coo) PetscCall(FillCOO(da, &p, s, &c, &dv, A));
    else PetscCall(FillStencil(da, &p, s, A));
    PetscCall(Now(&clk, &t1));
    PetscCall(MatMult(A, x, y));
    PetscCall(Now(&clk, &t2));
    update += t1 - t0;
    refresh += t2 - t1;
    for (PetscInt m = 1; m < mults; m++) {
      t0 = t2;
      PetscCall(MatMult(A, x, y));
      PetscCall(Now(&clk, &t2));
      steady[(s - 1) * (mults - 1) + (m - 1)] = t2 - t0;
    }
  }
  total = t2 - start;
  qsort(steady, (size_t)steps * (size_t)(mults - 1), sizeof(double), CompareDouble);
  {
    const size_t k = (size_t)steps * (size_t)(mults - 1);

    median = (k % 2) ? steady[k / 2] : 0.5 * (steady[k / 2 - 1] + steady[k / 2]);
  }

  /* the check, after the loop, against the values of the last step */
  PetscCall(Check(da, &p, steps, A, x, &err_copy, &err_values));
  {
    DMDALocalInfo info;
    MatType       t;

    PetscCall(DMDAGetLocalInfo(da, &info));
    nnz_local = COOCount(&info, &p);
    nnz_l     = (long long)nnz_local;
    PetscCallMPI(MPI_Allreduce(&nnz_l, &nnz, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(MatGetSize(A, &rows, NULL));
    PetscCall(MatGetType(A, &t));
    PetscCall(PetscStrncpy(type, t, sizeof(type)));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %" PetscInt_FMT "^3 x %" PetscInt_FMT ", %s%s%s, %s%s: %" PetscInt_FMT " rows, %lld nonzeros; create %.4f s, first MatMult %.4f s; %" PetscInt_FMT " steps: updates %.4f s, first MatMults after them %.4f s, steady MatMult %.4f ms (median of %" PetscInt_FMT "); whole %.4f s; relative error %.2e (copy) %.2e (values)\n", stencil, n, p.dof, type, label[0] ? " " : "", label, path, coo ? (on_device ? ", device values" : ", host values") : "", rows, nnz, create, first, steps, update, refresh, 1e3 * median, steps * (mults - 1), total, (double)err_copy, (double)err_values));
  PetscCheck(err_copy <= 1e-12 && err_values <= 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, -path %s: MatMult differs from MATAIJ's by %.3e (copy of the matrix) and %.3e (the values of step %" PetscInt_FMT "), more than 1e-12", type, path, (double)err_copy, (double)err_values, steps);
  if (csv[0]) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (!rank) {
      FILE *f = fopen(csv, "a");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csv);
      if (ftell(f) == 0) fprintf(f, "label,mat_type,path,n,stencil,rows,nonzeros,create_s,first_mult_s,update_s,refresh_mult_s,steady_mult_ms,total_s,steps,mults,coo_memory,ranks,rel_error,dof\n");
      fprintf(f, "%s,%s,%s,%ld,%s,%ld,%lld,%.5f,%.5f,%.5f,%.5f,%.5f,%.4f,%ld,%ld,%s,%d,%.2e,%ld\n", label, type, path, (long)n, stencil, (long)rows, nnz, create, first, update, refresh, 1e3 * median, total, (long)steps, (long)mults, coo ? memory : "-", clk.size, (double)PetscMax(err_copy, err_values), (long)p.dof);
      fclose(f);
    }
  }
  if (coo) {
    PetscCall(COOValuesDestroy(&dv));
    PetscCall(COODestroy(&c));
  }
  PetscCall(PetscFree(steady));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
