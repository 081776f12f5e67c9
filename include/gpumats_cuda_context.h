/* The device that gpumats' kernel launchers run on (CUDA builds of libgpumats only).

   Installed for programs that call the launchers of a format's kernel interface
   (gpumats_cihybrid_format.h, gpumats_pcsr_format.h, gpumats_diag_format.h: the benchmarks in
   benchmarks/src) and must order their own copies and timing events with them.  A program that
   uses gpumats through Mat needs none of this.  Both functions are defined only when libgpumats
   was built with CUDA; with a CUDA-enabled PETSc the device and the stream are PETSc's. */
#pragma once
#include <petscsys.h>

/* Probes for a usable device once and selects it (PETSc's choice with a CUDA PETSc; else the
   node-local rank modulo the device count, or -gpumats_device <id>).  No device or driver is
   not an error: *avail is PETSC_FALSE and *why says why (either may be NULL). */
PETSC_EXTERN PetscErrorCode GpuMatsCUDAInitialize(PetscBool *avail, const char **why);
/* The stream every launcher queues its kernels and copies on (a cudaStream_t, returned as void *
   so that C callers need no CUDA header): record timing events and order copies on it.  An
   error when no device can be used. */
PETSC_EXTERN PetscErrorCode GpuMatsCUDAGetStream(void **stream);
