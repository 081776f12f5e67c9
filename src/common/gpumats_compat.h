/* The differences between the PETSc versions gpumats is built against (3.18 to 3.25), in one
   place: the rest of the code uses the names below and checks no PETSc version of its own.
   Each entry says which release changed what (PETSc's doc/changes/3xx.md). */
#pragma once
#include <petscmat.h>

/* 3.19: PETSC_SUCCESS */
#if !PETSC_VERSION_GE(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

/* 3.22: "the default" of a size or count argument is PETSC_DETERMINE (PETSC_DEFAULT deprecated) */
#if PETSC_VERSION_GE(3, 22, 0)
  #define GPUMATS_DEFAULT_COUNT PETSC_DETERMINE
#else
  #define GPUMATS_DEFAULT_COUNT PETSC_DEFAULT
#endif

/* 3.23: the argument of a MatSetFromOptions op is PetscOptionItems, now a pointer typedef */
#if PETSC_VERSION_GE(3, 23, 0)
  #define GPUMATS_OPTIONS_ARG PetscOptionItems PetscOptionsObject
#else
  #define GPUMATS_OPTIONS_ARG PetscOptionItems *PetscOptionsObject
#endif

/* 3.24: PetscBool is a 1-byte C bool, reduced as MPI_C_BOOL (MPIU_BOOL deprecated); never
   reduce a PetscBool as MPI_INT */
#if PETSC_VERSION_GE(3, 24, 0)
  #define GPUMATS_MPI_BOOL MPI_C_BOOL
#else
  #define GPUMATS_MPI_BOOL MPIU_BOOL
#endif

/* Destroy callbacks of a context.  A container's receives the address of its context from 3.23
   (PetscCtxDestroyFn), a Mat_Product's from 3.25; before, the context itself.  Both have the C
   type PetscErrorCode (*)(void *) in every version, so a callback written for the old convention
   still compiles and then frees the wrong pointer: write each as 'PetscErrorCode F(void *arg)'
   and take its context with GpuMatsContainerCtx(arg) or GpuMatsProductCtx(arg). */
#if PETSC_VERSION_GE(3, 23, 0)
  #define GpuMatsContainerCtx(arg) (*(void **)(arg))
#else
  #define GpuMatsContainerCtx(arg) (arg)
#endif
#if PETSC_VERSION_GE(3, 25, 0)
  #define GpuMatsProductCtx(arg) (*(void **)(arg))
#else
  #define GpuMatsProductCtx(arg) (arg)
#endif

/* A container's destroy (see GpuMatsContainerCtx); GpuMatsContainerFree is PETSc's own, which
   PetscFree()s the context */
static inline PetscErrorCode GpuMatsContainerSetDestroy(PetscContainer c, PetscErrorCode (*destroy)(void *))
{
#if PETSC_VERSION_GE(3, 23, 0)
  return PetscContainerSetCtxDestroy(c, destroy);
#else
  return PetscContainerSetUserDestroy(c, destroy);
#endif
}
#if PETSC_VERSION_GE(3, 23, 0)
  #define GpuMatsContainerFree PetscCtxDestroyDefault
#else
  #define GpuMatsContainerFree PetscContainerUserDestroyDefault
#endif

/* MatOps: missingdiagonal is gone in 3.25 (AIJ keeps diagonal markers of its own, found when
   an operation asks them); getcurrentmemtype is new in 3.24 (PCHYPRE asks it) */
#define GPUMATS_HAVE_OP_MISSINGDIAGONAL  (!PETSC_VERSION_GE(3, 25, 0))
#define GPUMATS_HAVE_OP_GETCURRENTMEMTYPE PETSC_VERSION_GE(3, 24, 0)

/* 3.21: MatCreateGraph (and its op) takes the unknowns of a block the graph reads (num_idx, index) */
#if PETSC_VERSION_GE(3, 21, 0)
  #define GPUMATS_CREATEGRAPH_INDEX_ARGS , PetscInt num_idx, PetscInt index[]
  #define GPUMATS_CREATEGRAPH_INDEX_PASS , num_idx, index
#else
  #define GPUMATS_CREATEGRAPH_INDEX_ARGS
  #define GPUMATS_CREATEGRAPH_INDEX_PASS
#endif

/* 3.24: MatFDColoringSetFunction takes a MatFDColoringFn * */
#if PETSC_VERSION_GE(3, 24, 0)
typedef MatFDColoringFn *GpuMatsFDColoringFn;
#else
typedef PetscErrorCode (*GpuMatsFDColoringFn)(void);
#endif

/* 3.25: PetscErrorMessage gives its specific text as const char * */
static inline PetscErrorCode GpuMatsErrorMessage(PetscErrorCode ierr, const char **text, const char **specific)
{
#if PETSC_VERSION_GE(3, 25, 0)
  return PetscErrorMessage(ierr, text, specific);
#else
  return PetscErrorMessage(ierr, text, (char **)specific);
#endif
}
