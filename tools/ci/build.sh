#!/bin/sh
# Configures and builds gpumats in ${BUILD:-build} (CUDA when nvcc is found).
set -e
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" "$@"
ninja -C "$BUILD"
