/* A compressed, exact form of a filled CIHybridFormat (issue 49): plain C, PETSc types only.

   A CI Hamiltonian has few distinct values and short column gaps inside a row, so each stored
   entry becomes two 16-bit words, a value code and a column gap, instead of a double and an
   int32 (12 bytes).  Nothing is rounded: decoding gives back every value and column bit for bit
   (NaN payloads too), and the host kernels below sum in the order of CIHybridMultHost /
   CIHybridMultTransposeHost, so their results equal those of the plain format bit for bit; only
   where two NaNs meet in one operation may the NaN that comes out differ (IEEE 754 leaves which
   one to the hardware and the compiler's operand order).  These host kernels are the reference
   the device kernels below (one warp a row: cuda/cihybrid/cihybrid_compress.cu, their test
   tests/test_cihybrid_compress_device.cu) are tested against.  A cihybrid Mat keeps its entries
   in this form with -mat_cihybrid_compress full (src/cihybrid/cihybrid_compressed.c).

   Layout.  The ELLPACK block keeps the plain format's shape (row i's slot p at i*pitch + p,
   slots p >= s_i padding), the remainder its csr_start; each entry has
     code (uint16): bit 15 the sign, bits 0-14 an index into dict[], the magnitudes (|v|, the
                    bit pattern with the sign bit clear) of the most frequent values, most frequent
                    first.  The value is dict[code & 0x7fff] with bit 63 set when bit 15 is: a bit
                    operation, exact for -0.0 and +-Inf (a kernel may also negate, which is exact
                    for every value that is not NaN; NaN never goes through the dictionary).
                    CIHYBRID_CODE_EXPLICIT: the value is the next one of the row in expl_val[],
                    whose entries of row i start at expl_start[i], in entry order (ELL part,
                    then remainder).  So index 0x7fff is never used: at most 32767 magnitudes.
     gap (uint16):  column minus the column of the previous entry of the row (the ELL part and
                    the remainder are one row: the remainder's first entry counts from the last
                    ELL entry); the first entry of a row counts from column 0.  A gap above
                    CIHYBRID_GAP_MAX is CIHYBRID_GAP_ESCAPE: the column is the row's next entry
                    of esc_col[] (full 32-bit columns, row i's from esc_start[i], entry order).
   Padding slots hold gap CIHYBRID_GAP_PAD and code CIHYBRID_CODE_NONE: neither reads memory,
   and the padding of a row is a suffix of its ELL slots, so a kernel can stop at the first.
   NaN values (any payload) are always explicit.  Sizes: entries and slots must fit int32, as
   in the plain format.

   Supported for real double-precision scalars only: a complex (or single, or quad) PETSc build
   gets CIHYBRID_COMPRESS_ERR_UNSUPPORTED from CIHybridCompress and CIHybridCompressedDecode. */
#pragma once
#include <petscsys.h>
#include <stdint.h>
#include <gpumats_cihybrid_format.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define CIHYBRID_CODE_EXPLICIT    0xffffu /* the value is in expl_val[] */
#define CIHYBRID_CODE_NONE        0x7fffu /* a padding slot: no value */
#define CIHYBRID_CODE_SIGN        0x8000u
#define CIHYBRID_CODE_INDEX       0x7fffu /* the dictionary index bits */
#define CIHYBRID_DICT_MAX_ENTRIES 32767   /* index 0x7fff is the two reserved codes */
#define CIHYBRID_DICT_MAX_SIZE    32768
#define CIHYBRID_DICT_DEFAULT     4096    /* 32 KiB of doubles: the table fits in shared memory */
#define CIHYBRID_GAP_MAX          0xfffdu /* largest gap stored as such */
#define CIHYBRID_GAP_PAD          0xfffeu /* a padding slot */
#define CIHYBRID_GAP_ESCAPE       0xffffu /* the column is in esc_col[] */

typedef enum {
  CIHYBRID_COMPRESS_OK = 0,
  CIHYBRID_COMPRESS_ERR_MEMORY,         /* host malloc failed */
  CIHYBRID_COMPRESS_ERR_INDEX_OVERFLOW, /* more explicit values or escapes than int32 offsets hold */
  CIHYBRID_COMPRESS_ERR_ARGUMENT,       /* format not filled, columns not ascending, bad options */
  CIHYBRID_COMPRESS_ERR_UNSUPPORTED     /* scalars other than real double (a complex PETSc) */
} CIHybridCompressStatus;

typedef struct {
  PetscInt dict_size; /* the table size: a power of two, 1 to 32768 (at most 32767 entries used) */
} CIHybridCompressOptions;

typedef struct {
  PetscInt      nrows, ncols;
  CIHybridSplit split;
  PetscInt      boundary, width, pitch; /* as the plain format's */
  PetscInt      dict_size;              /* the table size asked for */
  PetscInt      dict_count;             /* magnitudes in dict[]: at most min(dict_size, 32767) */
  double       *dict;                   /* dict_count magnitudes, sign bit clear, most frequent first */
  uint16_t     *ell_code, *ell_gap;     /* nrows*pitch */
  int32_t      *csr_start;              /* nrows+1: remainder of row i is [csr_start[i], csr_start[i+1]) */
  uint16_t     *csr_code, *csr_gap;     /* nnz_csr */
  int32_t      *expl_start;             /* nrows+1 */
  double       *expl_val;               /* nnz_explicit */
  int32_t      *esc_start;              /* nrows+1 */
  int32_t      *esc_col;                /* escapes */
  /* statistics: nnz = nnz_ell + nnz_csr = nnz_dict + nnz_explicit */
  PetscInt64 nnz, nnz_ell, nnz_csr, padding, nnz_dict, nnz_explicit, escapes;
} CIHybridCompressed;

typedef struct {
  PetscInt   dict_size, dict_count;
  PetscInt64 nnz, nnz_dict, nnz_explicit, escapes, padding;
  double     dict_coverage;      /* nnz_dict / nnz (1 for an empty matrix) */
  /* bytes of every array one product reads: ELL codes and gaps of nrows*width slots (the
     padding up to the width included, as CIHybridBytesPerMult counts it), the remainder's
     codes and gaps, csr_start, expl_start, esc_start, explicit values, escaped columns and
     the dictionary once; x and y are not in it */
  double     matrix_bytes;
  double     bytes_per_mult;     /* matrix_bytes + x + y */
  double     bytes_per_nonzero;  /* matrix_bytes / nnz (0 for an empty matrix) */
  double     plain_matrix_bytes; /* the same count for the plain format: 12 bytes a slot + csr_start */
  double     plain_bytes_per_nonzero;
} CIHybridCompressStats;

PETSC_EXTERN const char            *CIHybridCompressStatusString(CIHybridCompressStatus);
PETSC_EXTERN void                   CIHybridCompressOptionsDefault(CIHybridCompressOptions *opts);
/* The compressed form of fmt, whose arrays must be filled (CIHybridBuildFromCSR or
   CIHybridFillFromCSR); opts NULL takes the defaults.  On failure *cmp holds no arrays. */
PETSC_EXTERN CIHybridCompressStatus CIHybridCompress(const CIHybridFormat *fmt, const CIHybridCompressOptions *opts, CIHybridCompressed *cmp);
PETSC_EXTERN void                   CIHybridCompressedFree(CIHybridCompressed *cmp);
/* The plain format cmp was made from, arrays, layout and statistics (boundary, split, width,
   pitch, ell_len, csr_start, nnz, nnz_ell, nnz_csr, padding, rows_with_csr, max_row_len) as
   CIHybridBuildFromCSR gives them; on failure *fmt holds no arrays. */
PETSC_EXTERN CIHybridCompressStatus CIHybridCompressedDecode(const CIHybridCompressed *cmp, CIHybridFormat *fmt);
PETSC_EXTERN void                   CIHybridCompressedGetStats(const CIHybridCompressed *cmp, CIHybridCompressStats *stats);

/* host kernels: y = A x (+ y0),  y = A^T x (+ y0); y0 may be NULL or alias y; the results are
   those of CIHybridMultHost / CIHybridMultTransposeHost on the plain format, bit for bit (a NaN
   result is a NaN, see above) */
PETSC_EXTERN void CIHybridCompressedMultHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
PETSC_EXTERN void CIHybridCompressedMultTransposeHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* ---- on the device (CUDA builds: cuda/cihybrid/cihybrid_compress.cu) ---- */

/* Dictionaries of at most this many magnitudes (32 KiB of doubles: within the 48 KiB of shared
   memory a block has without opting in) are staged in shared memory by each block of the
   product; larger ones are read from global memory through the read-only path. */
#define CIHYBRID_COMPRESSED_SHARED_DICT_MAX CIHYBRID_DICT_DEFAULT

typedef struct _n_CIHybridCompressedDevice *CIHybridCompressedDevice;

/* Where the product reads the dictionary: AUTO takes shared memory when the dictionary has at
   most CIHYBRID_COMPRESSED_SHARED_DICT_MAX entries; SHARED (an error for a larger one) and
   GLOBAL force one way, so that a test can run both on one matrix. */
typedef enum {
  CIHYBRID_COMPRESSED_DICT_AUTO = 0,
  CIHYBRID_COMPRESSED_DICT_SHARED,
  CIHYBRID_COMPRESSED_DICT_GLOBAL
} CIHybridCompressedDictPlace;

/* A device copy of every array of cmp (a result of CIHybridCompress: sizes checked to fit the
   int32 device indices), uploaded and checked; allocation failures are PETSC_ERR_MEM naming
   the array and the sizes.  On failure nothing stays allocated and *dev is NULL. */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceCreate(const CIHybridCompressed *cmp, CIHybridCompressedDevice *dev);
/* Frees the copy (NULL: nothing); *dev becomes NULL. */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceDestroy(CIHybridCompressedDevice *dev);
/* Device memory held by the copy's arrays. */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceBytes(CIHybridCompressedDevice dev, size_t *bytes);
/* y = A x (+ y0), device vectors; y0 may be NULL or equal y.  One warp a row; queued on
   GpuMatsCUDAGetStream(), returns without waiting.  The sums are in another order than the
   host kernels': equal to them up to rounding, not bit for bit. */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceMult(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* The same with the dictionary read from 'place'. */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceMultDict(CIHybridCompressedDevice dev, CIHybridCompressedDictPlace place, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* y = A^T x (+ y0), device vectors; y0 may be NULL or equal y.  A fallback of one thread a row
   with atomics (results equal to the host kernel's up to rounding); queued on
   GpuMatsCUDAGetStream(). */
PETSC_EXTERN PetscErrorCode CIHybridCompressedDeviceMultTranspose(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

#if defined(__cplusplus)
}
#endif
