/* MATSEQAIJCIHYBRID: a MATSEQAIJ whose multiplies run on a CIHYBRID shadow. */
#pragma once
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"
#include <gpumats_cihybrid_format.h>
#include <gpumats_cihybrid_compress.h>
#if GPUMATS_HAVE_CUDA
  #include "cuda/cihybrid/cihybrid_cuda.h"
#endif

/* MatSetValues into a device-only matrix, kept on the host until the assembly applies them on the
   device (cihybrid_device_algebra.c) */
typedef struct {
  PetscInt     n, cap;
  int32_t     *rows, *cols;
  PetscScalar *vals;
  InsertMode   mode;
} CIHybridStash;

/* The user's choices, kept once: by a sequential matrix, and by the MPI wrapper for its blocks */
typedef struct {
  PetscInt          boundary; /* MAT_CIHYBRID_BOUNDARY_AUTO picks it from the byte model */
  MatCIHybridSplit  split;
  MatCIHybridKernel kernel;
  MatCIHybridCompress compress;
} CIHybridSettings;

typedef struct {
  GpuMatsShadow    shadow;
  CIHybridSettings settings;
  CIHybridFormat   fmt;          /* the layout always; the host arrays once the host has multiplied */
  CIHybridCompressed cmp;        /* settings.compress: made from fmt's arrays whenever they are filled (cihybrid_compressed.c) */
  PetscBool        cmp_made;     /* cmp holds the form of fmt's current arrays: the host products read it */
  double           model_bytes;  /* byte model of the auto choice, -1 when the boundary was given */
  PetscBool        host_current; /* fmt's arrays hold the current values */
  PetscBool        device_only;  /* assembled on the device, host AIJ still empty (cihybrid_device_only.c) */
  struct _MatOps   host_ops;     /* the full table, put back when the host copy is made */
  CIHybridStash    stash;        /* values set into the device-only matrix, not yet assembled */
  PetscBool        column_oriented; /* MAT_ROW_ORIENTED false, set while device-only */
#if GPUMATS_HAVE_CUDA
  CIHybridDevice    dev;
  CIHybridCompressedDevice cdev; /* the device copy of cmp: products read it in place of dev */
  CIHybridDeviceCOO coo;         /* COO entries -> stored entries on the device (cihybrid_coo.c), or NULL */
  GpuMatsCOOPattern coo_pattern; /* the pattern it was made for */
#endif
} Mat_SeqAIJCIHybrid;

/* whether products have a device copy to run on, plain or compressed */
static inline PetscBool CIHybridHasDeviceCopy(const Mat_SeqAIJCIHybrid *h)
{
#if GPUMATS_HAVE_CUDA
  return (PetscBool)(h->dev || h->cdev);
#else
  (void)h;
  return PETSC_FALSE;
#endif
}


PETSC_INTERN const GpuMatsFormatOps CIHybridShadowOps;
/* the settings of a new matrix, sequential (cihybrid.c) or MPI (mpicihybrid.c) */
PETSC_INTERN const CIHybridSettings CIHybridSettingsDefault;

PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJCIHybrid(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJCIHybrid(Mat, MatType, MatReuse, Mat *);

PETSC_INTERN PetscErrorCode MatCIHybridUpdate_SeqAIJCIHybrid(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatCIHybridFreeFormat_SeqAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCIHybridApplySettings_SeqAIJCIHybrid(Mat, const CIHybridSettings *);
PETSC_INTERN PetscErrorCode MatCIHybridGetSettings_SeqAIJCIHybrid(Mat, CIHybridSettings *);
PETSC_INTERN PetscErrorCode CIHybridSetFromOptions(Mat, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatCIHybridView_Info(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatCIHybridGetInfo_SeqAIJCIHybrid(Mat, MatCIHybridInfo *);
/* the layout of h->fmt from the row starts ai (and columns aj, unused by the 'entries' split) */
PETSC_INTERN PetscErrorCode CIHybridLayout(Mat, Mat_SeqAIJCIHybrid *, const PetscInt *, const PetscInt *, PetscBool);

/* The operations that a device-only matrix, sequential (cihybrid_device_only.c) or MPI
   (mpicihybrid_device_only.c), keeps from its full table: they read no host entries (the
   multiplies run on the device copy; the rest manage the object) */
#define CIHYBRID_KEPT_OPS(X) X(mult) X(multadd) X(multtranspose) X(multtransposeadd) X(destroy) X(setoption) X(setfromoptions) X(getvecs) X(bindtocpu) CIHYBRID_KEPT_OP_MEMTYPE(X)
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
  #define CIHYBRID_KEPT_OP_MEMTYPE(X) X(getcurrentmemtype)
#else
  #define CIHYBRID_KEPT_OP_MEMTYPE(X)
#endif
#define CIHYBRID_KEEP_OP(op) ops->op = full->op;

/* The operations that a device-only matrix, sequential (cihybrid_device_only.c) or MPI
   (mpicihybrid_device_only.c), runs only after making its host copy: X(op, params, args) each,
   'A' the matrix in params */
#define CIHYBRID_HOST_OPS(X) \
  X(getrow, (Mat A, PetscInt row, PetscInt *nz, PetscInt **idx, PetscScalar **v), (A, row, nz, idx, v)) \
  X(getvalues, (Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], PetscScalar v[]), (A, m, im, n, in, v)) \
  X(diagonalscale, (Mat A, Vec l, Vec r), (A, l, r)) \
  X(transpose, (Mat A, MatReuse reuse, Mat *B), (A, reuse, B)) \
  X(equal, (Mat A, Mat B, PetscBool *flg), (A, B, flg)) \
  X(createsubmatrix, (Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B), (A, isrow, iscol, reuse, B)) \
  X(createsubmatrices, (Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse reuse, Mat *B[]), (A, n, irow, icol, reuse, B)) \
  X(issymmetric, (Mat A, PetscReal tol, PetscBool *flg), (A, tol, flg)) \
  X(getrowmaxabs, (Mat A, Vec v, PetscInt idx[]), (A, v, idx)) \
  X(getrowmax, (Mat A, Vec v, PetscInt idx[]), (A, v, idx)) \
  X(getrowmin, (Mat A, Vec v, PetscInt idx[]), (A, v, idx)) \
  X(zerorows, (Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b), (A, n, rows, diag, x, b)) \
  X(zerorowscolumns, (Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b), (A, n, rows, diag, x, b)) \
  X(sor, (Mat A, Vec b, PetscReal omega, MatSORType flag, PetscReal shift, PetscInt its, PetscInt lits, Vec x), (A, b, omega, flag, shift, its, lits, x)) \
  X(invertblockdiagonal, (Mat A, const PetscScalar **values), (A, values)) \
  X(increaseoverlap, (Mat A, PetscInt n, IS is[], PetscInt ov), (A, n, is, ov)) \
  X(load, (Mat A, PetscViewer viewer), (A, viewer)) \
  CIHYBRID_HOST_OP_MISSINGDIAGONAL(X)
#if GPUMATS_HAVE_OP_MISSINGDIAGONAL
  #define CIHYBRID_HOST_OP_MISSINGDIAGONAL(X) X(missingdiagonal, (Mat A, PetscBool *missing, PetscInt *d), (A, missing, d))
#else
  #define CIHYBRID_HOST_OP_MISSINGDIAGONAL(X)
#endif

/* device assembly (cihybrid_device_only.c) */
PETSC_INTERN PetscErrorCode MatCIHybridAssembleOnDevice_SeqAIJCIHybrid(Mat, const MatCIHybridDeviceRows *);
/* what the device assembly needs of A (products on the device, the 'entries' split) and of the generator */
PETSC_INTERN PetscErrorCode CIHybridDeviceAssemblyCheck(Mat A, GpuMatsBackend, MatCIHybridSplit, const MatCIHybridDeviceRows *);
/* the host AIJ copy of a device-only matrix, made for the reason 'why' (said by -info); a no-op otherwise */
PETSC_INTERN PetscErrorCode CIHybridMakeHostCopy(Mat, const char *why);
/* before a factorization reads the host AIJ (GPUMATS_FACTOR_PREPARE, sequential and MPI): the host
   copy of a matrix made on the device, then the matrix marked as read on the host, never ahead */
PETSC_INTERN PetscErrorCode CIHybridFactorPrepare(Mat, const char *why);
/* MatCIHybridAssembleOnDevice_C, MatCIHybridMakeHostCopy_C, MatCIHybridIsDeviceOnly_C and
   GPUMATS_FACTOR_PREPARE on a sequential matrix */
PETSC_INTERN PetscErrorCode MatCIHybridComposeDeviceOnly(Mat, PetscBool);
/* the same for an MPI matrix, each process its own rows (mpicihybrid_device_only.c) */
PETSC_INTERN PetscErrorCode MatCIHybridComposeDeviceOnlyMPI(Mat, PetscBool);
/* COO values in device memory straight into the device copy (cihybrid_coo.c) */
PETSC_INTERN PetscErrorCode MatCIHybridComposeCOO(Mat, PetscBool);
PETSC_INTERN PetscErrorCode CIHybridBecomeDeviceOnly(Mat);
/* the ops of a device-only matrix that run on its device copy (cihybrid_device_algebra.c) */
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_GetDiagonal(Mat, Vec);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_Shift(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_DiagonalSet(Mat, Vec, InsertMode);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_Scale(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_ZeroEntries(Mat);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_Norm(Mat, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_AssemblyBegin(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_AssemblyEnd(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_SetValues(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_SetOption(Mat, MatOption, PetscBool);
PETSC_INTERN PetscErrorCode CIHybridStashFree(CIHybridStash *);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_AXPY(Mat, PetscScalar, Mat, MatStructure);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_Duplicate(Mat, MatDuplicateOption, Mat *);
PETSC_INTERN PetscErrorCode CIHybridDeviceOnly_Copy(Mat, Mat, MatStructure);

/* the compressed form (cihybrid_compressed.c): made from h->fmt's filled arrays, and its device
   copy in place of the plain one when on_device; both freed */
PETSC_INTERN PetscErrorCode CIHybridCompressedMake(Mat, Mat_SeqAIJCIHybrid *, PetscBool on_device);
PETSC_INTERN PetscErrorCode CIHybridCompressedFreeAll(Mat_SeqAIJCIHybrid *);
/* products on the compressed form, host or device arrays */
PETSC_INTERN PetscErrorCode CIHybridCompressedMultOp(Mat, PetscBool on_device, PetscBool transpose, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode CIHybridCompressedSpMMOp(Mat, PetscBool on_device, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);
PETSC_INTERN PetscErrorCode CIHybridCompressedGetInfo(Mat_SeqAIJCIHybrid *, MatCIHybridInfo *);

/* C(:, 0:k) = A B (+ C when add), B and C column-major with leading dimensions ldb, ldc */
PETSC_INTERN void CIHybridSpMMHost(const CIHybridFormat *, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);
