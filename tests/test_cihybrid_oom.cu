/* Device out of memory must be a PETSc error that names the sizes, leak
   nothing, and leave the matrix usable once memory is back.
   The test takes nearly all free device memory itself, multiplies, expects
   PETSC_ERR_MEM, gives the memory back and multiplies again (checked against
   MATAIJ).  Then, with room for the format but not for the fill's full-size
   upload buffers, a fresh copy of the matrix must still multiply correctly
   (the fill uses smaller chunks).  COO preallocated with the device full, then given values in
   device memory, must give the same products (CheckCOO).  Skipped (exit 77) without a usable device; its failures are
   PETSC_ERR_LIB (76), since PETSC_ERR_PLIB is 77, which meson would count as a skip. */
#include <gpumats.h>
#include "common/gpumats_compat.h"
#include <cuda_runtime.h>
#include <string.h>

static const char help[] = "cihybrid: device out-of-memory handling\n";

/* Takes all free device memory but 'keep' bytes (*hog, to cudaFree). */
static PetscErrorCode HogDevice(size_t keep, void **hog)
{
  size_t avail, total, bytes;

  PetscFunctionBeginUser;
  *hog = NULL;
  PetscCheck(cudaMemGetInfo(&avail, &total) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemGetInfo failed");
  PetscCheck(avail > keep + ((size_t)1 << 30), PETSC_COMM_SELF, PETSC_ERR_LIB, "only %zu bytes free on the device", avail);
  bytes = avail - keep;
  while (cudaMalloc(hog, bytes) != cudaSuccess && bytes > ((size_t)1 << 30)) {
    (void)cudaGetLastError();
    bytes -= (size_t)64 << 20;
  }
  PetscCheck(*hog, PETSC_COMM_SELF, PETSC_ERR_LIB, "could not take the device memory the test needs");
  PetscFunctionReturn(0);
}

/* |y - yref| <= 1e-12 |yref| for y = A x and yref = B x */
static PetscErrorCode CheckMult(Mat A, Mat B, Vec x, Vec y, Vec yref, const char *when)
{
  PetscReal err, nrm;

  PetscFunctionBeginUser;
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yref));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_2, &err));
  PetscCall(VecNorm(yref, NORM_2, &nrm));
  PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: relative error %g", when, (double)(err / nrm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: %s, relative error %g\n", when, (double)(err / nrm)));
  PetscFunctionReturn(0);
}

/* COO with the device full: MatSetPreallocationCOO, whose map from the COO entries to the stored
   ones is made on the device when it can be, either succeeds (the values then go through the
   host) or fails with PETSC_ERR_MEM.  Once the memory is back, B's entries given in device memory
   to that matrix, if it was made, and to a new one must give B's products. */
static PetscErrorCode CheckCOO(Mat B, Vec x, Vec y, Vec yref)
{
  PetscInt           n, ncols, nnz = 0;
  const PetscInt    *cols;
  const PetscScalar *vals;
  PetscInt          *ci, *cj, *ci2, *cj2;
  PetscScalar       *cv, *dv = NULL;
  Mat                C[2] = {NULL, NULL};
  void              *hog  = NULL;
  PetscErrorCode     ierr;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(B, &n, NULL));
  for (PetscInt r = 0; r < n; r++) {
    PetscCall(MatGetRow(B, r, &ncols, NULL, NULL));
    nnz += ncols;
    PetscCall(MatRestoreRow(B, r, &ncols, NULL, NULL));
  }
  PetscCall(PetscMalloc5(nnz, &ci, nnz, &cj, nnz, &ci2, nnz, &cj2, nnz, &cv));
  for (PetscInt r = 0, e = 0; r < n; r++) {
    PetscCall(MatGetRow(B, r, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++, e++) ci[e] = ci2[e] = r, cj[e] = cj2[e] = cols[k], cv[e] = vals[k];
    PetscCall(MatRestoreRow(B, r, &ncols, &cols, &vals));
  }
  PetscCheck(cudaMalloc((void **)&dv, (size_t)nnz * sizeof(PetscScalar)) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMalloc of the COO values failed");
  PetscCheck(cudaMemcpy(dv, cv, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyHostToDevice) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemcpy of the COO values failed");
  for (int t = 0; t < 2; t++) {
    PetscCall(MatCreate(PETSC_COMM_SELF, &C[t]));
    PetscCall(MatSetSizes(C[t], n, n, n, n));
    PetscCall(MatSetType(C[t], MATSEQAIJCIHYBRID));
  }
  PetscCall(HogDevice((size_t)16 << 20, &hog));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetPreallocationCOO(C[0], nnz, ci, cj);
  PetscCall(PetscPopErrorHandler());
  if (cudaFree(hog) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree failed");
  PetscCheck(!ierr || ierr == PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_LIB, "MatSetPreallocationCOO with the device full: error %d, expected none or PETSC_ERR_MEM", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: MatSetPreallocationCOO of %" PetscInt_FMT " entries with the device full: %s\n", nnz, ierr ? "PETSC_ERR_MEM" : "made"));
  if (ierr) PetscCall(MatDestroy(&C[0]));
  PetscCall(MatSetPreallocationCOO(C[1], nnz, ci2, cj2));
  for (int t = 0; t < 2; t++) {
    if (!C[t]) continue;
    PetscCall(MatSetValuesCOO(C[t], dv, INSERT_VALUES));
    PetscCall(CheckMult(C[t], B, x, y, yref, t ? "COO values from the device, preallocated after the memory came back" : "COO values from the device, preallocated with the device full"));
    PetscCall(MatDestroy(&C[t]));
  }
  if (cudaFree(dv) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree failed");
  PetscCall(PetscFree5(ci, cj, ci2, cj2, cv));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat            A, B, C;
  MatCIHybridInfo info;
  Vec            x, y, yref;
  PetscInt       n = 200000, per_row = 40, i, k;
  PetscBool      uses;
  void          *hog = NULL;
  PetscErrorCode ierr;
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

  /* leave ~16 MiB: the format needs about 155 MB (ELL pitch 64 for rows of 40) */
  PetscCall(HogDevice((size_t)16 << 20, &hog));

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCall(GpuMatsErrorMessage(ierr, &text, &specific));
  PetscCheck(ierr == PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_LIB, "expected PETSC_ERR_MEM from MatMult with the device full, got %d: %s", (int)ierr, specific ? specific : "(no message)");
  PetscCheck(specific && strstr(specific, "bytes"), PETSC_COMM_SELF, PETSC_ERR_LIB, "the out-of-memory message does not give sizes: %s", specific ? specific : "(none)");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "oom: expected error: %s\n", specific));

  if (cudaFree(hog) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree failed");
  PetscCall(CheckMult(A, B, x, y, yref, "recovered after the memory came back"));

  /* room for the format (as large as A's device copy), the row starts and 40 MB more: not
     for the 96 MB (n*40*12 bytes) upload buffers of one full-size chunk */
  PetscCall(MatCIHybridGetInfo(A, &info));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(HogDevice((size_t)info.bytes_device + (size_t)(n + 1) * sizeof(PetscInt) + ((size_t)40 << 20), &hog));
  ierr = CheckMult(C, B, x, y, yref, "fill in smaller chunks with little device memory");
  if (cudaFree(hog) != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree failed");
  PetscCall(ierr);
  PetscCall(MatDestroy(&C));
  PetscCall(CheckCOO(B, x, y, yref));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
