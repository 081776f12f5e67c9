/* A whole structured-grid PETSc program, each part timed: a 3-D DMDA, its matrix from
   DMCreateMatrix filled with MatSetValuesStencil (7-point star or 27-point box operator), a
   linear solve with CG + Jacobi, one with geometric multigrid (the operators of the coarse
   grids made by the same callback), and a Newton solve of a nonlinear problem whose Jacobian
   PETSc computes by finite differences with a colouring of the DMDA.  The matrix type comes
   from -dm_mat_type (aij, aijcusparse, diag ...): the program itself is the same for all.

     bench_dmda -n 97 -stencil box -dm_mat_type diag [-dll_append libgpumats.so] [-dm_vec_type cuda]
                [-mg_levels L] [-cg 0] [-mg 0] [-newton 0] [-refill] [-label TEXT] [-csv FILE]

   Multigrid takes as many levels as the grid halves into (n - 1 divisible, the coarsest grid at
   least 5 points a side) unless -mg_levels says; its smoother is PETSc's default (Chebyshev with
   SOR: on the GPU for diag's large grids, on the host for the aij types) or any other by the mg_ prefix
   (-mg_mg_levels_pc_type jacobi: on the GPU).  One line of results a run (-csv FILE appends it,
   with -label naming the configuration); times are wall times of the whole calls (the GPU work is
   finished when the solvers return: they read norms); a part left out is 0. */
#include <petscdmda.h>
#include "bench_stencil.h"
#include <petscksp.h>
#include <petscsnes.h>

#include "gpumats_compat.h" /* PETSC_SUCCESS before 3.19 */

static const char help[] = "DMDA program: DMCreateMatrix + fill, CG/Jacobi, multigrid and a Newton solve with coloured Jacobians, each timed\n";

typedef struct {
  PetscBool box;         /* 27-point operator, else 7-point */
  PetscReal lambda;      /* the nonlinear term lambda * u^3 of the Newton solve */
  BenchStencil st;      /* its neighbours */
} Problem;

/* The operator: 2 * (neighbours) on the diagonal, -1 for each neighbour of the stencil (the
   boundary rows keep their diagonal: an SPD, diagonally dominant M-matrix). */
static PetscErrorCode FillOperator(DM da, Mat A, const Problem *p)
{
  DMDALocalInfo info;
  MatStencil    row, col[27];
  PetscScalar   v[27];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        PetscInt n = 0;

        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        for (PetscInt q = 0; q < p->st.nnb; q++) {
          if (!BenchInside(&info, i + p->st.nb[q][0], j + p->st.nb[q][1], k + p->st.nb[q][2])) continue;
          col[n].i = i + p->st.nb[q][0];
          col[n].j = j + p->st.nb[q][1];
          col[n].k = k + p->st.nb[q][2];
          col[n].c = 0;
          v[n++]   = -1.0;
        }
        col[n] = row;
        v[n++] = p->box ? 52.0 : 12.0;
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeOperator(KSP ksp, Mat J, Mat P, void *ctx)
{
  DM dm;

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FillOperator(dm, P, (const Problem *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(b, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F(u) = A u + lambda u^3 - 1 with the operator of FillOperator, computed from the local arrays */
static PetscErrorCode FormFunctionLocal(DMDALocalInfo *info, PetscScalar ***u, PetscScalar ***f, void *ctx)
{
  const Problem *p = (const Problem *)ctx;

  PetscFunctionBeginUser;
  for (PetscInt k = info->zs; k < info->zs + info->zm; k++)
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
      for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
        PetscScalar s = (p->box ? 52.0 : 12.0) * u[k][j][i] + p->lambda * u[k][j][i] * u[k][j][i] * u[k][j][i] - 1.0;

        for (PetscInt q = 0; q < p->st.nnb; q++)
          if (BenchInside(info, i + p->st.nb[q][0], j + p->st.nb[q][1], k + p->st.nb[q][2])) s -= u[k + p->st.nb[q][2]][j + p->st.nb[q][1]][i + p->st.nb[q][0]];
        f[k][j][i] = s;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The most levels the grid halves into, the coarsest at least 5 points a side */
static PetscInt MostLevels(PetscInt n)
{
  PetscInt levels = 1;

  while ((n - 1) % (1 << levels) == 0 && (n - 1) / (1 << levels) + 1 >= 5) levels++;
  return levels;
}

static PetscErrorCode Seconds(PetscLogDouble *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A linear solve of the operator, made through the KSP's callback (DMCreateMatrix + fill inside) */
static PetscErrorCode SolveLinear(DM da, Problem *p, const char *prefix, PCType pctype, PetscInt levels, PetscInt *its, PetscReal *rnorm, PetscLogDouble *seconds)
{
  KSP            ksp;
  PC             pc;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix)); /* before PCMGSetLevels: the levels take it */
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeOperators(ksp, ComputeOperator, p));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (levels) PetscCall(PCMGSetLevels(pc, levels, NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(Seconds(&t0));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(Seconds(&t1));
  *seconds = t1 - t0;
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Newton with the Jacobian by coloured finite differences into DMCreateMatrix's matrix */
static PetscErrorCode SolveNewton(DM da, Problem *p, PetscInt *steps, PetscInt *linear_its, PetscReal *fnorm, PetscLogDouble *seconds)
{
  SNES           snes;
  KSP            lin;
  PC             pc;
  Vec            u;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(Seconds(&t0));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, da));
  PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode(*)(DMDALocalInfo *, void *, void *, void *))FormFunctionLocal, p));
  PetscCall(SNESSetOptionsPrefix(snes, "newton_"));
  PetscCall(SNESGetKSP(snes, &lin));
  PetscCall(KSPSetType(lin, KSPCG));
  PetscCall(KSPGetPC(lin, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(lin, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecSet(u, 0.0));
  PetscCall(SNESSolve(snes, NULL, u));
  PetscCall(SNESGetIterationNumber(snes, steps));
  PetscCall(SNESGetLinearSolveIterations(snes, linear_its));
  PetscCall(SNESGetFunctionNorm(snes, fnorm));
  PetscCall(Seconds(&t1));
  *seconds = t1 - t0;
  PetscCall(VecDestroy(&u));
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       n = 33, its_cg = 0, its_mg = 0, its_newton = 0, its_newton_lin = 0, levels = 0;
  char           stencil[8] = "star", csv[PETSC_MAX_PATH_LEN] = "", label[64] = "";
  Problem        p = {PETSC_FALSE, 1.0, {0, {{0}}}};
  PetscBool      do_cg = PETSC_TRUE, do_mg = PETSC_TRUE, do_newton = PETSC_TRUE, refill = PETSC_FALSE;
  DM             da;
  Mat            A;
  char           type[64];
  PetscReal      rnorm_cg = 0, rnorm_mg = 0, fnorm = 0;
  PetscLogDouble t0, t1, t2, create, fill, cg = 0, mg = 0, newton = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_dmda options", NULL);
  PetscCall(PetscOptionsInt("-n", "Grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-stencil", "star (7-point) or box (27-point)", NULL, stencil, stencil, sizeof(stencil), NULL));
  PetscCall(PetscOptionsInt("-mg_levels", "Multigrid levels (0: as many as the grid halves into)", NULL, levels, &levels, NULL));
  PetscCall(PetscOptionsReal("-lambda", "Nonlinear coefficient of the Newton solve", NULL, p.lambda, &p.lambda, NULL));
  PetscCall(PetscOptionsBool("-cg", "Run the CG + Jacobi solve", NULL, do_cg, &do_cg, NULL));
  PetscCall(PetscOptionsBool("-mg", "Run the multigrid solve", NULL, do_mg, &do_mg, NULL));
  PetscCall(PetscOptionsBool("-newton", "Run the Newton solve", NULL, do_newton, &do_newton, NULL));
  PetscCall(PetscOptionsBool("-refill", "Fill the matrix a second time and print that time (the fill without the first touch of its memory)", NULL, refill, &refill, NULL));
  PetscCall(PetscOptionsString("-label", "Name of this configuration in the CSV", NULL, label, label, sizeof(label), NULL));
  PetscCall(PetscOptionsString("-csv", "Append the results to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscOptionsEnd();
  PetscCheck(!strcmp(stencil, "star") || !strcmp(stencil, "box"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-stencil %s: star or box", stencil);
  p.box = strcmp(stencil, "box") ? PETSC_FALSE : PETSC_TRUE;
  BenchStencilSet(&p.st, p.box);
  if (!levels) levels = MostLevels(n);
  PetscCheck(levels >= 1 && n > 1 && (n - 1) % (1 << (levels - 1)) == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT " with %" PetscInt_FMT " multigrid levels: n - 1 must be a multiple of 2^(levels - 1) (e.g. 161 or 97 with 5 levels)", n, levels);

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, p.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  /* 1. the matrix: DMCreateMatrix, then the fill */
  PetscCall(Seconds(&t0));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Seconds(&t1));
  PetscCall(FillOperator(da, A, &p));
  PetscCall(Seconds(&t2));
  create = t1 - t0;
  fill   = t2 - t1;
  {
    MatType t;
    PetscCall(MatGetType(A, &t));
    PetscCall(PetscStrncpy(type, t, sizeof(type)));
  }
  if (refill) {
    PetscCall(Seconds(&t1));
    PetscCall(FillOperator(da, A, &p));
    PetscCall(Seconds(&t2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: second fill %.3f s (first %.3f s)\n", type, t2 - t1, fill));
  }
  PetscCall(MatDestroy(&A));
  /* 2. CG + Jacobi; 3. multigrid (coarse operators by the same callback); 4. Newton */
  if (do_cg) PetscCall(SolveLinear(da, &p, "cg_", PCJACOBI, 0, &its_cg, &rnorm_cg, &cg));
  if (do_mg) PetscCall(SolveLinear(da, &p, "mg_", PCMG, levels, &its_mg, &rnorm_mg, &mg));
  if (do_newton) PetscCall(SolveNewton(da, &p, &its_newton, &its_newton_lin, &fnorm, &newton));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %" PetscInt_FMT "^3, %s%s%s: DMCreateMatrix %.3f s, fill %.3f s; CG+Jacobi %.3f s (%" PetscInt_FMT " its, residual %.3e); multigrid, %" PetscInt_FMT " levels, %.3f s (%" PetscInt_FMT " its, residual %.3e); Newton %.3f s (%" PetscInt_FMT " steps, %" PetscInt_FMT " linear its, |F| %.3e); whole %.3f s\n", stencil, n, type, label[0] ? " " : "", label, create, fill, cg, its_cg, (double)rnorm_cg, levels, mg, its_mg, (double)rnorm_mg, newton, its_newton, its_newton_lin, (double)fnorm, create + fill + cg + mg + newton));
  if (csv[0]) {
    PetscMPIInt rank, size;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (!rank) {
      FILE *f = fopen(csv, "a");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csv);
      if (ftell(f) == 0) fprintf(f, "stencil,n,mat_type,label,ranks,create_s,fill_s,cg_s,cg_its,mg_levels,mg_s,mg_its,newton_s,newton_steps,newton_linear_its,whole_s\n");
      fprintf(f, "%s,%ld,%s,%s,%d,%.4f,%.4f,%.4f,%ld,%ld,%.4f,%ld,%.4f,%ld,%ld,%.4f\n", stencil, (long)n, type, label, size, create, fill, cg, (long)its_cg, (long)levels, mg, (long)its_mg, newton, (long)its_newton, (long)its_newton_lin, create + fill + cg + mg + newton);
      fclose(f);
    }
  }
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
