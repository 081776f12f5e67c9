/* Matrices that change (issue 20): a 3-D DMDA operator from DMCreateMatrix whose values are
   replaced, on the same pattern, step after step, each step followed by MatMults: what a
   time-stepping or Newton code does to its matrix.  The matrix type comes from -dm_mat_type
   (aij, aijcusparse, pcsr, cihybrid, diag; the gpumats types loaded with -dll_append): the
   program is the same for all.

     bench_refresh -n 160 -stencil star -dm_mat_type pcsr -dll_append libgpumats.so
                   [-dof 1] [-path setvalues|coo|algebra] [-coo_memory device|copied|host] [-steps 20] [-mults 50]
                   [-shift 0.5] [-warmup 1] [-dm_vec_type cuda|standard] [-label TEXT] [-csv FILE]

   The values of step s (s = 0 at creation, 1..steps in the loop): -(1 + 0.01 q)(1 + 0.01 s) for
   the q-th neighbour of the stencil, 2 (neighbours)(1 + 0.01 s) + shift s + 0.001 ((i+j+k) mod 5)
   on the diagonal, so that every entry changes every step and a misplaced one shows.  With -dof d
   (an elasticity-like operator: d unknowns a point, each row coupled to all d unknowns of the point
   and of each neighbour) the entry of component c2 in component c's row is the above times
   0.25 + 0.05 (c + 2 c2) for c2 != c, -(0.25 + 0.05 (c + 2 c2))(1 + 0.01 s) at the point itself.
   Each step (a) puts the new values in:
     -path setvalues  MatSetValuesStencil row by row (INSERT_VALUES), MatAssemblyBegin/End;
     -path coo        the values of all entries in one array (in the order of the COO pattern
                      given once with MatSetPreallocationCOO after DMCreateMatrix), then
                      MatSetValuesCOO; with a PETSc with CUDA the array is on the device, made
                      there as a GPU assembler would (-coo_memory device, the default there: the
                      values of step s are (1 + 0.01 s) times those of step 0 plus, on the
                      diagonal, s (shift - 0.01 (Diagonal(0) - 2 neighbours)), two vector
                      operations on the device), or made on the host and copied with cudaMemcpy
                      (-coo_memory copied), or the host array itself (-coo_memory host);
     -path algebra    (creation as setvalues) MatScale by (1 + 0.01 s) / (1 + 0.01 (s - 1)), which
                      gives every entry off the diagonal its new value, then MatDiagonalSet
                      (INSERT_VALUES) of the new diagonal, a vector of the DMDA made by VecCopy and
                      VecShift from a fixed one: what a time stepper does to M / dt + K;
   then (b) -mults MatMults y = A x.
   Timed (wall clock, the device synchronised with cudaDeviceSynchronize before each reading
   where PETSc has CUDA, and the ranks with a barrier):
     create_s        DMCreateMatrix and the first values (with the COO preallocation for -path coo);
     first_mult_s    the first MatMult after that (the format built and uploaded);
     update_s        the sum over the steps of (a), host work and whatever device work it started;
     insert_s        -path coo: of update_s, the time of MatSetValuesCOO alone (the device
                     synchronised before and after it); the rest is the benchmark making the values;
     refresh_mult_s  the sum over the steps of the first MatMult after (a): the refresh as the
                     user pays it;
     steady_mult_ms  the median of all other MatMults;
     total_s         the whole: creation to the end of the last step.
   -warmup (default on) first makes, fills and multiplies a 4^3 matrix of the same type, so that
   the one-time costs of a program (CUDA context, library handles) do not land in first_mult_s.
   After the loop the product is checked twice against MATAIJ: a copy of the matrix, row by row
   (the format against its own values) and the same copy refilled with the values of the last
   step by MatSetValues (the values against what they should be); a relative error above 1e-12
   stops the program with an error (no CSV line).  One line of results a run; -csv FILE appends
   it, -label names the configuration.  The options of the loop, the clock, the loop, the check and
   the report are bench_refresh_common.h's, shared with bench_refresh_matrix.c (the same loop on a
   matrix read from a file). */
#include <petscdmda.h>
#include "bench_stencil.h"
#include "bench_refresh_common.h"
#include "../../tests/testexit.h"

#define BENCH_MAX_DOF 4 /* -dof at most */

static const char help[] = "DMDA operator whose values change step after step: value update (MatSetValuesStencil or MatSetValuesCOO) and MatMults, each timed\n";

typedef struct {
  PetscBool box;       /* 27-point operator, else 7-point */
  PetscInt  dof;       /* unknowns a grid point, each coupled to every one of its neighbours' */
  PetscReal shift;     /* the diagonal moves by shift * step */
  BenchStencil st;      /* its neighbours */
} Problem;

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

/* -path coo, one step: the values made on the device, or into the host array (to the device if
   asked), then MatSetValuesCOO */
static PetscErrorCode FillCOO(DM da, const Problem *p, PetscInt step, COO *c, COOValues *dv, Mat A)
{
  const PetscScalar *v;
  const PetscReal    s = (PetscReal)step;

  PetscFunctionBeginUser;
  if (!dv->w) PetscCall(COOFill(da, p, step, c));
  PetscCall(COOValuesGet(dv, c->v, 1.0 + 0.01 * s, p->shift * s, -0.01 * s, &v));
  PetscCall(COOValuesInsert(dv, A, v));
  PetscCall(COOValuesRestore(dv, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -coo_memory device: what the values of every step are made of (FillCOO): those of step 0 (in
   c->v, with c->i and c->j), d = 1 on the diagonal entries, e = d (Diagonal(0) - 2 neighbours) */
static PetscErrorCode MadeCOOParts(const Problem *p, const COO *c, COOValues *dv)
{
  PetscScalar *d, *e;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->n, &d, c->n, &e));
  for (PetscCount k = 0; k < c->n; k++) {
    d[k] = c->i[k] == c->j[k] ? 1.0 : 0.0;
    e[k] = d[k] * (c->v[k] - 2.0 * (PetscReal)p->st.nnb);
  }
  PetscCall(COOValuesSetParts(dv, c->n, c->v, d, e));
  PetscCall(PetscFree2(d, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The check (RefreshCheck) with the values of step `step` computed here, with their global COO indices */
static PetscErrorCode Check(DM da, const Problem *p, PetscInt step, Mat A, Vec x, PetscReal *err_copy, PetscReal *err_values)
{
  COO c;

  PetscFunctionBeginUser;
  PetscCall(COOCreate(da, p, PETSC_TRUE, &c));
  PetscCall(COOFill(da, p, step, &c));
  PetscCall(RefreshCheck(A, x, c.n, c.i, c.j, c.v, err_copy, err_values));
  PetscCall(COODestroy(&c));
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

/* What the loop calls (RefreshOps): the matrix of the DMDA and its values */
typedef struct {
  DM                     da;
  const Problem         *p;
  const RefreshSettings *set;
  COO                    c;  /* -path coo: the values (the indices only while the pattern is given) */
  COOValues              dv; /* and where MatSetValuesCOO reads them */
  Vec                    e, d; /* -path algebra: the diagonal less shift and growth, the diagonal of a step */
} Run;

/* -path algebra: e, the diagonal of step s less s (0.02 neighbours + shift) (Diagonal()'s terms) */
static PetscErrorCode AlgebraCreate(Run *r)
{
  const Problem *p = r->p;
  DMDALocalInfo  info;
  PetscScalar   *e;
  PetscInt       at = 0;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(r->da, &info));
  PetscCall(DMCreateGlobalVector(r->da, &r->e));
  PetscCall(VecDuplicate(r->e, &r->d));
  PetscCall(VecGetArrayWrite(r->e, &e));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++)
        for (PetscInt c = 0; c < p->dof; c++) e[at++] = Diagonal(p, i, j, k, 0);
  PetscCall(VecRestoreArrayWrite(r->e, &e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -path algebra, step s >= 1: the off-diagonal entries scaled from step s - 1 to s, the new diagonal set */
static PetscErrorCode AlgebraStep(Run *r, PetscInt s, Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(MatScale(A, (1.0 + 0.01 * (PetscReal)s) / (1.0 + 0.01 * (PetscReal)(s - 1))));
  PetscCall(VecCopy(r->e, r->d));
  PetscCall(VecShift(r->d, (PetscReal)s * (0.02 * (PetscReal)r->p->st.nnb + r->p->shift)));
  PetscCall(MatDiagonalSet(A, r->d, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* creation: DMCreateMatrix and the values of step 0 (the COO pattern first on that path) */
static PetscErrorCode RunCreate(void *ctx, Mat *A)
{
  Run *r = (Run *)ctx;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(r->da, A));
  if (r->set->coo) {
    PetscCall(COOCreate(r->da, r->p, PETSC_TRUE, &r->c));
    PetscCall(COOFill(r->da, r->p, 0, &r->c));
    PetscCall(COOValuesCreate(r->set, r->c.n, &r->dv));
    if (r->set->made) PetscCall(MadeCOOParts(r->p, &r->c, &r->dv));
    PetscCall(MatSetPreallocationCOO(*A, r->c.n, r->c.i, r->c.j));
    PetscCall(PetscFree(r->c.i));
    PetscCall(PetscFree(r->c.j));
    PetscCall(FillCOO(r->da, r->p, 0, &r->c, &r->dv, *A));
  } else PetscCall(FillStencil(r->da, r->p, 0, *A));
  if (r->set->algebra && !r->e) PetscCall(AlgebraCreate(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* step s: the new values */
static PetscErrorCode RunUpdate(void *ctx, PetscInt s, Mat A)
{
  Run *r = (Run *)ctx;

  PetscFunctionBeginUser;
  if (r->set->coo) PetscCall(FillCOO(r->da, r->p, s, &r->c, &r->dv, A));
  else if (r->set->algebra) PetscCall(AlgebraStep(r, s, A));
  else PetscCall(FillStencil(r->da, r->p, s, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunDestroy(Run *r)
{
  PetscFunctionBeginUser;
  if (r->set->coo) {
    PetscCall(COOValuesDestroy(&r->dv));
    PetscCall(COODestroy(&r->c));
  }
  PetscCall(VecDestroy(&r->e));
  PetscCall(VecDestroy(&r->d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 4^3 matrix of the same type made, filled and multiplied once: the program's one-time costs */
static PetscErrorCode WarmUp(const Problem *p, const RefreshSettings *set, PetscBool device)
{
  Run        r   = {.p = p, .set = set};
  RefreshOps ops = {RunCreate, RunUpdate, &r, &r.dv};
  Vec        x, y;

  PetscFunctionBeginUser;
  PetscCall(MakeDA(4, p, device, &r.da));
  PetscCall(DMCreateGlobalVector(r.da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(RefreshWarmUp(&ops, x, y));
  PetscCall(RunDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(DMDestroy(&r.da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int Main(int argc, char **argv)
{
  PetscInt        n = 40;
  char            stencil[8] = "star", name[64], cols[64], tail[32];
  Problem         p = {PETSC_FALSE, 1, 0.5, {0, {{0}}}};
  RefreshSettings set;
  Clock           clk;
  Run             r = {.p = &p, .set = &set};
  RefreshOps      ops = {RunCreate, RunUpdate, &r, &r.dv};
  RefreshTimes    tm = {0, 0, 0, 0, 0, 0, 0, 0};
  RefreshCase     rc = {name, "n,stencil", cols, ",dof", tail};
  Mat             A;
  Vec             x, y;
  long long       nnz, nnz_l;
  PetscReal       err_copy, err_values;

  PetscFunctionBeginUser;
  PetscCall(RefreshInitialize(&argc, &argv, help, &clk, &set));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_refresh options", NULL);
  PetscCall(PetscOptionsInt("-n", "Grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-stencil", "star (7-point) or box (27-point)", NULL, stencil, stencil, sizeof(stencil), NULL));
  PetscCall(PetscOptionsInt("-dof", "Unknowns a grid point (3: an elasticity-like operator, every unknown of a point coupled to every one of its neighbours')", NULL, p.dof, &p.dof, NULL));
  PetscOptionsEnd();
  PetscCall(RefreshSetFromOptions(&clk, "a 4^3 matrix", &set));
  PetscCheck(!strcmp(stencil, "star") || !strcmp(stencil, "box"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-stencil %s: star or box", stencil);
  PetscCheck(p.dof >= 1 && p.dof <= BENCH_MAX_DOF, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dof %" PetscInt_FMT ": 1 to %d unknowns a grid point", p.dof, BENCH_MAX_DOF);
  PetscCheck(n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n at least 2");
  p.box   = strcmp(stencil, "box") ? PETSC_FALSE : PETSC_TRUE;
  p.shift = set.shift;
  BenchStencilSet(&p.st, p.box);
  if (set.warmup) PetscCall(WarmUp(&p, &set, clk.device));

  PetscCall(MakeDA(n, &p, clk.device, &r.da));
  PetscCall(DMCreateGlobalVector(r.da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(RefreshVectors(x, y));
  PetscCall(RefreshLoop(&set, &ops, &A, &x, &y, &tm));

  /* the check, after the loop, against the values of the last step */
  PetscCall(Check(r.da, &p, set.steps, A, x, &err_copy, &err_values));
  {
    DMDALocalInfo info;

    PetscCall(DMDAGetLocalInfo(r.da, &info));
    nnz_l = (long long)COOCount(&info, &p);
    PetscCallMPI(MPI_Allreduce(&nnz_l, &nnz, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD));
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s %" PetscInt_FMT "^3 x %" PetscInt_FMT, stencil, n, p.dof));
  PetscCall(PetscSNPrintf(cols, sizeof(cols), "%ld,%s", (long)n, stencil));
  PetscCall(PetscSNPrintf(tail, sizeof(tail), ",%ld", (long)p.dof));
  PetscCall(RefreshReport(&set, &rc, A, nnz, &tm, err_copy, err_values));
  PetscCall(RunDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(DMDestroy(&r.da));
  PetscCall(PetscFinalize());
  return 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
