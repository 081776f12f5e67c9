static const char help[] = "Creates a matrix of each gpumats type and sets it from the options database, so that\n\
-help prints every option of gpumats with its default.  tools/docs/options-tables.py makes the\n\
option tables of README.md and docs/ from that output and checks they are current.\n";

#include <petscmat.h>
#include <gpumats.h>

int main(int argc, char **argv)
{
  char     *types[8];
  PetscInt  ntypes = 8;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, NULL));
  for (PetscInt t = 0; t < ntypes; t++) {
    Mat A;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 4, 4));
    PetscCall(MatSetType(A, types[t]));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(types[t]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
