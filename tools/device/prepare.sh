#!/bin/sh
# Fills .device/ (git-ignored; name it in the device tool's 'carry') with what the GPU machine
# lacks: the CUDA PETSc/SLEPc tarballs and FCIDUMP files of ../shared, the tutorial sources of
# Debian's 3.18 example packages.  Run here, in the repository root, before a device call.
set -e
cd "$(dirname "$0")/../.."
shared=${GPUMATS_SHARED:-../shared}
mkdir -p .device/fcidump
cp "$shared"/device/*.tar.xz .device/
cp "$shared"/data/fcidump/* .device/fcidump/
rm -rf .device/tutorials
sh tools/build/adapt-tutorials.sh .device/tutorials 18
grep -qx '/.device/' .gitignore || echo '/.device/' >> .git/info/exclude
du -sh .device
