/* Device out of memory must be a PETSc error that names the sizes, leak
   nothing, and leave the matrix usable once memory is back.
   The test takes nearly all free device memory itself, multiplies, expects
   PETSC_ERR_MEM, gives the memory back and multiplies again (checked against
   MATAIJ). Skipped (exit 77) without a usable device. */
#include <gpumats.h>
#include <cuda_runtime.h>
#include <string.h>

static const char help[] = "cihybrid: device out-of-memory handling\n";

int main(int argc, char **argv)
{
  Mat            A, B;
  Vec            x, y, yref;
  PetscInt       n = 200000, per_row = 40, i, k;
  PetscBool      uses;
  void          *hog = NULL;
  size_t         avail, total, hog_bytes;
  PetscErrorCode ierr;
  PetscReal      err, nrm;
  const char    *text, *specific;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscCall(MatCreateSeqAIJCIHybrid(PETSC_COMM_SELF, n, n, per_row, NULL, &A));
  PetscCall(MatGpuMatsUsesDevice(A, &uses));
  if (!uses) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: no usable device, skipped\n"));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 77;
  }
  for (i = 0; i < n; i++)
    for (k = 0; k < per_row; k++) PetscCall(MatSetValue(A, i, (i + k * 977) % n, 1.0 / (1 + i + k), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 0.0)); /* vectors on the device before memory runs out */

  /* leave ~16 MiB: the format needs n*40*12 bytes = 96 MB */
  if (cudaMemGetInfo(&avail, &total) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemGetInfo failed");
  hog_bytes = avail - ((size_t)16 << 20);
  while (cudaMalloc(&hog, hog_bytes) != cudaSuccess && hog_bytes > ((size_t)1 << 30)) {
    (void)cudaGetLastError();
    hog_bytes -= (size_t)64 << 20;
  }
  PetscCheck(hog, PETSC_COMM_SELF, PETSC_ERR_LIB, "could not take the device memory the test needs");

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_PLIB, "expected PETSC_ERR_MEM from MatMult with the device full, got %d", (int)ierr);
  PetscCall(PetscErrorMessage(ierr, &text, (char **)&specific));
  PetscCheck(specific && strstr(specific, "bytes"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the out-of-memory message does not give sizes: %s", specific ? specific : "(none)");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: expected error: %s\n", specific));

  if (cudaFree(hog) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree failed");
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yref));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_2, &err));
  PetscCall(VecNorm(yref, NORM_2, &nrm));
  PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "after the memory came back: relative error %g", (double)(err / nrm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: recovered, relative error %g\n", (double)(err / nrm)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
