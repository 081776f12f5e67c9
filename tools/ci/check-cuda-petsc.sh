#!/bin/sh
# Compiles and links gpumats (library, tests, examples, FCI library, benchmarks: every default
# target, -Dexamples=true builds fci/ and benchmarks/ too) against the CUDA-enabled
# PETSc 3.22 tarball, so API differences between PETSc versions are caught on a
# machine without GPU. Nothing is run. Usage: tools/ci/check-cuda-petsc.sh <petsc-cuda.tar.xz>
set -e
cd "$(dirname "$0")/../.."
tarball=${1:-../shared/device/petsc-cuda.tar.xz}
if [ ! -f "$tarball" ] || [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "check-cuda-petsc: skipped (needs $tarball and /usr/local/cuda/bin/nvcc)"
  exit 0
fi
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf "$tarball" -C /
export PETSC_DIR=/opt/petsc-cuda PATH=/usr/local/cuda/bin:$PATH
# libpetsc needs libcuda.so.1, which only a GPU driver provides: link against the stub
stub=$(mktemp -d)
ln -s /usr/local/cuda/lib64/stubs/libcuda.so "$stub/libcuda.so.1"
rm -rf build-cuda-check
meson setup build-cuda-check -Dcuda=enabled -Dc_link_args="-Wl,-rpath-link,$stub" -Dcuda_link_args="-Xlinker=-rpath-link,$stub" >/dev/null
ninja -C build-cuda-check
echo "check-cuda-petsc: gpumats builds and links against PETSc 3.22 with CUDA"
