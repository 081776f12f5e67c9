#!/bin/sh
# Runs a few tests under valgrind memcheck, in a normal (not sanitized) build.
#
#   sh tools/qa/valgrind.sh               every test below
#   sh tools/qa/valgrind.sh NAME...       only these (diag_format cihybrid_builder fci cihybrid_ops pcsr_ops)
#   BUILD=build-vg2 sh tools/qa/valgrind.sh   another build folder (default build-vg)
#
# Configures (once) ${BUILD:-build-vg} with -Dcuda=disabled (valgrind does not run the
# CUDA driver) and runs, one rank each, without mpiexec:
#   diag_format       tests/test_diag_format
#   cihybrid_builder  tests/test_cihybrid_builder
#   fci               fci/tests test_fci -test headers,badinput,slater,hubbard
#   cihybrid_ops      tests/test_cihybrid_ops
#   pcsr_ops          tests/test_pcsr_ops
# with  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
# so that an invalid read or write, a use of an uninitialised value, or a block definitely
# lost makes the run fail; "possibly lost" and "still reachable" blocks (Open MPI's and
# PETSc's own, freed at exit) are not errors.  Suppressions: Open MPI's own file
# (/usr/share/openmpi/openmpi-valgrind.supp), PETSc's (petsc-val.supp) where installed, and
# tests/sanitizer/valgrind.supp (each entry says why it is not our defect).
# Logs go to $BUILD/valgrind/NAME.log; a summary line per test is printed, and the exit
# status is 1 when any test failed.
#
# The sanitizers (ASan + UBSan, the whole suite): tools/qa/sanitize.sh.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
BUILD=${BUILD:-build-vg}
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" -Dcuda=disabled || exit 1
fi
ninja -C "$BUILD" ${NINJA_JOBS:+-j "$NINJA_JOBS"} || exit 1
command -v valgrind >/dev/null 2>&1 || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
supp="--suppressions=$root/tests/sanitizer/valgrind.supp"
for f in /usr/share/openmpi/openmpi-valgrind.supp /usr/share/petsc/*/share/petsc/valgrind/petsc-val.supp; do
  [ -f "$f" ] && supp="$supp --suppressions=$f"
done
data=$root/../shared/data/fcidump
logs=$BUILD/valgrind
mkdir -p "$logs"

[ $# -gt 0 ] || set -- diag_format cihybrid_builder fci cihybrid_ops pcsr_ops
status=0
for name in "$@"; do
  case $name in
    diag_format) cmd="$BUILD/tests/test_diag_format" ;;
    cihybrid_builder) cmd="$BUILD/tests/test_cihybrid_builder" ;;
    fci) cmd="$BUILD/fci/test_fci $data -test headers,badinput,slater,hubbard" ;;
    cihybrid_ops) cmd="$BUILD/tests/test_cihybrid_ops -binary_file $BUILD/tests/valgrind_cihybrid_ops.bin" ;;
    pcsr_ops) cmd="$BUILD/tests/test_pcsr_ops -binary_file $BUILD/tests/valgrind_pcsr_ops.bin" ;;
    *) echo "unknown test $name (diag_format cihybrid_builder fci cihybrid_ops pcsr_ops)" >&2; exit 2 ;;
  esac
  start=$(date +%s)
  # shellcheck disable=SC2086
  valgrind --tool=memcheck --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --track-origins=yes --num-callers=30 $supp \
    --log-file="$logs/$name.log" $cmd >"$logs/$name.out" 2>&1
  rc=$?
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$logs/$name.log" | tail -1)
  lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$logs/$name.log" | tail -1)
  [ $rc -eq 0 ] && verdict=ok || { verdict=FAIL; status=1; }
  echo "$name: $verdict (exit $rc, ${errors:-?} errors, ${lost:-0} bytes definitely lost, $(($(date +%s) - start)) s) log $logs/$name.log"
done
exit $status
