/* C interface to the PCSR device kernels (cuda/pcsr/): plain CSR on the device,
   SpMV by the two-kernel scheme of He and Gao (2016) and by our variants.  PCSRDevice, its
   creation and its products are the format's exported kernel interface,
   <gpumats_pcsr_format.h>; here only what the library's glue calls beside them. */
#pragma once
#include <gpumats_pcsr_format.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* The values only (same structure); a transposed copy is refreshed on its next use. */
PetscErrorCode PCSRDeviceCopyValues(PCSRDevice dev, const PetscInt *ai, const PetscScalar *aa);

/* Value changes made on the device copy as AIJ makes them on the host (pcsr_algebra.cu):
   val = a val; val = 0; val = val + a x.val or = x.val (copy; *done false when x has another
   shape); a_ii + shift (d NULL), = d[i] or + d[i] (add) for the stored a_ii, d in device memory */
PetscErrorCode PCSRDeviceScaleValues(PCSRDevice dev, PetscScalar a);
PetscErrorCode PCSRDeviceZeroValues(PCSRDevice dev);
PetscErrorCode PCSRDeviceAXPYValues(PCSRDevice y, PetscScalar a, PCSRDevice x, PetscBool copy, PetscBool *done);
PetscErrorCode PCSRDeviceUpdateDiagonal(PCSRDevice dev, PetscScalar shift, const PetscScalar *d, PetscBool add);

/* MatSetValuesCOO with values in device memory (pcsr_coo.cu): the map from the COO entries to the
   stored entries (AIJ's order), the device arrays jmap (nnz + 1) and perm of GpuMatsCOOStoredMap
   (jmap NULL where each stored entry p has one COO entry, perm[p]; perm NULL too where that is p),
   made at MatSetPreallocationCOO and owned by the map from Create on (freed by it, also when
   Create fails); SetValues sums the values at the map's places (v, and recv for an MPI matrix's
   block: gpumats_coo_values.cuh) into the device values (added to them when 'add').
   DownloadValues copies the device values into host_values (the AIJ master's nnz values). */
typedef struct _n_PCSRDeviceCOO *PCSRDeviceCOO;
PetscErrorCode PCSRDeviceCOOCreate(int32_t nnz, int32_t *jmap, int32_t *perm, PCSRDeviceCOO *coo);
PetscErrorCode PCSRDeviceCOODestroy(PCSRDeviceCOO *coo);
PetscErrorCode PCSRDeviceCOOSetValues(PCSRDevice dev, PCSRDeviceCOO coo, const PetscScalar *v, const PetscScalar *recv, PetscBool add);
PetscErrorCode PCSRDeviceDownloadValues(PCSRDevice dev, PetscScalar *host_values);

#if defined(__cplusplus)
}
#endif
