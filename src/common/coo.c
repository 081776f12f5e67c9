/* The pieces of COO assembly every type shares (the AIJ subclasses' wrappers of AIJ's COO functions,
   common/coo_aij.c, and diag/diag_coo.c): host copies of device arrays, the range check, the entry
   count, the device-values hooks of a sequential block, the map of COO entries to stored ones, the
   pattern the map was made for. */
#include "common/gpumats_coo.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType */
#endif

#define COO_COUNT                "GpuMatsCOOCount"


PetscErrorCode GpuMatsCOOGetHost(Mat A, const void *array, size_t bytes, const char *what, const void **host)
{
  PetscFunctionBegin;
  *host = array;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscMemType mtype = PETSC_MEMTYPE_HOST;

    if (array) PetscCall(PetscGetMemType(array, &mtype));
    if (PetscMemTypeDevice(mtype)) {
  #if GPUMATS_HAVE_CUDA
      void *copy;

      PetscCall(PetscInfo(A, "%s: the COO %s are in device memory: copied to the host (%zu bytes), then assembled on the host\n", ((PetscObject)A)->type_name, what, bytes));
      PetscCall(PetscMalloc(bytes ? bytes : 1, &copy));
      PetscCall(GpuMatsCUDACopyToHost(copy, array, bytes));
      *host = copy;
  #else
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: the COO %s are in device memory, and this gpumats was built without CUDA: give host arrays, or build gpumats with CUDA", ((PetscObject)A)->type_name, what);
  #endif
    }
  }
#else
  (void)A;
  (void)bytes;
  (void)what;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOORestoreHost(const void *array, const void **host)
{
  PetscFunctionBegin;
  if (*host && *host != array) {
    void *copy = (void *)*host;

    PetscCall(PetscFree(copy));
  }
  *host = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOCheckRange(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[])
{
  PetscInt    M, N;
  PetscCount  bad = -1;
  PetscMPIInt any, mine;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  for (PetscCount k = 0; k < n && bad < 0; k++)
    if (coo_i[k] >= 0 && coo_j[k] >= 0 && (coo_i[k] >= M || coo_j[k] >= N)) bad = k;
  mine = bad >= 0;
  /* together: AIJ's MPI preallocation communicates, a process that stopped alone would hang the others */
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(bad < 0 || coo_i[bad] < M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO row index %" PetscInt_FMT " (entry %" PetscCount_FMT ") is >= the matrix row size %" PetscInt_FMT ": indices are 0 to %" PetscInt_FMT ", negative ones are ignored", coo_i[bad], bad, M, M - 1);
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO column index %" PetscInt_FMT " (entry %" PetscCount_FMT ") is >= the matrix column size %" PetscInt_FMT ": indices are 0 to %" PetscInt_FMT ", negative ones are ignored", coo_j[bad], bad, N, N - 1);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A COO index given on another process is out of range (this process's are fine)");
}

static PetscErrorCode COOCountDestroy(void *arg)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(GpuMatsContainerCtx(arg)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOSetCount(Mat A, PetscCount n)
{
  PetscContainer c;
  PetscCount    *count;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  if (!c) {
    PetscCall(PetscNew(&count));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, count));
    PetscCall(GpuMatsContainerSetDestroy(c, COOCountDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, COO_COUNT, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
    PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  }
  PetscCall(PetscContainerGetPointer(c, (void **)&count));
  *count = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOGetCount(Mat A, PetscCount *n, PetscBool *found)
{
  PetscContainer c;
  PetscCount    *count;

  PetscFunctionBegin;
  *n     = 0;
  *found = PETSC_FALSE;
  PetscCall(PetscObjectQuery((PetscObject)A, COO_COUNT, (PetscObject *)&c));
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscContainerGetPointer(c, (void **)&count));
  *n     = *count;
  *found = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA
  #define COO_BLOCK_MAP   "GpuMatsCOOMap_C"
  #define COO_BLOCK_READY "GpuMatsCOODeviceReady_C"
  #define COO_BLOCK_WRITE "GpuMatsCOODeviceWrite_C"

PetscErrorCode GpuMatsCOOComposeBlock(Mat X, GpuMatsCOOMapFn map, GpuMatsCOOReadyFn ready, GpuMatsCOOWriteFn write)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_MAP, map));
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_READY, ready));
  PetscCall(PetscObjectComposeFunction((PetscObject)X, COO_BLOCK_WRITE, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockMap(Mat X, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt raises, PetscBool *has)
{
  GpuMatsCOOMapFn map = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_MAP, &map));
  *has = (PetscBool)(map != NULL);
  if (map) PetscCall((*map)(X, n, ci, cj, place, raises));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockReady(Mat X, PetscBool *ready)
{
  GpuMatsCOOReadyFn f = NULL;

  PetscFunctionBegin;
  *ready = PETSC_FALSE;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_READY, &f));
  if (f) PetscCall((*f)(X, ready));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOBlockWrite(Mat X, const PetscScalar v[], const PetscScalar recv[], InsertMode mode, PetscInt raises, PetscBool may_run_ahead)
{
  GpuMatsCOOWriteFn f = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, COO_BLOCK_WRITE, &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: device COO values for a matrix that does not take them", ((PetscObject)X)->type_name);
  PetscCall((*f)(X, v, recv, mode, raises, may_run_ahead));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOStoredMap(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], const int32_t place[], PetscInt64 *nnz, int32_t **jmap, int32_t **perm, PetscBool *mapped)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscCount      bad;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  *jmap = *perm = NULL;
  *mapped       = PETSC_FALSE;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  *nnz = A->rmap->n ? ai[A->rmap->n] : 0;
  if (n > INT32_MAX || *nnz >= INT32_MAX) {
    PetscCall(PetscInfo(A, "%s COO: %" PetscCount_FMT " entries, %" PetscInt64_FMT " stored: more than 32-bit device indices hold, the values go through the host\n", ((PetscObject)A)->type_name, n, *nnz));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCall(GpuMatsCUDACOOStoredMap(A->rmap->n, ai, aj, n, ci, cj, place, jmap, perm, mapped, &bad));
  PetscCall(PetscTime(&t1));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s COO: entry %" PetscCount_FMT " (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the pattern AIJ made of the COO entries", ((PetscObject)A)->type_name, bad, ci[bad], cj[bad]);
  if (!*mapped) PetscCall(PetscInfo(A, "%s COO: no map of the %" PetscCount_FMT " entries on the device (its memory is short, or the sort failed): the values go through the host\n", ((PetscObject)A)->type_name, n));
  else PetscCall(PetscInfo(A, "%s COO: the map of %" PetscCount_FMT " entries to %" PetscInt64_FMT " stored ones made on the device in %g s (%s): values in device memory go straight into the device copy\n", ((PetscObject)A)->type_name, n, *nnz, t1 - t0, *jmap ? "some stored entries have several or none" : *perm ? "one entry a stored entry" : "the stored entries in AIJ's order, no map kept"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode GpuMatsCOOPatternRecord(Mat A, PetscInt raises, GpuMatsCOOPattern *pattern)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  /* MatSetPreallocationCOO() raises the nonzero state of the matrix it is called on once more
     after this (PETSc 3.18 to 3.22), not its blocks', and AIJ's arrays are these until a change
     of pattern reallocates them */
  pattern->nonzerostate = A->nonzerostate + raises;
  pattern->columns      = aj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsCOOPatternSame(Mat A, const GpuMatsCOOPattern *pattern, const char *type, PetscBool *same)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  *same = (PetscBool)(pattern->nonzerostate == A->nonzerostate && pattern->columns == aj);
  if (!*same) PetscCall(PetscInfo(A, "%s COO: the pattern changed since MatSetPreallocationCOO: the values go through the host\n", type));
  PetscFunctionReturn(PETSC_SUCCESS);
}
