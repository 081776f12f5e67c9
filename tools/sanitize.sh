#!/bin/sh
# Runs the test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   sh tools/sanitize.sh [MESON TEST ARGS...]      e.g. --suite unit, or a test name
#   BUILD=build-asan2 sh tools/sanitize.sh         another build folder (default build-asan)
#   SANITIZE_LEAKS=0 sh tools/sanitize.sh          LeakSanitizer off (default on)
#   SANITIZE_HALT=0 sh tools/sanitize.sh           UBSan reports and goes on (to list every finding
#                                                  in meson-logs/testlog.txt: grep "runtime error");
#                                                  ASan always stops at its first report
#
# Configures (once) a separate build with
#   -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled
# and runs `meson test` in it, the arguments passed through.
#
# - CUDA is disabled: nvcc's device code cannot be instrumented, and the CUDA driver
#   and runtime do not run under ASan (its shadow memory collides with the driver's
#   reservations); the host kernels, the PETSc glue and the format builders - all
#   our C code - are what this build checks.
# - b_lundef=false: the plugin's undefined ASan/UBSan symbols are resolved at load time
#   from the executable.  The test and example executables are built here with
#   -fsanitize, so the runtime is present in each process, also where PETSc dlopen()s
#   libgpumats.so (-dll_append) and in every rank that tests/mpirun.sh starts with
#   mpiexec (the rank processes inherit ASAN_OPTIONS / UBSAN_OPTIONS / LSAN_OPTIONS).
#   The PETSc tutorial programs (tests/tutorials) are compiled here too, with the sanitizer.
# - halt_on_error / abort_on_error: the first report ends the process with an error
#   status, so meson counts it as a failure; print_stacktrace for UBSan's reports.
#   detect_odr_violation=0: PETSc and Open MPI are not instrumented; global redefinitions
#   between them and us are not ours to judge.
# - LeakSanitizer is on, with tests/sanitizer/lsan.supp for the leaks of Open MPI,
#   PMIx, hwloc, libevent and PETSc internals (every entry says why it is not ours).
#   A leak in our code (frames in libgpumats or the test programs) is reported.
# - Timeouts are multiplied by 4 (ASan is about 2-3x slower); `-t N` overrides it.
#
# valgrind: tools/valgrind.sh runs a few tests under memcheck in a normal build.
set -e
cd "$(dirname "$0")/.."
root=$PWD
BUILD=${BUILD:-build-asan}
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled \
    -Dbuildtype=debugoptimized
fi
ninja -C "$BUILD" ${NINJA_JOBS:+-j "$NINJA_JOBS"}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
leaks=${SANITIZE_LEAKS:-1}
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:detect_leaks=$leaks:detect_odr_violation=0:check_initialization_order=1:strict_string_checks=1:print_summary=1:fast_unwind_on_malloc=0:suppressions=$root/tests/sanitizer/asan.supp"
halt=${SANITIZE_HALT:-1}
export UBSAN_OPTIONS="halt_on_error=$halt:abort_on_error=$halt:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0"

# meson sets its own ASAN_OPTIONS only where none is set: ours are exported above
case " $* " in
  *" -t "*|*" --timeout-multiplier"*) set -- "$@" ;;
  *) set -- --timeout-multiplier 4 "$@" ;;
esac
exec meson test -C "$BUILD" --print-errorlogs "$@"
