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

#if defined(__cplusplus)
}
#endif
