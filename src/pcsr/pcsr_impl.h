/* MATSEQAIJPCSR: a MATSEQAIJ whose products run on a device copy of its own CSR
   arrays with the PCSR kernels (the host path multiplies the AIJ arrays). */
#pragma once
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"
#include "pcsr/pcsr_format.h"
#if GPUMATS_HAVE_CUDA
  #include "cuda/pcsr/pcsr_cuda.h"
#endif

/* settings an MPI matrix passes on to its blocks */
typedef struct {
  MatPCSRKernel    kernel;
  MatPCSRTranspose transpose;
  GpuMatsPartition partition; /* MPI only: the row distribution MatLoad gives */
} PCSRSettings;

typedef struct {
  GpuMatsShadow shadow; /* first: the common machinery reads it through A->spptr */
  PCSRSettings  settings;
  PCSRRowStats  stats;  /* of the matrix as last built */
#if GPUMATS_HAVE_CUDA
  PCSRDevice        dev;
  PCSRDeviceCOO     coo;         /* COO entries -> stored entries on the device (pcsr_coo.c), or NULL */
  GpuMatsCOOPattern coo_pattern; /* the pattern it was made for */
#endif
} Mat_SeqAIJPCSR;

PETSC_INTERN const GpuMatsFormatOps PCSRShadowOps;

PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJPCSR(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJPCSR(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatPCSRUpdate_SeqAIJPCSR(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatPCSRFreeDevice_SeqAIJPCSR(Mat);
PETSC_INTERN PetscErrorCode MatPCSRApplySettings_SeqAIJPCSR(Mat, const PCSRSettings *);
PETSC_INTERN PetscErrorCode PCSRSetFromOptions(Mat, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatSetFromOptions_SeqAIJPCSR(Mat, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatView_SeqAIJPCSR(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatPCSRGetInfo_SeqAIJPCSR(Mat, MatPCSRInfo *);
/* MatPCSRSet/GetKernel, Set/GetTranspose (and Set/GetPartition for the MPI type) on A */
PETSC_INTERN PetscErrorCode MatPCSRComposeSettings_SeqAIJPCSR(Mat, PetscBool set);
/* pcsr_coo.c: COO values in device memory straight into the device copy (set false frees the map) */
PETSC_INTERN PetscErrorCode MatPCSRComposeCOO_SeqAIJPCSR(Mat, PetscBool set);
