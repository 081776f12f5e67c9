/* MATSEQDIAG: a type of its own.  The DiagFormat on the host is the master once the
   matrix has been assembled; before that, MatSetValues collects entries in a staging
   MATSEQAIJ whose pattern decides the diagonals at the first MatAssemblyEnd.  The
   device copy holds the same diagonals; the values may be newer on either side
   (products leave them on the device until the host asks). */
#pragma once
#include "common/gpumats_impl.h"
#include <petscdm.h> /* MatGetDM: DMCreateMatrix's matrices */
#include "diag/diag_format.h"
#include "diag/diag_stage.h"
#if GPUMATS_HAVE_CUDA
  #include "cuda/diag/diag_cuda.h"
#endif

/* The GPU kernel of C = A B for two diag matrices: the public MatDiagProductKernel */
#define DIAG_PRODUCT_PAPER MAT_DIAG_PRODUCT_PAPER

typedef enum {
  DIAG_PLAN_AUTO,  /* the device where the pairs are many and their search not too wide */
  DIAG_PLAN_HOST,
  DIAG_PLAN_DEVICE
} DiagProductPlanWhere;

typedef struct {
  MatDiagScheme        scheme;   /* asked for: AUTO, HM or CDM */
  PetscReal            max_fill; /* largest stored values / nonzeros accepted; 0: any */
  MatDiagProductKernel product;
  MatDiagSOR           sor; /* where MatSOR sweeps */
  DiagProductPlanWhere plan; /* where the symbolic phase of a device product runs (-mat_diag_product_plan) */
} DiagSettings;

typedef enum {
  DIAG_VALUES_HOST,   /* the device copy, if any, is stale */
  DIAG_VALUES_DEVICE, /* the host values are stale */
  DIAG_VALUES_BOTH
} DiagValuesAt;

#if GPUMATS_HAVE_CUDA
/* MatSOR on the device (diag_sor_device.c) */
typedef struct {
  DiagDeviceSOR    dev;                 /* the levels and work vectors; NULL until a device sweep needs them */
  PetscObjectState nonzerostate, state; /* the pattern the levels were made for, the values they were checked against */
  PetscInt         nlevels;
  PetscBool        diag_valid;          /* idiag holds what these values, omega and fshift give */
  PetscObjectState diag_state;
  PetscReal        omega, fshift;
  PetscInt         zero_row;            /* the first zero a(i,i) (omega 1, fshift <= 0), or -1 */
  PetscBool        told_host;           /* -info said once why auto sweeps on the host */
} DiagSORDevice;
#endif

typedef struct {
  GpuMatsFormat base; /* first: the common multiplies read it (GpuMatsFormatOf) */
  DiagSettings  settings;
  DiagStage    *stage;      /* entries set until the first assembly (diag_assembly.c), else NULL */
  PetscInt     *where;      /* the stored diagonal of each offset (HM d + m - 1, CDM k), -1 if none: MatSetValues in O(1) */
  const PetscInt *where_for; /* the fmt.offset array 'where' was built for */
  PetscBool     ignore_new_nonzeros; /* MAT_NEW_NONZERO_LOCATIONS false: entries off the diagonals are dropped */
  unsigned char *structure; /* a bit per stored value: an entry set before the first assembly (the DMDA's stencil, an
                               AIJ's pattern), or NULL (every slot); what a colouring is valid for, see diag_fdcoloring.c */
  const PetscInt *structure_for; /* the fmt.offset array 'structure' was built for */
  PetscBool     column_oriented; /* MAT_ROW_ORIENTED false: MatSetValues' v is column by column */
  PetscBool     has_format; /* assembled at least once: fmt holds the diagonals */
  PetscInt      layout;     /* counts the formats fmt has held (MatDiagSetFormat_SeqDiag): what was found in one is valid while it stays */
  DiagFormat    fmt;
  DiagValuesAt  values_at;
  PetscInt     *row_cols; /* MatGetRow's scratch: ndiag columns and values */
  PetscScalar  *row_vals;
  Mat           ordering_aij;   /* the AIJ copy that orderings and factorizations read (diag_factor.c), or NULL */
  PetscObjectState ordering_for; /* the nonzero state it was made for */
  PetscObjectState ordering_values; /* and the state of the values it holds */
#if GPUMATS_HAVE_CUDA
  DiagDevice    dev;
  DiagSORDevice sor;
#endif
} Mat_SeqDiag;

PETSC_INTERN const char *const MatDiagSchemes[];
PETSC_INTERN const char *const MatDiagProductKernels[];
PETSC_INTERN const char *const MatDiagSORs[];
PETSC_INTERN const GpuMatsFormatOps DiagOps;

/* values_at bookkeeping: the host values current (before a host read), the device copy
   current (before a device read), and what was just written where */
PETSC_INTERN PetscErrorCode MatDiagSyncHost_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncDevice_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatDiagHostChanged_SeqDiag(Mat);
/* Are the values current on the device, where the products run?  (Then an operation on the
   values alone runs there, and the host copy goes stale: MatDiagDeviceChanged_SeqDiag.) */
PETSC_INTERN PetscErrorCode MatDiagValuesOnDevice_SeqDiag(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagDeviceChanged_SeqDiag(Mat);
#if GPUMATS_HAVE_CUDA
PETSC_INTERN PetscErrorCode DiagSORDeviceReset(DiagSORDevice *); /* frees what MatSOR made on the device */
#endif
/* Replace the diagonals of A by fmt (taken over; A's old format freed, device copy dropped). */
PETSC_INTERN PetscErrorCode MatDiagSetFormat_SeqDiag(Mat, DiagFormat *);
/* The diagonals of the assembled SeqAIJ (or a seqaij subtype) M, with A's settings, into A. */
PETSC_INTERN PetscErrorCode MatDiagBuildFromAIJ_SeqDiag(Mat A, Mat M);
/* A new sequential AIJ (any of PETSc's seqaij types, 'type') with A's entries. */
PETSC_INTERN PetscErrorCode MatDiagToAIJ_SeqDiag(Mat A, MatType type, Mat *M);
/* a rectangular matrix with too spread entries becomes pcsr (diag_rectangular.c) */
PETSC_INTERN PetscErrorCode MatDiagStageBecomePCSR_SeqDiag(Mat, const DiagStage *, PetscInt ndiag);
PETSC_INTERN PetscErrorCode MatCreateGraph_SeqDiag(Mat, PetscBool, PetscBool, PetscReal GPUMATS_CREATEGRAPH_INDEX_ARGS, Mat *);
/* A DiagStatus from the builder as a PETSc error naming the operation */
PETSC_INTERN PetscErrorCode DiagCheckStatus(DiagStatus, Mat, const char *what);

/* building the diagonals: the scheme (settings, or 'automatic' for auto) and the refusal of a spread matrix */
PETSC_INTERN DiagScheme     DiagSchemeOf(MatDiagScheme);
PETSC_INTERN PetscErrorCode MatDiagPickScheme_SeqDiag(Mat, DiagScheme automatic, PetscInt64 hm, PetscInt64 cdm, DiagScheme *);
PETSC_INTERN PetscErrorCode MatDiagCheckBuilt_SeqDiag(Mat, DiagStatus, const DiagFormat *, DiagScheme, PetscInt64 stored);

/* diag_assembly.c: MatSetUp, MatSetValues (staged, then in place), assembly, preallocation, options */
PETSC_INTERN PetscErrorCode MatDiagSetUpLayout_SeqDiag(Mat); /* sizes checked, no staging: the caller sets the format */
PETSC_INTERN PetscErrorCode MatSetUp_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatAssemblyBegin_SeqDiag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatAssemblyEnd_SeqDiag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatSetOption_SeqDiag(Mat, MatOption, PetscBool);
PETSC_INTERN PetscErrorCode MatDiagComposeAssembly_SeqDiag(Mat, PetscBool set);
/* diag_dmda.c: the diagonals of the stencil of the DMDA dm, assembled with zeros (*built false
   when dm is not a one-process DMDA whose operator A is) */
PETSC_INTERN PetscErrorCode MatDiagFromDMDA_SeqDiag(Mat A, DM dm, PetscBool *built);
/* diag_fdcoloring.c: MatFDColoringCreate/SetUp/Apply on the diagonals (seqdiag and mpidiag) */
PETSC_INTERN PetscErrorCode MatFDColoringCreate_Diag(Mat, ISColoring, MatFDColoring);
PETSC_INTERN PetscErrorCode MatFDColoringSetUp_Diag(Mat, ISColoring, MatFDColoring);
PETSC_INTERN PetscErrorCode MatFDColoringApply_Diag(Mat, MatFDColoring, Vec, void *);

/* The structure bits: set, read, and (re)built for the current format from CSR rows */
static inline void DiagStructureSet(unsigned char *bits, PetscInt64 p)
{
  bits[p >> 3] |= (unsigned char)(1u << (p & 7));
}
static inline int DiagStructureHas(const unsigned char *bits, PetscInt64 p)
{
  return !bits || (bits[p >> 3] >> (p & 7)) & 1;
}
PETSC_INTERN PetscErrorCode MatDiagStructureFromCSR_SeqDiag(Mat, const PetscInt ai[], const PetscInt aj[]);
PETSC_INTERN PetscScalar   *MatDiagSlot_SeqDiag(Mat, PetscInt i, PetscInt j); /* the value of (i, j), NULL when not stored */

/* mpidiag.c: an assembled mpidiag's diagonal block (seqdiag), off-process block (seqaij type, ghost
   columns), the scatter of x's ghost values and the vector it fills */
PETSC_INTERN PetscErrorCode MatMPIDiagGetLocalBlocks(Mat, Mat *A, Mat *B, VecScatter *, Vec *lvec);

PETSC_INTERN PetscErrorCode MatSetValues_SeqDiag(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqDiag(Mat, MatType, MatReuse, Mat *);
/* diag_algebra.c: the algebra on the diagonals (installed by MatCreate_SeqDiag) */
PETSC_INTERN PetscErrorCode MatGetDiagonal_SeqDiag(Mat, Vec);
PETSC_INTERN PetscErrorCode MatScale_SeqDiag(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatShift_SeqDiag(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatZeroEntries_SeqDiag(Mat);
PETSC_INTERN PetscErrorCode MatNorm_SeqDiag(Mat, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode MatGetInfo_SeqDiag(Mat, MatInfoType, MatInfo *);
PETSC_INTERN PetscErrorCode MatCopy_SeqDiag(Mat, Mat, MatStructure);
PETSC_INTERN PetscErrorCode MatTranspose_SeqDiag(Mat, MatReuse, Mat *);
#if defined(PETSC_HAVE_DEVICE)
PETSC_INTERN PetscErrorCode MatBindToCPU_SeqDiag(Mat, PetscBool);
#endif
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_SeqDiag(Mat); /* diag_product.c */
PETSC_INTERN PetscErrorCode MatProductDataDestroy_SeqDiag(void *);
/* diag_product_aij.c: products with AIJ operands, PtAP/RARt, and those of mpidiag, through AIJ */
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_Diag_ThroughAIJ(Mat);
PETSC_INTERN PetscErrorCode MatDiagComposeAIJProducts(Mat, PetscBool set);
/* diag_factor.c: the graph the orderings of a factorization read (getrowij, inode adjustment) */
PETSC_INTERN PetscErrorCode MatDiagComposeOrderings_SeqDiag(Mat, PetscBool set);
/* diag_options.c: settings, options, statistics, MatView */
PETSC_INTERN PetscErrorCode DiagSetFromOptions(Mat, const DiagSettings *current, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatSetFromOptions_SeqDiag(Mat, GPUMATS_OPTIONS_ARG);
PETSC_INTERN PetscErrorCode MatView_SeqDiag(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatDiagComposeSettings(Mat, PetscBool set);
PETSC_INTERN PetscErrorCode MatDiagGetInfo_SeqDiag(Mat, MatDiagInfo *);
