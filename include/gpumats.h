/* gpumats: GPU sparse-matrix formats for PETSc.

   Load into any PETSc program with  -dll_append /path/libgpumats.so  or link
   the library and call GpuMatsInitializePackage() after PetscInitialize(). */
#pragma once
#include <petscmat.h>

/* ELLPACK+CSR hybrid for Configuration-Interaction Hamiltonians */
#define MATCIHYBRID       "cihybrid"
#define MATSEQAIJCIHYBRID "seqaijcihybrid"
#define MATMPIAIJCIHYBRID "mpiaijcihybrid"
/* The same type by a name in PETSc's aij<variant> convention (as aijcusparse): a DMDA keeps a
   matrix type whose name begins with "aij" for its grid transfers (DMCreateInterpolation), so
   -dm_mat_type aijcihybrid makes multigrid's interpolation and restriction cihybrid too, where
   -dm_mat_type cihybrid gets them as host MATAIJ */
#define MATAIJCIHYBRID "aijcihybrid"

/* How a row is split between the ELLPACK and the CSR region */
typedef enum {
  MAT_CIHYBRID_SPLIT_ENTRIES = 0, /* first BOUNDARY nonzeros of each row go to ELLPACK */
  MAT_CIHYBRID_SPLIT_COLUMNS = 1  /* nonzeros in columns < BOUNDARY go to ELLPACK */
} MatCIHybridSplit;

/* The CUDA SpMV kernel of a cihybrid matrix */
typedef enum {
  MAT_CIHYBRID_KERNEL_TUNED = 0, /* one warp per row, tuned loads (the default) */
  MAT_CIHYBRID_KERNEL_PAPER = 1  /* the paper's kernel, for comparison */
} MatCIHybridKernel;

/* How a cihybrid matrix stores its entries (issue 49): compression is exact, products give the
   plain format's results */
typedef enum {
  MAT_CIHYBRID_COMPRESS_NONE = 0, /* a double and a 32-bit column an entry (the default) */
  MAT_CIHYBRID_COMPRESS_FULL = 1  /* a 16-bit code into a dictionary of the most frequent values
                                     and a 16-bit column gap an entry, escapes for the rest */
} MatCIHybridCompress;

/* CSR kept intact, SpMV by two coalesced kernels (He, Gao 2016) */
#define MATPCSR       "pcsr"
#define MATSEQAIJPCSR "seqaijpcsr"
#define MATMPIAIJPCSR "mpiaijpcsr"
#define MATAIJPCSR    "aijpcsr" /* as MATAIJCIHYBRID: -dm_mat_type aijpcsr, transfers in pcsr too */

/* The CUDA SpMV kernel of a pcsr matrix */
typedef enum {
  MAT_PCSR_KERNEL_AUTO     = 0, /* chosen per matrix from its row lengths (-info says which and why) */
  MAT_PCSR_KERNEL_PAPER    = 1, /* the paper's two kernels: products into a middle array, then the block-staged sums */
  MAT_PCSR_KERNEL_FUSED    = 2, /* the paper's second kernel computing the products itself: no middle array */
  MAT_PCSR_KERNEL_VECTOR   = 3, /* a group of lanes per row */
  MAT_PCSR_KERNEL_ADAPTIVE = 4  /* row blocks of bounded nonzeros, long rows by a whole thread block */
} MatPCSRKernel;

/* MatMultTranspose on the GPU */
typedef enum {
  MAT_PCSR_TRANSPOSE_ATOMIC = 0, /* atomic updates of y: no extra memory */
  MAT_PCSR_TRANSPOSE_COPY   = 1  /* a transposed CSR copy built on first use: twice the memory, no atomics */
} MatPCSRTranspose;

/* Diagonal storage, HM and CDM schemes (Haque, Parvez, Hossain 2024): a type of its own,
   not an AIJ subclass (PETSc's MATDIAGONAL, "diagonal", is another thing) */
#define MATDIAG    "diag"
#define MATSEQDIAG "seqdiag"
#define MATMPIDIAG "mpidiag"
/* -dm_mat_type aijdiag: diag for the square operators, and a grid transfer a DMDA makes of the
   DM's type (it keeps a type whose name begins with "aij") pcsr, on the GPU too; never a matrix's
   own type name, which is that of the type chosen */
#define MATAIJDIAG    "aijdiag"
#define MATSEQAIJDIAG "seqaijdiag"
#define MATMPIAIJDIAG "mpiaijdiag"

/* How the diagonals are stored */
typedef enum {
  MAT_DIAG_SCHEME_AUTO = 0, /* CDM when square and its padding is small (at most 20% more values than HM), else HM */
  MAT_DIAG_SCHEME_HM   = 1, /* only the nonzero diagonals, each of its own length: any shape, any offsets */
  MAT_DIAG_SCHEME_CDM  = 2  /* compact diagonals a(i, (i+k) mod n), each of length n: square, banded */
} MatDiagScheme;

/* The GPU kernel of C = A B for two diag matrices (MatProduct AB, AtB, ABt); the host
   product does not depend on it */
typedef enum {
  MAT_DIAG_PRODUCT_OURS  = 0, /* banded CDM: rows of A and B staged in shared memory; otherwise the pairs of
                                 diagonals meeting on each diagonal of C, listed once (the default) */
  MAT_DIAG_PRODUCT_PAPER = 1  /* the paper's: Algorithm 1 (tiles, CDM) or Algorithm 2 (a thread per entry of A,
                                 atomics, HM), for comparison */
} MatDiagProductKernel;

/* Where MatSOR() of a diag matrix sweeps (PCSOR, the default smoother of PCMG's levels) */
typedef enum {
  MAT_DIAG_SOR_AUTO   = 0, /* the device when the vectors are there and the matrix is large and parallel enough
                              (at least 32768 rows, at least 256 rows a level of its schedule), else the host */
  MAT_DIAG_SOR_HOST   = 1,
  MAT_DIAG_SOR_DEVICE = 2  /* the device whenever the matrix multiplies there (host vectors are copied) */
} MatDiagSOR;

/* Where the multiplies run */
typedef enum {
  GPUMATS_BACKEND_AUTO = 0, /* CUDA when built with it and a device is present, else host */
  GPUMATS_BACKEND_HOST = 1,
  GPUMATS_BACKEND_CUDA = 2  /* an error if no device can be used */
} GpuMatsBackend;

/* How the rows of an MPI matrix are distributed where gpumats chooses (MatGpuMatsCreateRedistributed(),
   and MatLoad() of an MPI pcsr matrix): the paper's PCSR-I and PCSR-II */
typedef enum {
  GPUMATS_PARTITION_ROWS = 0, /* equal rows: PETSc's default layout */
  GPUMATS_PARTITION_NNZ  = 1  /* equal nonzeros */
} GpuMatsPartition;

#define MAT_CIHYBRID_BOUNDARY_AUTO PETSC_DECIDE

/*@C
   GpuMatsInitializePackage - registers the matrix types of gpumats (cihybrid, pcsr, diag: their
   sequential, MPI and root names) and cihybrid's factorizations, after checking that the running
   PETSc is the version the library was compiled against

   Not Collective

   Level: beginner

   Notes:
   Called by PETSc itself when the library is loaded with -dll_append /path/libgpumats.so (through
   PetscDLLibraryRegister_gpumats()); a program linked with the library calls it once after
   PetscInitialize().  Calling it again does nothing.  A PETSc of another version is refused with
   an error that names both versions: a plugin is compiled against one petscconf.h.

.seealso: GpuMatsFinalizePackage()
@*/
PETSC_EXTERN PetscErrorCode GpuMatsInitializePackage(void);
/*@C
   GpuMatsFinalizePackage - forgets that the package was initialized, so that a later
   PetscInitialize() and GpuMatsInitializePackage() register the types again

   Not Collective

   Level: developer

.seealso: GpuMatsInitializePackage()
@*/
PETSC_EXTERN PetscErrorCode GpuMatsFinalizePackage(void);

/*@C
   MatCreateSeqAIJCIHybrid - a sequential cihybrid matrix, preallocated as MatCreateSeqAIJ() does

   Collective

   Input Parameters:
+  comm - a communicator of one process
.  m    - rows
.  n    - columns
.  nz   - nonzeros per row when nnz is NULL
-  nnz  - nonzeros of each row, or NULL

   Output Parameter:
.  A - the matrix: MATSEQAIJCIHYBRID, whose host AIJ copy is the master and whose ELLPACK+CSR
       format is built (on the device with CUDA) at its first product after each change

   Level: beginner

   Note:
   Most programs need not call it: MatSetType(A, MATCIHYBRID) or -mat_type cihybrid gives the
   sequential or MPI type from the communicator's size.

.seealso: MatCIHybridSetBoundary(), MatCIHybridGetInfo(), MatCreateSeqAIJ()
@*/
PETSC_EXTERN PetscErrorCode MatCreateSeqAIJCIHybrid(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
/*@C
   MatCIHybridSetBoundary - the BOUNDARY of a cihybrid matrix: with the entries split, the
   number of nonzeros of each row kept in ELLPACK; with the columns split, the first column
   kept in CSR

   Logically Collective

   Input Parameters:
+  A        - a cihybrid matrix (sequential or MPI; other types ignore the call)
-  boundary - a nonnegative number, or MAT_CIHYBRID_BOUNDARY_AUTO (the default: the fewest
              bytes moved per product for the entries split, a tenth of the columns for the
              columns split)

   Options Database Key:
.  -mat_cihybrid_boundary <n|auto> - the same

   Level: intermediate

.seealso: MatCIHybridGetBoundary(), MatCIHybridSetSplit()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridSetBoundary(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatCIHybridGetBoundary(Mat, PetscInt *);
/*@C
   MatCIHybridSetSplit - how the rows of a cihybrid matrix are split between ELLPACK and CSR

   Logically Collective

   Input Parameters:
+  A     - a cihybrid matrix (sequential or MPI; other types ignore the call)
-  split - MAT_CIHYBRID_SPLIT_ENTRIES (default) or MAT_CIHYBRID_SPLIT_COLUMNS

   Options Database Key:
.  -mat_cihybrid_split <entries|columns> - the same

   Level: intermediate

.seealso: MatCIHybridGetSplit(), MatCIHybridSetBoundary()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridSetSplit(Mat, MatCIHybridSplit);
PETSC_EXTERN PetscErrorCode MatCIHybridGetSplit(Mat, MatCIHybridSplit *);
/*@C
   MatCIHybridSetKernel - the CUDA SpMV kernel of a cihybrid matrix (the host products do
   not depend on it)

   Logically Collective

   Input Parameters:
+  A      - a cihybrid matrix (sequential or MPI; other types ignore the call)
-  kernel - MAT_CIHYBRID_KERNEL_TUNED (default) or MAT_CIHYBRID_KERNEL_PAPER

   Options Database Key:
.  -mat_cihybrid_kernel <tuned|paper> - the same

   Level: advanced

.seealso: MatCIHybridGetKernel()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridSetKernel(Mat, MatCIHybridKernel);
PETSC_EXTERN PetscErrorCode MatCIHybridGetKernel(Mat, MatCIHybridKernel *);
/*@C
   MatCIHybridSetCompress - whether a cihybrid matrix keeps its entries compressed: each value a
   16-bit code into a dictionary of the most frequent magnitudes (a sign bit beside it), or an
   explicit double where the dictionary has no room; each column a 16-bit gap from the previous
   one of its row, or an escaped 32-bit column for larger gaps

   Logically Collective

   Input Parameters:
+  A        - a cihybrid matrix (sequential or MPI; other types ignore the call)
-  compress - MAT_CIHYBRID_COMPRESS_NONE (default) or MAT_CIHYBRID_COMPRESS_FULL

   Options Database Key:
.  -mat_cihybrid_compress <none|full> - the same

   Level: intermediate

   Notes:
   Nothing is rounded: the host products give the plain format's results bit for bit, the
   device product the same sums in its own order.  A Configuration-Interaction Hamiltonian,
   whose few distinct values repeat, then takes about 4 bytes a nonzero instead of 12; a matrix
   of many distinct values gains little (MatView with ::ascii_info tells the bytes a nonzero).

   The compressed form is made on the host from the AIJ arrays, on every change of the values
   (MatScale, MatShift, MatAXPY ... included): on the device the products read it, but the
   algebra runs on the host.  A matrix assembled on the device (MatCIHybridAssembleOnDevice)
   is not compressed yet (-info says so).

.seealso: MatCIHybridGetCompress(), MatCIHybridGetInfo()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridSetCompress(Mat, MatCIHybridCompress);
PETSC_EXTERN PetscErrorCode MatCIHybridGetCompress(Mat, MatCIHybridCompress *);

/* Statistics of the format as last built (sequential matrix or the local diagonal block). */
typedef struct {
  PetscInt   boundary, width, pitch; /* BOUNDARY in use (auto resolved), ELLPACK width, row pitch */
  PetscInt64 nnz, nnz_ell, nnz_csr, padding;
  PetscInt64 bytes_host, bytes_device;
  PetscBool  on_device;
  /* the compressed form (MatCIHybridSetCompress); zeros when not compressed */
  PetscBool  compressed;
  PetscInt   dict_count;        /* magnitudes in the dictionary */
  PetscInt64 nnz_explicit;      /* nonzeros whose value is not in the dictionary */
  PetscInt64 escapes;           /* nonzeros whose column gap does not fit 16 bits */
  double     bytes_per_nonzero; /* matrix bytes one product reads, per nonzero */
} MatCIHybridInfo;
/*@C
   MatCIHybridGetInfo - the statistics of a cihybrid matrix's format as last built: BOUNDARY
   (with auto resolved), ELLPACK width and pitch, nonzeros in each region, padding, bytes on host
   and device, and whether a device copy exists

   Not Collective

   Input Parameter:
.  A - an assembled cihybrid matrix (for an MPI matrix: its local diagonal block)

   Output Parameter:
.  info - the statistics

   Level: intermediate

   Note:
   -mat_view ::ascii_info prints the same, for each process's blocks.

.seealso: MatCIHybridSetBoundary(), MatCIHybridSetSplit()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridGetInfo(Mat, MatCIHybridInfo *);

/* Assembly on the device (CUDA builds): a generator writes the rows straight into the device
   arrays of a cihybrid matrix, with no host AIJ copy and no upload.  On several processes each
   writes its own rows (nrows of them, local row 0 being the first it owns) with global columns
   (ncols is the global number), on its own device; the library splits them into its diagonal
   and off-process blocks there.  Two calls, each launching its kernels on 'stream' (a cudaStream_t):
     count: the length of every row (entries to be stored, diagonal included) into
            len[0..nrows-1], int device memory;
     fill:  the rows into 'arrays', columns ascending within each row: the p-th entry of row
            r goes to the ELLPACK slot r*pitch + p when p < ell_len[r], else to remainder
            slot csr_start[r] + p - ell_len[r] (MatCIHybridDeviceSetEntry in
            gpumats_cihybrid_device.h does this); the padding slots are preset and must not
            be written.  The row lengths must be those 'count' gave.
   Every row is checked on the device after 'fill' (columns in range and ascending, padding
   untouched): a bad row is an error naming it. */
typedef struct {
  PetscInt     nrows, ncols, pitch;
  const int   *ell_len;   /* nrows, or NULL when no row has ELLPACK entries */
  const int   *csr_start; /* nrows + 1 */
  int         *ell_col;   /* nrows x pitch, row-major */
  PetscScalar *ell_val;
  int         *csr_col;
  PetscScalar *csr_val;
} MatCIHybridDeviceArrays;

typedef struct {
  PetscErrorCode (*count)(void *ctx, void *stream, int *len);
  PetscErrorCode (*fill)(void *ctx, void *stream, const MatCIHybridDeviceArrays *arrays);
  void *ctx;
} MatCIHybridDeviceRows;

/*@C
   MatCIHybridAssembleOnDevice - fills a cihybrid matrix on the device from a generator of its
   rows (struct MatCIHybridDeviceRows above): no host AIJ copy, no upload

   Collective

   Input Parameters:
+  A    - MatCreate() + MatSetSizes() + MatSetType(cihybrid), on one process or several
-  rows - the generator: count gives every row's length, fill writes the rows

   Level: advanced

   Notes:
   A comes back assembled, its products on the device.  Called again, the generator's new values replace the
   old (the nonzero state stays when the pattern is the same).  The host AIJ copy is made only
   when a host operation needs it (MatGetRow, MatView other than the info formats, MatConvert,
   factorizations, new nonzeros, host products...): MatCIHybridMakeHostCopy() makes it at once;
   it leaves the object and nonzero states as they were.  None is needed by MatMult and its
   variants, MatProduct with a dense B, MatGetDiagonal, MatGetInfo, MatView info, MatDuplicate,
   MatCopy, MatShift, MatScale, MatDiagonalSet, MatZeroEntries, MatNorm, MatAXPY of one pattern
   and MatSetValues into stored entries, which run on the device copy.  An error, with a way
   forward, when the products of A do not run on a device (no GPU, -mat_gpumats_backend host,
   or gpumats without CUDA).

   On several processes the MPI matrix keeps on the device: the products, MatGetDiagonal,
   MatScale, MatShift, MatZeroEntries, MatNorm (Frobenius), MatGetInfo, MatView info,
   MatDuplicate, and MatCopy and MatAXPY with SAME_NONZERO_PATTERN between two such matrices of
   the same pattern; any other operation makes the host copies of both blocks first (-info says
   which).  Each process makes its rows once with global columns, in a temporary CSR of 12
   bytes an entry on its device, beside the blocks.

.seealso: MatCIHybridMakeHostCopy(), MatCIHybridIsDeviceOnly(), gpumats_cihybrid_device.h
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridAssembleOnDevice(Mat, const MatCIHybridDeviceRows *);
/*@C
   MatCIHybridMakeHostCopy - makes the host AIJ copy of a cihybrid matrix filled on the device
   (MatCIHybridAssembleOnDevice()), which is otherwise made only when a host operation needs it

   Collective

   Input Parameter:
.  A - a cihybrid matrix; nothing is done when it already has its host copy

   Level: advanced

   Note:
   The object and nonzero states stay as they were: the format is not rebuilt.

.seealso: MatCIHybridAssembleOnDevice(), MatCIHybridIsDeviceOnly()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridMakeHostCopy(Mat);
/*@C
   MatCIHybridIsDeviceOnly - does a cihybrid matrix hold its entries on the device only
   (filled by MatCIHybridAssembleOnDevice(), no host copy made yet)?

   Not Collective

   Input Parameter:
.  A - a cihybrid matrix

   Output Parameter:
.  flg - PETSC_TRUE when the entries are on the device only

   Level: advanced

.seealso: MatCIHybridAssembleOnDevice(), MatCIHybridMakeHostCopy()
@*/
PETSC_EXTERN PetscErrorCode MatCIHybridIsDeviceOnly(Mat, PetscBool *);

/*@C
   MatCreateSeqAIJPCSR - a sequential pcsr matrix, preallocated as MatCreateSeqAIJ() does

   Collective

   Input Parameters:
+  comm - a communicator of one process
.  m    - rows
.  n    - columns
.  nz   - nonzeros per row when nnz is NULL
-  nnz  - nonzeros of each row, or NULL

   Output Parameter:
.  A - the matrix: MATSEQAIJPCSR, whose host AIJ arrays are copied to the device at its first
       product after each change

   Level: beginner

   Note:
   MatSetType(A, MATPCSR) or -mat_type pcsr gives the sequential or MPI type from the
   communicator's size.

.seealso: MatPCSRSetKernel(), MatPCSRGetInfo(), MatCreateSeqAIJ()
@*/
PETSC_EXTERN PetscErrorCode MatCreateSeqAIJPCSR(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
/*@C
   MatPCSRSetKernel - the CUDA SpMV kernel of a pcsr matrix (the host products do not depend
   on it); no rebuild: the kernel is chosen at each product

   Logically Collective

   Input Parameters:
+  A      - a pcsr matrix (sequential or MPI, where it applies to both blocks; other types ignore the call)
-  kernel - MAT_PCSR_KERNEL_AUTO (default: from the row lengths, -info says which and why),
            MAT_PCSR_KERNEL_PAPER, MAT_PCSR_KERNEL_FUSED, MAT_PCSR_KERNEL_VECTOR or MAT_PCSR_KERNEL_ADAPTIVE

   Options Database Key:
.  -mat_pcsr_kernel <auto|paper|fused|vector|adaptive> - the same

   Level: advanced

   Note:
   MatPCSRGetInfo() gives the kernel the device runs, with auto resolved.

.seealso: MatPCSRGetKernel(), MatPCSRGetInfo(), MatPCSRSetTranspose()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRSetKernel(Mat, MatPCSRKernel);
/*@C
   MatPCSRGetKernel - the CUDA SpMV kernel set on a pcsr matrix

   Not Collective

   Input Parameter:
.  A - a pcsr matrix (sequential or MPI; an error for other types)

   Output Parameter:
.  kernel - as set: MAT_PCSR_KERNEL_AUTO stays AUTO (MatPCSRGetInfo() gives its choice)

   Level: advanced

.seealso: MatPCSRSetKernel(), MatPCSRGetInfo()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRGetKernel(Mat, MatPCSRKernel *);
/*@C
   MatPCSRSetTranspose - how MatMultTranspose() and MatMultTransposeAdd() of a pcsr matrix run
   on the GPU (the host products do not depend on it)

   Logically Collective

   Input Parameters:
+  A    - a pcsr matrix (sequential or MPI, where it applies to both blocks; other types ignore the call)
-  mode - MAT_PCSR_TRANSPOSE_ATOMIC (default: atomic updates of y, no extra memory) or
          MAT_PCSR_TRANSPOSE_COPY (a transposed CSR copy built on first use: twice the memory, no atomics)

   Options Database Key:
.  -mat_pcsr_transpose <atomic|copy> - the same

   Level: advanced

.seealso: MatPCSRGetTranspose(), MatPCSRSetKernel()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRSetTranspose(Mat, MatPCSRTranspose);
/*@C
   MatPCSRGetTranspose - how the transposed products of a pcsr matrix run on the GPU

   Not Collective

   Input Parameter:
.  A - a pcsr matrix (sequential or MPI; an error for other types)

   Output Parameter:
.  mode - MAT_PCSR_TRANSPOSE_ATOMIC or MAT_PCSR_TRANSPOSE_COPY

   Level: advanced

.seealso: MatPCSRSetTranspose()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRGetTranspose(Mat, MatPCSRTranspose *);
/*@C
   MatPCSRSetPartition - the row distribution an MPI pcsr matrix is given where gpumats chooses
   it: MatLoad() into a matrix whose local sizes were left to PETSc; a matrix assembled with
   the caller's sizes keeps them (MatGpuMatsCreateRedistributed() makes a copy with another)

   Logically Collective

   Input Parameters:
+  A         - an MPI pcsr matrix (other types, the sequential pcsr included, ignore the call)
-  partition - GPUMATS_PARTITION_ROWS (default: equal rows, the paper's PCSR-I) or
               GPUMATS_PARTITION_NNZ (equal nonzeros, PCSR-II)

   Options Database Key:
.  -mat_pcsr_partition <rows|nnz> - the same

   Level: intermediate

.seealso: MatPCSRGetPartition(), MatGpuMatsCreateRedistributed()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRSetPartition(Mat, GpuMatsPartition);
/*@C
   MatPCSRGetPartition - the row distribution set on an MPI pcsr matrix

   Not Collective

   Input Parameter:
.  A - an MPI pcsr matrix (an error for other types, the sequential pcsr included)

   Output Parameter:
.  partition - GPUMATS_PARTITION_ROWS or GPUMATS_PARTITION_NNZ

   Level: intermediate

.seealso: MatPCSRSetPartition()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRGetPartition(Mat, GpuMatsPartition *);

/* Statistics of a pcsr matrix (sequential, or the local diagonal block) as last built */
typedef struct {
  PetscInt64    nnz, max_row_len, empty_rows;
  double        mean_row_len, stddev_row_len;
  MatPCSRKernel kernel; /* what the GPU runs: never AUTO once built */
  PetscInt64    bytes_device;
  PetscBool     on_device;
} MatPCSRInfo;
/*@C
   MatPCSRGetInfo - the statistics of a pcsr matrix as last built: nonzeros, row lengths (mean,
   standard deviation, longest, empty rows), the kernel the device runs (never AUTO once built),
   bytes on the device and whether the products run there (the device copy is brought up to
   date first when they do)

   Not Collective

   Input Parameter:
.  A - an assembled pcsr matrix (for an MPI matrix: its local diagonal block)

   Output Parameter:
.  info - the statistics

   Level: intermediate

.seealso: MatPCSRSetKernel(), MatPCSRGetKernel()
@*/
PETSC_EXTERN PetscErrorCode MatPCSRGetInfo(Mat, MatPCSRInfo *);

/*@C
   MatDiagSetScheme - how the diagonals of a diag matrix are stored, used when they are found:
   at the first assembly, a conversion or a load.  Setting another scheme on an assembled
   matrix converts it.

   Logically Collective

   Input Parameters:
+  A      - a diag matrix (sequential or MPI: the diagonal block of each process; other types
            ignore the call)
-  scheme - MAT_DIAG_SCHEME_AUTO (the default), MAT_DIAG_SCHEME_HM or MAT_DIAG_SCHEME_CDM
            (square matrices only)

   Options Database Key:
.  -mat_diag_scheme <auto|hm|cdm> - the same

   Level: intermediate

   Note:
   MatDiagGetScheme() gives the scheme in use (HM or CDM) once the matrix is assembled,
   the one asked for before.

.seealso: MatDiagGetScheme(), MatDiagSetMaxFill(), MatDiagGetInfo()
@*/
PETSC_EXTERN PetscErrorCode MatDiagSetScheme(Mat, MatDiagScheme);
PETSC_EXTERN PetscErrorCode MatDiagGetScheme(Mat, MatDiagScheme *);
/*@C
   MatDiagSetMaxFill - the largest ratio of stored values to nonzeros a diag matrix accepts
   when its diagonals are found (first assembly, conversion, load, AXPY, submatrices): a matrix
   that would store more is refused with an error naming the option

   Logically Collective

   Input Parameters:
+  A        - a diag matrix (sequential or MPI; other types ignore the call)
-  max_fill - 0 (no limit) or positive; the default is 3

   Options Database Key:
.  -mat_diag_max_fill <3> - the same

   Level: intermediate

.seealso: MatDiagGetMaxFill(), MatDiagSetScheme()
@*/
PETSC_EXTERN PetscErrorCode MatDiagSetMaxFill(Mat, PetscReal);
PETSC_EXTERN PetscErrorCode MatDiagGetMaxFill(Mat, PetscReal *);
/*@C
   MatDiagSetProductKernel - the GPU kernel of the product C = A B (also A^T B, A B^T) of two
   diag matrices; the kernel of A is used (the host product does not depend on it)

   Logically Collective

   Input Parameters:
+  A      - a diag matrix (sequential or MPI; other types ignore the call)
-  kernel - MAT_DIAG_PRODUCT_OURS (default) or MAT_DIAG_PRODUCT_PAPER

   Options Database Key:
.  -mat_diag_product <ours|paper> - the same

   Level: advanced

.seealso: MatDiagGetProductKernel(), MatProductCreate()
@*/
PETSC_EXTERN PetscErrorCode MatDiagSetProductKernel(Mat, MatDiagProductKernel);
PETSC_EXTERN PetscErrorCode MatDiagGetProductKernel(Mat, MatDiagProductKernel *);
/*@C
   MatDiagSetSOR - where MatSOR() of a diag matrix sweeps: on the host, or on the device a level
   of rows at a time

   Logically Collective

   Input Parameters:
+  A   - a diag matrix (sequential or MPI, whose diagonal blocks sweep; other types ignore the call)
-  sor - MAT_DIAG_SOR_AUTO (default), MAT_DIAG_SOR_HOST or MAT_DIAG_SOR_DEVICE

   Options Database Key:
.  -mat_diag_sor <auto|host|device> - the same

   Notes:
   A Gauss-Seidel sweep is sequential row after row, but a row needs only the rows it is coupled
   with.  On the device the rows are grouped in levels (a row's level is one more than that of
   every earlier row it is coupled with, either way: the stencil's wavefronts, x + y + z for a
   7-point star), made on the host once per pattern, and one kernel sweeps a level.  Each row
   does the arithmetic of the host sweep in the same order, without fused multiply-adds, so
   the iterates are those of the host sweep (and of MATSEQAIJ's where the patterns agree) to
   the last bit.  Forward, backward and symmetric sweeps (local ones alike), a zero initial
   guess, omega, fshift, its and lits run there; SOR_EISENSTAT and SOR_APPLY_UPPER/LOWER run
   on the host.  -info says which side was chosen and why.

   Level: advanced

.seealso: MatDiagGetSOR(), MatSOR(), PCSOR
@*/
PETSC_EXTERN PetscErrorCode MatDiagSetSOR(Mat, MatDiagSOR);
PETSC_EXTERN PetscErrorCode MatDiagGetSOR(Mat, MatDiagSOR *);

/* Statistics of a diag matrix (sequential, or the local diagonal block) */
typedef struct {
  MatDiagScheme scheme; /* HM or CDM once assembled */
  PetscInt      ndiag, min_offset, max_offset; /* offsets j - i (HM); compact k (CDM) */
  PetscInt64    entries, stored, padding;      /* entries of the pattern, values stored, stored - entries */
  PetscInt64    bytes_device;
  PetscBool     on_device; /* the values are current on the device */
} MatDiagInfo;
/*@C
   MatDiagGetInfo - the statistics of a diag matrix: scheme in use, number and range of its
   diagonals, entries of the pattern, values stored and padding, bytes on the device and whether
   the values there are current

   Not Collective

   Input Parameter:
.  A - an assembled diag matrix (for an MPI matrix: its local diagonal block)

   Output Parameter:
.  info - the statistics

   Level: intermediate

   Note:
   -mat_view ::ascii_info prints the same.

.seealso: MatDiagSetScheme(), MatDiagSetMaxFill()
@*/
PETSC_EXTERN PetscErrorCode MatDiagGetInfo(Mat, MatDiagInfo *);

/*@C
   MatGpuMatsSetBackend - where the products of a gpumats matrix run

   Logically Collective

   Input Parameters:
+  A       - a cihybrid, pcsr or diag matrix (sequential or MPI, where it applies to both blocks;
             other types ignore the call)
-  backend - GPUMATS_BACKEND_AUTO (default: CUDA when gpumats was built with it, a device can be
             used and A is not bound to the CPU, else the host), GPUMATS_BACKEND_HOST, or
             GPUMATS_BACKEND_CUDA (an error at the first product if no device can be used)

   Options Database Key:
.  -mat_gpumats_backend <auto|host|cuda> - the same

   Level: intermediate

   Note:
   With a PETSc built with a device (PETSC_HAVE_DEVICE), MatBindToCPU() sends the products to
   the host whatever the backend.

.seealso: MatGpuMatsGetBackend(), MatGpuMatsUsesDevice(), MatBindToCPU()
@*/
PETSC_EXTERN PetscErrorCode MatGpuMatsSetBackend(Mat, GpuMatsBackend);
/*@C
   MatGpuMatsGetBackend - the backend set on a gpumats matrix

   Not Collective

   Input Parameter:
.  A - a cihybrid, pcsr or diag matrix (an error for other types)

   Output Parameter:
.  backend - as set: GPUMATS_BACKEND_AUTO stays AUTO (MatGpuMatsUsesDevice() says where it runs)

   Level: intermediate

.seealso: MatGpuMatsSetBackend(), MatGpuMatsUsesDevice()
@*/
PETSC_EXTERN PetscErrorCode MatGpuMatsGetBackend(Mat, GpuMatsBackend *);
/*@C
   MatGpuMatsUsesDevice - whether the next product of a matrix runs on the device

   Not Collective

   Input Parameter:
.  A - any matrix

   Output Parameter:
.  uses - PETSC_TRUE for a gpumats matrix whose products run on the device; PETSC_FALSE
          otherwise, other types included

   Level: intermediate

.seealso: MatGpuMatsSetBackend()
@*/
PETSC_EXTERN PetscErrorCode MatGpuMatsUsesDevice(Mat, PetscBool *);
/*@C
   MatGpuMatsCreateRedistributed - a copy of an assembled MPI matrix with its rows distributed
   over the processes by a partition gpumats computes

   Collective

   Input Parameters:
+  A         - an assembled MPIAIJ matrix or a type derived from it (cihybrid, pcsr, ...), or
               any sequential matrix (then *B is a duplicate)
-  partition - GPUMATS_PARTITION_ROWS (equal rows, PETSc's default layout) or
               GPUMATS_PARTITION_NNZ (about the same number of nonzeros on every process)

   Output Parameter:
.  B - the copy: the type, settings and backend of A, the same global numbering

   Level: intermediate

   Notes:
   A square matrix gets the same distribution for its columns, so MatCreateVecs() of B gives
   vectors that match it; a rectangular one keeps the column layout of A.
   GpuMatsVecRedistribute() moves a vector between the layouts of A and B.

   With GPUMATS_PARTITION_NNZ, the first row of process r is the first row with at least r/size
   of the nonzeros before it: no process holds more than its share plus the longest row.

   An MPI pcsr matrix loaded with MatLoad() into a matrix whose local sizes were left to
   PETSc is distributed this way by the partition MatPCSRSetPartition() set.

.seealso: GpuMatsVecRedistribute(), MatPCSRSetPartition(), MatCreateSubMatrix()
@*/
PETSC_EXTERN PetscErrorCode MatGpuMatsCreateRedistributed(Mat, GpuMatsPartition, Mat *);
/*@C
   GpuMatsVecRedistribute - copies the entries of a vector into a vector of the same global size
   and another layout

   Collective

   Input Parameter:
.  x - the vector to copy

   Output Parameter:
.  y - a vector of the global size of x, distributed in any way over the processes of x

   Level: intermediate

.seealso: MatGpuMatsCreateRedistributed()
@*/
PETSC_EXTERN PetscErrorCode GpuMatsVecRedistribute(Vec, Vec);
