#!/bin/sh
# Runs the one-process tests (every suite but 'ranks') of the build check-cuda-petsc.sh made
# against a CUDA-enabled PETSc tarball, here, without a GPU: PETSc 3.22 and 3.25 start without a
# GPU driver (3.25 with its NVML stub in lib/stubs), the gpumats types find no device and
# multiply on the host, and the GPU-only tests skip themselves.  So CI runs the host paths
# against that PETSc's AIJ, KSP, SNES and SLEPc, not only its headers.  The tests of several
# ranks are left out: this MPICH's ranks poll while they wait, and on two cores the 3-rank tests
# ran past their timeouts.
# Usage: tools/ci/host-suite-cuda-petsc.sh <petsc tarball> [<slepc tarball>]  (after check-cuda-petsc.sh)
set -e
cd "$(dirname "$0")/../.."
tarball=${1:-../shared/device/petsc325-cuda.tar.xz}
name=$(basename "$tarball" .tar.xz)
build=build-check-$name prefix=/opt/$name
if [ ! -f "$build/build.ninja" ]; then
  echo "host-suite-cuda-petsc: skipped ($build not made: tools/ci/check-cuda-petsc.sh $tarball first)"
  exit 0
fi
libs=$prefix/lib
[ -n "${2:-}" ] && libs=$libs:/opt/$(basename "$2" .tar.xz)/lib
export LD_LIBRARY_PATH="$libs:$prefix/lib/stubs:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$prefix/bin:$PATH" PETSC_OPTIONS="-use_gpu_aware_mpi 0"
meson test -C "$build" --no-suite ranks --print-errorlogs --num-processes "$(nproc)"
