static const char help[] = "Sizes past 32 bits on one process: the checks of every format refuse them, with\n\
a message that says to use more MPI processes, before anything is allocated.  The sizes are\n\
described, not allocated: row pointers of a few rows with huge differences, formats whose\n\
reported sizes overflow.  Runs under an address-space limit (what the process uses + 1 GiB),\n\
so that an accidental huge allocation fails at once instead of swapping.\n\
  -limit_as <true>  set the address-space limit\n";

#include <petscmat.h>
#include <gpumats.h>
#include <string.h>
#include "testmat.h"
#include "testexit.h"
#include "pcsr/pcsr_format.h"
#include "diag/diag_format.h"
#include <gpumats_cihybrid_format.h>

#define INT32_LIMIT ((PetscInt64)2147483647)

/* ---- pcsr ---------------------------------------------------------------------------- */

/* Row pointers of 'nrows' rows spread evenly over nnz entries, starting at base (a block
   of a larger AIJ matrix: ai[0] need not be 0). */
static void SpreadRows(PetscInt nrows, PetscInt64 base, PetscInt64 nnz, PetscInt *ai)
{
  for (PetscInt i = 0; i <= nrows; i++) ai[i] = (PetscInt)(base + nnz * i / PetscMax(nrows, 1));
}

static PetscErrorCode PCSRSizes(void)
{
  PetscInt       ai[5];
  PCSRRowStats   s;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  /* the largest block the device takes, and one entry more */
  SpreadRows(4, 0, PCSR_MAX_DEVICE_NNZ, ai);
  PCSRRowStatsFromCSR(4, 1000, ai, &s);
  PetscCheck(s.nnz == PCSR_MAX_DEVICE_NNZ && PCSRFitsDeviceIndices(&s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: %" PetscInt64_FMT " nonzeros (the limit) should fit", s.nnz);
  PetscCall(PCSRCheckDeviceSize(&s));
  SpreadRows(4, 1000, PCSR_MAX_DEVICE_NNZ + 1, ai);
  PCSRRowStatsFromCSR(4, 1000, ai, &s);
  PetscCheck(s.nnz == PCSR_MAX_DEVICE_NNZ + 1 && !PCSRFitsDeviceIndices(&s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: %" PetscInt64_FMT " nonzeros (one past the limit) should not fit", s.nnz);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSRCheckDeviceSize(&s);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "use more MPI processes", "pcsr: 2^31 - 2^20 + 1 nonzeros"));
  /* as many nonzeros as a 32-bit PetscInt row pointer can describe */
  SpreadRows(4, 0, INT32_LIMIT, ai);
  PCSRRowStatsFromCSR(4, 4, ai, &s);
  PetscCheck(s.nnz == INT32_LIMIT && s.max_row_len >= INT32_LIMIT / 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: row statistics of 2^31-1 nonzeros: %" PetscInt64_FMT ", longest %" PetscInt64_FMT, s.nnz, s.max_row_len);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSRCheckDeviceSize(&s);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "2147483647 nonzeros", "pcsr: 2^31-1 nonzeros"));
  /* rows and columns */
  memset(&s, 0, sizeof(s));
  s.nrows = (PetscInt)(INT32_LIMIT - 1), s.ncols = 10;
  PetscCheck(PCSRFitsDeviceIndices(&s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: 2^31-2 rows should fit");
  s.nrows = (PetscInt)INT32_LIMIT;
  PetscCheck(!PCSRFitsDeviceIndices(&s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: 2^31-1 rows should not fit");
  s.nrows = 10, s.ncols = (PetscInt)INT32_LIMIT;
  PetscCheck(!PCSRFitsDeviceIndices(&s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "pcsr: 2^31-1 columns should not fit");
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSRCheckDeviceSize(&s);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, "use more MPI processes", "pcsr: 2^31-1 columns"));
  PetscFunctionReturn(0);
}

/* ---- diag ---------------------------------------------------------------------------- */

/* A format that reports these sizes and holds no diagonal: nothing to allocate or read. */
static void EmptyFormat(DiagScheme scheme, PetscInt m, PetscInt n, DiagFormat *f, PetscInt64 *start)
{
  memset(f, 0, sizeof(*f));
  f->scheme = scheme;
  f->nrows  = m;
  f->ncols  = n;
  start[0]  = 0;
  f->start  = start;
}

static PetscErrorCode DiagSizes(void)
{
  const PetscInt   half = (PetscInt)(DIAG_MAX_DEVICE_ROWS_PLUS_COLS / 2); /* the largest square block on a device */
  const PetscInt   big  = (PetscInt)1200000000;                           /* big + big > 2^31 - 1 */
  const PetscInt   ai[2] = {0, 0}, aj[1] = {0};                           /* never read: the sizes are refused first */
  PetscInt64       start[3][1], hm, cdm, stored;
  DiagFormat       A, B, C, out;
  DiagProductPlan  plan;
  DiagScheme       scheme;
  PetscErrorCode   ierr;
  const DiagScheme schemes[] = {DIAG_SCHEME_HM, DIAG_SCHEME_CDM};

  PetscFunctionBeginUser;
  /* the device limit: rows + columns */
  PetscCheck(DiagFitsDeviceIndices(half, half) && !DiagFitsDeviceIndices(half + 1, half + 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a square block of %" PetscInt_FMT " rows should fit the device, one of %" PetscInt_FMT " not", half, half + 1);
  PetscCheck(DiagFitsDeviceIndices(0, 0) && DiagFitsDeviceIndices(1, (PetscInt)(DIAG_MAX_DEVICE_ROWS_PLUS_COLS - 1)) && !DiagFitsDeviceIndices(2, (PetscInt)(DIAG_MAX_DEVICE_ROWS_PLUS_COLS - 1)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: rectangular device limit");
  PetscCheck(!DiagFitsDeviceIndices(-1, 5), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: negative sizes should not fit");
  for (int k = 0; k < 2; k++) {
    /* host sizes fit PetscInt, the device copy does not: the PETSc check says what to do */
    EmptyFormat(schemes[k], half + 1, half + 1, &A, start[0]);
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = DiagCheckDeviceSize(&A);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectError(ierr, "use more MPI processes", "diag: device copy of a square block of 2^30 - 511 rows"));
    EmptyFormat(schemes[k], half, half, &A, start[0]);
    PetscCall(DiagCheckDeviceSize(&A));

    /* rows + columns past PetscInt: refused before any allocation (the row pointers are not read) */
    PetscCheck(DiagFromCSR(schemes[k], big, big, ai, aj, NULL, 0, &stored, &out) == DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: DiagFromCSR of %" PetscInt_FMT " x %" PetscInt_FMT " should be too large", big, big);
    EmptyFormat(schemes[k], big, big, &A, start[0]);
    PetscCheck(DiagFormatTranspose(&A, &out) == DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: transpose of %" PetscInt_FMT " x %" PetscInt_FMT " should be too large", big, big);
    PetscCheck(DiagFormatWithDiagonals(&A, 0, NULL, NULL, &out) == DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: new diagonals of %" PetscInt_FMT " x %" PetscInt_FMT " should be too large", big, big);
    /* a product whose operands fit but whose C does not: (big x 10) (10 x big) */
    EmptyFormat(schemes[k], big, 10, &A, start[0]);
    EmptyFormat(schemes[k], 10, big, &B, start[1]);
    PetscCheck(DiagProductPlanCreate(&A, &B, &plan, &C) == DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: product C of %" PetscInt_FMT " x %" PetscInt_FMT " should be too large", big, big);
  }
  PetscCheck(DiagChooseScheme(big, big, ai, aj, &scheme, &hm, &cdm) == DIAG_ERR_TOO_LARGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: choosing the scheme of %" PetscInt_FMT " x %" PetscInt_FMT " should be too large", big, big);
  PetscCheck(strstr(DiagStatusString(DIAG_ERR_TOO_LARGE), "more MPI processes"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: the status string should say what to do: %s", DiagStatusString(DIAG_ERR_TOO_LARGE));
  PetscFunctionReturn(0);
}

/* ---- cihybrid (the builder; tests/test_cihybrid_badinput.c has the PETSc-level cases) -- */

static PetscErrorCode CIHybridSizes(void)
{
  /* one row of 2^31 - 8 entries: the ELLPACK pitch rounds up past 2^31 - 1; ENTRIES split
     reads no column */
  const PetscInt ai1[2] = {0, (PetscInt)(INT32_LIMIT - 7)}, ai2[3] = {0, 1100000000, 2100000000};
  const PetscInt aj[1] = {0};
  CIHybridFormat f;

  PetscFunctionBeginUser;
  PetscCheck(CIHybridLayoutFromCSR(1, (PetscInt)(INT32_LIMIT - 1), ai1, aj, CIHYBRID_SPLIT_ENTRIES, (PetscInt)(INT32_LIMIT - 1), &f) == CIHYBRID_ERR_INDEX_OVERFLOW, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: a row of 2^31 - 8 entries in ELLPACK should overflow (pitch %" PetscInt_FMT ")", f.pitch);
  CIHybridFormatFree(&f);
  /* two rows of 1.1e9 and 1e9 entries: 2.2e9 ELLPACK slots, or 2.1e9 - 1e6 in the CSR part */
  PetscCheck(CIHybridLayoutFromCSR(2, (PetscInt)(INT32_LIMIT - 1), ai2, aj, CIHYBRID_SPLIT_ENTRIES, (PetscInt)(INT32_LIMIT - 1), &f) == CIHYBRID_ERR_INDEX_OVERFLOW, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: 2 rows x pitch 1.1e9 should overflow");
  CIHybridFormatFree(&f);
  PetscCheck(CIHybridLayoutFromCSR(2, (PetscInt)(INT32_LIMIT - 1), ai2, aj, CIHYBRID_SPLIT_ENTRIES, 1000000, &f) == CIHYBRID_OK && f.nnz_csr == 2100000000 - 2000000, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cihybrid: 2.1e9 - 2e6 CSR entries fit 32 bits");
  CIHybridFormatFree(&f);
  PetscFunctionReturn(0);
}

static int Main(int argc, char **argv)
{
  PetscBool     limit_as = PETSC_TRUE, limited = PETSC_FALSE;
  struct rlimit saved;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-limit_as", &limit_as, NULL));
  if (limit_as) PetscCall(TestLimitAddressSpace(&saved, &limited));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "address space %s\n", limited ? "limited to what the process uses + 1 GiB" : "not limited"));
  PetscCall(PCSRSizes());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pcsr: the device limits and their messages: ok\n"));
  PetscCall(DiagSizes());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag: host and device size limits, before any allocation: ok\n"));
  PetscCall(CIHybridSizes());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cihybrid: ELLPACK slots and pitch past 2^31: ok\n"));
  PetscCall(PetscFinalize());
  return 0;
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
