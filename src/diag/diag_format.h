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
   slots of the diagonal that are not in the pattern are zeros).  Square only.

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
  DIAG_ERR_INCOMPATIBLE /* a product of matrices whose sizes or schemes do not match */
} DiagStatus;

typedef struct {
  DiagScheme   scheme;
  PetscInt     nrows, ncols;
  PetscInt     ndiag;
  PetscInt    *offset; /* ndiag: HM d = j - i in the scheme's order; CDM k ascending */
  PetscInt64  *start;  /* ndiag + 1: diagonal t is val[start[t] .. start[t+1]) */
  PetscScalar *val;
  PetscInt64   nnz;    /* nonzeros of the pattern it was built from */
} DiagFormat;

const char *DiagStatusString(DiagStatus);

/* Entries of diagonal d (HM) of an m x n matrix, and the row of its first entry. */
PetscInt64 DiagHMLength(PetscInt m, PetscInt n, PetscInt d);
PetscInt   DiagHMFirstRow(PetscInt d);

/* The format of the CSR matrix ai, aj, aa (m x n, ai[0] may be nonzero, entries of a
   row in any order).  max_fill > 0 refuses (DIAG_ERR_TOO_SPREAD, *stored set) a matrix
   whose stored values would exceed max_fill times its nonzeros; 0 accepts any.  On
   success the caller frees the format with DiagFormatFree. */
DiagStatus DiagFromCSR(DiagScheme scheme, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, double max_fill, PetscInt64 *stored, DiagFormat *fmt);
void       DiagFormatFree(DiagFormat *fmt);

/* Index of the stored diagonal of offset d (HM) or compact diagonal k (CDM), or -1. */
PetscInt DiagFind(const DiagFormat *fmt, PetscInt offset);

/* y = A x (+ y0) and y = A^T x (+ y0); y0 may be NULL or equal y. */
void DiagMultHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
void DiagMultTransposeHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* C = A B in the scheme of A and B (the same): the symbolic phase finds C's diagonals
   from the two offset sets (HM: dA + dB where the diagonal exists in C's shape; CDM:
   (kA + kB) mod n) and allocates C; the numeric phase (again after A's or B's values
   change, same structure) fills it. */
DiagStatus DiagProductSymbolic(const DiagFormat *A, const DiagFormat *B, DiagFormat *C);
void       DiagProductNumericHost(const DiagFormat *A, const DiagFormat *B, DiagFormat *C);

#if defined(__cplusplus)
}
#endif
