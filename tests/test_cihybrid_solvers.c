static const char help[] = "Solves with a cihybrid matrix and with the same matrix as MATAIJ: the\n\
Krylov iterations and the solutions must agree.\n\
  one rank:   GMRES + ILU(0), GMRES + LU, CG + Jacobi, GMRES + block Jacobi (ILU)\n\
  more ranks: GMRES + LU (when MUMPS or SuperLU_dist is there), CG + Jacobi, GMRES + block Jacobi (ILU)\n\
The matrix is a 2D 5-point Laplacian with a random perturbation (kept symmetric positive\n\
definite for CG).\n\
Options:\n\
  -n <n>          grid points per direction (default 24)\n\
  -seed <s>       seed of the perturbation (default 4521)\n\
  -vec_type <t>   type of the right-hand side and solution (default: what the cihybrid matrix asks for)\n\
  -solve_...      KSP/PC options applied to both solves alike (e.g. -solve_ksp_monitor)\n";

#include <petscksp.h>
#include <gpumats.h>
#include <string.h>

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscInt    n, seed;
  PetscReal   soltol;
} TestCtx;

typedef struct {
  const char *name;
  KSPType     ksp;
  PCType      pc;
  PetscBool   spd;          /* the symmetric positive definite matrix */
  PetscBool   one_rank_only;
} SolverConfig;

/* 5-point Laplacian on an n x n grid (row-wise numbering), plus a perturbation drawn
   for every entry of the whole matrix on every rank, so that the matrix does not depend
   on the number of ranks. spd: the perturbation only adds to the diagonal. */
static PetscErrorCode CreateLaplacian(TestCtx *t, MatType type, PetscBool spd, PetscInt boundary, unsigned long seed, Mat *A)
{
  PetscInt    n = t->n, N = n * n, row, rstart, rend;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreate(t->comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type));
  if (strcmp(type, MATAIJ)) { /* the reference takes no matrix options */
    PetscCall(MatSetFromOptions(*A)); /* -mat_gpumats_backend and friends */
    PetscCall(MatCIHybridSetBoundary(*A, boundary));
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (row = 0; row < N; row++) {
    PetscInt    i = row / n, j = row % n, cols[5], k, nc = 0;
    PetscScalar vals[5];
    PetscReal   u;

    cols[nc]   = row;
    vals[nc++] = 4.0;
    if (i > 0) {
      cols[nc]   = row - n;
      vals[nc++] = -1.0;
    }
    if (j > 0) {
      cols[nc]   = row - 1;
      vals[nc++] = -1.0;
    }
    if (j < n - 1) {
      cols[nc]   = row + 1;
      vals[nc++] = -1.0;
    }
    if (i < n - 1) {
      cols[nc]   = row + n;
      vals[nc++] = -1.0;
    }
    for (k = 0; k < nc; k++) {
      PetscCall(PetscRandomGetValueReal(rnd, &u));
      if (spd) {
        if (k == 0) vals[k] += u; /* diagonal in [4, 5): still SPD, symmetric */
      } else vals[k] += 0.3 * (u - 0.5); /* nonsymmetric, still diagonally dominant */
    }
    if (row >= rstart && row < rend) PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateTestVec(Mat A, Vec *v)
{
  PetscInt m, M;
  VecType  vtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetVecType(A, &vtype));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), v));
  PetscCall(VecSetSizes(*v, m, M));
  PetscCall(VecSetType(*v, vtype));
  PetscCall(VecSetFromOptions(*v));
  PetscFunctionReturn(0);
}

/* to <- from, entry by entry through host arrays: the two may be of different types */
static PetscErrorCode CopyValues(Vec from, Vec to)
{
  const PetscScalar *f;
  PetscScalar       *o;
  PetscInt           n, m;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetLocalSize(to, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "local sizes %" PetscInt_FMT " and %" PetscInt_FMT, n, m);
  PetscCall(VecGetArrayRead(from, &f));
  PetscCall(VecGetArrayWrite(to, &o));
  PetscCall(PetscArraycpy(o, f, n));
  PetscCall(VecRestoreArrayWrite(to, &o));
  PetscCall(VecRestoreArrayRead(from, &f));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TestCtx *t, const SolverConfig *c, Mat A, Vec b, Vec x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(t->comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, c->ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, c->pc));
  if (!strcmp(c->pc, PCLU) && t->size > 1) {
#if defined(PETSC_HAVE_MUMPS)
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
#elif defined(PETSC_HAVE_SUPERLU_DIST)
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERSUPERLU_DIST));
#endif
  }
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetOptionsPrefix(ksp, "solve_"));
  PetscCall(KSPSetFromOptions(ksp));
  if (!strcmp(c->pc, PCBJACOBI)) { /* ILU(0) on every block, said explicitly rather than left to the default */
    KSP     *subksp;
    PC       subpc;
    PetscInt nlocal, k;

    PetscCall(KSPSetUp(ksp));
    PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, NULL, &subksp));
    for (k = 0; k < nlocal; k++) {
      PetscCall(KSPSetType(subksp[k], KSPPREONLY));
      PetscCall(KSPGetPC(subksp[k], &subpc));
      PetscCall(PCSetType(subpc, PCILU));
    }
  }
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* Is a parallel LU available for both matrices? (one rank: PETSc's own) */
static PetscErrorCode LUAvailable(TestCtx *t, Mat Ac, Mat Aa, PetscBool *avail)
{
  PetscBool   ac = PETSC_FALSE, aa = PETSC_FALSE;
  const char *solver = MATSOLVERPETSC;

  PetscFunctionBeginUser;
  if (t->size > 1) {
#if defined(PETSC_HAVE_MUMPS)
    solver = MATSOLVERMUMPS;
#elif defined(PETSC_HAVE_SUPERLU_DIST)
    solver = MATSOLVERSUPERLU_DIST;
#else
    *avail = PETSC_FALSE;
    PetscFunctionReturn(0);
#endif
  }
  PetscCall(MatGetFactorAvailable(Aa, solver, MAT_FACTOR_LU, &aa));
  PetscCall(MatGetFactorAvailable(Ac, solver, MAT_FACTOR_LU, &ac));
  PetscCheck(ac == aa, t->comm, PETSC_ERR_PLIB, "LU of %s: available for the AIJ matrix: %d, for the cihybrid matrix: %d; a seqaij/mpiaij subclass must reach the same factorizations", solver, (int)aa, (int)ac);
  *avail = aa;
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareSolve(TestCtx *t, const SolverConfig *c, PetscInt boundary)
{
  Mat                Ac, Aa;
  Vec                xtrue, ba, bc, xc, xa, d;
  PetscInt           itc, ita;
  KSPConvergedReason rc, ra;
  PetscReal          nd, na;
  unsigned long      seed = (unsigned long)t->seed;
  char               bstr[32];

  PetscFunctionBeginUser;
  if (c->one_rank_only && t->size > 1) PetscFunctionReturn(0);
  if (boundary == MAT_CIHYBRID_BOUNDARY_AUTO) PetscCall(PetscSNPrintf(bstr, sizeof(bstr), "auto"));
  else PetscCall(PetscSNPrintf(bstr, sizeof(bstr), "%" PetscInt_FMT, boundary));
  PetscCall(CreateLaplacian(t, MATCIHYBRID, c->spd, boundary, seed, &Ac));
  PetscCall(CreateLaplacian(t, MATAIJ, c->spd, boundary, seed, &Aa));
  if (!strcmp(c->pc, PCLU)) {
    PetscBool avail = PETSC_FALSE;

    PetscCall(LUAvailable(t, Ac, Aa, &avail));
    if (!avail) {
      PetscCall(PetscPrintf(t->comm, "%-26s boundary %-4s: skipped, no parallel LU in this PETSc\n", c->name, bstr));
      PetscCall(MatDestroy(&Ac));
      PetscCall(MatDestroy(&Aa));
      PetscFunctionReturn(0);
    }
  }
  /* each solve gets vectors of its own matrix's type (VECCUDA for cihybrid with a CUDA PETSc and a
     device, standard for MATAIJ) unless -vec_type says otherwise: PETSc's block Jacobi, for one,
     does not mix a host matrix with device vectors */
  PetscCall(CreateTestVec(Aa, &xtrue));
  PetscCall(VecDuplicate(xtrue, &ba));
  PetscCall(VecDuplicate(xtrue, &xa));
  PetscCall(CreateTestVec(Ac, &bc));
  PetscCall(VecDuplicate(bc, &xc));
  if (!strcmp(c->pc, PCBJACOBI)) {
    /* Block Jacobi makes its block work vectors of the matrix's vector type (VECCUDA when the
       products run on the device) and places the solver's arrays in them: with host vectors
       from -vec_type standard that mixes host and device vectors, which PETSc 3.22 does not
       support (MATAIJCUSPARSE with -vec_type standard fails outright, even GMRES+ILU and CG). */
    VecType   mtype, vtype;
    PetscBool mixed;

    PetscCall(MatGetVecType(Ac, &mtype));
    PetscCall(VecGetType(bc, &vtype));
    mixed = (PetscBool)(strstr(mtype, "cuda") && !strstr(vtype, "cuda")); /* "cuda", "seqcuda", "mpicuda" */
    if (mixed) {
      PetscCall(PetscPrintf(t->comm, "%-26s boundary %-4s: skipped, host vectors (%s) with a matrix whose blocks ask for %s\n", c->name, bstr, vtype, mtype));
      PetscCall(VecDestroy(&xtrue));
      PetscCall(VecDestroy(&ba));
      PetscCall(VecDestroy(&xa));
      PetscCall(VecDestroy(&bc));
      PetscCall(VecDestroy(&xc));
      PetscCall(MatDestroy(&Ac));
      PetscCall(MatDestroy(&Aa));
      PetscFunctionReturn(0);
    }
  }
  {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(t->comm, &rnd));
    PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
    PetscCall(PetscRandomSetSeed(rnd, seed + 7 + (unsigned long)t->rank));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(xtrue, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(MatMult(Aa, xtrue, ba)); /* the right-hand side from the reference matrix */
  PetscCall(CopyValues(ba, bc));

  PetscCall(Solve(t, c, Ac, bc, xc, &itc, &rc));
  PetscCall(Solve(t, c, Aa, ba, xa, &ita, &ra));
  PetscCall(VecDuplicate(xa, &d));
  PetscCall(CopyValues(xc, d));
  PetscCall(VecAXPY(d, -1.0, xa));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(xa, NORM_2, &na));
  { /* how far each is from the exact solution, for the record */
    PetscReal ec, ea, nt;

    PetscCall(VecNorm(xtrue, NORM_2, &nt));
    PetscCall(CopyValues(xc, d));
    PetscCall(VecAXPY(d, -1.0, xtrue));
    PetscCall(VecNorm(d, NORM_2, &ec));
    PetscCall(VecWAXPY(d, -1.0, xtrue, xa));
    PetscCall(VecNorm(d, NORM_2, &ea));
    PetscCall(PetscPrintf(t->comm, "%-26s boundary %-4s: iterations cihybrid %3" PetscInt_FMT " aij %3" PetscInt_FMT ", ||x_cihybrid - x_aij||/||x_aij|| = %.2e (errors %.1e, %.1e)\n", c->name, bstr, itc, ita, (double)(nd / na), (double)(ec / nt), (double)(ea / nt)));
  }
  PetscCheck(ra > 0, t->comm, PETSC_ERR_PLIB, "%s: the MATAIJ reference solve did not converge (reason %s): the test problem is wrong", c->name, KSPConvergedReasons[ra]);
  PetscCheck(rc > 0, t->comm, PETSC_ERR_PLIB, "%s, boundary %s: the cihybrid solve did not converge (reason %s) where MATAIJ did in %" PetscInt_FMT " iterations", c->name, bstr, KSPConvergedReasons[rc], ita);
  PetscCheck(itc == ita, t->comm, PETSC_ERR_PLIB, "%s, boundary %s: %" PetscInt_FMT " iterations with cihybrid, %" PetscInt_FMT " with MATAIJ", c->name, bstr, itc, ita);
  PetscCheck(nd <= t->soltol * na, t->comm, PETSC_ERR_PLIB, "%s, boundary %s: ||x_cihybrid - x_aij||/||x_aij|| = %g > %g", c->name, bstr, (double)(nd / na), (double)t->soltol);

  PetscCall(VecDestroy(&xtrue));
  PetscCall(VecDestroy(&ba));
  PetscCall(VecDestroy(&bc));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx      t;
  SolverConfig configs[] = {
    {"GMRES + ILU(0)",           KSPGMRES, PCILU,    PETSC_FALSE, PETSC_TRUE },
    {"GMRES + LU",               KSPGMRES, PCLU,     PETSC_FALSE, PETSC_FALSE},
    {"CG + Jacobi",              KSPCG,    PCJACOBI, PETSC_TRUE,  PETSC_FALSE},
    {"GMRES + block Jacobi/ILU", KSPGMRES, PCBJACOBI, PETSC_FALSE, PETSC_FALSE},
  };
  /* 3 puts the 4th and 5th entry of interior rows in the CSR region */
  PetscInt boundaries[] = {3, MAT_CIHYBRID_BOUNDARY_AUTO};
  PetscInt c, k;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  t.comm   = PETSC_COMM_WORLD;
  t.n      = 24;
  t.seed   = 4521;
  t.soltol = 1e-10;
  PetscCallMPI(MPI_Comm_size(t.comm, &t.size));
  PetscCallMPI(MPI_Comm_rank(t.comm, &t.rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &t.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &t.seed, NULL));
  for (c = 0; c < (PetscInt)(sizeof(configs) / sizeof(configs[0])); c++) {
    for (k = 0; k < (PetscInt)(sizeof(boundaries) / sizeof(boundaries[0])); k++) PetscCall(CompareSolve(&t, &configs[c], boundaries[k]));
  }
  PetscCall(PetscPrintf(t.comm, "test_cihybrid_solvers: all passed on %d rank(s), %" PetscInt_FMT " x %" PetscInt_FMT " grid\n", t.size, t.n, t.n));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ierr = RunTests();
  /* any error is a failure, with exit status 1: meson would read PETSC_ERR_PLIB (77) as 'skipped' */
  if (ierr) PetscCallMPI(MPI_Abort(PETSC_COMM_WORLD, 1));
  PetscCall(PetscFinalize());
  return 0;
}
