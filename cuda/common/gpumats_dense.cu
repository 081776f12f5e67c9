/* Dense column-major blocks staged through a GpuMatsStage: how host dense
   matrices reach the device SpMM kernels of every format. */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <string.h>
extern "C" {
#include "gpumats_cuda.h"
}

/* Host blocks with a leading dimension go through the pinned buffer packed
   (leading dimension m), so the device kernel and the copies move only the
   m x k entries and a download never writes the rows between m and lda. */
static size_t GpuMatsDenseBytes(PetscInt m, PetscInt k)
{
  return (size_t)m * (size_t)k * sizeof(PetscScalar);
}

PetscErrorCode GpuMatsStageDenseReserve(GpuMatsStage *stage, PetscInt m, PetscInt k, PetscScalar **dev)
{
  PetscFunctionBegin;
  PetscCall(GpuMatsStageReserve(stage, GpuMatsDenseBytes(m, k)));
  *dev = (PetscScalar *)stage->device;
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageDenseUpload(GpuMatsStage *stage, const PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda, PetscScalar **dev)
{
  const size_t bytes = GpuMatsDenseBytes(m, k);
  PetscScalar *pinned;
  void        *s;

  PetscFunctionBegin;
  PetscCall(GpuMatsStageDenseReserve(stage, m, k, dev));
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(GpuMatsCUDAGetStream(&s));
  GpuMatsCallCUDA(cudaStreamSynchronize((cudaStream_t)s)); /* an earlier upload may still be reading the pinned buffer */
  pinned = (PetscScalar *)stage->pinned;
  for (PetscInt j = 0; j < k; j++) memcpy(pinned + (size_t)j * m, host + (size_t)j * lda, (size_t)m * sizeof(PetscScalar));
  GpuMatsCallCUDA(cudaMemcpyAsync(stage->device, pinned, bytes, cudaMemcpyHostToDevice, (cudaStream_t)s));
  PetscFunctionReturn(0);
}

PetscErrorCode GpuMatsStageDenseDownload(GpuMatsStage *stage, PetscScalar *host, PetscInt m, PetscInt k, PetscInt lda)
{
  const size_t       bytes = GpuMatsDenseBytes(m, k);
  const PetscScalar *pinned;
  void              *s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCheck(bytes <= stage->bytes, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Download of a %" PetscInt_FMT " x %" PetscInt_FMT " block from a staging buffer of %zu bytes", m, k, stage->bytes);
  PetscCall(GpuMatsCUDAGetStream(&s));
  GpuMatsCallCUDA(cudaMemcpyAsync(stage->pinned, stage->device, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)s));
  GpuMatsCallCUDA(cudaStreamSynchronize((cudaStream_t)s));
  pinned = (const PetscScalar *)stage->pinned;
  for (PetscInt j = 0; j < k; j++) memcpy(host + (size_t)j * lda, pinned + (size_t)j * m, (size_t)m * sizeof(PetscScalar));
  PetscFunctionReturn(0);
}
