/* gpumats: GPU sparse-matrix formats for PETSc.

   Load into any PETSc program with  -dll_append /path/libgpumats.so  or link
   the library and call GpuMatsInitializePackage() after PetscInitialize(). */
#pragma once
#include <petscmat.h>

/* ELLPACK+CSR hybrid for Configuration-Interaction Hamiltonians */
#define MATCIHYBRID       "cihybrid"
#define MATSEQAIJCIHYBRID "seqaijcihybrid"
#define MATMPIAIJCIHYBRID "mpiaijcihybrid"

/* How a row is split between the ELLPACK and the CSR region */
typedef enum {
  MAT_CIHYBRID_SPLIT_ENTRIES = 0, /* first BOUNDARY nonzeros of each row go to ELLPACK */
  MAT_CIHYBRID_SPLIT_COLUMNS = 1  /* nonzeros in columns < BOUNDARY go to ELLPACK */
} MatCIHybridSplit;

/* Where the multiplies run */
typedef enum {
  GPUMATS_BACKEND_AUTO = 0, /* CUDA when built with it and a device is present, else host */
  GPUMATS_BACKEND_HOST = 1,
  GPUMATS_BACKEND_CUDA = 2  /* an error if no device can be used */
} GpuMatsBackend;

#define MAT_CIHYBRID_BOUNDARY_AUTO PETSC_DECIDE

PETSC_EXTERN PetscErrorCode GpuMatsInitializePackage(void);
PETSC_EXTERN PetscErrorCode GpuMatsFinalizePackage(void);

PETSC_EXTERN PetscErrorCode MatCreateSeqAIJCIHybrid(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatCIHybridSetBoundary(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatCIHybridGetBoundary(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatCIHybridSetSplit(Mat, MatCIHybridSplit);
PETSC_EXTERN PetscErrorCode MatCIHybridGetSplit(Mat, MatCIHybridSplit *);

/* Statistics of the format as last built (sequential matrix or the local diagonal block). */
typedef struct {
  PetscInt   boundary, width, pitch;
  PetscInt64 nnz, nnz_ell, nnz_csr, padding;
  PetscInt64 bytes_host, bytes_device;
  PetscBool  on_device;
} MatCIHybridInfo;
PETSC_EXTERN PetscErrorCode MatCIHybridGetInfo(Mat, MatCIHybridInfo *);

PETSC_EXTERN PetscErrorCode MatGpuMatsSetBackend(Mat, GpuMatsBackend);
PETSC_EXTERN PetscErrorCode MatGpuMatsGetBackend(Mat, GpuMatsBackend *);
/* Is the next multiply going to run on the device? */
PETSC_EXTERN PetscErrorCode MatGpuMatsUsesDevice(Mat, PetscBool *);
