static const char help[] = "diag against aij on DMDA stencils, host only, one process: the assembly\n\
(DMCreateMatrix, then MatSetValuesStencil of every row, MatAssembly; and diag from MatSetValues with\n\
no DM and no preallocation) and MatMult / MatMultTranspose.\n\
  -assembly_sizes <20,40,60>  grid sizes n (n^3 points) of the assembly timing (27-point box)\n\
  -mult_size <60>             grid size of the products (7-point star and 27-point box)\n\
  -reps <50>                  products timed (the best of 3 rounds is kept)\n\
  -skip_assembly, -skip_mult\n\
Run: build/benchmarks/bench_diag_dmda (no -dll_append: it is linked with gpumats).\n";

#include <petscdmda.h>
#include <petsctime.h>
#include <gpumats.h>

static PetscErrorCode CreateDA(PetscInt n, DMDAStencilType st, DM *da)
{
  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n, n, n, 1, 1, 1, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* A Laplacian-like operator: 26 (or 6) on the diagonal, -1 for every neighbour */
static PetscErrorCode Fill(DM da, Mat J)
{
  PetscInt        n, xs, ys, zs, xm, ym, zm;
  DMDAStencilType st;
  MatStencil      row, cols[27];
  PetscScalar     vals[27];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &st));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt nc = 0;

        row.i = i, row.j = j, row.k = k, row.c = 0;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              if (st == DMDA_STENCIL_STAR && (di != 0) + (dj != 0) + (dk != 0) > 1) continue;
              if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || k + dk < 0 || k + dk >= n) continue;
              cols[nc].i = i + di, cols[nc].j = j + dj, cols[nc].k = k + dk, cols[nc].c = 0;
              vals[nc++] = (di || dj || dk) ? -1.0 : (st == DMDA_STENCIL_STAR ? 6.0 : 26.0);
            }
        PetscCall(MatSetValuesStencil(J, 1, &row, nc, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Assembly(PetscInt n, MatType type, PetscLogDouble *create, PetscLogDouble *fill)
{
  DM             da;
  Mat            J;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(CreateDA(n, DMDA_STENCIL_BOX, &da));
  PetscCall(DMSetMatType(da, type));
  PetscCall(PetscTime(&t0));
  PetscCall(DMCreateMatrix(da, &J));
  PetscCall(PetscTime(&t1));
  PetscCall(Fill(da, J));
  PetscCall(PetscTime(&t2));
  *create = t1 - t0, *fill = t2 - t1;
  PetscCall(MatDestroy(&J));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* Without a DM and without preallocation: MatSetValues of the same rows by global (natural)
   indices into a fresh diag matrix, the pattern found at the assembly */
static PetscErrorCode AssemblyNoDM(PetscInt n, PetscLogDouble *time)
{
  Mat            J;
  PetscLogDouble t0, t1;
  PetscInt       N = n * n * n, cols[27];
  PetscScalar    vals[27];

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(MatCreate(PETSC_COMM_SELF, &J));
  PetscCall(MatSetSizes(J, N, N, N, N));
  PetscCall(MatSetType(J, MATDIAG));
  PetscCall(MatSetUp(J));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt row = i + n * (j + n * k);
        PetscInt       nc  = 0;

        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || k + dk < 0 || k + dk >= n) continue;
              cols[nc]   = row + di + n * (dj + n * dk);
              vals[nc++] = (di || dj || dk) ? -1.0 : 26.0;
            }
        PetscCall(MatSetValues(J, 1, &row, nc, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscTime(&t1));
  *time = t1 - t0;
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(0);
}

/* ms a product, the best of 3 rounds of reps */
static PetscErrorCode TimeProducts(Mat J, PetscInt reps, PetscBool transpose, double *ms)
{
  Vec x, y;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(J, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(transpose ? MatMultTranspose(J, x, y) : MatMult(J, x, y)); /* warm up */
  *ms = 1e30;
  for (PetscInt round = 0; round < 3; round++) {
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(transpose ? MatMultTranspose(J, x, y) : MatMult(J, x, y));
    PetscCall(PetscTime(&t1));
    *ms = PetscMin(*ms, 1e3 * (t1 - t0) / reps);
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

static PetscErrorCode Products(PetscInt n, DMDAStencilType st, PetscInt reps)
{
  const char *names[3] = {"aij", "diag (hm)", "diag (cdm)"};
  DM          da;
  Mat         J[3];
  Vec         x, y[3];
  PetscReal   err = 0;

  PetscFunctionBeginUser;
  PetscCall(CreateDA(n, st, &da));
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(DMSetMatType(da, k ? MATDIAG : MATAIJ));
    PetscCall(DMCreateMatrix(da, &J[k]));
    if (k) PetscCall(MatDiagSetScheme(J[k], k == 1 ? MAT_DIAG_SCHEME_HM : MAT_DIAG_SCHEME_CDM));
    PetscCall(Fill(da, J[k]));
  }
  /* the same products first */
  PetscCall(MatCreateVecs(J[0], &x, NULL));
  PetscCall(VecSetRandom(x, NULL));
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(MatCreateVecs(J[0], NULL, &y[k]));
    PetscCall(MatMult(J[k], x, y[k]));
  }
  for (PetscInt k = 1; k < 3; k++) {
    PetscReal e;

    PetscCall(VecAXPY(y[k], -1.0, y[0]));
    PetscCall(VecNorm(y[k], NORM_INFINITY, &e));
    err = PetscMax(err, e);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT "-point %" PetscInt_FMT "^3 (%" PetscInt_FMT " rows), largest difference from aij %.1e\n", st == DMDA_STENCIL_STAR ? (PetscInt)7 : (PetscInt)27, n, n * n * n, (double)err));
  for (PetscInt k = 0; k < 3; k++) {
    double mult, multt;

    PetscCall(TimeProducts(J[k], reps, PETSC_FALSE, &mult));
    PetscCall(TimeProducts(J[k], reps, PETSC_TRUE, &multt));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-10s MatMult %8.3f ms   MatMultTranspose %8.3f ms\n", names[k], mult, multt));
  }
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(MatDestroy(&J[k]));
    PetscCall(VecDestroy(&y[k]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  sizes[8] = {20, 40, 60}, nsizes = 3, msize = 60, reps = 50;
  PetscBool skip_assembly = PETSC_FALSE, skip_mult = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  {
    PetscInt  nmax = 8;
    PetscBool set;

    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-assembly_sizes", sizes, &nmax, &set));
    if (set) nsizes = nmax;
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mult_size", &msize, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_assembly", &skip_assembly, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_mult", &skip_mult, NULL));
  if (!skip_assembly) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "assembly of a 27-point 3-D DMDA operator: DMCreateMatrix + MatSetValuesStencil (s)\n"));
    for (PetscInt s = 0; s < nsizes; s++) {
      PetscLogDouble ca, fa, cd, fd;

      PetscCall(Assembly(sizes[s], MATAIJ, &ca, &fa));
      PetscCall(Assembly(sizes[s], MATDIAG, &cd, &fd));
      PetscLogDouble nodm = 0;

      PetscCall(AssemblyNoDM(sizes[s], &nodm));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %3" PetscInt_FMT "^3  aij %.3f + %.3f = %.3f   diag %.3f + %.3f = %.3f   diag without DM or preallocation %.3f\n", sizes[s], ca, fa, ca + fa, cd, fd, cd + fd, nodm));
    }
  }
  if (!skip_mult) {
    PetscCall(Products(msize, DMDA_STENCIL_STAR, reps));
    PetscCall(Products(msize, DMDA_STENCIL_BOX, reps));
  }
  PetscCall(PetscFinalize());
  return 0;
}
