/* Private to cuda/cihybrid/ and the benchmark: the device copy of a
   CIHYBRID matrix and the variants of the tuned kernel.  Plain C. */
#pragma once
#include "cihybrid_cuda.h"

/* The device remainder arrays are allocated (and zero-padded) to a multiple of
   this many entries, so the tuned kernels may read whole aligned chunks of
   up to 4 entries past a row's last remainder entry without leaving them. */
#define CIHYBRID_DEVICE_CSR_PAD 4

struct _n_CIHybridDevice {
  PetscInt     nrows, ncols, width, pitch;
  PetscInt64   nnz, nnz_csr;
  int32_t     *ell_col;   /* nrows*pitch, NULL when pitch == 0 */
  PetscScalar *ell_val;   /* nrows*pitch */
  int32_t     *ell_len;   /* nrows, NULL when width == 0 (every s_i is 0) */
  int32_t     *csr_start; /* nrows+1 */
  int32_t     *csr_col;   /* nnz_csr rounded up to CIHYBRID_DEVICE_CSR_PAD, padding zero */
  PetscScalar *csr_val;   /* same length, padding zero */
  size_t       bytes;     /* device memory held */
};

/* Variants of CIHYBRID_KERNEL_TUNED, timed against each other by
   examples/bench_cihybrid; CIHYBRID_TUNED_DEFAULT is what CIHYBRID_KERNEL_TUNED runs. */
typedef enum {
  CIHYBRID_TUNED_SCALAR = 0,       /* 1-entry chunks, L1::no_allocate, 4 chunks loaded per lane per step */
  CIHYBRID_TUNED_SCALAR_DEEP,      /* as SCALAR with 8 chunks per step */
  CIHYBRID_TUNED_SCALAR_PIPELINED, /* as SCALAR, the next step's loads issued before this step's x gathers */
  CIHYBRID_TUNED_RUNS2,            /* ELL and remainder runs in plain strided loops, 2 loads per lane in flight */
  CIHYBRID_TUNED_RUNS2_PLAIN,      /* as RUNS2 with plain (L1-cached) matrix loads */
  CIHYBRID_TUNED_RUNS1_PLAIN,      /* as RUNS2_PLAIN with 1: the paper's loop bounded by ell_len */
  CIHYBRID_TUNED_NUM_VARIANTS
} CIHybridTunedVariant;
#define CIHYBRID_TUNED_DEFAULT CIHYBRID_TUNED_SCALAR

extern const char *const CIHybridTunedVariantNames[];

/* Lanes per row (4, 8, 16 or 32) the variant uses on this matrix when not forced. */
PetscErrorCode CIHybridDeviceTunedLanesPerRow(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt *lanes);
/* y = A x (+ y0) with one variant; lanes_per_row 0 chooses from the average row length. */
PetscErrorCode CIHybridDeviceMultTuned(CIHybridDevice dev, CIHybridTunedVariant variant, PetscInt lanes_per_row, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y);
