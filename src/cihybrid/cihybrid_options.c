/* MATCIHYBRID settings: the public setters and getters, the options
   database, and the format statistics MatView prints. */
#include "cihybrid/cihybrid_impl.h"
#include <stdlib.h>

static const char *const CIHybridSplits[] = {"entries", "columns", "MatCIHybridSplit", "MAT_CIHYBRID_SPLIT_", NULL};
static const char *const CIHybridKernels[] = {"tuned", "paper"}; /* as numbered in MatCIHybridKernel */
static const char *const CIHybridCompressions[] = {"none", "full", "MatCIHybridCompress", "MAT_CIHYBRID_COMPRESS_", NULL};

/* ---- public API: dispatch through composed functions (seq and MPI) ---- */

PetscErrorCode MatCIHybridSetBoundary(Mat A, PetscInt boundary)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(boundary >= 0 || boundary == MAT_CIHYBRID_BOUNDARY_AUTO, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "BOUNDARY must be >= 0 or MAT_CIHYBRID_BOUNDARY_AUTO, not %" PetscInt_FMT, boundary);
  PetscTryMethod(A, "MatCIHybridSetBoundary_C", (Mat, PetscInt), (A, boundary));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetBoundary(Mat A, PetscInt *boundary)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridGetBoundary_C", (Mat, PetscInt *), (A, boundary));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridSetSplit(Mat A, MatCIHybridSplit split)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(split == MAT_CIHYBRID_SPLIT_ENTRIES || split == MAT_CIHYBRID_SPLIT_COLUMNS, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatCIHybridSplit %d", (int)split);
  PetscTryMethod(A, "MatCIHybridSetSplit_C", (Mat, MatCIHybridSplit), (A, split));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetSplit(Mat A, MatCIHybridSplit *split)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridGetSplit_C", (Mat, MatCIHybridSplit *), (A, split));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridSetKernel(Mat A, MatCIHybridKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(kernel == MAT_CIHYBRID_KERNEL_TUNED || kernel == MAT_CIHYBRID_KERNEL_PAPER, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatCIHybridKernel %d", (int)kernel);
  PetscTryMethod(A, "MatCIHybridSetKernel_C", (Mat, MatCIHybridKernel), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetKernel(Mat A, MatCIHybridKernel *kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridGetKernel_C", (Mat, MatCIHybridKernel *), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridSetCompress(Mat A, MatCIHybridCompress compress)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(compress == MAT_CIHYBRID_COMPRESS_NONE || compress == MAT_CIHYBRID_COMPRESS_FULL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatCIHybridCompress %d", (int)compress);
  PetscTryMethod(A, "MatCIHybridSetCompress_C", (Mat, MatCIHybridCompress), (A, compress));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetCompress(Mat A, MatCIHybridCompress *compress)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridGetCompress_C", (Mat, MatCIHybridCompress *), (A, compress));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridGetInfo(Mat A, MatCIHybridInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatCIHybridGetInfo_C", (Mat, MatCIHybridInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the sequential implementations: each a change of the settings (a new BOUNDARY or split
   means a new layout, made from the host AIJ) ---- */

GPUMATS_SHADOW_SETTING(MatCIHybridSetBoundary_SeqAIJCIHybrid, MatCIHybridGetBoundary_SeqAIJCIHybrid, Mat_SeqAIJCIHybrid, CIHybridSettings, boundary, PetscInt, MatCIHybridApplySettings_SeqAIJCIHybrid)
GPUMATS_SHADOW_SETTING(MatCIHybridSetSplit_SeqAIJCIHybrid, MatCIHybridGetSplit_SeqAIJCIHybrid, Mat_SeqAIJCIHybrid, CIHybridSettings, split, MatCIHybridSplit, MatCIHybridApplySettings_SeqAIJCIHybrid)
/* the same arrays serve both kernels: MatCIHybridApplySettings_SeqAIJCIHybrid keeps the layout */
GPUMATS_SHADOW_SETTING(MatCIHybridSetKernel_SeqAIJCIHybrid, MatCIHybridGetKernel_SeqAIJCIHybrid, Mat_SeqAIJCIHybrid, CIHybridSettings, kernel, MatCIHybridKernel, MatCIHybridApplySettings_SeqAIJCIHybrid)
/* the compressed form is made from the host arrays at the next product (the same layout) */
GPUMATS_SHADOW_SETTING(MatCIHybridSetCompress_SeqAIJCIHybrid, MatCIHybridGetCompress_SeqAIJCIHybrid, Mat_SeqAIJCIHybrid, CIHybridSettings, compress, MatCIHybridCompress, MatCIHybridApplySettings_SeqAIJCIHybrid)

/* MatCIHybridSet/GetBoundary, Set/GetSplit, Set/GetKernel, Set/GetCompress on A (the MPI ones: mpicihybrid.c) */
PetscErrorCode MatCIHybridComposeSettings_SeqAIJCIHybrid(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetBoundary_C", set ? MatCIHybridSetBoundary_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetBoundary_C", set ? MatCIHybridGetBoundary_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetSplit_C", set ? MatCIHybridSetSplit_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetSplit_C", set ? MatCIHybridGetSplit_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetKernel_C", set ? MatCIHybridSetKernel_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetKernel_C", set ? MatCIHybridGetKernel_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridSetCompress_C", set ? MatCIHybridSetCompress_SeqAIJCIHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatCIHybridGetCompress_C", set ? MatCIHybridGetCompress_SeqAIJCIHybrid : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Statistics of the format; builds it if needed (and uploads it when the
   products run on the device), so what is reported is what is used. */
PetscErrorCode MatCIHybridGetInfo_SeqAIJCIHybrid(Mat A, MatCIHybridInfo *info)
{
  Mat_SeqAIJCIHybrid   *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  const CIHybridFormat *f = &h->fmt;
  PetscBool             on_device;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatCIHybridGetInfo: the matrix is not assembled");
  PetscCall(MatCIHybridUpdate_SeqAIJCIHybrid(A, &on_device));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->boundary   = f->boundary;
  info->width      = f->width;
  info->pitch      = f->pitch;
  info->nnz        = f->nnz;
  info->nnz_ell    = f->nnz_ell;
  info->nnz_csr    = f->nnz_csr;
  info->padding    = f->padding;
  /* the layout (ell_len, csr_start) unless made on the device; the arrays only where the host multiplies */
  info->bytes_host = f->csr_start ? f->nrows * (PetscInt64)sizeof(int32_t) + (f->nrows + 1) * (PetscInt64)sizeof(int32_t) : 0;
  if (f->ell_col) info->bytes_host += (PetscInt64)f->nrows * f->pitch * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t)) + f->nnz_csr * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t));
#if GPUMATS_HAVE_CUDA
  if (h->dev) {
    size_t bytes;

    PetscCall(CIHybridDeviceBytes(h->dev, &bytes));
    info->bytes_device = (PetscInt64)bytes;
    info->on_device    = PETSC_TRUE;
  }
#endif
  PetscCall(CIHybridCompressedGetInfo(h, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCIHybridView_Info(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  MatCIHybridInfo     info;
  PetscBool           on_device;
  PetscInt64          m = A->rmap->n, ell_bytes, csr_bytes, plain_csr;

  PetscFunctionBegin;
  PetscCall(MatCIHybridGetInfo_SeqAIJCIHybrid(A, &info));
  PetscCall(GpuMatsBackendUsesDevice(A, h->shadow.base.backend, &on_device));
  /* the paper's memory formula: N*W*(val+idx) for ELLPACK, nnz_csr*(val+idx) + (N+1)*idx for CSR */
  ell_bytes = m * info.width * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t));
  csr_bytes = info.nnz_csr * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t)) + (m + 1) * (PetscInt64)sizeof(int32_t);
  plain_csr = info.nnz * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t)) + (m + 1) * (PetscInt64)sizeof(int32_t);
  PetscCall(PetscViewerASCIIPrintf(viewer, "CIHYBRID: split %s, BOUNDARY %" PetscInt_FMT "%s, ELLPACK width %" PetscInt_FMT " (row pitch %" PetscInt_FMT ")\n", CIHybridSplits[h->settings.split], info.boundary, h->settings.boundary == MAT_CIHYBRID_BOUNDARY_AUTO ? " (auto)" : "", info.width, info.pitch));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzeros: %" PetscInt64_FMT " = %" PetscInt64_FMT " in ELLPACK (%.1f%%) + %" PetscInt64_FMT " in CSR (%.1f%%); ELLPACK padding %" PetscInt64_FMT " slots (%.1f%% of the block)\n", info.nnz, info.nnz_ell, info.nnz ? 100.0 * (double)info.nnz_ell / (double)info.nnz : 0.0, info.nnz_csr, info.nnz ? 100.0 * (double)info.nnz_csr / (double)info.nnz : 0.0, info.padding, (m > 0 && info.width > 0) ? 100.0 * (double)info.padding / (double)(m * info.width) : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  memory (paper's formula): ELLPACK %" PetscInt64_FMT " + CSR %" PetscInt64_FMT " = %" PetscInt64_FMT " bytes (plain CSR: %" PetscInt64_FMT ")\n", ell_bytes, csr_bytes, ell_bytes + csr_bytes, plain_csr));
  if (info.compressed) PetscCall(PetscViewerASCIIPrintf(viewer, "  compressed: %.2f bytes a nonzero read by a product, dictionary of %" PetscInt_FMT " values covering %.1f%% of the nonzeros, %" PetscInt64_FMT " explicit values, %" PetscInt64_FMT " escaped columns\n", info.bytes_per_nonzero, info.dict_count, info.nnz ? 100.0 * (double)(info.nnz - info.nnz_explicit) / (double)info.nnz : 100.0, info.nnz_explicit, info.escapes));
  else if (h->settings.compress != MAT_CIHYBRID_COMPRESS_NONE) PetscCall(PetscViewerASCIIPrintf(viewer, "  not compressed: assembled on the device (MatCIHybridAssembleOnDevice), which keeps the plain form\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  shadow copy: %" PetscInt64_FMT " bytes on host, %" PetscInt64_FMT " bytes on device; products run on the %s%s\n", info.bytes_host, info.bytes_device, on_device ? "device" : "host", on_device && h->settings.kernel == MAT_CIHYBRID_KERNEL_PAPER ? " (paper's kernel)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_SeqAIJCIHybrid(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;
  PetscBool           ascii;
  PetscViewerFormat   format;

  PetscFunctionBegin;
  PetscCall((*h->shadow.parent.view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(MatCIHybridView_Info(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_cihybrid_boundary takes a number or 'auto' */
static PetscErrorCode CIHybridParseBoundary(Mat A, const char *text, PetscInt *boundary)
{
  PetscBool isauto;
  char     *end;
  long      v;

  PetscFunctionBegin;
  PetscCall(PetscStrcasecmp(text, "auto", &isauto));
  if (isauto) {
    *boundary = MAT_CIHYBRID_BOUNDARY_AUTO;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  v = strtol(text, &end, 10);
  PetscCheck(end != text && *end == '\0' && v >= 0 && v <= PETSC_MAX_INT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "-mat_cihybrid_boundary: expected a nonnegative integer or 'auto', got '%s'", text);
  *boundary = (PetscInt)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of the sequential and the MPI type, each applied through its public setter */
PetscErrorCode CIHybridSetFromOptions(Mat A, GPUMATS_OPTIONS_ARG)
{
  char              text[64];
  PetscBool         set;
  PetscInt          boundary, kernel;
  MatCIHybridSplit  split;
  MatCIHybridKernel current;
  MatCIHybridCompress compress;
  PetscEnum         value;

  PetscFunctionBegin;
  PetscCall(MatCIHybridGetBoundary(A, &boundary));
  PetscCall(MatCIHybridGetSplit(A, &split));
  PetscCall(MatCIHybridGetKernel(A, &current));
  PetscCall(MatCIHybridGetCompress(A, &compress));
  PetscOptionsHeadBegin(PetscOptionsObject, "CIHYBRID matrix options");
  if (boundary == MAT_CIHYBRID_BOUNDARY_AUTO) PetscCall(PetscStrncpy(text, "auto", sizeof(text)));
  else PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, boundary));
  PetscCall(PetscOptionsString("-mat_cihybrid_boundary", "ELLPACK width: nonzeros per row kept in ELLPACK (split entries) or the first column kept in CSR (split columns); auto: the fewest bytes moved a product (entries), a tenth of the columns (columns)", "MatCIHybridSetBoundary", text, text, sizeof(text), &set));
  if (set) {
    PetscCall(CIHybridParseBoundary(A, text, &boundary));
    PetscCall(MatCIHybridSetBoundary(A, boundary));
  }
  value = (PetscEnum)split;
  PetscCall(PetscOptionsEnum("-mat_cihybrid_split", "How rows are split between ELLPACK and CSR", "MatCIHybridSetSplit", CIHybridSplits, value, &value, &set));
  if (set) PetscCall(MatCIHybridSetSplit(A, (MatCIHybridSplit)value));
  kernel = (PetscInt)current;
  PetscCall(PetscOptionsEList("-mat_cihybrid_kernel", "CUDA SpMV kernel", "MatCIHybridSetKernel", CIHybridKernels, 2, CIHybridKernels[kernel], &kernel, &set));
  if (set) PetscCall(MatCIHybridSetKernel(A, (MatCIHybridKernel)kernel));
  value = (PetscEnum)compress;
  PetscCall(PetscOptionsEnum("-mat_cihybrid_compress", "Entries as 16-bit value codes into a dictionary of the most frequent values and 16-bit column gaps (exact; about 4 bytes a nonzero for a CI Hamiltonian)", "MatCIHybridSetCompress", CIHybridCompressions, value, &value, &set));
  if (set) PetscCall(MatCIHybridSetCompress(A, (MatCIHybridCompress)value));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_SeqAIJCIHybrid(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_SeqAIJCIHybrid *h = (Mat_SeqAIJCIHybrid *)A->spptr;

  PetscFunctionBegin;
  if (h->shadow.parent.setfromoptions) PetscCall((*h->shadow.parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(GpuMatsShadowSetFromOptions(A, "SeqAIJCIHybrid options", CIHybridSetFromOptions));
  PetscFunctionReturn(PETSC_SUCCESS);
}
