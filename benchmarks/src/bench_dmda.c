/* A whole structured-grid PETSc program, each part timed: a 3-D DMDA, its matrix from
   DMCreateMatrix filled with MatSetValuesStencil (7-point star or 27-point box operator), a
   linear solve with CG + Jacobi, one with geometric multigrid (the operators of the coarse
   grids made by the same callback), and a Newton solve of a nonlinear problem whose Jacobian
   PETSc computes by finite differences with a colouring of the DMDA.  The matrix type comes
   from -dm_mat_type (aij, aijcusparse, diag ...): the program itself is the same for all.

     bench_dmda -n 101 -stencil box -dm_mat_type diag [-dll_append libgpumats.so] [-vec_type cuda]

   One line of results a run (-csv FILE appends it); times are wall times of the whole calls
   (the GPU work is finished when the solvers return: they read norms). */
#include <petscdmda.h>
#include <petscksp.h>
#include <petscsnes.h>

#if !PETSC_VERSION_GE(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

static const char help[] = "DMDA program: DMCreateMatrix + fill, CG/Jacobi, multigrid and a Newton solve with coloured Jacobians, each timed\n";

typedef struct {
  PetscBool box;    /* 27-point operator, else 7-point */
  PetscReal lambda; /* the nonlinear term lambda * u^3 of the Newton solve */
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
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              const PetscInt far = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);
              if (far == 0 || (!p->box && far > 1)) continue;
              if (i + di < 0 || i + di >= info.mx || j + dj < 0 || j + dj >= info.my || k + dk < 0 || k + dk >= info.mz) continue;
              col[n].i = i + di;
              col[n].j = j + dj;
              col[n].k = k + dk;
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

        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              const PetscInt far = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);
              if (far == 0 || (!p->box && far > 1)) continue;
              if (i + di < 0 || i + di >= info->mx || j + dj < 0 || j + dj >= info->my || k + dk < 0 || k + dk >= info->mz) continue;
              s -= u[k + dk][j + dj][i + di];
            }
        f[k][j][i] = s;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Seconds(PetscLogDouble *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       n = 33, its_cg = 0, its_mg = 0, its_newton = 0, its_newton_lin = 0, levels = 3;
  char           stencil[8] = "star", csv[PETSC_MAX_PATH_LEN] = "";
  Problem        p = {PETSC_FALSE, 1.0};
  DM             da;
  Mat            A;
  KSP            ksp;
  SNES           snes;
  Vec            u;
  char           type[64];
  PetscReal      rnorm_cg, rnorm_mg, fnorm;
  PetscLogDouble t[8];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_dmda options", NULL);
  PetscCall(PetscOptionsInt("-n", "Grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-stencil", "star (7-point) or box (27-point)", NULL, stencil, stencil, sizeof(stencil), NULL));
  PetscCall(PetscOptionsInt("-mg_levels", "Multigrid levels", NULL, levels, &levels, NULL));
  PetscCall(PetscOptionsReal("-lambda", "Nonlinear coefficient of the Newton solve", NULL, p.lambda, &p.lambda, NULL));
  PetscCall(PetscOptionsString("-csv", "Append the results to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscOptionsEnd();
  PetscCheck(!strcmp(stencil, "star") || !strcmp(stencil, "box"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-stencil %s: star or box", stencil);
  p.box = strcmp(stencil, "box") ? PETSC_FALSE : PETSC_TRUE;
  PetscCheck(levels >= 1 && n > 1 && (n - 1) % (1 << (levels - 1)) == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT " with %" PetscInt_FMT " multigrid levels: n - 1 must be a multiple of 2^(levels - 1) (e.g. 161 or 101 with 3 levels)", n, levels);

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, p.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  /* 1. the matrix: DMCreateMatrix, then the fill */
  PetscCall(Seconds(&t[0]));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Seconds(&t[1]));
  PetscCall(FillOperator(da, A, &p));
  PetscCall(Seconds(&t[2]));
  {
    MatType t;
    PetscCall(MatGetType(A, &t));
    PetscCall(PetscStrncpy(type, t, sizeof(type)));
  }
  PetscCall(MatDestroy(&A));
  /* 2. CG + Jacobi, the operator made through the KSP (DMCreateMatrix + fill inside) */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeOperators(ksp, ComputeOperator, &p));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetOptionsPrefix(ksp, "cg_"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(Seconds(&t[3]));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(KSPGetIterationNumber(ksp, &its_cg));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm_cg));
  PetscCall(Seconds(&t[4]));
  PetscCall(KSPDestroy(&ksp));
  /* 3. multigrid: Chebyshev/SOR smoothing (PETSc's defaults), coarse operators by the callback */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeOperators(ksp, ComputeOperator, &p));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCMG));
    PetscCall(PCMGSetLevels(pc, levels, NULL));
  }
  PetscCall(KSPSetOptionsPrefix(ksp, "mg_"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(KSPGetIterationNumber(ksp, &its_mg));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm_mg));
  PetscCall(Seconds(&t[5]));
  PetscCall(KSPDestroy(&ksp));
  /* 4. Newton with the Jacobian by coloured finite differences into DMCreateMatrix's matrix */
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, da));
  PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode(*)(DMDALocalInfo *, void *, void *, void *))FormFunctionLocal, &p));
  PetscCall(SNESSetOptionsPrefix(snes, "newton_"));
  {
    KSP lin;
    PC  pc;
    PetscCall(SNESGetKSP(snes, &lin));
    PetscCall(KSPSetType(lin, KSPCG));
    PetscCall(KSPGetPC(lin, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(lin, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  }
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecSet(u, 0.0));
  PetscCall(SNESSolve(snes, NULL, u));
  PetscCall(SNESGetIterationNumber(snes, &its_newton));
  PetscCall(SNESGetLinearSolveIterations(snes, &its_newton_lin));
  PetscCall(SNESGetFunctionNorm(snes, &fnorm));
  PetscCall(Seconds(&t[6]));
  PetscCall(VecDestroy(&u));
  PetscCall(SNESDestroy(&snes));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %" PetscInt_FMT "^3, %s: DMCreateMatrix %.3f s, fill %.3f s; CG+Jacobi %.3f s (%" PetscInt_FMT " its, residual %.3e); multigrid %.3f s (%" PetscInt_FMT " its, residual %.3e); Newton %.3f s (%" PetscInt_FMT " steps, %" PetscInt_FMT " linear its, |F| %.3e); whole %.3f s\n", stencil, n, type, t[1] - t[0], t[2] - t[1], t[4] - t[3], its_cg, (double)rnorm_cg, t[5] - t[4], its_mg, (double)rnorm_mg, t[6] - t[5], its_newton, its_newton_lin, (double)fnorm, t[6] - t[0]));
  if (csv[0]) {
    PetscMPIInt rank, size;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (!rank) {
      FILE *f = fopen(csv, "a");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", csv);
      if (ftell(f) == 0) fprintf(f, "stencil,n,mat_type,ranks,create_s,fill_s,cg_s,cg_its,mg_s,mg_its,newton_s,newton_steps,newton_linear_its,whole_s\n");
      fprintf(f, "%s,%ld,%s,%d,%.4f,%.4f,%.4f,%ld,%.4f,%ld,%.4f,%ld,%ld,%.4f\n", stencil, (long)n, type, size, t[1] - t[0], t[2] - t[1], t[4] - t[3], (long)its_cg, t[5] - t[4], (long)its_mg, t[6] - t[5], (long)its_newton, (long)its_newton_lin, t[6] - t[0]);
      fclose(f);
    }
  }
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
