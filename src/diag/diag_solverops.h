/* The operations PETSc's default solvers call on a MATSEQDIAG operator besides the
   products: SOR (diag_sor.c), zeroing rows and columns, diagonal scaling and setting
   (diag_rows.c), AXPY with any X (diag_axpy.c), submatrices and overlap
   (diag_submat.c).  The array-level parts are shared with MATMPIDIAG, whose operations
   work on each process's diagonal block as MPIAIJ's do (mpidiag_solverops.c). */
#pragma once
#include "diag/diag_impl.h"

PETSC_INTERN PetscErrorCode MatSOR_SeqDiag(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
/* MatSOR's refusals (not assembled, not square; and a zero diagonal it would divide by), made
   before any work */
PETSC_INTERN PetscErrorCode DiagSORCheckShape(Mat);
PETSC_INTERN PetscErrorCode DiagSORCheckPivots(Mat, PetscReal omega, PetscReal fshift);
/* The stored diagonals holding entries left (lo) and right (up) of the main diagonal, each list
   in the order of the columns it gives in any row: the order of a row's sums in every sweep */
typedef struct {
  const DiagFormat *f;
  PetscInt          nlo, nup;
  PetscInt         *lo, *up;
} DiagRowPlan;
PETSC_INTERN PetscErrorCode DiagRowPlanCreate(const DiagFormat *, DiagRowPlan *);
PETSC_INTERN PetscErrorCode DiagRowPlanDestroy(DiagRowPlan *);
/* The rows of a sweep in levels (diag_sor_schedule.c): level[i] is one more than the level of
   every earlier row i is coupled with either way (a(i,j) or a(j,i) an entry of the structure
   or a nonzero value, j < i); rows[] lists the rows level by level, ascending within one,
   level_start[] (nlevels + 1) where each level begins.  Square A, host values current. */
PETSC_INTERN PetscErrorCode DiagSORScheduleCreate(Mat A, PetscInt *nlevels, PetscInt **level_start, PetscInt **rows, PetscInt **level);
#if GPUMATS_HAVE_CUDA
/* MatSOR on the device (diag_sor_device.c) when the settings and vectors say so (*done true),
   else nothing (*done false: the host sweeps) */
PETSC_INTERN PetscErrorCode MatSOR_SeqDiag_Device(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec, PetscBool *done);
#endif

PETSC_INTERN PetscErrorCode MatZeroRows_SeqDiag(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
PETSC_INTERN PetscErrorCode MatZeroRowsColumns_SeqDiag(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
PETSC_INTERN PetscErrorCode MatDiagonalScale_SeqDiag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatDiagonalSet_SeqDiag(Mat, Vec, InsertMode);
/* The same on arrays (NULL: none), for the diagonal block of an MPI matrix:
   rows scaled by l, columns by r; a(i,i) set (INSERT) or added to (ADD) for i < min(m, n);
   rows zeroed (diag on their main diagonal, b[i] = diag x[i]); with columns too, each
   zeroed column j's entries a(i,j) moved into b[i] -= a(i,j) x[j] first. */
PETSC_INTERN PetscErrorCode DiagScaleArrays_SeqDiag(Mat, const PetscScalar *l, const PetscScalar *r);
PETSC_INTERN PetscErrorCode DiagSetDiagonalArray_SeqDiag(Mat, const PetscScalar *v, InsertMode);
PETSC_INTERN PetscErrorCode DiagZeroRowsArrays_SeqDiag(Mat, PetscInt, const PetscInt[], PetscScalar, PetscBool columns, const PetscScalar *x, PetscScalar *b);
/* A with the main diagonal stored (added, zero, when missing) */
PETSC_INTERN PetscErrorCode DiagEnsureMainDiagonal_SeqDiag(Mat);

PETSC_INTERN PetscErrorCode MatAXPY_SeqDiag(Mat, PetscScalar, Mat, MatStructure);
/* PETSc's MatAXPY() with an X of another type and DIFFERENT/UNKNOWN_NONZERO_PATTERN asks Y
   for a matrix with the union of both patterns ("MatAXPYGetPreallocation_C") */
PETSC_INTERN PetscErrorCode MatAXPYGetPreallocation_SeqDiag(Mat, Mat, Mat *);
/* Refuses (PETSC_ERR_SUP, naming op and -mat_diag_max_fill) a format storing 'stored' values
   for about 'nnz' nonzeros beyond the fill limit of A's settings */
PETSC_INTERN PetscErrorCode DiagCheckFill(Mat A, const char *op, PetscInt ndiag, PetscInt64 stored, PetscInt64 nnz, PetscReal max_fill);

PETSC_INTERN PetscErrorCode MatCreateSubMatrix_SeqDiag(Mat, IS, IS, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatCreateSubMatrices_SeqDiag(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat *[]);
PETSC_INTERN PetscErrorCode MatIncreaseOverlap_SeqDiag(Mat, PetscInt, IS[], PetscInt);
/* A new seqdiag with the entries of the assembled sequential AIJ M, A's settings and backend;
   *fits false (and no matrix) when M's diagonals exceed the fill limit or the scheme (CDM of
   a rectangular M) */
PETSC_INTERN PetscErrorCode DiagFromAIJIfFits(Mat M, const DiagSettings *, GpuMatsBackend, PetscBool *fits, Mat *B);
/* Would the sequential AIJ M fit diag with these settings? */
PETSC_INTERN PetscErrorCode DiagAIJFits(Mat M, const DiagSettings *, PetscBool *fits);
/* dst (assembled sequential AIJ) gets the values of src of the same sizes: in place when their
   patterns agree, else entry by entry */
PETSC_INTERN PetscErrorCode DiagCopyAIJInto(Mat src, Mat dst);
