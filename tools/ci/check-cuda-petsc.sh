#!/bin/sh
# Compiles and links gpumats (library, tests, examples, FCI library, benchmarks: every default
# target, -Dexamples=true builds fci/ and benchmarks/ too) against a CUDA-enabled PETSc tarball
# of ../shared/device (petsc-cuda.tar.xz: 3.22, petsc325-cuda.tar.xz: 3.25), with its SLEPc when
# the tarball beside it is there, so that API differences between PETSc versions are caught on a
# machine without GPU.  Nothing is run.  A warning fails the check (-Dwerror), and so does a
# PETSc function the plugin calls that the public headers do not declare (check-petsc-symbols.sh).
# Usage: tools/ci/check-cuda-petsc.sh <petsc tarball> [<slepc tarball>]
set -e
cd "$(dirname "$0")/../.."
tarball=${1:-../shared/device/petsc325-cuda.tar.xz}
if [ ! -f "$tarball" ] || [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "check-cuda-petsc: skipped (needs $tarball and /usr/local/cuda/bin/nvcc)"
  exit 0
fi
name=$(basename "$tarball" .tar.xz)
prefix=/opt/$name # where the tarball was built and unpacks
[ -f "$prefix/lib/libpetsc.so" ] || tar xJf "$tarball" -C /
slepc_opt="" slepc=""
if [ -n "${2:-}" ] && [ -f "$2" ]; then
  slepc=/opt/$(basename "$2" .tar.xz)
  [ -f "$slepc/lib/libslepc.so" ] || tar xJf "$2" -C /
  slepc_opt="-Dslepc_dir=$slepc"
fi
export PATH=/usr/local/cuda/bin:$PATH
# libpetsc needs libcuda.so.1 (and from 3.25 libnvidia-ml.so.1), which only a GPU driver
# provides: link against the stubs (the CUDA toolkit's, the NVML one in the 3.25 prefix)
stub=$(mktemp -d)
ln -s /usr/local/cuda/lib64/stubs/libcuda.so "$stub/libcuda.so.1"
links="$stub"
[ -d "$prefix/lib/stubs" ] && links="$links $prefix/lib/stubs"
c_link="" cuda_link=""
for d in $links; do c_link="$c_link -Wl,-rpath-link,$d"; cuda_link="$cuda_link -Xlinker=-rpath-link,$d"; done
build=build-check-$name
rm -rf "$build"
# the tutorials of the suite too, as this PETSc spells what they call
minor=$(awk '/define PETSC_VERSION_MINOR/ {print $3}' "$prefix/include/petscversion.h")
tutorials_opt=""
sh tools/build/adapt-tutorials.sh "$build-tutorials" "$minor" && tutorials_opt="-Dtutorials_dir=$PWD/$build-tutorials"
# shellcheck disable=SC2086
meson setup "$build" -Dcuda=enabled -Dwerror=true -Dpetsc_dir="$prefix" $slepc_opt $tutorials_opt \
  -Dc_link_args="$c_link" -Dcuda_link_args="$cuda_link" >/dev/null
ninja -C "$build"
sh tools/ci/check-petsc-symbols.sh "$build/libgpumats.so" "$prefix" $slepc
echo "check-cuda-petsc: gpumats builds without warnings and links against $(grep -o 'PETSc 3[.0-9]* with CUDA' "$build/meson-logs/meson-log.txt" | tail -1)${slepc_opt:+ and its SLEPc}"
