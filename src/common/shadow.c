/* A format that shadows the host AIJ (pcsr, cihybrid): installing it on a MATSEQAIJ and taking it
   off, its creation and options.  Its state: shadow_state.c. */
#include "common/gpumats_impl.h"
#include "common/gpumats_coo.h"

PetscErrorCode GpuMatsShadowInstall(Mat B, const GpuMatsFormatOps *ops, const char *seqtype)
{
  GpuMatsShadow *s = GpuMatsShadowOf(B);

  PetscFunctionBegin;
  s->parent = *B->ops;
  s->built  = PETSC_FALSE;
  PetscCall(GpuMatsInstallMultiplies(B, ops, seqtype));
  PetscCall(GpuMatsCOOComposeAIJ(B, PETSC_TRUE));                /* AIJ's COO, wrapped: common/coo_aij.c */
  PetscCall(GpuMatsShadowInstallValueOps(B));                    /* value changes the device copy follows */
  PetscCall(GpuMatsShadowInstallHostReaders(B, seqtype, PETSC_TRUE)); /* what reads the host AIJ unseen: shadow_ahead.c */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GpuMatsShadowUninstall(Mat B, const char *seqtype)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsShadowAheadDrop(B)); /* destroyed, or converted after a sync */
  PetscCall(GpuMatsUninstallMultiplies(B, seqtype));
  PetscCall(GpuMatsCOOComposeAIJ(B, PETSC_FALSE));
  PetscCall(GpuMatsShadowInstallHostReaders(B, seqtype, PETSC_FALSE));
  *B->ops = GpuMatsShadowOf(B)->parent;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sequential shadow type's MatSetFromOptions after AIJ's: the format's options ('own') and the
   backend in an options block titled 'title'.  -help shows each title once a run, and
   MatCreate_SeqAIJ's -mat_seqaij_type block has shown MatSetFromOptions's title already: under
   it, these options would not be shown at all. */
PetscErrorCode GpuMatsShadowSetFromOptions(Mat A, const char *title, PetscErrorCode (*own)(Mat, GPUMATS_OPTIONS_ARG))
{
  GpuMatsFormat *f = GpuMatsFormatOf(A);

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, title, "Mat");
  PetscCall((*own)(A, PetscOptionsObject));
  PetscCall(GpuMatsBackendFromOptions(&f->backend, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(GpuMatsFormatSetBackend(A, f->backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A shadow type's MatCreateSeqAIJ<X>(): sizes, type, preallocation. */
PetscErrorCode GpuMatsCreateSeqAIJShadow(MPI_Comm comm, MatType type, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && n >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Creating a %s matrix: rows and columns must be nonnegative, not %" PetscInt_FMT " x %" PetscInt_FMT, type, m, n);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a shadow type leaves when it converts back to plain AIJ ('aijtype', seq or MPI):
   host vectors, bound to the CPU as MatCreate leaves an AIJ matrix, the AIJ name. */
PetscErrorCode GpuMatsBecomeAIJ(Mat B, MatType aijtype)
{
  PetscFunctionBegin;
  PetscCall(MatSetVecType(B, VECSTANDARD));
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_TRUE;
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, aijtype));
  PetscFunctionReturn(PETSC_SUCCESS);
}
