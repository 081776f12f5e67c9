#!/bin/sh
# Builds gpumats and runs its test suite (meson test). Extra arguments go to meson test.
set -e
cd "$(dirname "$0")/.."
sh tools/ci/setup-debian.sh
sh tools/ci/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
meson test -C "${BUILD:-build}" --print-errorlogs "$@"
