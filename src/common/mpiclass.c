/* The class-generic part of every MPI type (mpiclass.h): the settings the MPI matrix keeps
   and forwards to its two blocks, the backend (MatGpuMatsSet/GetBackend_C,
   MatGpuMatsUsesDevice_C), the options flow, the MatView section of the blocks and the
   check of the backend before a scatter begins, and the ghost exchange of each matrix
   (mpighosts.c, which knows no class).  What a format knows comes from its
   GpuMatsMPIClass, where its blocks are from the storage (mpishadow.c: MPIAIJ's blocks;
   a type of its own: its blocks). */
#include "common/gpumats_impl.h"

PetscErrorCode GpuMatsMPIInitialize(GpuMatsMPI *c, const GpuMatsMPIClass *cls, const GpuMatsMPIStorage *storage)
{
  PetscFunctionBegin;
  c->cls     = cls;
  c->storage = storage;
  c->backend = GPUMATS_BACKEND_AUTO;
  c->pinned_ghosts = PETSC_BOOL3_UNKNOWN;
  PetscCall(PetscMalloc(cls->settings_size, &c->settings));
  PetscCall(PetscMemcpy(c->settings, cls->settings_default, cls->settings_size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIFinalize(GpuMatsMPI *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(c->settings));
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
  PetscCall(GpuMatsGhostsDestroy(&c->ghosts));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICopySettings(Mat A, Mat B)
{
  GpuMatsMPI *a = GpuMatsMPIOf(A), *b = GpuMatsMPIOf(B);

  PetscFunctionBegin;
  PetscCheck(a->cls == b->cls, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Settings of a %s given to a %s", a->cls->mpitype, b->cls->mpitype);
  b->backend       = a->backend;
  b->pinned_ghosts = a->pinned_ghosts;
  PetscCall(PetscMemcpy(b->settings, a->settings, a->cls->settings_size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIGetSettings(Mat A, void **settings)
{
  PetscFunctionBegin;
  *settings = GpuMatsMPIOf(A)->settings;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPISetSetting(Mat A, size_t offset, const void *value, size_t size)
{
  GpuMatsMPI *c = GpuMatsMPIOf(A);

  PetscFunctionBegin;
  PetscCheck(offset + size <= c->cls->settings_size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Setting at %zu (%zu bytes) outside the %s settings", offset, size, c->cls->name);
  PetscCall(PetscMemcpy((char *)c->settings + offset, value, size));
  PetscCall(GpuMatsMPIUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIGetSetting(Mat A, size_t offset, void *value, size_t size)
{
  GpuMatsMPI *c = GpuMatsMPIOf(A);

  PetscFunctionBegin;
  PetscCheck(offset + size <= c->cls->settings_size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Setting at %zu (%zu bytes) outside the %s settings", offset, size, c->cls->name);
  PetscCall(PetscMemcpy(value, (const char *)c->settings + offset, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A block of the other format keeps its own settings: only the backend reaches it */
static const void *MPIBlockSettings(const GpuMatsMPI *c, const GpuMatsMPIBlock *block)
{
  return block->takes_settings ? c->settings : NULL;
}

PetscErrorCode GpuMatsMPIConvertBlocks(Mat A, Mat Ad, Mat Ao)
{
  GpuMatsMPI            *c   = GpuMatsMPIOf(A);
  const GpuMatsMPIClass *cls = c->cls;

  PetscFunctionBegin;
  if (Ad) PetscCall((*cls->diagonal.cls->convert)(Ad, MPIBlockSettings(c, &cls->diagonal), c->backend, PETSC_FALSE));
  if (Ao) PetscCall((*cls->offdiagonal.cls->convert)(Ao, MPIBlockSettings(c, &cls->offdiagonal), c->backend, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPICreateBlock(GpuMatsMPI *c, const GpuMatsMPIBlock *block, Mat aij, PetscBool offdiagonal, Mat *out)
{
  PetscFunctionBegin;
  if (block->cls->create) PetscCall((*block->cls->create)(aij, MPIBlockSettings(c, block), c->backend, offdiagonal, out));
  else {
    PetscCall(MatDuplicate(aij, MAT_COPY_VALUES, out));
    PetscCall((*block->cls->convert)(*out, MPIBlockSettings(c, block), c->backend, offdiagonal));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICreateBlocks(Mat A, Mat Ad, Mat Ao, Mat *diagonal, Mat *offdiagonal)
{
  GpuMatsMPI *c = GpuMatsMPIOf(A);

  PetscFunctionBegin;
  PetscCall(MPICreateBlock(c, &c->cls->diagonal, Ad, PETSC_FALSE, diagonal));
  PetscCall(MPICreateBlock(c, &c->cls->offdiagonal, Ao, PETSC_TRUE, offdiagonal));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIUpdateBlocks(Mat A)
{
  GpuMatsMPI *c  = GpuMatsMPIOf(A);
  Mat         Ad = NULL, Ao = NULL;

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, c->backend));
  PetscCall((*c->storage->get_blocks)(A, &Ad, &Ao));
  PetscCall(GpuMatsMPIConvertBlocks(A, Ad, Ao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPICheckBackend(Mat A)
{
  GpuMatsMPI *c = GpuMatsMPIOf(A);
  PetscBool   uses;

  PetscFunctionBegin;
  if (c->backend == GPUMATS_BACKEND_CUDA) PetscCall(GpuMatsBackendUsesDevice(A, c->backend, &uses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
PetscErrorCode GpuMatsMPIGhostsMult(Mat A, Vec x, Vec y0, Vec y, PetscBool *done)
{
  GpuMatsMPI *c = GpuMatsMPIOf(A);

  PetscFunctionBegin;
  PetscCall(GpuMatsGhostsMult(&c->ghosts, c->pinned_ghosts, c->backend, c->storage->get_blocks, c->storage->get_ghost_columns, A, x, y0, y, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode GpuMatsMPISetFromOptions(Mat A, GPUMATS_OPTIONS_ARG)
{
  GpuMatsMPI              *c         = GpuMatsMPIOf(A);
  static const char *const choices[] = {"auto", "true", "false"}; /* auto (unknown) shown as such by -help */
  static const PetscBool3  use[]     = {PETSC_BOOL3_UNKNOWN, PETSC_BOOL3_TRUE, PETSC_BOOL3_FALSE};
  PetscInt                 choice    = c->pinned_ghosts == PETSC_BOOL3_UNKNOWN ? 0 : (c->pinned_ghosts == PETSC_BOOL3_TRUE ? 1 : 2);
  GpuMatsBackend           backend;
  PetscBool                set;

  PetscFunctionBegin;
  PetscCall((*c->cls->set_from_options)(A, PetscOptionsObject));
  PetscCall(MatGpuMatsGetBackend(A, &backend));
  PetscCall(GpuMatsBackendFromOptions(&backend, PetscOptionsObject));
  PetscCall(MatGpuMatsSetBackend(A, backend));
  PetscCall(PetscOptionsEList("-mat_gpumats_pinned_ghosts",
                              "Device vectors, MPI not GPU-aware: the ghost values through pinned buffers of the matrix's own, the diagonal block's product queued behind their copy (auto: where each process has a GPU of its own; where processes share one, only where some process has ghosts for a tenth of its rows or more)",
                              "MatMult", choices, 3, choices[choice], &choice, &set));
  if (set && use[choice] != c->pinned_ghosts) { /* chosen: the exchange made again */
    c->pinned_ghosts = use[choice];
#if GPUMATS_HAVE_CUDA && defined(PETSC_HAVE_CUDA)
    PetscCall(GpuMatsGhostsDestroy(&c->ghosts));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsMPIViewBlocks(Mat A, PetscViewer viewer)
{
  GpuMatsMPI       *c = GpuMatsMPIOf(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  Mat               Ad = NULL, Ao = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall((*c->storage->get_blocks)(A, &Ad, &Ao));
  if (!Ad) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: not assembled yet\n", c->cls->name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s blocks:\n", c->cls->name));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall((*c->cls->diagonal.cls->view)(Ad, "diagonal", viewer));
  PetscCall((*c->cls->offdiagonal.cls->view)(Ao, "off-diagonal", viewer));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsSetBackend_MPI(Mat A, GpuMatsBackend backend)
{
  PetscFunctionBegin;
  GpuMatsMPIOf(A)->backend = backend;
  PetscCall(GpuMatsMPIUpdateBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGpuMatsGetBackend_MPI(Mat A, GpuMatsBackend *backend)
{
  PetscFunctionBegin;
  *backend = GpuMatsMPIOf(A)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DEVICE)
PetscErrorCode MatBindToCPU_GpuMatsMPI(Mat A, PetscBool flg)
{
  GpuMatsMPI *c  = GpuMatsMPIOf(A);
  Mat         Ad = NULL, Ao = NULL;

  PetscFunctionBegin;
  PetscCall(GpuMatsSetDefaultVecType(A, flg ? GPUMATS_BACKEND_HOST : c->backend));
  PetscCall((*c->storage->get_blocks)(A, &Ad, &Ao));
  if (Ad) PetscCall(MatBindToCPU(Ad, flg));
  if (Ao) PetscCall(MatBindToCPU(Ao, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode GpuMatsMPICompose(Mat A, PetscBool set)
{
  const GpuMatsMPIClass *cls = GpuMatsMPIOf(A)->cls;
  char                   name[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsSetBackend_C", set ? MatGpuMatsSetBackend_MPI : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsGetBackend_C", set ? MatGpuMatsGetBackend_MPI : NULL));
  /* asked by name by programs that load the library with -dll_append (backend.c) */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGpuMatsUsesDevice_C", set ? MatGpuMatsUsesDevice_Backend : NULL));
  /* the names MatConvert() looks for, with the type's full and root name */
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", cls->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? cls->convert_from_mpiaij : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", cls->roottype));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, set ? cls->convert_from_mpiaij : NULL));
  if (cls->compose) PetscCall((*cls->compose)(A, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}
