/* MATPCSR settings: the public setters and getters, the options database, and
   the statistics MatView prints. */
#include "pcsr/pcsr_impl.h"

/* ---- public API (manual pages: include/gpumats.h): dispatch through composed functions (seq and MPI) ---- */

PetscErrorCode MatPCSRSetKernel(Mat A, MatPCSRKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(kernel >= MAT_PCSR_KERNEL_AUTO && kernel <= MAT_PCSR_KERNEL_ADAPTIVE, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatPCSRKernel %d", (int)kernel);
  PetscTryMethod(A, "MatPCSRSetKernel_C", (Mat, MatPCSRKernel), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRGetKernel(Mat A, MatPCSRKernel *kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatPCSRGetKernel_C", (Mat, MatPCSRKernel *), (A, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRSetTranspose(Mat A, MatPCSRTranspose mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(mode == MAT_PCSR_TRANSPOSE_ATOMIC || mode == MAT_PCSR_TRANSPOSE_COPY, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MatPCSRTranspose %d", (int)mode);
  PetscTryMethod(A, "MatPCSRSetTranspose_C", (Mat, MatPCSRTranspose), (A, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRGetTranspose(Mat A, MatPCSRTranspose *mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatPCSRGetTranspose_C", (Mat, MatPCSRTranspose *), (A, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRSetPartition(Mat A, GpuMatsPartition partition)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(partition == GPUMATS_PARTITION_ROWS || partition == GPUMATS_PARTITION_NNZ, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown GpuMatsPartition %d", (int)partition);
  PetscTryMethod(A, "MatPCSRSetPartition_C", (Mat, GpuMatsPartition), (A, partition));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRGetPartition(Mat A, GpuMatsPartition *partition)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatPCSRGetPartition_C", (Mat, GpuMatsPartition *), (A, partition));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatPCSRGetInfo(Mat A, MatPCSRInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatPCSRGetInfo_C", (Mat, MatPCSRInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the sequential implementations (the MPI ones: mpipcsr.c); kernel and transpose need no
   rebuild: auto is resolved at each use ---- */

PetscErrorCode MatPCSRApplySettings_SeqAIJPCSR(Mat A, const PCSRSettings *s)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  p->settings = *s; /* by the setters below or by the MPI matrix (mpipcsr.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

GPUMATS_SHADOW_SETTING(MatPCSRSetKernel_SeqAIJPCSR, MatPCSRGetKernel_SeqAIJPCSR, Mat_SeqAIJPCSR, PCSRSettings, kernel, MatPCSRKernel, MatPCSRApplySettings_SeqAIJPCSR)
GPUMATS_SHADOW_SETTING(MatPCSRSetTranspose_SeqAIJPCSR, MatPCSRGetTranspose_SeqAIJPCSR, Mat_SeqAIJPCSR, PCSRSettings, transpose, MatPCSRTranspose, MatPCSRApplySettings_SeqAIJPCSR)

PetscErrorCode MatPCSRComposeSettings_SeqAIJPCSR(Mat A, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRSetKernel_C", set ? MatPCSRSetKernel_SeqAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetKernel_C", set ? MatPCSRGetKernel_SeqAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRSetTranspose_C", set ? MatPCSRSetTranspose_SeqAIJPCSR : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatPCSRGetTranspose_C", set ? MatPCSRGetTranspose_SeqAIJPCSR : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Statistics of the format; builds it if needed (and copies it to the device when
   the products run there), so what is reported is what is used. */
PetscErrorCode MatPCSRGetInfo_SeqAIJPCSR(Mat A, MatPCSRInfo *info)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;
  PetscBool       on_device;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatPCSRGetInfo: the matrix is not assembled");
  PetscCall(MatPCSRUpdate_SeqAIJPCSR(A, &on_device));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->nnz            = p->stats.nnz;
  info->max_row_len    = p->stats.max_row_len;
  info->empty_rows     = p->stats.empty_rows;
  info->mean_row_len   = p->stats.mean_row_len;
  info->stddev_row_len = p->stats.stddev_row_len;
  info->kernel         = PCSRResolveKernel(p->settings.kernel, &p->stats);
  info->on_device      = on_device;
#if GPUMATS_HAVE_CUDA
  if (p->dev) {
    size_t bytes;

    PetscCall(PCSRDeviceBytes(p->dev, &bytes));
    info->bytes_device = (PetscInt64)bytes;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}


static PetscErrorCode MatPCSRView_Info(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;
  MatPCSRInfo     info;
  PetscInt64      m = A->rmap->n, csr_bytes;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetInfo_SeqAIJPCSR(A, &info));
  csr_bytes = info.nnz * (PetscInt64)(sizeof(PetscScalar) + sizeof(int32_t)) + (m + 1) * (PetscInt64)sizeof(int32_t);
  PetscCall(PetscViewerASCIIPrintf(viewer, "PCSR: kernel %s%s, transpose by %s\n", MatPCSRKernels[info.kernel], p->settings.kernel == MAT_PCSR_KERNEL_AUTO ? " (auto)" : "", MatPCSRTransposes[p->settings.transpose]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzeros %" PetscInt64_FMT "; row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt64_FMT ", %" PetscInt64_FMT " empty rows\n", info.nnz, info.mean_row_len, info.stddev_row_len, info.max_row_len, info.empty_rows));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  CSR arrays (32-bit indices): %" PetscInt64_FMT " bytes; on the device %" PetscInt64_FMT " bytes (middle array, row blocks and transposed copy included once used); products run on the %s\n", csr_bytes, info.bytes_device, info.on_device ? "device" : "host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_SeqAIJPCSR(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJPCSR   *p = (Mat_SeqAIJPCSR *)A->spptr;
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall((*p->shadow.parent.view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(MatPCSRView_Info(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of both types, each applied through its public setter; called under a heading
   (the MPI type adds -mat_pcsr_partition to it) */
PetscErrorCode PCSRSetFromOptions(Mat A, GPUMATS_OPTIONS_ARG)
{
  MatPCSRKernel    kernel;
  MatPCSRTranspose transpose;
  PetscEnum        value;
  PetscBool        set;

  PetscFunctionBegin;
  PetscCall(MatPCSRGetKernel(A, &kernel));
  PetscCall(MatPCSRGetTranspose(A, &transpose));
  value = (PetscEnum)kernel;
  PetscCall(PetscOptionsEnum("-mat_pcsr_kernel", "CUDA SpMV kernel (auto: from the row lengths; -info says which)", "MatPCSRSetKernel", MatPCSRKernels, value, &value, &set));
  if (set) PetscCall(MatPCSRSetKernel(A, (MatPCSRKernel)value));
  value = (PetscEnum)transpose;
  PetscCall(PetscOptionsEnum("-mat_pcsr_transpose", "MatMultTranspose on the GPU: atomic updates, or a transposed copy made at first use", "MatPCSRSetTranspose", MatPCSRTransposes, value, &value, &set));
  if (set) PetscCall(MatPCSRSetTranspose(A, (MatPCSRTranspose)value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_SeqAIJPCSR(Mat A, GPUMATS_OPTIONS_ARG)
{
  Mat_SeqAIJPCSR *p = (Mat_SeqAIJPCSR *)A->spptr;

  PetscFunctionBegin;
  if (p->shadow.parent.setfromoptions) PetscCall((*p->shadow.parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(GpuMatsShadowSetFromOptions(A, "SeqAIJPCSR options", PCSRSetFromOptions));
  PetscFunctionReturn(PETSC_SUCCESS);
}
