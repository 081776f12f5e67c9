#!/bin/sh
# Runs the test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   sh tools/qa/sanitize.sh [MESON TEST ARGS...]      e.g. --suite unit, or a test name
#   BUILD=build-asan2 sh tools/qa/sanitize.sh         another build folder (default build-asan)
#   SANITIZE_LEAKS=0 sh tools/qa/sanitize.sh          LeakSanitizer off (default on)
#   SANITIZE_HALT=0 sh tools/qa/sanitize.sh           UBSan reports and goes on (to list every finding
#                                                  in meson-logs/testlog.txt: grep "runtime error");
#                                                  ASan always stops at its first report
#
# Configures (once) a separate build with
#   -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled
# and runs `meson test` in it, the arguments passed through.
#
# - CUDA is disabled: meson's b_sanitize does not reach nvcc's device code (and ASan
#   cannot see device memory), so the CUDA kernels are not built or checked here;
#   device-side memory errors are compute-sanitizer's job on the GPU machine.  What this
#   build checks is all our C code: the host kernels (the same ones the CUDA products
#   are tested against), the PETSc glue of the three types, the format builders, the
#   FCI builders, ci_eigen and the tests.
# - b_lundef=false: meson links shared libraries with -Wl,--no-undefined by default, and
#   with clang the sanitizer runtime is not linked into a shared library, so its
#   __asan_* symbols stay undefined there (gcc links libasan in; either works).  The plugin libgpumats.so is instrumented
#   (it also names libasan/libubsan as dependencies); PETSc dlopen()s it (-dll_append)
#   into executables that meson builds here with -fsanitize too, so the ASan runtime is
#   loaded first, as it must be, in every process - also in each rank that
#   tests/mpirun.sh starts with mpiexec (the ranks inherit ASAN_OPTIONS, UBSAN_OPTIONS
#   and LSAN_OPTIONS from mpiexec's environment).  The PETSc/SLEPc tutorial programs of
#   tests/tutorials are compiled here as well.  PETSc, SLEPc and Open MPI themselves
#   are not instrumented: ASan sees their heap use through its malloc interceptors only.
#   (Checked once by hand: an out-of-bounds read put into CIHybridMultHost of a
#   scratch copy was reported by ci_eigen -dll_append ... -mat_type cihybrid and by
#   test_cihybrid_ops on 2 ranks under mpiexec.)
# - halt_on_error / abort_on_error: the first report ends the process with an error
#   status (SIGABRT), so meson counts the test as failed; print_stacktrace for UBSan.
#   fast_unwind_on_malloc=0: PETSc and Open MPI are built without frame pointers, so
#   the fast unwinder loses the allocation stacks that the leak suppressions match on.
#   detect_odr_violation=0: globals defined twice across PETSc/Open MPI/us are not
#   ours to judge (none of ours is).  allocator_may_return_null stays 0: an allocation
#   of a wrapped negative size aborts with a report instead of returning NULL.
# - ASan suppressions: tests/sanitizer/asan.supp (a PETSc 3.18 overflow on the error path
#   of a bad option value).
# - LeakSanitizer is on, with tests/sanitizer/lsan.supp for the allocations Open MPI,
#   hwloc, libevent and PMIx make in MPI_Init/MPI_Finalize and PETSc's error-path
#   allocations (every entry says why it is not ours).  A leak with our frames is
#   reported.
# - Timeouts are multiplied by 4 (ASan makes the tests about 2-3x slower); pass -t N
#   (--timeout-multiplier) to change it.
# - SANITIZE_HALT=0 sets UBSan's halt_on_error=0 (it reports and goes on, so one run
#   lists every finding); ASan always stops at its first report.
#
# valgrind: tools/qa/valgrind.sh runs a few tests under memcheck in a normal build.
set -e
cd "$(dirname "$0")/../.."
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
