/* What the matrix-type tests share: the test context, random global CSR
   matrices of many shapes (every rank holds the whole matrix), default layouts,
   and the comparison of the four products with MATAIJ. */
#pragma once
#include <petscmat.h>
#include "common/gpumats_compat.h"
#include <sys/resource.h>

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscRandom rnd;  /* PETSC_COMM_SELF, same seed on every rank: every rank knows the whole matrix */
  PetscRandom vrnd; /* entries of the test vectors */
  PetscReal   tol;
  PetscReal   maxerr;
  PetscInt    ncompared;
  PetscInt    maxsize;
  Mat         plain; /* an empty MATSEQAIJ: its product ops are what a cihybrid block must not use */
  PetscBool   verbose;
  char        binfile[PETSC_MAX_PATH_LEN];
} TestCtx;

/* A matrix as a global CSR, identical on every rank (columns of a row are not sorted). */
typedef struct {
  PetscInt     M, N, nnz, maxlen;
  PetscInt    *rowptr, *cols;
  PetscScalar *vals;
} GlobalCSR;

typedef enum {
  SHAPE_RANDOM,
  SHAPE_0X0,
  SHAPE_1X1,
  SHAPE_ONE_ROW,
  SHAPE_ONE_COLUMN,
  SHAPE_NO_ROWS,
  SHAPE_NO_COLUMNS,
  SHAPE_EMPTY_ROWS,
  SHAPE_NO_ENTRIES,
  SHAPE_DENSE_ROW,
  SHAPE_EXPLICIT_ZEROS,
  SHAPE_LONG_ROWS,
  NSHAPES
} Shape;

extern const char *const ShapeNames[];

PetscErrorCode RandInt(PetscRandom r, PetscInt lo, PetscInt hi, PetscInt *v);
PetscErrorCode RandBool(PetscRandom r, PetscReal probability, PetscBool *b);
PetscErrorCode RandValue(PetscRandom r, PetscScalar *v);
PetscErrorCode GlobalCSRDestroy(GlobalCSR *csr);
PetscErrorCode GlobalCSRFill(PetscRandom r, PetscInt M, PetscInt N, const PetscInt *len, PetscReal zero_fraction, PetscReal zero_rows, GlobalCSR *csr);
PetscErrorCode GenerateShape(PetscRandom r, Shape shape, PetscInt maxsize, GlobalCSR *csr);
PetscErrorCode GenerateSquare(PetscRandom r, PetscInt n, PetscInt maxlen, GlobalCSR *csr);
PetscErrorCode GlobalCSRSamePattern(PetscRandom r, const GlobalCSR *src, PetscReal keep_fraction, GlobalCSR *dst);
PetscErrorCode GlobalCSRHasEntry(const GlobalCSR *csr, PetscInt i, PetscInt j, PetscBool *has);
PetscErrorCode DefaultLayout(MPI_Comm comm, PetscInt N, PetscInt *n, PetscInt *start);
PetscErrorCode CheckTypeName(Mat A, const char *expected, const char *what);
PetscErrorCode CheckTypeOneOf(Mat A, const char *t1, const char *t2, const char *what);
/* MatGetCurrentMemType (PETSc >= 3.24) agrees with MatGpuMatsUsesDevice; nothing before 3.24 */
PetscErrorCode CheckMemType(Mat A, const char *what);
PetscErrorCode CreateTestVecs(Mat A, Vec *right, Vec *left);
PetscErrorCode CompareVecs(TestCtx *t, Vec yc, Vec ya, const char *desc, const char *op);
PetscErrorCode CheckProducts(TestCtx *t, Mat Ac, Mat Aa, const char *desc);
PetscErrorCode GlobalCSRAssemble(Mat A, const GlobalCSR *csr);
PetscErrorCode ExpectError(PetscErrorCode ierr, const char *must_contain, const char *what);
/* A and B have the same rows (this process's), MatGetRow for MatGetRow: same columns, values bit
   for bit; an error naming 'what', the row and the entry otherwise.  *nnz (may be NULL): the
   entries of this process. */
PetscErrorCode ExpectSameEntries(Mat A, Mat B, const char *what, PetscInt *nnz);
PetscErrorCode TestCtxInit(TestCtx *t, const char *name, PetscInt maxsize);
PetscErrorCode TestCtxSeed(TestCtx *t, PetscInt seed);
PetscErrorCode TestCtxDestroy(TestCtx *t);

/* PetscInitialize, run(), PetscFinalize: the exit status of a test program.  Any error of run() is a
   failure with exit status 1 (MPI_Abort): returned from main, PETSC_ERR_PLIB (77), the code of the
   checks, would read as 'skipped' in meson. */
int TestMain(int argc, char **argv, const char help[], PetscErrorCode (*run)(void));

/* Limits the address space to what the process uses now + 1 GiB, so that a size check that fails
   shows as a quick allocation failure instead of a machine swapping: *saved gets the limit before,
   *limited whether it was set (not without /proc, nor under a lower limit already in force).
   TestRestoreAddressSpace puts the saved limit back (when limited) and clears *limited. */
PetscErrorCode TestLimitAddressSpace(struct rlimit *saved, PetscBool *limited);
PetscErrorCode TestRestoreAddressSpace(const struct rlimit *saved, PetscBool *limited);
