/* Private machinery shared by the formats: the AIJ shadow, the MPI class mechanism
   (mpiclass.h), backend choice, vector access for the device.  Nothing here knows a
   format: the formats give common their ops tables and classes. */
#pragma once
#include <gpumats.h>
#include <petsc/private/matimpl.h>
#include <stddef.h> /* offsetof */
#include "common/gpumats_compat.h"
#include "gpumats_config.h"
#if GPUMATS_HAVE_CUDA
  #include "cuda/common/gpumats_cuda.h"
#endif

/* ---- AIJ shadow: the host AIJ is the master, a format is a lazily rebuilt copy ---- */
typedef enum {
  GPUMATS_SHADOW_CURRENT,  /* nothing changed since the last build */
  GPUMATS_SHADOW_VALUES,   /* same structure, new values */
  GPUMATS_SHADOW_STRUCTURE /* never built, or the nonzero pattern or sizes changed */
} GpuMatsShadowChange;

/* A change of values that a format can make on its device copy as the host AIJ makes it on
   the master (common/shadow_values.c): A = a A, A + a I, diag(A) = d or + d, A + a X,
   A = X, A = 0.  X is of A's type with A's pattern; d is in device memory. */
typedef enum {
  GPUMATS_VALUES_SCALE,
  GPUMATS_VALUES_SHIFT,
  GPUMATS_VALUES_DIAGONAL_SET,
  GPUMATS_VALUES_DIAGONAL_ADD,
  GPUMATS_VALUES_AXPY,
  GPUMATS_VALUES_COPY,
  GPUMATS_VALUES_ZERO
} GpuMatsValuesOp;

typedef struct {
  GpuMatsValuesOp    op;
  PetscScalar        a;
  const PetscScalar *d;
  Mat                X;
} GpuMatsValuesChange;

/* ---- the contract of a format's context ----
   A format's sequential type keeps its context in A->spptr, a struct whose first member is a
   GpuMatsFormat: the four multiplies, the dense products, the backend setters and BindToCPU of
   common/format_ops.c and dense_product.c read only that member, through GpuMatsFormatOf().  The
   format fills 'ops' and keeps 'nnz' (the stored entries, for the flop counts) current in its
   update; common owns 'backend' and the stages.  GpuMatsInstallMultiplies() puts the multiplies
   on a matrix, GpuMatsUninstallMultiplies() frees the stages.  A format that is a copy of a host
   AIJ (pcsr, cihybrid) starts its context with a GpuMatsShadow instead, whose first member is the
   GpuMatsFormat; a type of its own (diag) starts it with the GpuMatsFormat itself. */

/* What a format gives the multiplies: how to bring its copy up to date and how to multiply with
   it on either side.  y0 may be NULL or equal y; B and C are column-major with leading dimensions
   ldb and ldc.  values_device (may be NULL) makes a change on the current device copy; *done
   false: it could not (the copy is uploaded again at the next product). */
typedef struct {
  PetscErrorCode (*update)(Mat, PetscBool *on_device);
  PetscErrorCode (*mult_host)(Mat, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
  PetscErrorCode (*spmm_host)(Mat, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);
#if GPUMATS_HAVE_CUDA
  PetscErrorCode (*mult_device)(Mat, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
  PetscErrorCode (*spmm_device)(Mat, PetscInt k, const PetscScalar *B, PetscInt ldb, PetscBool add, PetscScalar *C, PetscInt ldc);
  /* for the shadows only (NULL otherwise): a change of values on the device copy
     (common/shadow_values.c); the values of the device copy into the host AIJ's value array
     (AIJ's order) after the device copy ran ahead (common/shadow_ahead.c), NULL where a format
     never runs ahead */
  PetscErrorCode (*values_device)(Mat, const GpuMatsValuesChange *, PetscBool *done);
  PetscErrorCode (*values_download)(Mat);
#endif
} GpuMatsFormatOps;

typedef struct {
  const GpuMatsFormatOps *ops;
  PetscInt64              nnz; /* of the format as last built, for the flop counts */
  GpuMatsBackend          backend;
#if GPUMATS_HAVE_CUDA
  GpuMatsStage stage_x, stage_y, stage_z; /* host vectors and dense blocks on their way to the device */
#endif
} GpuMatsFormat;

#define GpuMatsFormatOf(A) ((GpuMatsFormat *)(A)->spptr)

/* The first member of a shadow format's context: the format's part, then what keeps the copy
   in step with the host AIJ. */
typedef struct {
  GpuMatsFormat    base;         /* first: GpuMatsFormatOf() reads it */
  struct _MatOps   parent;       /* AIJ's ops as they were before the format took over */
  PetscBool        built;        /* explicit: a state of 0 is a valid state */
  PetscObjectState state;        /* object state at the last build or refresh */
  PetscObjectState nonzerostate; /* A->nonzerostate at the last structural build */
  PetscInt         nrows, ncols;
  PetscBool        device_current; /* the device copy holds the values of 'state' */
  /* the device copy ahead of the host AIJ (common/shadow_ahead.c) */
  PetscBool      ahead;        /* the host AIJ's values are older than the device copy's */
  PetscBool      host_readers; /* a factor or a sparse product reads the host AIJ unseen: never ahead */
  struct _MatOps ahead_saved;  /* the table to put back when the host catches up */
} GpuMatsShadow;

#define GpuMatsShadowOf(A) ((GpuMatsShadow *)(A)->spptr)

PETSC_INTERN PetscErrorCode GpuMatsShadowCheck(Mat, const GpuMatsShadow *, GpuMatsShadowChange *);
PETSC_INTERN PetscErrorCode GpuMatsShadowMarkCurrent(Mat, GpuMatsShadow *);
PETSC_INTERN PetscErrorCode GpuMatsShadowMarkCurrentAhead(Mat, GpuMatsShadow *, PetscInt);
/* New values on a matrix without stored entries (an MPI block of a process without any, say):
   nothing to copy, the device copy (has_device_copy) marked current at once, *skipped */
PETSC_INTERN PetscErrorCode GpuMatsShadowSkipEmpty(Mat, GpuMatsShadow *, GpuMatsShadowChange, PetscBool has_device_copy, PetscBool *skipped);
PETSC_INTERN PetscErrorCode GpuMatsConvertTarget(Mat, MatReuse, Mat *, Mat *);
/* A MATSEQAIJ B becomes the shadow type 'seqtype': B->spptr (whose first member is the
   GpuMatsShadow) must be set; installs the multiplies, the backend and dense-product
   functions, BindToCPU.  Uninstall undoes it (the caller frees its context after). */
PETSC_INTERN PetscErrorCode GpuMatsShadowInstall(Mat, const GpuMatsFormatOps *, const char *seqtype);
PETSC_INTERN PetscErrorCode GpuMatsShadowUninstall(Mat, const char *seqtype);
/* AIJ's MatAXPY on the host master, and on the device copy too where the format can
   (common/shadow_values.c; installed by GpuMatsShadowInstall, for types that wrap AXPY) */
PETSC_INTERN PetscErrorCode GpuMatsShadowAXPY(Mat, PetscScalar, Mat, MatStructure);
PETSC_INTERN PetscErrorCode GpuMatsShadowInstallValueOps(Mat);
/* What Install does but saving the parent's ops: the multiplies, backend, dense
   product and BindToCPU of a type of its own whose spptr starts with a GpuMatsFormat. */
PETSC_INTERN PetscErrorCode GpuMatsInstallMultiplies(Mat, const GpuMatsFormatOps *, const char *seqtype);
PETSC_INTERN PetscErrorCode GpuMatsUninstallMultiplies(Mat, const char *seqtype);
PETSC_INTERN PetscErrorCode GpuMatsFormatSetBackend(Mat, GpuMatsBackend);
PETSC_INTERN PetscErrorCode GpuMatsShadowSetFromOptions(Mat, const char *title, PetscErrorCode (*own)(Mat, GPUMATS_OPTIONS_ARG));
PETSC_INTERN PetscErrorCode GpuMatsCreateSeqAIJShadow(MPI_Comm, MatType, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_INTERN PetscErrorCode GpuMatsBecomeAIJ(Mat, MatType);
PETSC_INTERN PetscErrorCode GpuMatsLogFlops(PetscBool on_device, PetscLogDouble);
/* C = A B (+ C when add) for A of any format and sequential dense B, C (host or CUDA, any
   leading dimensions), on the backend of A's multiplies. */
PETSC_INTERN PetscErrorCode GpuMatsFormatSpMM(Mat, Mat, Mat, PetscBool);

/* The device copy ahead of the host AIJ (common/shadow_ahead.c).  Begin: A's values are newer on
   the device (MatSetValuesCOO from device memory), the host AIJ follows when a host operation
   needs it; *ahead false where A has host readers (the caller then copies the values back now).
   Sync: the host brought up to date ('why' for -info), a no-op unless A is ahead; Operand: the
   same for a matrix of any type.  Drop: forget it (A destroyed).  MarkHostReaders: something will
   read A's host arrays without an op of A (a factor, a sparse product): A never runs ahead. */
PETSC_INTERN PetscErrorCode GpuMatsShadowAheadBegin(Mat, PetscBool *ahead);
/* For any matrix that may run ahead (a sequential shadow, an MPI matrix of them: mpishadow.c):
   Sync calls the sync composed on M (no-op without one), ComposeSync composes it and the marking
   of host readers; OpsInstall saves A's table in 'saved' and puts in its place wrappers that sync
   A (and their other matrix arguments) and run the saved op, but for the ops kept (the products,
   assembly, options, info, vectors, destruction) and productsetfromoptions (run on the product) */
PETSC_INTERN PetscErrorCode GpuMatsAheadSync(Mat, const char *why);
PETSC_INTERN PetscErrorCode GpuMatsAheadComposeSync(Mat, PetscErrorCode (*sync)(Mat, const char *), PetscErrorCode (*mark)(Mat, const char *));
PETSC_INTERN PetscErrorCode GpuMatsAheadOpsInstall(Mat, struct _MatOps *saved);
PETSC_INTERN PetscErrorCode GpuMatsShadowAheadSync(Mat, const char *why);
PETSC_INTERN PetscErrorCode GpuMatsShadowAheadSyncOperand(Mat);
PETSC_INTERN PetscErrorCode GpuMatsShadowAheadDrop(Mat);
PETSC_INTERN PetscErrorCode GpuMatsShadowMarkHostReaders(Mat, const char *why);
/* installed by GpuMatsShadowInstall: sparse products, which read the host AIJ, mark it (factorizations:
   aij_factors.c) */
PETSC_INTERN PetscErrorCode GpuMatsShadowInstallHostReaders(Mat, const char *seqtype, PetscBool set);
/* Each AIJ factorization package's MatGetFactor replaced by one that first calls the function
   composed on the matrix as GPUMATS_FACTOR_PREPARE, if any (aij_factors.c).  A format composes
   it, a PetscErrorCode (*)(Mat, const char *why), on the matrices whose host AIJ may be behind
   its device copy: it makes the host AIJ current and keeps it so ('why' for -info). */
#define GPUMATS_FACTOR_PREPARE "GpuMatsFactorPrepare_C"
PETSC_INTERN PetscErrorCode GpuMatsRegisterAIJFactors(void);

/* A MATSEQAIJ on CSR arrays from PetscMalloc that it frees (aij_adopt.c): no insertion row by row */
PETSC_INTERN PetscErrorCode GpuMatsSeqAIJAdoptCSR(MPI_Comm, PetscInt m, PetscInt n, PetscInt *i, PetscInt *j, PetscScalar *a, Mat *);

/* Factorizations through an AIJ twin (twin_factor.c).  A format's GpuMatsHostAIJFn gives A's
   entries as a host AIJ, a new reference: a copy, or A itself with its host arrays up to date
   (GpuMatsShadowHostAIJ, for the shadow types).  TwinFactorCreate: the factor by 'package' of a
   'twintype' twin of A.  WhereProducts: on the GPU (cusparse) where A's products run there, else
   by "petsc" on A; a format's MatGetFactor for its sequential type, registered by
   RegisterTwinFactors as the one MatGetFactor takes when nobody names a package (CUDA builds). */
typedef PetscErrorCode (*GpuMatsHostAIJFn)(Mat A, Mat *aij);
PETSC_INTERN PetscErrorCode GpuMatsTwinFactorCreate(Mat, MatFactorType, MatSolverType package, MatType twintype, GpuMatsHostAIJFn, Mat *);
PETSC_INTERN PetscErrorCode GpuMatsTwinFactorWhereProducts(Mat, MatFactorType, GpuMatsHostAIJFn, Mat *);
PETSC_INTERN PetscErrorCode GpuMatsShadowHostAIJ(Mat, Mat *);
PETSC_INTERN PetscErrorCode GpuMatsRegisterTwinFactors(MatType seqtype, PetscErrorCode (*getfactor)(Mat, MatFactorType, Mat *));

/* The composed Set and Get functions of one setting of a sequential shadow type, the
   implementations behind a public setter and getter (MatPCSRSetKernel_C, ...): the setting
   is 'field' of the 'settings' member (a SettingsType) of the format's context (a Context in
   A->spptr); a new value is given to Apply(Mat, const SettingsType *), which decides what
   must be rebuilt. */
#define GPUMATS_SHADOW_SETTING(SetFunction, GetFunction, Context, SettingsType, field, ValueType, Apply) \
  static PetscErrorCode SetFunction(Mat A, ValueType value) \
  { \
    SettingsType s = ((Context *)A->spptr)->settings; \
\
    PetscFunctionBegin; \
    s.field = value; \
    PetscCall(Apply(A, &s)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  } \
  static PetscErrorCode GetFunction(Mat A, ValueType *value) \
  { \
    PetscFunctionBegin; \
    *value = ((Context *)A->spptr)->settings.field; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

/* ---- the MPI types: one class mechanism for every format (mpiclass.h) ---- */
#include "common/mpiclass.h"

/* ---- products with a dense B ---- */
PETSC_INTERN PetscErrorCode GpuMatsDenseIsCUDA(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode GpuMatsProductSetFromOptions_Parent(Mat, const char *);
PETSC_INTERN PetscErrorCode GpuMatsProductSetUpDense(Mat, PetscErrorCode (*)(Mat));
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_GpuMatsFormat_SeqDense(Mat);

/* ---- backend ---- */
PETSC_INTERN const char *const GpuMatsBackends[];
PETSC_INTERN PetscErrorCode    GpuMatsBackendUsesDevice(Mat, GpuMatsBackend, PetscBool *);
PETSC_INTERN PetscErrorCode    MatGpuMatsUsesDevice_Backend(Mat, PetscBool *); /* composed as MatGpuMatsUsesDevice_C by every type */
#if GPUMATS_HAVE_OP_GETCURRENTMEMTYPE
PETSC_INTERN PetscErrorCode MatGetCurrentMemType_GpuMats(Mat, PetscMemType *); /* the op of every type */
#endif
PETSC_INTERN PetscErrorCode    GpuMatsSetDefaultVecType(Mat, GpuMatsBackend);
PETSC_INTERN PetscErrorCode    GpuMatsBackendFromOptions(GpuMatsBackend *, GPUMATS_OPTIONS_ARG);

/* ---- row distributions (common/redistribute.c) ---- */
PETSC_INTERN const char *const GpuMatsPartitions[];

/* ---- vectors as the device sees them ---- */
#if GPUMATS_HAVE_CUDA
typedef enum {
  GPUMATS_READ,
  GPUMATS_WRITE,
  GPUMATS_READ_WRITE
} GpuMatsAccess;

typedef struct {
  Vec           vec;
  GpuMatsAccess access;
  PetscMemType  mtype;
  PetscScalar  *array; /* what VecGetArray*AndMemType returned */
  PetscScalar  *device;
  GpuMatsStage *stage; /* used when the vector lives on the host */
} GpuMatsDeviceVec;

PETSC_INTERN PetscErrorCode GpuMatsVecGetDeviceArray(Vec, GpuMatsAccess, GpuMatsStage *, GpuMatsDeviceVec *);
PETSC_INTERN PetscErrorCode GpuMatsVecRestoreDeviceArray(GpuMatsDeviceVec *);
#endif

/* ---- log events (common/log.c) ---- */
PETSC_INTERN PetscLogEvent  GPUMATS_FormatBuild, GPUMATS_FormatUpload, GPUMATS_ToAIJ, GPUMATS_TwinRefresh;
PETSC_INTERN PetscErrorCode GpuMatsLogEventsRegister(void);
