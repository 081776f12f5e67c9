/* COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of every gpumats type (common/coo.c,
   diag/diag_coo.c). */
#pragma once
#include "common/gpumats_impl.h"

/* Host copies of COO arrays that may live on the device (PETSc with CUDA: PetscGetMemType).
   *host is 'array' itself when it is on the host, else a PetscMalloc'd copy that
   GpuMatsCOORestoreHost frees.  'what' names the array in the -info line and the errors. */
PETSC_INTERN PetscErrorCode GpuMatsCOOGetHost(Mat, const void *array, size_t bytes, const char *what, const void **host);
PETSC_INTERN PetscErrorCode GpuMatsCOORestoreHost(const void *array, const void **host);
/* Every (i, j) with i, j >= 0 within the global sizes of A, checked on all processes of A together:
   PETSC_ERR_ARG_OUTOFRANGE naming the first bad index (its own on a process that has one). */
PETSC_INTERN PetscErrorCode GpuMatsCOOCheckRange(Mat, PetscCount, const PetscInt[], const PetscInt[]);
/* The number of COO entries given to this process's MatSetPreallocationCOO (kept on A); found
   false where none was given through gpumats (a duplicate of a COO matrix). */
PETSC_INTERN PetscErrorCode GpuMatsCOOSetCount(Mat, PetscCount);
PETSC_INTERN PetscErrorCode GpuMatsCOOGetCount(Mat, PetscCount *, PetscBool *found);

/* The AIJ subclasses (seq and MPI): AIJ's COO functions wrapped (device arrays, range check, the
   shadow's state, the MPI blocks in the format).  Composed by GpuMatsShadowInstall and the MPI
   wrapper; 'set' false puts AIJ's back. */
PETSC_INTERN PetscErrorCode GpuMatsCOOComposeAIJ(Mat, PetscBool set);
#if GPUMATS_HAVE_CUDA
/* After AIJ's MatSetPreallocationCOO on a sequential AIJ subclass: the stored entry (AIJ's order) of
   each COO entry (ci, cj host arrays in the caller's order, in range), grouped by stored entry and
   made on the device: stored entry p sums the COO values v[perm[q]], jmap[p] <= q < jmap[p + 1].
   *nnz the stored entries; *mapped, with jmap (nnz + 1) and perm device arrays (GpuMatsCUDAFree):
   jmap NULL where every stored entry p has one COO entry, perm[p], perm NULL too where that is
   entry p (a CSR given as COO); no map (*mapped false) when the counts do not fit 32-bit device
   indices or the device lacks the memory (-info says). */
PETSC_INTERN PetscErrorCode GpuMatsCOOStoredMap(Mat, PetscCount, const PetscInt[], const PetscInt[], PetscInt64 *nnz, int32_t **jmap, int32_t **perm, PetscBool *mapped);
#endif
/* The pattern a device COO map (pcsr, cihybrid) was made for: A's nonzero state after the
   MatSetPreallocationCOO that made it and AIJ's column array then.  Record it inside the map's
   making (after AIJ's MatSetPreallocationCOO); Same tells whether A still has it (-info says when
   not, 'type' naming the format). */
typedef struct {
  PetscObjectState nonzerostate;
  const PetscInt  *columns;
} GpuMatsCOOPattern;
PETSC_INTERN PetscErrorCode GpuMatsCOOPatternRecord(Mat, GpuMatsCOOPattern *);
PETSC_INTERN PetscErrorCode GpuMatsCOOPatternSame(Mat, const GpuMatsCOOPattern *, const char *type, PetscBool *same);
/* After MatSetValuesCOO's values were written into the device copy:
   the shadow current now and after the assembly MatSetValuesCOO does next */
PETSC_INTERN PetscErrorCode GpuMatsCOODeviceValuesSet(Mat, GpuMatsShadow *);
/* diag (seqdiag and mpidiag): COO of its own (diag/diag_coo.c) */
PETSC_INTERN PetscErrorCode MatDiagComposeCOO(Mat, PetscBool set);
