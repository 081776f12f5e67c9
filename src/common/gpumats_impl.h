/* Private machinery shared by the formats: the AIJ shadow, backend choice,
   vector access for the device. */
#pragma once
#include <gpumats.h>
#include <petsc/private/matimpl.h>
#include "gpumats_config.h"
#if GPUMATS_HAVE_CUDA
  #include "cuda/common/gpumats_cuda.h"
#endif

/* PETSc < 3.19 has no PETSC_SUCCESS; the setfromoptions signature changed in 3.23 */
#if !PETSC_VERSION_GE(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif
#if PETSC_VERSION_GE(3, 23, 0)
  #define GPUMATS_OPTIONS_ARG PetscOptionItems PetscOptionsObject
#else
  #define GPUMATS_OPTIONS_ARG PetscOptionItems *PetscOptionsObject
#endif

/* ---- AIJ shadow: the host AIJ is the master, a format is a lazily rebuilt copy ---- */
typedef enum {
  GPUMATS_SHADOW_CURRENT,  /* nothing changed since the last build */
  GPUMATS_SHADOW_VALUES,   /* same structure, new values */
  GPUMATS_SHADOW_STRUCTURE /* never built, or the nonzero pattern or sizes changed */
} GpuMatsShadowChange;

typedef struct {
  struct _MatOps   parent;       /* AIJ's ops as they were before the format took over */
  PetscBool        built;        /* explicit: a state of 0 is a valid state */
  PetscObjectState state;        /* object state at the last build or refresh */
  PetscObjectState nonzerostate; /* A->nonzerostate at the last structural build */
  PetscInt         nrows, ncols;
  GpuMatsBackend   backend;
} GpuMatsShadow;

PETSC_INTERN PetscErrorCode GpuMatsShadowInit(Mat, GpuMatsShadow *);
PETSC_INTERN PetscErrorCode GpuMatsShadowCheck(Mat, const GpuMatsShadow *, GpuMatsShadowChange *);
PETSC_INTERN PetscErrorCode GpuMatsShadowMarkCurrent(Mat, GpuMatsShadow *);
PETSC_INTERN PetscErrorCode GpuMatsShadowRestoreParent(Mat, GpuMatsShadow *);
PETSC_INTERN PetscErrorCode GpuMatsConvertTarget(Mat, MatReuse, Mat *, Mat *);

/* ---- backend ---- */
PETSC_INTERN const char *const GpuMatsBackends[];
PETSC_INTERN PetscErrorCode    GpuMatsBackendUsesDevice(Mat, GpuMatsBackend, PetscBool *);
PETSC_INTERN PetscErrorCode    GpuMatsSetDefaultVecType(Mat, GpuMatsBackend);

/* ---- vectors as the device sees them ---- */
#if GPUMATS_HAVE_CUDA
typedef enum {
  GPUMATS_READ,
  GPUMATS_WRITE,
  GPUMATS_READ_WRITE
} GpuMatsAccess;

typedef struct {
  Vec           vec;
  GpuMatsAccess access;
  PetscMemType  mtype;
  PetscScalar  *array; /* what VecGetArray*AndMemType returned */
  PetscScalar  *device;
  GpuMatsStage *stage; /* used when the vector lives on the host */
} GpuMatsDeviceVec;

PETSC_INTERN PetscErrorCode GpuMatsVecGetDeviceArray(Vec, GpuMatsAccess, GpuMatsStage *, GpuMatsDeviceVec *);
PETSC_INTERN PetscErrorCode GpuMatsVecRestoreDeviceArray(GpuMatsDeviceVec *);
#endif

/* ---- the formats ---- */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJCIHybrid(Mat);
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJCIHybrid(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJCIHybrid(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscLogEvent  GPUMATS_FormatBuild, GPUMATS_FormatUpload;
