#!/bin/sh
# The main job: lowest eigenvalues of a CI Hamiltonian with -mat_type cihybrid
# (on the GPU when gpumats was built with CUDA and one is present).
set -e
cd "$(dirname "$0")/.."
sh tools/ci/setup-debian.sh
sh tools/ci/build.sh
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
# Default: the 3x4 Hubbard model (853,776 determinants) against its published ground state
# -4.913259209075605; exit status 1 when an energy misses its reference (ci_eigen -help for more).
exec "$BUILD/examples/ci_eigen" -dll_append "$BUILD/libgpumats.so" -mat_type cihybrid "$@"
