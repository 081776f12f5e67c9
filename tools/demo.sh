#!/bin/sh
# The main job: lowest eigenvalues of a CI Hamiltonian with -mat_type cihybrid
# (on the GPU when gpumats was built with CUDA and one is present).
set -e
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
sh tools/build.sh
BUILD=${BUILD:-build}
exec "$BUILD/examples/ci_eigen" -dll_append "$PWD/$BUILD/libgpumats.so" -mat_type cihybrid "$@"
