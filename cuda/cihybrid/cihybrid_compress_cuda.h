/* The compressed cihybrid form (<gpumats_cihybrid_compress.h>) on the device: its upload,
   y = A x (+ y0) and y = A^T x (+ y0) (cuda/cihybrid/cihybrid_compress.cu).  The products of a
   compressed cihybrid Mat (src/cihybrid/cihybrid_compressed.c) and the test
   tests/test_cihybrid_compress_device.cu use it.  Plain C. */
#pragma once
#include <gpumats_cihybrid_compress.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* Dictionaries of at most this many magnitudes (32 KiB of doubles: within the 48 KiB of shared
   memory a block has without opting in) are staged in shared memory by each block of the
   product; larger ones are read from global memory through the read-only path. */
#define CIHYBRID_COMPRESSED_SHARED_DICT_MAX CIHYBRID_DICT_DEFAULT

typedef struct _n_CIHybridCompressedDevice *CIHybridCompressedDevice;

/* Where the product reads the dictionary: AUTO takes shared memory when the dictionary has at
   most CIHYBRID_COMPRESSED_SHARED_DICT_MAX entries; SHARED (an error for a larger one) and
   GLOBAL force one way, so that a test can run both on one matrix. */
typedef enum {
  CIHYBRID_COMPRESSED_DICT_AUTO = 0,
  CIHYBRID_COMPRESSED_DICT_SHARED,
  CIHYBRID_COMPRESSED_DICT_GLOBAL
} CIHybridCompressedDictPlace;

/* A device copy of every array of cmp (a result of CIHybridCompress: sizes checked to fit the
   int32 device indices), uploaded and checked; allocation failures are PETSC_ERR_MEM naming
   the array and the sizes.  On failure nothing stays allocated and *dev is NULL. */
PetscErrorCode CIHybridCompressedDeviceCreate(const CIHybridCompressed *cmp, CIHybridCompressedDevice *dev);
/* Frees the copy (NULL: nothing); *dev becomes NULL. */
PetscErrorCode CIHybridCompressedDeviceDestroy(CIHybridCompressedDevice *dev);
/* Device memory held by the copy's arrays. */
PetscErrorCode CIHybridCompressedDeviceBytes(CIHybridCompressedDevice dev, size_t *bytes);
/* y = A x (+ y0), device vectors; y0 may be NULL or equal y.  One warp a row; queued on
   GpuMatsCUDAGetStream(), returns without waiting.  The sums are in another order than the
   host kernels': equal to them up to rounding, not bit for bit. */
PetscErrorCode CIHybridCompressedDeviceMult(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
/* The same with the dictionary read from 'place'. */
PetscErrorCode CIHybridCompressedDeviceMultDict(CIHybridCompressedDevice dev, CIHybridCompressedDictPlace place, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

/* y = A^T x (+ y0), device vectors; y0 may be NULL or equal y.  A fallback of one thread a row
   with atomics (results equal to the host kernel's up to rounding); queued on
   GpuMatsCUDAGetStream(). */
PetscErrorCode CIHybridCompressedDeviceMultTranspose(CIHybridCompressedDevice dev, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);

#if defined(__cplusplus)
}
#endif
