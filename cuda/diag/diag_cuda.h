/* C interface to the DIAG device kernels (cuda/diag/): a DiagFormat (HM or CDM) on the
   device and its products. */
#pragma once
#include "../../src/diag/diag_format.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _n_DiagDevice *DiagDevice;

/* Device copy of a DiagFormat built on the host (its offsets, starts and values).
   Device indices are 32-bit for the sizes and offsets, 64-bit for the value starts;
   allocation errors name the array and the sizes. */
PetscErrorCode DiagDeviceCreate(const DiagFormat *fmt, DiagDevice *dev);
/* New values, same diagonals. */
PetscErrorCode DiagDeviceCopyValues(DiagDevice dev, const DiagFormat *fmt);
PetscErrorCode DiagDeviceDestroy(DiagDevice *dev);
/* y = A x (+ y0) and y = A^T x (+ y0) (the transpose reads the same arrays: diagonal
   -d of A^T is diagonal d of A), device pointers, y0 NULL or equal y allowed.  One
   thread per entry of y, each walking the diagonals: the loads of a diagonal by
   consecutive threads are consecutive.  On GpuMatsCUDAGetStream(). */
PetscErrorCode DiagDeviceMult(DiagDevice dev, PetscBool transpose, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* The values back into fmt->val (same diagonals). */
PetscErrorCode DiagDeviceGetValues(DiagDevice dev, DiagFormat *fmt);

/* C = A B on the device, C's diagonals from DiagProductSymbolic (host).  The pairs of
   diagonals that meet on each diagonal of C are listed once (DiagDeviceProductCreate);
   the numeric phase, again whenever A's or B's values change, runs one thread per
   stored entry of C summing over its pairs: no atomics, each entry written once. */
typedef struct _n_DiagDeviceProduct *DiagDeviceProduct;
PetscErrorCode DiagDeviceProductCreate(const DiagFormat *A, const DiagFormat *B, const DiagFormat *C, DiagDeviceProduct *prod);
PetscErrorCode DiagDeviceProductNumeric(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
/* The same product by the paper's Algorithm 2 (HM only), the reference: one thread per
   stored entry of A, looping over B's diagonals, atomic updates of C (set to 0 first). */
PetscErrorCode DiagDeviceProductNumericAtomic(DiagDeviceProduct prod, DiagDevice A, DiagDevice B, DiagDevice C);
PetscErrorCode DiagDeviceProductDestroy(DiagDeviceProduct *prod);

#if defined(__cplusplus)
}
#endif
