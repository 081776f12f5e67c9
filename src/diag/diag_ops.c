/* MATSEQDIAG: bringing the diagonals where the product runs (host or device copy), and the
   products on either side, for the common multiplies (src/common/format_ops.c). */
#include "diag/diag_impl.h"

/* ---- the multiplies --------------------------------------------------------- */

static PetscErrorCode DiagUpdate(Mat A, PetscBool *on_device)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: the matrix must be assembled before it is multiplied");
  PetscCall(GpuMatsBackendUsesDevice(A, d->base.backend, on_device));
  d->base.nnz = d->fmt.start[d->fmt.ndiag];
  if (*on_device) PetscCall(MatDiagSyncDevice_SeqDiag(A));
  else PetscCall(MatDiagSyncHost_SeqDiag(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagMultHostOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  const DiagFormat *f = &((Mat_SeqDiag *)A->spptr)->fmt;

  PetscFunctionBegin;
  if (transpose) DiagMultTransposeHost(f, x, y0, y);
  else DiagMultHost(f, x, y0, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagSpMMHostOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  DiagSpMMHost(&((Mat_SeqDiag *)A->spptr)->fmt, k, B, ldb, add, C, ldc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
static PetscErrorCode DiagMultDeviceOp(Mat A, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(DiagDeviceMult(((Mat_SeqDiag *)A->spptr)->dev, transpose, x, y0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagSpMMDeviceOp(Mat A, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc)
{
  PetscFunctionBegin;
  PetscCall(DiagDeviceSpMM(((Mat_SeqDiag *)A->spptr)->dev, k, B, ldb, add, C, ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

const GpuMatsFormatOps DiagOps = {
  DiagUpdate, DiagMultHostOp, DiagSpMMHostOp,
#if GPUMATS_HAVE_CUDA
  DiagMultDeviceOp, DiagSpMMDeviceOp, NULL, NULL /* diag is its own master: diag_algebra.c */
#endif
};
