# Sourced by the device scripts, in the repository root: the CUDA PETSc and SLEPc carried in
# .device/ (see ../shared/device/README.md), unpacked where they were built (/opt) and put in
# the environment.  GPUMATS_PETSC picks the pair:
#   3.25 (default)  PETSc 3.25.4 + SLEPc 3.25.1   .device/petsc325-cuda.tar.xz, slepc325-cuda.tar.xz
#   3.22            PETSc 3.22.5 + SLEPc 3.22.2   .device/petsc-cuda.tar.xz, slepc-cuda.tar.xz
# SLEPc is optional (without it the eigensolver tests and the main job are not built).
case ${GPUMATS_PETSC:=3.25} in
  3.25) gpumats_petsc=petsc325-cuda gpumats_slepc=slepc325-cuda ;;
  3.22) gpumats_petsc=petsc-cuda gpumats_slepc=slepc-cuda ;;
  *) echo "GPUMATS_PETSC=$GPUMATS_PETSC: the CUDA PETSc carried is 3.25 or 3.22" >&2; exit 2 ;;
esac
if [ ! -f /opt/$gpumats_petsc/lib/libpetsc.so ]; then
  tar xJf .device/$gpumats_petsc.tar.xz -C / || { echo "no .device/$gpumats_petsc.tar.xz: copy it from ../shared/device" >&2; exit 1; }
fi
export GPUMATS_PETSC PETSC_DIR=/opt/$gpumats_petsc
export PATH=$PETSC_DIR/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$PETSC_DIR/lib:${LD_LIBRARY_PATH:-}
unset SLEPC_DIR
if [ -f .device/$gpumats_slepc.tar.xz ]; then
  [ -f /opt/$gpumats_slepc/lib/libslepc.so ] || tar xJf .device/$gpumats_slepc.tar.xz -C /
  export SLEPC_DIR=/opt/$gpumats_slepc LD_LIBRARY_PATH=/opt/$gpumats_slepc/lib:$LD_LIBRARY_PATH
fi
# this MPICH is not GPU-aware: PETSc refuses CUDA without being told
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
