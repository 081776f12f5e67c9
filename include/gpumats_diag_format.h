/* The kernel interface of the diag format, for programs that measure its kernels without a
   Mat (benchmarks/src/bench_diag.cu, bench_diag_products.cu, bench_diag_products_host.c).  A
   Mat of type diag needs none of this.  The format and its builder, the host product A^T x
   and the plan of a product C = A B with its host numeric phase are plain C (any build); the
   device copy and its launchers are defined only in a libgpumats built with CUDA: device
   pointers are device memory, and every launcher queues its work on GpuMatsCUDAGetStream()
   (<gpumats_cuda_context.h>) and returns without waiting, except where it says so.  The
   library's private headers (src/diag/diag_format.h, cuda/diag/diag_cuda.h) include this one
   and declare nothing of it again; the library's CUDA layer (cuda/diag/) takes from the
   format's host side only what is here.

   The DIAG storage schemes of Haque, Parvez and Hossain (Algorithms 2024, 17(1):31):

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
#include <gpumats_cuda_context.h>

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

/* The device copy indexes rows, columns and offsets with int32 and computes i + d and
   grid sizes in int: rows + columns of a matrix (of each operand and of C in a product)
   must stay within DIAG_MAX_DEVICE_ROWS_PLUS_COLS, 2^31 - 1 less a margin for the last
   thread block (a square matrix: n <= 1073741311 per process).  The value starts are
   64-bit: the stored values (diagonals x length) have no 32-bit limit. */
#define DIAG_MAX_DEVICE_ROWS_PLUS_COLS ((PetscInt64)2147483647 - 1024)
/* Do an m x n matrix's sizes fit the device copy (see DIAG_MAX_DEVICE_ROWS_PLUS_COLS)? */
PETSC_EXTERN PetscBool DiagFitsDeviceIndices(PetscInt m, PetscInt n);

/* The format of the CSR matrix ai, aj, aa (m x n, ai[0] may be nonzero, entries of a
   row in any order).  max_fill > 0 refuses (DIAG_ERR_TOO_SPREAD, *stored set) a matrix
   whose stored values would exceed max_fill times its nonzeros (fmt then has no arrays,
   only ndiag and nnz, for the message); 0 accepts any.  aa NULL: the structure only.  On
   success the caller frees the format with DiagFormatFree. */
PETSC_EXTERN DiagStatus DiagFromCSR(DiagScheme scheme, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, double max_fill, PetscInt64 *stored, DiagFormat *fmt);
PETSC_EXTERN void       DiagFormatFree(DiagFormat *fmt);
/* A deep copy (dst is overwritten, not freed). */
PETSC_EXTERN DiagStatus DiagFormatCopy(const DiagFormat *src, DiagFormat *dst);
/* Index of the stored diagonal of offset d (HM) or compact diagonal k (CDM), or -1. */
PETSC_EXTERN PetscInt DiagFind(const DiagFormat *fmt, PetscInt offset);
/* y = A^T x (+ y0) on the host; y0 may be NULL or equal y. */
PETSC_EXTERN void DiagMultTransposeHost(const DiagFormat *fmt, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* The plan of a product C = A B whatever the operands' schemes (HM, CDM, mixed): the pairs of
   "entry diagonals" of A and B that meet on each diagonal of C, found by counting (the symbolic
   phase), and what the numeric phase costs.  The device kernels (cuda/diag/) compute each
   pair's segment with the same inline function as the host (DiagPairSegment), so the host
   numeric phase is their twin.

   Both operands are seen as lists of "entry diagonals": an HM diagonal of offset d, or
   each present part of a CDM compact diagonal (the upper part is the diagonal d = k, the
   lower d = k - n).  Entry diagonal e of an m x n operand holds a(i, i + d) for the rows
   max(0, -d) <= i < min(m, n - d) at value index base_e + i (HM: base = start - first
   row; CDM: base = start).  A pair (a, b) of entry diagonals of A and B lands on C's
   diagonal dc = da + db and contributes, over a contiguous range of rows i,
     c(i, i + dc) += a(i, i + da) b(i + da, i + dc):
   one contiguous, unit-stride multiply-add of a slice of A's values and a slice of B's.

   Symbolic work: O(nea log neb + pairs) for the pairs (B's entry diagonals sorted by offset,
   those meeting each of A's a run of them; two passes: count, then place, grouped by C's
   diagonal) + O(range of the sums) for C's offsets, never O(n x pairs); C's values
   are not allocated by the plan (the caller allocates them where the numeric phase runs). */
typedef struct {
  PetscInt   nrows, inner, ncols; /* C is nrows x ncols, A nrows x inner, B inner x ncols */
  DiagScheme scheme_c;
  PetscInt   nea, neb;            /* entry diagonals of A and B */
  PetscInt  *ea_d, *eb_d;         /* their offsets j - i */
  PetscInt64 *ea_base, *eb_base;  /* value index of row i: base + i */
  PetscInt   ndiag_c;
  PetscInt64 npairs;              /* pairs with at least one row */
  PetscInt64 *pair_start;         /* ndiag_c + 1: the pairs of C's stored diagonal c */
  int        *pair_a, *pair_b;    /* entry diagonals of A and B, grouped by c */
  PetscInt64 flops;               /* 2 x the multiply-adds of the numeric phase */
  int        *a_order, *b_order;  /* the entry diagonals of A and of B in ascending offset */
  PetscInt    sum_lo;             /* the sums da + db, clipped to C's shape: sum_lo .. sum_lo + nsum - 1 */
  PetscInt64  nsum;
  PetscInt64 *sum_slot;           /* nsum: the pairs meeting on each sum (Begin to End), then C's diagonal of each sum with pairs */
  PetscInt64 *c_sum;              /* 2 ndiag_c: the sums of C's diagonal c less sum_lo, ascending, -1 for none (a CDM diagonal
                                     holds two, its lower part k - n and its upper part k) */
} DiagProductPlan;

/* __host__ __device__ for the CUDA compiler: the inline functions the host and the device share */
#if defined(__CUDACC__)
  #define DIAG_HD __host__ __device__
#else
  #define DIAG_HD
#endif

/* The rows [*i0, *i1) where the pair (da of an nrows x inner A, db of an inner x ncols B)
   meets, and the slot shift of C's diagonal dc = da + db (slot = i - shift; 0 for CDM C). */
DIAG_HD static inline void DiagPairSegment(PetscInt nrows, PetscInt inner, PetscInt ncols, int c_is_hm, PetscInt da, PetscInt db, PetscInt *i0, PetscInt *i1, PetscInt *cshift)
{
  const PetscInt dc = da + db;
  PetscInt       lo = da < 0 ? -da : 0, hi = nrows;

  if ((db < 0 ? -db : 0) - da > lo) lo = (db < 0 ? -db : 0) - da; /* B's row i + da on B's diagonal */
  if (-dc > lo) lo = -dc;                                         /* C's row on C's diagonal */
  if (inner - da < hi) hi = inner - da;                           /* A's column, B's row */
  if (ncols - dc < hi) hi = ncols - dc;                           /* C's column */
  *i0     = lo;
  *i1     = hi > lo ? hi : lo;
  *cshift = c_is_hm && dc < 0 ? -dc : 0;
}

/* The plan of C = A B and C's format without values (C->val NULL, start[], offsets and
   CDM parts set).  C is CDM when A and B both are, else HM.  A->ncols must equal B->nrows. */
PETSC_EXTERN DiagStatus DiagProductPlanCreate(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *plan, DiagFormat *C);
/* The same in steps, for a plan whose counts and lists are made elsewhere (the device):
   Begin sets the entry diagonals, their orders and the range of the sums (sum_slot zeroed);
   the caller counts the pairs meeting on each sum into sum_slot and sets flops; End makes C's
   diagonals and pair_start from the counts; Pairs makes the lists on the host (pair_a and
   pair_b, what the host numeric phase reads; nothing if they exist).  On each diagonal of C
   the pairs come in ascending offset of A's entry diagonal.  On an error after Begin the caller
   frees the plan and C. */
PETSC_EXTERN DiagStatus DiagProductPlanBegin(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *plan, DiagFormat *C);
PETSC_EXTERN DiagStatus DiagProductPlanEnd(DiagProductPlan *plan, DiagFormat *C);
PETSC_EXTERN DiagStatus DiagProductPlanPairs(DiagProductPlan *plan);
PETSC_EXTERN void       DiagProductPlanFree(DiagProductPlan *plan);
/* C's values (allocated by the caller) = A B, contiguous multiply-adds per (C diagonal, pair) */
PETSC_EXTERN void       DiagProductPlanNumericHost(const DiagProductPlan *plan, const DiagFormat *A, const DiagFormat *B, DiagFormat *C);
/* The least bytes a numeric phase moves: A's and B's values read once, C's written once */
PETSC_EXTERN PetscInt64 DiagProductPlanBytes(const DiagFormat *A, const DiagFormat *B, const DiagFormat *C);

/* ------------------------------------------------------------------------ */
/* The device copy and its launchers (CUDA builds only) */
typedef struct _n_DiagDevice *DiagDevice;

/* Device copy of a DiagFormat built on the host (its offsets, starts and values; a format
   whose val is NULL gives a copy without values, e.g. for C of a product).  Device indices
   are 32-bit for the sizes and offsets, 64-bit for the value starts; allocation errors name
   the array and the sizes. */
PETSC_EXTERN PetscErrorCode DiagDeviceCreate(const DiagFormat *fmt, DiagDevice *dev);
/* New values, same diagonals. */
PETSC_EXTERN PetscErrorCode DiagDeviceCopyValues(DiagDevice dev, const DiagFormat *fmt);
/* The values back into fmt->val (same diagonals); waits for them. */
PETSC_EXTERN PetscErrorCode DiagDeviceGetValues(DiagDevice dev, DiagFormat *fmt);
PETSC_EXTERN PetscErrorCode DiagDeviceDestroy(DiagDevice *dev);
/* y = A x (+ y0), or y = A^T x (+ y0) when transpose (the same arrays: diagonal -d of A^T is
   diagonal d of A); y0 NULL or equal y allowed.  One thread per entry of y, each walking the
   diagonals: the loads of a diagonal by consecutive threads are consecutive. */
PETSC_EXTERN PetscErrorCode DiagDeviceMult(DiagDevice dev, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* C = A B on the device, whatever the schemes, from the plan of the symbolic phase
   (DiagProductPlanCreate on the host).  DiagDeviceProductCreate puts the plan on the device
   (O(pairs) integers, nothing n-long); the numeric phase, again whenever A's or B's values
   change, runs DiagDeviceProductNumeric: the sweep kernel where it applies (banded operands of
   any schemes whose bands fit a block's shared memory), else the banded kernel (banded CDM
   operands, n from 32k, rows of A and B staged in shared memory), else the staged pairs kernel
   where A's diagonals fit and 16 or more pairs meet on each diagonal of C on average, else the
   blocks kernel for banded operands (48 diagonals or more each), else the shuffle kernel where
   A's diagonals fit and 3 or more pairs meet on each diagonal of C, else the pairs kernel; C
   written once, no atomics.  DiagDeviceProductKernelName says which.  The other launchers run
   one kernel each, so that benchmarks can time them against each other and against the
   paper's algorithms. */
typedef struct _n_DiagDeviceProduct *DiagDeviceProduct;
PETSC_EXTERN PetscErrorCode DiagDeviceProductCreate(const DiagProductPlan *plan, const DiagFormat *A, const DiagFormat *B, const DiagFormat *C, DiagDeviceProduct *prod);
/* The symbolic phase on the device: the plan (its lists on the device only: pair_a and pair_b
   NULL on the host until DiagProductPlanPairs), C's diagonals without values (as
   DiagProductPlanCreate) and the device product ready for DiagDeviceProductNumeric.  The host
   does O(diagonals + range of the sums) work, the device the counting and the lists. */
PETSC_EXTERN PetscErrorCode DiagDeviceProductPlan(const DiagFormat *A, const DiagFormat *B, DiagProductPlan *plan, DiagFormat *C, DiagDeviceProduct *prod);
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumeric(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The kernel DiagDeviceProductNumeric runs for this product: "sweep", "banded", "staged", "blocks",
   "shuffle" or "pairs" */
PETSC_EXTERN PetscErrorCode DiagDeviceProductKernelName(DiagDeviceProduct prod, const char **name);
PETSC_EXTERN PetscErrorCode DiagDeviceProductDestroy(DiagDeviceProduct *prod);
/* Rows per tile T of the banded kernel for this product (0: it does not apply: not banded,
   mixed schemes, or too wide). */
PETSC_EXTERN PetscErrorCode DiagDeviceProductBandedRows(DiagDeviceProduct prod, int *T);
/* The banded kernel alone, for a banded CDM A, B and C (each compact diagonal of A one super- or
   subdiagonal), rows of A and B staged in shared memory on tiles of T rows (from
   DiagDeviceProductBandedRows) and the pairs from lists. */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericBanded(DiagDeviceProduct prod, int T, DiagDevice A, DiagDevice B, DiagDevice C);
/* The sweep kernel alone: for banded operands (entry diagonals on at least half of each one's span
   of offsets), both bands staged in shared memory on tiles of 32 rows, each warp holding 16
   diagonals of C in registers; PETSC_ERR_SUP where it does not apply (DiagDeviceProductSweepApplies:
   the bands do not fit a block's shared memory, scattered offsets, or a CDM C whose sums span n). */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericSweep(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
PETSC_EXTERN PetscErrorCode DiagDeviceProductSweepApplies(DiagDeviceProduct prod, PetscBool *applies);
/* The pairs kernel alone: a block per (diagonal of C, tile of 1024 rows), A and B read from L2 */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericPairs(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The pairs kernel with A's diagonals staged in shared memory on tiles of 32 rows, each warp
   walking diagonals of C and reading their pairs 32 at a time (what DiagDeviceProductNumeric
   runs when the banded kernel does not apply, A's diagonals fit and at least 16 pairs meet on
   each diagonal of C on average); PETSC_ERR_SUP when A's diagonals do not fit.
   DiagDeviceProductStagedRows gives the rows of its tiles for this product: 32, or 0 when they
   do not fit (more than 736 diagonals in 200 KiB). */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericStaged(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
PETSC_EXTERN PetscErrorCode DiagDeviceProductStagedRows(DiagDeviceProduct prod, int *T);
/* The shuffle kernel: A's diagonals staged on tiles of 32 R rows (R rows a lane), each warp
   walking diagonals of C, their pairs handed to the warp by shuffles (what DiagDeviceProductNumeric
   runs where none of the above does and at least DIAG_SHUFFLE_MIN_PAIRS pairs meet on each
   diagonal of C on average); the same C as the pairs kernel bit for bit.  PETSC_ERR_SUP where
   A's diagonals do not fit.  DiagDeviceProductShuffleRows gives R for this product: 4 or 2, the
   most that fit the device's shared memory a block (up to about 227 or 454 diagonals), or 0. */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericShuffle(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
PETSC_EXTERN PetscErrorCode DiagDeviceProductShuffleRows(DiagDeviceProduct prod, int *R);
/* C in blocks of 128 rows by windows of its sums within 128 consecutive offsets, chunks of A's and
   B's entry diagonals staged in shared memory for each (any schemes).  Its schedule comes from
   the plan: DiagDeviceProductCreate makes it where DiagDeviceProductNumeric takes this kernel
   (banded operands the staged kernel does not take), DiagDeviceProductBlocksCreate otherwise
   (nothing for a CDM C that is not square: DiagDeviceProductNumericBlocks then fails). */
PETSC_EXTERN PetscErrorCode DiagDeviceProductBlocksCreate(DiagDeviceProduct prod, const DiagProductPlan *plan, const DiagFormat *C);
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericBlocks(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The paper's Algorithm 2 (A, B, C all HM), the reference: one thread per stored entry of A,
   looping over B's diagonals, atomic updates of C (set to 0 first). */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericAtomic(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The paper's Algorithm 1 as we read it (CDM only, PETSC_ERR_SUP for HM), the reference for
   CDM: 16 x 16 thread blocks, A's diagonals staged 16 at a time in shared memory, B read from
   global memory; the same sums in the same order as DiagDeviceProductNumeric. */
PETSC_EXTERN PetscErrorCode DiagDeviceProductNumericTiled(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);

#if defined(__cplusplus)
}
#endif
