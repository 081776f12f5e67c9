#!/bin/sh
# On a GPU machine: build gpumats against a CUDA-enabled PETSc carried in .device/ (see
# ../shared/device/README.md), run the whole test suite with device vectors and again with host
# vectors (staging path), then the benchmarks.
#   tools/device-test.sh [3.25|3.22]    the PETSc/SLEPc pair (default 3.25; or GPUMATS_PETSC)
# Logs and results go to $OUT (default /tmp/gpumats-out).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpumats-out}
mkdir -p "$OUT"
[ $# -gt 0 ] && GPUMATS_PETSC=$1
. tools/device/petsc-env.sh
B=${BUILD:-/tmp/gpumats-build-$GPUMATS_PETSC}
# the 3.18 tutorials of .device, with what this PETSc renamed
tutorials=/tmp/gpumats-tutorials-$GPUMATS_PETSC
sh tools/build/adapt-tutorials.sh "$tutorials" "${GPUMATS_PETSC#3.}" || tutorials=""
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; echo "PETSc $GPUMATS_PETSC: $PETSC_DIR, SLEPc: ${SLEPC_DIR:-none}"; } | tee "$OUT/gpu.txt"
# a build dir set up by another script (without SLEPc, or with other options) would register fewer
# tests without saying so: set it up again unless this script made it with the same SLEPc
stamp="cuda petsc=$PETSC_DIR slepc=${SLEPC_DIR:-none} mpi_tests_parallel"
if [ -f "$B/build.ninja" ] && [ "$(cat "$B/.device-test-setup" 2>/dev/null)" != "$stamp" ]; then
  echo "device-test: $B was set up by something else: set up again" | tee "$OUT/build.log"
  rm -rf "$B"
fi
# 16 cores: the MPI tests run beside the others (one at a time they took most of a pass)
{ [ -f "$B/build.ninja" ] || { meson setup "$B" -Dcuda=enabled -Dpetsc_dir="$PETSC_DIR" -Dslepc_dir="${SLEPC_DIR:-}" -Dtutorials_dir="$tutorials" -Dmpi_tests_parallel=true && echo "$stamp" > "$B/.device-test-setup"; }; } >> "$OUT/build.log" 2>&1 && ninja -C "$B" >> "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }
# GPUMATS_BUILD_ONLY=1: set up and build only (one version built while another's tests run)
[ "${GPUMATS_BUILD_ONLY:-0}" = 1 ] && exit 0
status=0
if [ "${GPUMATS_SKIP_TESTS:-0}" = 1 ]; then sh benchmarks/scripts/device-bench.sh "$B" "$OUT"; exit $?; fi
# device vectors, then host vectors (staging path); few files come back from the
# device, so one log, and the failures' errors on stdout
# GPUMATS_TEST_VECTORS: the passes to run ("device host" by default; one of them to split the
# suite over two calls of the device tool); GPUMATS_TEST_JOBS tests at a time (default 8);
# GPUMATS_TEST_ARGS more arguments for meson test (a suite, --timeout-multiplier ...)
# The tests of several ranks (suite "ranks") run apart, GPUMATS_MPI_JOBS at a time (default 5):
# MPICH's ranks poll while they wait, and 16 of them at once beside the rest took a test
# from 3 s to past its timeout.
passes=${GPUMATS_TEST_VECTORS:-device host}
jobs=${GPUMATS_TEST_JOBS:-8}
mpi_jobs=${GPUMATS_MPI_JOBS:-5}
: > "$OUT/tests.log"
for run in $passes; do
  opts=$PETSC_OPTIONS
  [ "$run" = host ] && opts="$PETSC_OPTIONS -vec_type standard"
  # a tutorial's vectors come from VecSetFromOptions or its DMDA, host vectors unless told
  tutorial_vectors=""
  [ "$run" = device ] && tutorial_vectors="-vec_type cuda -dm_vec_type cuda"
  # straight into $OUT: a run stopped at the device tool's limit still tells what passed
  : > "$OUT/tests-$run.log"
  for part in "--no-suite ranks --num-processes $jobs" "--suite ranks --num-processes $mpi_jobs"; do
    # shellcheck disable=SC2086
    GPUMATS_TUTORIAL_OPTIONS=$tutorial_vectors PETSC_OPTIONS="$opts" meson test -C "$B" --print-errorlogs $part ${GPUMATS_TEST_ARGS:-} >> "$OUT/tests-$run.log" 2>&1 || status=1
  done
  cat "$OUT/tests-$run.log" >> "$OUT/tests.log"
done
# each pass is two meson runs: their counts added
for run in $passes; do
  echo "== $run vectors (PETSc $GPUMATS_PETSC): $(awk '/^(Ok|Fail|Skipped|Timeout):/ { n[$1] += $2 } END { printf "Ok: %d Fail: %d Skipped: %d Timeout: %d", n["Ok:"], n["Fail:"], n["Skipped:"], n["Timeout:"] }' "$OUT/tests-$run.log")"
  grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" "$OUT/tests-$run.log"
  # the slowest, to plan a pass within the device tool's limit
  echo "   slowest: $(grep -oE "/ [^ ]+ +(OK|FAIL|TIMEOUT) +[0-9.]+s" "$OUT/tests-$run.log" | sort -k4 -g -r | head -8 | awk '{ printf "%s %s, ", $2, $4 }')"
done
grep -hE "PETSC ERROR: [A-Za-z#]|FAILED|mismatch" "$OUT/tests.log" |
  grep -v "Configure options\|See https\|or see\|or try\|Try option\|configure using\|Run with -malloc\|to get more\|Release Version\|on a  named\|with .* MPI process" | sort | uniq -c | head -40
# block products with B and C as dense CUDA matrices, 1 and 2 ranks
for np in 1 2; do
  MPIEXEC=$PETSC_DIR/bin/mpiexec sh tests/mpirun.sh $np "$B/tests/test_cihybrid_product" -dense_cuda -mat_gpumats_backend cuda > "$B/product.log" 2>&1 \
    && echo "== product, dense CUDA, $np rank(s): ok" || { status=1; echo "== product, dense CUDA, $np rank(s): FAILED"; tail -20 "$B/product.log"; }
  cat "$B/product.log" >> "$OUT/tests.log"
done
[ "${GPUMATS_SKIP_BENCH:-0}" = 1 ] && exit $status
sh benchmarks/scripts/device-bench.sh "$B" "$OUT" || status=1
exit $status
