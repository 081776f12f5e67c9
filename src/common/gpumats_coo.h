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

/* A process's COO entries (host arrays, in range; negative indices dropped) split by the owner of
   their row (coo_split.c): its own with their row, column and place in the value array; the
   others sent to their owners once, as indices (Create is collective): Exchange sends the values
   of the entries sent (sendbuf, by destination: v[send_k[k]]) and receives those of the entries
   received (recvbuf, in the order of recv_i, recv_j). */
typedef struct {
  PetscCount   n; /* entries given to this process */
  PetscCount   nown;
  PetscInt    *own_i, *own_j;
  PetscCount  *own_k;
  PetscMPIInt  size;
  PetscMPIInt *scount, *sdispl, *rcount, *rdispl; /* entries to and from each process */
  PetscCount   nsend, nrecv;
  PetscCount  *send_k;
  PetscInt    *recv_i, *recv_j;
} GpuMatsCOOSplit;
PETSC_INTERN PetscErrorCode GpuMatsCOOSplitCreate(Mat, PetscCount, const PetscInt[], const PetscInt[], GpuMatsCOOSplit *);
PETSC_INTERN PetscErrorCode GpuMatsCOOSplitExchange(Mat, const GpuMatsCOOSplit *, const PetscScalar sendbuf[], PetscScalar recvbuf[]);
PETSC_INTERN PetscErrorCode GpuMatsCOOSplitDestroy(GpuMatsCOOSplit *);

/* The AIJ subclasses (seq and MPI): AIJ's COO functions wrapped (device arrays, range check, the
   shadow's state, the MPI blocks in the format).  Composed by GpuMatsShadowInstall and the MPI
   wrapper; 'set' false puts AIJ's back. */
PETSC_INTERN PetscErrorCode GpuMatsCOOComposeAIJ(Mat, PetscBool set);
#if GPUMATS_HAVE_CUDA
/* Device values into a sequential matrix, on its own or as a block of an MPI matrix (seqaijpcsr,
   seqaijcihybrid, seqdiag), through three composed functions; the Block* functions call them:
   - Map: after the pattern is made from the entries, the map of n entries (ci, cj host arrays,
     local indices, all in the pattern) to the stored values; entry q's value is at place[q] (host
     array; NULL: at q), a place p >= 0 being v[p] and p < 0 recv[-p - 1] at Write
     (cuda/common/gpumats_coo_values.cuh); 'raises' the nonzero-state increases still to come from
     the MatSetPreallocationCOO() that made the pattern (1 on the matrix it was called on, 0 for
     its blocks).  *has false where X has no Map.
   - Ready: whether X takes device values now (mapped, its pattern the same, the device copy made
     and current); false where X has no Ready.
   - Write, after Ready: the map's values (v and recv in device memory, recv NULL where no place is
     negative) into the device copy, added to the old ones with ADD_VALUES; 'raises' the state
     increases to come before X is used (the assembly MatSetValuesCOO ends with); may_run_ahead
     false: the host values follow at once (common/shadow_ahead.c). */
typedef PetscErrorCode (*GpuMatsCOOMapFn)(Mat, PetscCount, const PetscInt[], const PetscInt[], const int32_t[], PetscInt);
typedef PetscErrorCode (*GpuMatsCOOReadyFn)(Mat, PetscBool *);
typedef PetscErrorCode (*GpuMatsCOOWriteFn)(Mat, const PetscScalar[], const PetscScalar[], InsertMode, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode GpuMatsCOOComposeBlock(Mat, GpuMatsCOOMapFn, GpuMatsCOOReadyFn, GpuMatsCOOWriteFn);
PETSC_INTERN PetscErrorCode GpuMatsCOOBlockMap(Mat, PetscCount, const PetscInt[], const PetscInt[], const int32_t place[], PetscInt raises, PetscBool *has);
PETSC_INTERN PetscErrorCode GpuMatsCOOBlockReady(Mat, PetscBool *ready);
PETSC_INTERN PetscErrorCode GpuMatsCOOBlockWrite(Mat, const PetscScalar v[], const PetscScalar recv[], InsertMode, PetscInt raises, PetscBool may_run_ahead);
/* An MPI matrix with blocks that take device values (common/mpicoo.c): SetUp, after the pattern
   is made from this process's entries 's' (collective), maps each block's entries, its own and
   those received (Ad: columns from the first of this process, Ao: those of garray); SetValues
   (collective) writes device values v through the blocks M has now, *done false on every process
   (nothing written) unless every process can: the blocks those mapped, v in device memory and each
   block Ready.  Both do nothing without a PETSc with CUDA (v cannot be told to be on the device). */
PETSC_INTERN PetscErrorCode GpuMatsMPICOOSetUp(Mat, const GpuMatsCOOSplit *s, Mat Ad, Mat Ao, const PetscInt garray[]);
PETSC_INTERN PetscErrorCode GpuMatsMPICOOSetValues(Mat, Mat Ad, Mat Ao, const PetscScalar[], InsertMode, PetscBool *done);
/* After Write put the values into the device copy: the shadow current now and after 'raises'
   state increases; the host AIJ follows at once unless it may run ahead (and A has no host readers) */
PETSC_INTERN PetscErrorCode GpuMatsCOODeviceValuesSet(Mat, GpuMatsShadow *, PetscInt raises, PetscBool may_run_ahead);
/* The stored entry (AIJ's order) of each COO entry of a sequential AIJ subclass, after its pattern
   was made from them: ci, cj host arrays in the caller's order, in range, made on the device:
   stored entry p sums the COO values at the places perm[q], jmap[p] <= q < jmap[p + 1] (entry q's
   place: place[q], or q where place is NULL; see Map above).
   *nnz the stored entries; *mapped, with jmap (nnz + 1) and perm device arrays (GpuMatsCUDAFree):
   jmap NULL where every stored entry p has one COO entry, perm[p], perm NULL too where that is
   place p (a CSR given as COO); no map (*mapped false) when the counts do not fit 32-bit device
   indices or the device lacks the memory (-info says). */
PETSC_INTERN PetscErrorCode GpuMatsCOOStoredMap(Mat, PetscCount, const PetscInt[], const PetscInt[], const int32_t place[], PetscInt64 *nnz, int32_t **jmap, int32_t **perm, PetscBool *mapped);
#endif
/* The pattern a device COO map (pcsr, cihybrid) was made for: A's nonzero state after the
   MatSetPreallocationCOO that made it ('raises' as for Map above) and AIJ's column array then.
   Record it inside the map's making; Same tells whether A still has it (-info says when not,
   'type' naming the format). */
typedef struct {
  PetscObjectState nonzerostate;
  const PetscInt  *columns;
} GpuMatsCOOPattern;
PETSC_INTERN PetscErrorCode GpuMatsCOOPatternRecord(Mat, PetscInt raises, GpuMatsCOOPattern *);
PETSC_INTERN PetscErrorCode GpuMatsCOOPatternSame(Mat, const GpuMatsCOOPattern *, const char *type, PetscBool *same);
/* diag (seqdiag and mpidiag): COO of its own (diag/diag_coo.c) */
PETSC_INTERN PetscErrorCode MatDiagComposeCOO(Mat, PetscBool set);
/* seqdiag: the functions that make it take device values as an mpidiag's diagonal block */
PETSC_INTERN PetscErrorCode MatDiagComposeCOOBlock_SeqDiag(Mat, PetscBool set);
