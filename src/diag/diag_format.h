/* The DIAG storage schemes of Haque, Parvez and Hossain (Algorithms 2024, 17(1):31)
   and their host kernels: plain C, PETSc types only.

   HM (Hossain-Mahmud): only the diagonals holding a nonzero are stored, the main
   diagonal first, then the superdiagonals by ascending offset, then the
   subdiagonals by descending offset (-1, -2, ...).  Entry a(i,j) lies on diagonal
   d = j - i; for an m x n matrix diagonal d holds (i, i+d) for
   max(0,-d) <= i < min(m, n-d), and a(i,j) is its entry i - max(0,-d), which is
   min(i,j) as in the paper (the first entry of a subdiagonal is in column 0, of a
   superdiagonal in row 0).  Rectangular matrices have the same diagonals,
   clipped to the shape.  Diagonals are stored one after the other without padding
   (start[] gives where each begins).  Any m x n matrix.

   CDM (compact diagonals): compact diagonal k, 0 <= k < n, holds a(i, (i+k) mod n)
   for i = 0..n-1, i.e. superdiagonal k stacked on subdiagonal n-k; only compact
   diagonals holding a nonzero are stored, by ascending k, each of length n (the
   slots of the diagonal that are not in the pattern are zeros).  Square only.  Each
   stored compact diagonal k remembers which of its two parts hold entries of the
   pattern (DIAG_PART_UPPER: superdiagonal k, rows i < n - k, the main diagonal for
   k = 0; DIAG_PART_LOWER: subdiagonal n - k, rows i >= n - k): the slots of an absent
   part are padding, stored but never entries of the matrix.

   The transpose needs no data movement: diagonal d of A is diagonal -d of A^T
   (HM); compact diagonal k of A read from row (i+k) mod n is compact diagonal
   n-k of A^T (CDM). */
#pragma once
#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum {
  DIAG_SCHEME_HM  = 0,
  DIAG_SCHEME_CDM = 1
} DiagScheme;

typedef enum {
  DIAG_OK = 0,
  DIAG_ERR_MEMORY,      /* host malloc failed */
  DIAG_ERR_ARGUMENT,    /* negative sizes, a column out of range, CDM of a rectangular matrix */
  DIAG_ERR_TOO_SPREAD,  /* the stored values would exceed the allowed multiple of the nonzeros */
  DIAG_ERR_INCOMPATIBLE, /* a product of matrices whose sizes or schemes do not match */
  DIAG_ERR_TOO_LARGE     /* rows + columns do not fit PetscInt (the offsets d + m - 1 are indices) */
} DiagStatus;

/* The device copy indexes rows, columns and offsets with int32 and computes i + d and
   grid sizes in int: rows + columns of a matrix (of each operand and of C in a product)
   must stay within DIAG_MAX_DEVICE_ROWS_PLUS_COLS, 2^31 - 1 less a margin for the last
   thread block (a square matrix: n <= 1073741311 per process).  The value starts are
   64-bit: the stored values (diagonals x length) have no 32-bit limit. */
#define DIAG_MAX_DEVICE_ROWS_PLUS_COLS ((PetscInt64)2147483647 - 1024)

#define DIAG_PART_UPPER 1
#define DIAG_PART_LOWER 2

typedef struct {
  DiagScheme   scheme;
  PetscInt     nrows, ncols;
  PetscInt     ndiag;
  PetscInt    *offset; /* ndiag: HM d = j - i in the scheme's order; CDM k ascending */
  PetscInt64  *start;  /* ndiag + 1: diagonal t is val[start[t] .. start[t+1]) */
  PetscScalar *val;
  PetscInt64   nnz;    /* nonzeros of the pattern it was built from */
  unsigned char *part; /* CDM: ndiag, DIAG_PART_UPPER | DIAG_PART_LOWER; HM: NULL */
} DiagFormat;

const char *DiagStatusString(DiagStatus);

/* Do an m x n matrix's sizes fit the device copy (see DIAG_MAX_DEVICE_ROWS_PLUS_COLS)? */
PetscBool DiagFitsDeviceIndices(PetscInt m, PetscInt n);
/* The same as a PETSc error (PETSC_ERR_SUP) giving the sizes and saying to use more MPI
   processes; in the PETSc glue (diag.c), not in this plain-C part. */
PetscErrorCode DiagCheckDeviceSize(const DiagFormat *fmt);

/* Entries of diagonal d (HM) of an m x n matrix, and the row of its first entry. */
PetscInt64 DiagHMLength(PetscInt m, PetscInt n, PetscInt d);
PetscInt   DiagHMFirstRow(PetscInt d);

/* The format of the CSR matrix ai, aj, aa (m x n, ai[0] may be nonzero, entries of a
   row in any order).  max_fill > 0 refuses (DIAG_ERR_TOO_SPREAD, *stored set) a matrix
   whose stored values would exceed max_fill times its nonzeros (fmt then has no arrays,
   only ndiag and nnz, for the message); 0 accepts any.  aa NULL: the structure only.  On
   success the caller frees the format with DiagFormatFree. */
DiagStatus DiagFromCSR(DiagScheme scheme, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, double max_fill, PetscInt64 *stored, DiagFormat *fmt);
void       DiagFormatFree(DiagFormat *fmt);

/* The format (values zero) of an m x n matrix whose entries lie on the HM offsets marked in
   present[d + m - 1] (m + n - 1 marks); CDM takes compact diagonal d mod n with the part of d's
   sign.  entries: the matrix's nonzeros (fmt->nnz, and the measure of max_fill as in
   DiagFromCSR, DIAG_ERR_TOO_SPREAD leaving ndiag and nnz for the message). */
DiagStatus DiagFromOffsets(DiagScheme scheme, PetscInt m, PetscInt n, const unsigned char *present, PetscInt64 entries, double max_fill, PetscInt64 *stored, DiagFormat *fmt);
/* DiagChooseScheme from the same marks. */
DiagStatus DiagChooseSchemeFromOffsets(PetscInt m, PetscInt n, const unsigned char *present, DiagScheme *scheme, PetscInt64 *hm, PetscInt64 *cdm);

/* A deep copy (dst is overwritten, not freed). */
DiagStatus DiagFormatCopy(const DiagFormat *src, DiagFormat *dst);
/* The diagonals only (offsets, starts, CDM parts; dst->val NULL), and whether two formats
   have the same diagonals (scheme, sizes, offsets, parts): a product's plan still holds. */
DiagStatus DiagFormatCopyStructure(const DiagFormat *src, DiagFormat *dst);
PetscBool  DiagFormatSameStructure(const DiagFormat *a, const DiagFormat *b);
/* A^T: HM, diagonal d becomes diagonal -d, each diagonal's values copied unchanged (the
   slot of a(i,j) is min(i,j) for both); CDM, compact diagonal k becomes (n - k) mod n
   read from row (i + k) mod n, a cyclic shift.  Nothing is permuted entry by entry. */
DiagStatus DiagFormatTranspose(const DiagFormat *A, DiagFormat *At);
/* The format of A with the diagonals 'extra' (offsets in A's scheme, with their parts for
   CDM: extra_part may be NULL for HM) added where missing; A's values copied, the new
   diagonals zero. */
DiagStatus DiagFormatWithDiagonals(const DiagFormat *A, PetscInt nextra, const PetscInt *extra, const unsigned char *extra_part, DiagFormat *out);

/* The scheme that stores fewer values, preferring CDM (faster kernels: every compact
   diagonal has length n, no bounds per diagonal) while its padding stays within
   DIAG_CDM_MAX_EXTRA times the values HM would store.  *hm, *cdm: values each would store
   (cdm -1 for a rectangular matrix). */
#define DIAG_CDM_MAX_EXTRA 0.2
DiagStatus DiagChooseScheme(PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, DiagScheme *scheme, PetscInt64 *hm, PetscInt64 *cdm);

/* Entries of the matrix among the stored values (all of them for HM; CDM without the
   padding of absent parts). */
PetscInt64 DiagPatternSize(const DiagFormat *fmt);

/* The entry (i, j) stored in slot p of stored diagonal t, and whether it is an entry of
   the pattern (not CDM padding). */
static inline int DiagSlotEntry(const DiagFormat *f, PetscInt t, PetscInt64 p, PetscInt *i, PetscInt *j)
{
  const PetscInt d = f->offset[t];

  if (f->scheme == DIAG_SCHEME_HM) {
    *i = (PetscInt)p + (d < 0 ? -d : 0);
    *j = *i + d;
    return 1;
  }
  *i = (PetscInt)p;
  *j = (PetscInt)(((PetscInt64)p + d) % f->ncols);
  return (f->part[t] & (*j >= *i ? DIAG_PART_UPPER : DIAG_PART_LOWER)) != 0;
}

/* Index of the stored diagonal of offset d (HM) or compact diagonal k (CDM), or -1. */
PetscInt DiagFind(const DiagFormat *fmt, PetscInt offset);
/* The stored diagonal holding entry (i, j) (-1 if none) and the entry's slot in it. */
PetscInt DiagLocate(const DiagFormat *fmt, PetscInt i, PetscInt j, PetscInt64 *slot);

/* y = A x (+ y0) and y = A^T x (+ y0); y0 may be NULL or equal y. */
void DiagMultHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
void DiagMultTransposeHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C = A B (+ C when add), B (ncols x k) and C (nrows x k) column-major with leading
   dimensions ldb and ldc. */
void DiagSpMMHost(const DiagFormat *fmt, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

/* C = A B: diag_product_plan.h (any schemes, the plan by counting, the host numeric phase). */

#if defined(__cplusplus)
}
#endif
