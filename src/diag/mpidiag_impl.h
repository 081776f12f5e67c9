/* MATMPIDIAG's private structure, shared by the type (mpidiag.c), its class (mpidiag_class.c:
   the blocks, settings and options of the common MPI mechanism, src/common/mpiclass.h), its
   staging and assembly (mpidiag_assembly.c), its algebra (mpidiag_algebra.c) and the
   operations PETSc's solvers call on it (mpidiag_solverops.c).  M->data is the Mat_MPIDiag
   (the storage: blocks, ghost columns, scatter, staging); M->spptr the common GpuMatsMPI
   (class, backend, settings). */
#pragma once
#include "diag/diag_impl.h"

typedef struct {
  Mat            A, B;   /* seqdiag diagonal block, seqaijpcsr off-process block (nghost columns) */
  PetscInt      *garray; /* the global column of each column of B, ascending */
  PetscInt       nghost;
  Vec            lvec; /* ghost values of x */
  VecScatter     Mvctx;
  /* until the first assembly: an MPIAIJ preallocated with the caller's counts (DMCreateMatrix
     gives exact ones), or without counts the entries as triples (global indices, in the order
     set, a phase per flush assembly) and their pattern in a MATPREALLOCATOR */
  Mat            stage;
  Mat            pattern;
  DiagTriples    staged;
  PetscInt64    *phase_end; /* staged.count at each flush assembly */
  PetscInt       nphases, phase_capacity;
  PetscBool      column_oriented; /* MAT_ROW_ORIENTED false */
  PetscInt      *row_cols; /* MatGetRow's scratch */
  PetscScalar   *row_vals;
  PetscInt       row_capacity;
} Mat_MPIDiag;

#define MPIDiagOf(M)         ((Mat_MPIDiag *)(M)->data)
#define MPIDiagSettingsOf(M) ((DiagSettings *)GpuMatsMPIOf(M)->settings) /* the MPI matrix's, for its blocks */

/* mpidiag_class.c: the class of the common MPI mechanism */
PETSC_INTERN const GpuMatsMPIClass DiagMPIClass;
PETSC_INTERN PetscErrorCode        MatConvert_MPIAIJ_MPIDiag(Mat, MatType, MatReuse, Mat *);

/* mpidiag.c: refuses an operation (op) before the first assembly */
PETSC_INTERN PetscErrorCode MPIDiagCheckAssembled(Mat M, const char *op);
/* mpidiag_algebra.c: the algebra (installed by MatCreate_MPIDiag) */
PETSC_INTERN PetscErrorCode MatGetDiagonal_MPIDiag(Mat, Vec);
PETSC_INTERN PetscErrorCode MatGetDiagonalBlock_MPIDiag(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatScale_MPIDiag(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatShift_MPIDiag(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatZeroEntries_MPIDiag(Mat);
PETSC_INTERN PetscErrorCode MatGetRow_MPIDiag(Mat, PetscInt, PetscInt *, PetscInt **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatRestoreRow_MPIDiag(Mat, PetscInt, PetscInt *, PetscInt **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatNorm_MPIDiag(Mat, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode MatGetInfo_MPIDiag(Mat, MatInfoType, MatInfo *);
/* mpidiag_solverops.c: SOR, zero rows (and columns), diagonal scale/set, AXPY with any X,
   submatrices and overlap, installed on a new MATMPIDIAG */
PETSC_INTERN PetscErrorCode MatMPIDiagInstallOps(Mat);
/* The MPIAIJ with M's entries (mpidiag.c); M rebuilt from an assembled MPIAIJ P (P destroyed) */
PETSC_INTERN PetscErrorCode MPIDiagToMPIAIJ(Mat M, Mat *P);
PETSC_INTERN PetscErrorCode MPIDiagBecomePCSRIfSpread(Mat, Mat *P, PetscBool *became);
PETSC_INTERN PetscErrorCode MatCreateGraph_MPIDiag(Mat, PetscBool, PetscBool, PetscReal GPUMATS_CREATEGRAPH_INDEX_ARGS, Mat *);
PETSC_INTERN PetscErrorCode MPIDiagRebuildFrom(Mat M, Mat P);
/* M->nonzerostate increased on every process when any diagonal block's changed since 'before' */
PETSC_INTERN PetscErrorCode MPIDiagSyncNonzeroState(Mat M, PetscObjectState before);
PETSC_INTERN PetscErrorCode MatAXPYGetPreallocation_MPIDiag(Mat, Mat, Mat *);
/* mpidiag.c: the blocks, ghost columns and scatter from an assembled MPIAIJ */
PETSC_INTERN PetscErrorCode MPIDiagBuildFromMPIAIJ(Mat M, Mat P);
/* mpidiag_assembly.c */
PETSC_INTERN PetscErrorCode MPIDiagSetUpLayout(Mat); /* sizes checked, no staging: the caller builds the blocks */
PETSC_INTERN PetscErrorCode MatSetUp_MPIDiag(Mat);
PETSC_INTERN PetscErrorCode MatSetValues_MPIDiag(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatAssemblyBegin_MPIDiag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatAssemblyEnd_MPIDiag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatSetOption_MPIDiag(Mat, MatOption, PetscBool);
PETSC_INTERN PetscErrorCode MPIDiagStageZeroEntries(Mat);
PETSC_INTERN PetscErrorCode MPIDiagStageDestroy(Mat);
PETSC_INTERN PetscErrorCode MPIDiagComposeAssembly(Mat, PetscBool set);
