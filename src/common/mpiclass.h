/* The one MPI mechanism of gpumats (included by gpumats_impl.h).

   An MPI type is a class (GpuMatsMPIClass: what the format knows) held by a storage
   (GpuMatsMPIStorage: who keeps the two blocks).  The class names a block class for the
   diagonal block and one for the off-process block (GpuMatsMPIBlockClass: how to make a
   block of that kind from an assembled SeqAIJ block, in place or as a new matrix, with the
   MPI matrix's settings and backend, and how to show it in one line), the format's settings
   (size, defaults), its options (through its public setters), its own composed functions
   and the type names.  The storage says where the blocks are now and, where it owns the
   scatter of the ghost values, where that is:
     - mpishadow.c: MATMPIAIJ hosts the blocks (cihybrid, pcsr: their own block class for
       both blocks), MPIAIJ's scatter and products;
     - a type of its own (mpidiag: a seqdiag diagonal block, pcsr's block class for the
       off-process one) keeps them, and its scatter, itself; mpiblocks.c multiplies with them.
   Every MPI type's context (GpuMatsMPI) is at A->spptr, first member of the storage's
   context.  mpiclass.c is the class-generic part: settings and their forwarding to the
   blocks, backend, MatGpuMatsUsesDevice_C, options, MatView of the blocks, the backend
   check before a scatter, the ghost exchange each matrix keeps (mpighosts.h). */
#pragma once
#include "common/mpighosts.h"

typedef struct {
  /* B (a MATSEQAIJ, or already of this kind) becomes this kind in place; settings: the MPI
     matrix's, or NULL for a block of another format (its own settings stay) */
  PetscErrorCode (*convert)(Mat B, const void *settings, GpuMatsBackend, PetscBool offdiagonal);
  /* optional: a new block of this kind with the entries of the assembled SeqAIJ block aij
     (untouched); NULL: a duplicate of aij converted in place */
  PetscErrorCode (*create)(Mat aij, const void *settings, GpuMatsBackend, PetscBool offdiagonal, Mat *block);
  PetscErrorCode (*view)(Mat B, const char *which, PetscViewer); /* one line, synchronized */
} GpuMatsMPIBlockClass;

typedef struct {
  const GpuMatsMPIBlockClass *cls;
  PetscBool                   takes_settings; /* the MPI matrix's settings; else the block keeps its own */
} GpuMatsMPIBlock;

typedef struct {
  const char     *name; /* "CIHYBRID", heads MatView's section */
  const char     *seqtype, *mpitype, *roottype;
  size_t          settings_size; /* of the format's settings, which the MPI matrix keeps */
  const void     *settings_default;
  GpuMatsMPIBlock diagonal, offdiagonal;
  PetscErrorCode (*set_from_options)(Mat, GPUMATS_OPTIONS_ARG); /* the format's options, through its public setters */
  PetscErrorCode (*compose)(Mat, PetscBool set);                /* the format's own functions of the MPI type */
  PetscErrorCode (*convert_from_mpiaij)(Mat, MatType, MatReuse, Mat *);
} GpuMatsMPIClass;

typedef struct {
  /* the diagonal and off-process blocks as they are now; NULL while there are none that
     follow the settings (before the first assembly) */
  PetscErrorCode (*get_blocks)(Mat, Mat *diagonal, Mat *offdiagonal);
  /* the scatter of x's ghost values and the vector it fills, when the storage owns them */
  PetscErrorCode (*get_scatter)(Mat, VecScatter *, Vec *lvec);
  /* the global column of each column of the off-process block (ascending), once assembled */
  PetscErrorCode (*get_ghost_columns)(Mat, const PetscInt *garray[]);
} GpuMatsMPIStorage;

/* At A->spptr of every MPI type (the first member of the storage's context) */
typedef struct {
  const GpuMatsMPIClass   *cls;
  const GpuMatsMPIStorage *storage;
  GpuMatsBackend           backend;
  void                    *settings;
  PetscBool3               pinned_ghosts; /* -mat_gpumats_pinned_ghosts (unknown: auto) */
  GpuMatsGhosts            ghosts;        /* that exchange, made at the first product that uses it */
} GpuMatsMPI;

#define GpuMatsMPIOf(A) ((GpuMatsMPI *)(A)->spptr)

/* ---- mpiclass.c ---- */
/* c (at A->spptr, or to be) with the class's default settings and the automatic backend; Finalize frees them */
PETSC_INTERN PetscErrorCode GpuMatsMPIInitialize(GpuMatsMPI *c, const GpuMatsMPIClass *, const GpuMatsMPIStorage *);
PETSC_INTERN PetscErrorCode GpuMatsMPIFinalize(GpuMatsMPI *c);
/* B takes A's settings and backend (duplicates, transposes, results); the blocks follow */
PETSC_INTERN PetscErrorCode GpuMatsMPICopySettings(Mat A, Mat B);
PETSC_INTERN PetscErrorCode GpuMatsMPIGetSettings(Mat, void **);
/* One setting: 'size' bytes at 'offset' in the settings; a new value goes on to the blocks */
PETSC_INTERN PetscErrorCode GpuMatsMPISetSetting(Mat, size_t offset, const void *value, size_t size);
PETSC_INTERN PetscErrorCode GpuMatsMPIGetSetting(Mat, size_t offset, void *value, size_t size);
/* The blocks that exist follow the settings and the backend (and A's vector type the backend) */
PETSC_INTERN PetscErrorCode GpuMatsMPIUpdateBlocks(Mat);
/* Ad and Ao (either may be NULL) become the class's blocks in place, with A's settings and backend */
PETSC_INTERN PetscErrorCode GpuMatsMPIConvertBlocks(Mat A, Mat Ad, Mat Ao);
/* New blocks of the class's kinds from the assembled SeqAIJ blocks Ad and Ao (untouched) */
PETSC_INTERN PetscErrorCode GpuMatsMPICreateBlocks(Mat A, Mat Ad, Mat Ao, Mat *diagonal, Mat *offdiagonal);
/* The options: the format's, then -mat_gpumats_backend, both through the public setters, and
   -mat_gpumats_pinned_ghosts */
PETSC_INTERN PetscErrorCode GpuMatsMPISetFromOptions(Mat, GPUMATS_OPTIONS_ARG);
/* With an ASCII info viewer, the section that shows the blocks, one line each per process */
PETSC_INTERN PetscErrorCode GpuMatsMPIViewBlocks(Mat, PetscViewer);
/* Refuses (-mat_gpumats_backend cuda with no usable device) before a scatter begins: an error
   between its begin and end leaves it outstanding, and MatDestroy then fails on it */
PETSC_INTERN PetscErrorCode GpuMatsMPICheckBackend(Mat);
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
/* y = A x (+ y0 when not NULL) through the ghost exchange of A's own, with the blocks and ghost
   columns of A's storage (GpuMatsGhostsMult, mpighosts.h: *done false where it does not apply
   or is not taken, -mat_gpumats_pinned_ghosts) */
PETSC_INTERN PetscErrorCode GpuMatsMPIGhostsMult(Mat A, Vec x, Vec y0, Vec y, PetscBool *done);
#endif
/* MatGpuMatsSet/GetBackend_C, MatGpuMatsUsesDevice_C, MatConvert_mpiaij_<type>_C (full and
   root names), then the class's own */
PETSC_INTERN PetscErrorCode GpuMatsMPICompose(Mat, PetscBool set);
#if defined(PETSC_HAVE_DEVICE)
PETSC_INTERN PetscErrorCode MatBindToCPU_GpuMatsMPI(Mat, PetscBool); /* the blocks and the vector type */
#endif

/* The composed Set and Get functions of one setting of an MPI type: 'field' of the format's
   settings (a SettingsType), kept by the MPI matrix and forwarded to its blocks. */
#define GPUMATS_MPI_SETTING_SET(SetFunction, SettingsType, field, ValueType) \
  static PetscErrorCode SetFunction(Mat A, ValueType value) \
  { \
    PetscFunctionBegin; \
    PetscCall(GpuMatsMPISetSetting(A, offsetof(SettingsType, field), &value, sizeof(value))); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
#define GPUMATS_MPI_SETTING_GET(GetFunction, SettingsType, field, ValueType) \
  static PetscErrorCode GetFunction(Mat A, ValueType *value) \
  { \
    PetscFunctionBegin; \
    PetscCall(GpuMatsMPIGetSetting(A, offsetof(SettingsType, field), value, sizeof(*value))); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
#define GPUMATS_MPI_SETTING(SetFunction, GetFunction, SettingsType, field, ValueType) \
  GPUMATS_MPI_SETTING_SET(SetFunction, SettingsType, field, ValueType) \
  GPUMATS_MPI_SETTING_GET(GetFunction, SettingsType, field, ValueType)

/* ---- mpishadow.c: MATMPIAIJ hosts the blocks ---- */
/* A MATMPIAIJ (MAT_INPLACE_MATRIX) or a copy of it becomes the MPI type of the class */
PETSC_INTERN PetscErrorCode GpuMatsMPIShadowConvert(Mat, const GpuMatsMPIClass *, MatReuse, Mat *);
/* MPIAIJ's op as it was before the class took over (e.g. its MatLoad) */
PETSC_INTERN PetscErrorCode GpuMatsMPIShadowGetParentOps(Mat, const struct _MatOps **);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_MPIAIJShadow_MPIDense(Mat);

/* ---- mpiblocks.c: the products of a storage that owns its scatter ---- */
/* y = A x (+ y0): the scatter of the ghost values begins, the diagonal block multiplies while
   they travel, then the off-process block adds its part; the transposes in reverse */
PETSC_INTERN PetscErrorCode MatMult_GpuMatsMPIBlocks(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultAdd_GpuMatsMPIBlocks(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTranspose_GpuMatsMPIBlocks(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_GpuMatsMPIBlocks(Mat, Vec, Vec, Vec);
