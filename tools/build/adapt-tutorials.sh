#!/bin/sh
# Makes <to>, a tree of the PETSc and SLEPc 3.18 tutorials the suite runs (tests/tutorials), with
# the calls that later PETSc versions renamed written as PETSc 3.<minor> spells them; nothing
# else in a tutorial changes.  The sources are Debian's libpetsc3.18-dev-examples and
# libslepc3.18-dev-examples where installed, else their copy in .device/tutorials (the GPU
# machine: tools/device/prepare.sh makes it).
#   3.21: DMDASNESFunction, -Jacobian, -Objective became the function types ...Fn (SNES ex5's casts)
#   3.25: KSPSetDMActive takes what the DM computes (KSP ex29: KSP_DMACTIVE_ALL, as before)
# Usage: tools/build/adapt-tutorials.sh <to> <PETSc minor version>   (in the repository root)
set -e
to=$1 minor=$2
petsc=/usr/share/petsc/3.18/share/petsc/examples slepc=/usr/share/slepc/3.18/share/slepc/examples
if [ ! -f $petsc/src/ksp/ksp/tutorials/ex2.c ]; then petsc=.device/tutorials slepc=.device/tutorials; fi
[ -f $petsc/src/ksp/ksp/tutorials/ex2.c ] || { echo "adapt-tutorials: no tutorial sources (install libpetsc3.18-dev-examples or make .device/tutorials)" >&2; exit 1; }
[ "$to" != $petsc ] || { echo "adapt-tutorials: $to is the source" >&2; exit 1; }
rm -rf "$to"
# the sources only (the folders also hold data files and outputs, 13 MB)
for d in $petsc/src/ksp/ksp/tutorials $petsc/src/snes/tutorials $petsc/src/ts/tutorials $slepc/src/eps/tutorials; do
  [ -d "$d" ] || continue
  dest="$to/${d#"${d%/src/*}"/}"
  mkdir -p "$dest"
  cp "$d"/*.c "$d"/*.h "$dest/" 2>/dev/null || cp "$d"/*.c "$dest/"
done
if [ "$minor" -ge 21 ]; then
  sed -i -E 's/\(DMDASNES(Function|Jacobian|Objective)\)/(DMDASNES\1Fn *)/g' "$to/src/snes/tutorials/ex5.c"
fi
if [ "$minor" -ge 25 ]; then
  sed -i -E 's/KSPSetDMActive\(ksp, (PETSC_TRUE|PETSC_FALSE)\)/KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, \1)/' "$to/src/ksp/ksp/tutorials/ex29.c"
fi
