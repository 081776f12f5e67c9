/* MATMPIDIAG's context, shared by the type (mpidiag.c) and the operations PETSc's
   solvers call on it (mpidiag_ops.c). */
#pragma once
#include "diag/diag_impl.h"

typedef struct {
  Mat            A, B;   /* seqdiag diagonal block, seqaijpcsr off-process block (nghost columns) */
  PetscInt      *garray; /* the global column of each column of B, ascending */
  PetscInt       nghost;
  Vec            lvec; /* ghost values of x */
  VecScatter     Mvctx;
  Mat            stage; /* MPIAIJ until the first assembly */
  DiagSettings   settings;
  GpuMatsBackend backend;
  PetscInt      *row_cols; /* MatGetRow's scratch */
  PetscScalar   *row_vals;
  PetscInt       row_capacity;
} Mat_MPIDiag;

#define MPIDiagOf(M) ((Mat_MPIDiag *)(M)->data)

/* mpidiag_ops.c: SOR, zero rows (and columns), diagonal scale/set, AXPY with any X,
   submatrices and overlap, installed on a new MATMPIDIAG */
PETSC_INTERN PetscErrorCode MatMPIDiagInstallOps(Mat);
/* The MPIAIJ with M's entries (mpidiag.c); M rebuilt from an assembled MPIAIJ P (P destroyed) */
PETSC_INTERN PetscErrorCode MPIDiagToMPIAIJ(Mat M, Mat *P);
PETSC_INTERN PetscErrorCode MPIDiagRebuildFrom(Mat M, Mat P);
/* M->nonzerostate increased on every process when any diagonal block's changed since 'before' */
PETSC_INTERN PetscErrorCode MPIDiagSyncNonzeroState(Mat M, PetscObjectState before);
PETSC_INTERN PetscErrorCode MatAXPYGetPreallocation_MPIDiag(Mat, Mat, Mat *);
