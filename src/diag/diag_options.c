/* MATDIAG settings: the public setters and getters (sequential and MPI through composed
   functions; the MPI ones: mpidiag.c), the options database, and the format statistics
   MatView prints. */
#include "diag/diag_impl.h"

const char *const MatDiagSchemes[]        = {"auto", "hm", "cdm", "MatDiagScheme", "MAT_DIAG_SCHEME_", NULL};
const char *const MatDiagProductKernels[] = {"ours", "paper", "MatDiagProductKernel", "MAT_DIAG_PRODUCT_", NULL};
const char *const MatDiagSORs[]           = {"auto", "host", "device", "MatDiagSOR", "MAT_DIAG_SOR_", NULL};

/* ---- public API (sequential and MPI through composed functions) ------------- */

PetscErrorCode MatDiagSetScheme(Mat A, MatDiagScheme scheme)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(scheme >= MAT_DIAG_SCHEME_AUTO && scheme <= MAT_DIAG_SCHEME_CDM, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatDiagScheme %d", (int)scheme);
  PetscTryMethod(A, "MatDiagSetScheme_C", (Mat, MatDiagScheme), (A, scheme));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetScheme(Mat A, MatDiagScheme *scheme)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatDiagGetScheme_C", (Mat, MatDiagScheme *), (A, scheme));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagSetMaxFill(Mat A, PetscReal max_fill)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(max_fill >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatDiagSetMaxFill(%g): must be 0 (no limit) or positive", (double)max_fill);
  PetscTryMethod(A, "MatDiagSetMaxFill_C", (Mat, PetscReal), (A, max_fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetMaxFill(Mat A, PetscReal *max_fill)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatDiagGetMaxFill_C", (Mat, PetscReal *), (A, max_fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagSetProductKernel(Mat A, MatDiagProductKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(kernel == MAT_DIAG_PRODUCT_OURS || kernel == MAT_DIAG_PRODUCT_PAPER, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatDiagProductKernel %d: MAT_DIAG_PRODUCT_OURS or MAT_DIAG_PRODUCT_PAPER", (int)kernel);
  PetscTryMethod(A, "MatDiagSetProductKernel_C", (Mat, MatDiagProductKernel), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetProductKernel(Mat A, MatDiagProductKernel *kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatDiagGetProductKernel_C", (Mat, MatDiagProductKernel *), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagSetSOR(Mat A, MatDiagSOR sor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(sor >= MAT_DIAG_SOR_AUTO && sor <= MAT_DIAG_SOR_DEVICE, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatDiagSOR %d: MAT_DIAG_SOR_AUTO, MAT_DIAG_SOR_HOST or MAT_DIAG_SOR_DEVICE", (int)sor);
  PetscTryMethod(A, "MatDiagSetSOR_C", (Mat, MatDiagSOR), (A, sor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetSOR(Mat A, MatDiagSOR *sor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatDiagGetSOR_C", (Mat, MatDiagSOR *), (A, sor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetInfo(Mat A, MatDiagInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatDiagGetInfo_C", (Mat, MatDiagInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the sequential implementations ----------------------------------------- */

/* The diag options of seqdiag and mpidiag, each applied through its public setter; 'current'
   gives the defaults shown by -help.  The fill limit and the kernel are set before the scheme,
   whose change converts an assembled matrix. */
PetscErrorCode DiagSetFromOptions(Mat A, const DiagSettings *current, GPUMATS_OPTIONS_ARG)
{
  PetscEnum scheme = (PetscEnum)current->scheme, product = (PetscEnum)current->product, sor = (PetscEnum)current->sor;
  PetscReal max_fill = current->max_fill;
  PetscBool scheme_set, max_fill_set, product_set, sor_set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DIAG options");
  PetscCall(PetscOptionsEnum("-mat_diag_scheme", "How the diagonals are stored: hm (any offsets and shapes), cdm (compact diagonals of length n, square), auto (cdm where square and storing few more values than hm; -info says which)", "MatDiagSetScheme", MatDiagSchemes, scheme, &scheme, &scheme_set));
  PetscCall(PetscOptionsReal("-mat_diag_max_fill", "Refuse a matrix whose stored values exceed this multiple of its nonzeros (0: accept any)", "MatDiagSetMaxFill", max_fill, &max_fill, &max_fill_set));
  PetscCall(PetscOptionsEnum("-mat_diag_product", "GPU kernel of C = A B for diag A and B: ours (banded rows in shared memory, else pairs of diagonals), paper (Algorithm 1 for CDM, 2 for HM)", "MatDiagSetProductKernel", MatDiagProductKernels, product, &product, &product_set));
  PetscCall(PetscOptionsEnum("-mat_diag_sor", "Where MatSOR (PCSOR, multigrid's default smoother) sweeps: auto (the device for device vectors and large matrices; -info says why), host, device (a level of rows at a time)", "MatDiagSetSOR", MatDiagSORs, sor, &sor, &sor_set));
  PetscOptionsHeadEnd();
  PetscCheck(max_fill >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_diag_max_fill %g: must be 0 (no limit) or positive", (double)max_fill);
  if (max_fill_set) PetscCall(MatDiagSetMaxFill(A, max_fill));
  if (product_set) PetscCall(MatDiagSetProductKernel(A, (MatDiagProductKernel)product));
  if (sor_set) PetscCall(MatDiagSetSOR(A, (MatDiagSOR)sor));
  if (scheme_set) PetscCall(MatDiagSetScheme(A, (MatDiagScheme)scheme));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_SeqDiag(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
  GpuMatsBackend backend;

  PetscFunctionBegin;
  PetscCall(DiagSetFromOptions(A, &d->settings, PetscOptionsObject));
  { /* products of two seqdiag matrices only (mpidiag's go through AIJ): no setter */
    static const char *const where[] = {"auto", "host", "device"};
    PetscInt                 plan    = (PetscInt)d->settings.plan;

    PetscCall(PetscOptionsEList("-mat_diag_product_plan", "Where the symbolic phase of C = A B (diag A and B, the product on the device) runs: auto (the device for many pairs of diagonals), host, device", "MatProductSymbolic", where, 3, where[plan], &plan, NULL));
    d->settings.plan = (DiagProductPlanWhere)plan;
  }
  PetscCall(MatGpuMatsGetBackend(A, &backend));
  PetscCall(GpuMatsBackendFromOptions(&backend, PetscOptionsObject));
  PetscCall(MatGpuMatsSetBackend(A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagSetScheme_SeqDiag(Mat A, MatDiagScheme scheme)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  d->settings.scheme = scheme;
  if (d->has_format && scheme != MAT_DIAG_SCHEME_AUTO && DiagSchemeOf(scheme) != d->fmt.scheme) { /* convert the assembled matrix */
    Mat M;

    PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &M));
    PetscCall(MatDiagBuildFromAIJ_SeqDiag(A, M));
    PetscCall(MatDestroy(&M));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetScheme_SeqDiag(Mat A, MatDiagScheme *scheme)
{
  Mat_SeqDiag *d = (Mat_SeqDiag *)A->spptr;

  PetscFunctionBegin;
  *scheme = d->has_format ? (d->fmt.scheme == DIAG_SCHEME_CDM ? MAT_DIAG_SCHEME_CDM : MAT_DIAG_SCHEME_HM) : d->settings.scheme;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define DiagSettingsOf(A) (&((Mat_SeqDiag *)(A)->spptr)->settings)

static PetscErrorCode MatDiagSetMaxFill_SeqDiag(Mat A, PetscReal max_fill)
{
  PetscFunctionBegin;
  DiagSettingsOf(A)->max_fill = max_fill;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetMaxFill_SeqDiag(Mat A, PetscReal *max_fill)
{
  PetscFunctionBegin;
  *max_fill = DiagSettingsOf(A)->max_fill;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagSetProductKernel_SeqDiag(Mat A, MatDiagProductKernel kernel)
{
  PetscFunctionBegin;
  DiagSettingsOf(A)->product = kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetProductKernel_SeqDiag(Mat A, MatDiagProductKernel *kernel)
{
  PetscFunctionBegin;
  *kernel = DiagSettingsOf(A)->product;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagSetSOR_SeqDiag(Mat A, MatDiagSOR sor)
{
  PetscFunctionBegin;
  DiagSettingsOf(A)->sor = sor;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagGetSOR_SeqDiag(Mat A, MatDiagSOR *sor)
{
  PetscFunctionBegin;
  *sor = DiagSettingsOf(A)->sor;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagGetInfo_SeqDiag(Mat A, MatDiagInfo *info)
{
  Mat_SeqDiag      *d = (Mat_SeqDiag *)A->spptr;
  const DiagFormat *f = &d->fmt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscCall(MatDiagGetScheme_SeqDiag(A, &info->scheme));
  if (!d->has_format) PetscFunctionReturn(PETSC_SUCCESS);
  info->ndiag      = f->ndiag;
  info->min_offset = info->max_offset = f->ndiag ? f->offset[0] : 0;
  for (PetscInt t = 0; t < f->ndiag; t++) info->min_offset = PetscMin(info->min_offset, f->offset[t]), info->max_offset = PetscMax(info->max_offset, f->offset[t]);
  info->stored  = f->start[f->ndiag];
  info->entries = DiagPatternSize(f);
  info->padding = info->stored - info->entries;
#if GPUMATS_HAVE_CUDA
  if (d->dev) info->bytes_device = info->stored * (PetscInt64)sizeof(PetscScalar) + f->ndiag * (PetscInt64)(sizeof(int) + sizeof(long long));
  info->on_device = (PetscBool)(d->dev && d->values_at != DIAG_VALUES_HOST);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_SeqDiag(Mat A, PetscViewer viewer)
{
  Mat_SeqDiag      *d = (Mat_SeqDiag *)A->spptr;
  PetscBool         ascii, binary;
  PetscViewerFormat format;
  Mat               M;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERBINARY, &binary));
  if (ascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    MatDiagInfo info;

    PetscCall(MatDiagGetInfo_SeqDiag(A, &info));
    if (!d->has_format) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "DIAG: not assembled yet (scheme %s asked for)\n", MatDiagSchemes[info.scheme]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "DIAG: scheme %s%s, %" PetscInt_FMT " diagonals, %s %" PetscInt_FMT " to %" PetscInt_FMT "\n", info.scheme == MAT_DIAG_SCHEME_CDM ? "CDM" : "HM", d->settings.scheme == MAT_DIAG_SCHEME_AUTO ? " (auto)" : "", info.ndiag, info.scheme == MAT_DIAG_SCHEME_CDM ? "compact diagonals" : "offsets", info.min_offset, info.max_offset));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "entries %" PetscInt64_FMT ", values stored %" PetscInt64_FMT ", padding %" PetscInt64_FMT " (%.1f%%), %.1f MB of values\n", info.entries, info.stored, info.padding, 100.0 * (double)info.padding / (double)PetscMax(info.stored, 1), (double)info.stored * sizeof(PetscScalar) / 1048576.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device copy: %s (%.1f MB)\n", info.bytes_device ? (info.on_device ? "current" : "stale") : "none", (double)info.bytes_device / 1048576.0));
#if GPUMATS_HAVE_CUDA
    if (d->sor.dev) PetscCall(PetscViewerASCIIPrintf(viewer, "SOR sweeps: %s, device levels %" PetscInt_FMT " (%.0f rows a level)\n", MatDiagSORs[d->settings.sor], d->sor.nlevels, d->sor.nlevels ? (double)A->rmap->n / d->sor.nlevels : 0.0));
    else
#endif
      PetscCall(PetscViewerASCIIPrintf(viewer, "SOR sweeps: %s\n", MatDiagSORs[d->settings.sor]));
    if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "offsets:"));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
      for (PetscInt t = 0; t < d->fmt.ndiag; t++) PetscCall(PetscViewerASCIIPrintf(viewer, " %" PetscInt_FMT, d->fmt.offset[t]));
      PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    }
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(d->has_format, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag MatView: assemble the matrix first");
  /* every other viewer sees the entries as AIJ shows them (binary files load as AIJ) */
  PetscCall(MatDiagToAIJ_SeqDiag(A, MATSEQAIJ, &M));
  PetscCall(PetscObjectSetName((PetscObject)M, ((PetscObject)A)->name));
  PetscCall((*M->ops->view)(M, viewer));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagComposeSettings(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetScheme_C", set ? MatDiagSetScheme_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetScheme_C", set ? MatDiagGetScheme_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetMaxFill_C", set ? MatDiagSetMaxFill_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetMaxFill_C", set ? MatDiagGetMaxFill_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetProductKernel_C", set ? MatDiagSetProductKernel_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetProductKernel_C", set ? MatDiagGetProductKernel_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetSOR_C", set ? MatDiagSetSOR_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetSOR_C", set ? MatDiagGetSOR_SeqDiag : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetInfo_C", set ? MatDiagGetInfo_SeqDiag : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
