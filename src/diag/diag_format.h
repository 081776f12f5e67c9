/* The DIAG storage schemes HM and CDM (the format, DiagFormat, is documented in
   <gpumats_diag_format.h>, the format's exported kernel interface, which declares what the
   benchmarks and the library's CUDA layer call: DiagFromCSR, DiagFormatFree, DiagFormatCopy,
   DiagFind, DiagFitsDeviceIndices, DiagMultTransposeHost, the plan of a product C = A B) and
   the rest of their host side: plain C, PETSc types only. */
#pragma once
#include <petscsys.h>
#include <gpumats_diag_format.h>

#if defined(__cplusplus)
extern "C" {
#endif

const char *DiagStatusString(DiagStatus);

/* DiagFitsDeviceIndices (exported) as a PETSc error (PETSC_ERR_SUP) giving the sizes and
   saying to use more MPI processes; in the PETSc glue (diag.c), not in this plain-C part. */
PetscErrorCode DiagCheckDeviceSize(const DiagFormat *fmt);

/* Entries of diagonal d (HM) of an m x n matrix, and the row of its first entry. */
PetscInt64 DiagHMLength(PetscInt m, PetscInt n, PetscInt d);
PetscInt   DiagHMFirstRow(PetscInt d);

/* The format (values zero) of an m x n matrix whose entries lie on the HM offsets marked in
   present[d + m - 1] (m + n - 1 marks); CDM takes compact diagonal d mod n with the part of d's
   sign.  entries: the matrix's nonzeros (fmt->nnz, and the measure of max_fill as in
   DiagFromCSR, DIAG_ERR_TOO_SPREAD leaving ndiag and nnz for the message). */
DiagStatus DiagFromOffsets(DiagScheme scheme, PetscInt m, PetscInt n, const unsigned char *present, PetscInt64 entries, double max_fill, PetscInt64 *stored, DiagFormat *fmt);
/* DiagChooseScheme from the same marks. */
DiagStatus DiagChooseSchemeFromOffsets(PetscInt m, PetscInt n, const unsigned char *present, DiagScheme *scheme, PetscInt64 *hm, PetscInt64 *cdm);

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

/* The indices of ne diagonals of offsets d[] by ascending offset (free()), or NULL (no memory) */
int *DiagOffsetOrder(PetscInt ne, const PetscInt *d);

/* The stored diagonal holding entry (i, j) (-1 if none) and the entry's slot in it. */
PetscInt DiagLocate(const DiagFormat *fmt, PetscInt i, PetscInt j, PetscInt64 *slot);

/* y = A x (+ y0); y0 may be NULL or equal y (y = A^T x: DiagMultTransposeHost, exported). */
void DiagMultHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* C = A B (+ C when add), B (ncols x k) and C (nrows x k) column-major with leading
   dimensions ldb and ldc. */
void DiagSpMMHost(const DiagFormat *fmt, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);

#if defined(__cplusplus)
}
#endif
