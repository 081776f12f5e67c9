#!/bin/bash
# On the GPU machine, after tools/device/device-test.sh built the library and tests in $1: every CUDA
# kernel of gpumats (SpMV, SpMM, device fill and assembly, the FCI rows, transposes, diag products) under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck, through the device tests and the PETSc-level
# tests on device vectors.  Runs go side by side (one GPU), each with its own time limit.
#   bash tools/device/device-sanitize.sh <build dir> <output dir> [limit per run in s, default 300]
# GPUMATS_SANITIZE_TOOLS (memcheck synccheck initcheck racecheck), GPUMATS_SANITIZE_ONLY (a case
# pattern over tool:test, e.g. 'racecheck:*'), GPUMATS_SANITIZE_JOBS (runs side by side, 8).
# Writes <output dir>/sanitizer.txt: one line per run (tool, test, verdict, error summary)
# and the first reports of any run that found errors.
set -u
B=${1:-/tmp/gpumats-build}
OUT=${2:-/tmp/gpumats-out}
LIMIT=${3:-300}
ROOT=$(pwd) # the repository: FCIDUMP files in .device/fcidump
CS=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
LOGS=/tmp/gpumats-sanitizer
mkdir -p "$OUT" "$LOGS"
: > "$OUT/sanitizer.partial"
rm -f "$LOGS"/result.* "$LOGS"/*.log # a warm machine keeps the last run's
# name|time limit (s; empty: the default)|extra sanitizer options|command (relative to the build
# dir).  diag's banded products at n = 33000 under racecheck (140000 rows ran past any limit);
# the OOM test provokes cudaMalloc failures on purpose: API errors are not reported for it.
cat > "$LOGS/runs" <<RUNS
pcsr_device|||tests/test_pcsr_device
diag_device|||tests/test_diag_device
diag_device_n33000|$((2 * LIMIT))||tests/test_diag_device -banded_n 33000
cihybrid_ops|$((3 * LIMIT))||tests/test_cihybrid_ops -binary_file $LOGS/cihybrid_ops.bin
cihybrid_product|||tests/test_cihybrid_product
cihybrid_product_dense_cuda|||tests/test_cihybrid_product -dense_cuda -mat_gpumats_backend cuda
cihybrid_oom||--report-api-errors no|tests/test_cihybrid_oom
pcsr_ops|||tests/test_pcsr_ops
diag_ops|||tests/test_diag_ops -large 20000 -binary_file $LOGS/diag_ops.bin
diag_products|||tests/test_diag_products
cihybrid_device_rows|||tests/test_cihybrid_device_rows
fci_device|||fci/test_fci_device $ROOT/.device/fcidump
RUNS
: > "$LOGS/jobs"
for tool in ${GPUMATS_SANITIZE_TOOLS:-memcheck synccheck initcheck racecheck}; do
  while IFS='|' read -r name limit opts cmd; do
    case "$tool:$name" in
      racecheck:diag_device) continue ;;
      racecheck:diag_device_n33000) ;;
      *:diag_device_n33000) continue ;;
      initcheck:*_ops|initcheck:cihybrid_product*) continue ;; # PETSc's own device vectors are allocated uninitialised
    esac
    case "$tool:$name" in ${GPUMATS_SANITIZE_ONLY:-*}) ;; *) continue ;; esac
    echo "$tool|$name|${limit:-$LIMIT}|$opts|$cmd" >> "$LOGS/jobs"
  done < "$LOGS/runs"
done
run_one() {
  tool=$1 name=$2 limit=$3 opts=$4 cmd=$5
  log="$LOGS/$tool.$name.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  (cd "$B" && timeout "$limit" "$CS" --tool "$tool" $opts --error-exitcode 99 --print-limit 20 $cmd) > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  case $rc in
    0) verdict=clean ;;
    77) verdict=skipped ;;
    99) verdict=ERRORS ;;
    124) verdict="time limit ($limit s)" ;;
    *) verdict="exit $rc" ;;
  esac
  printf '%-10s %-28s %-18s %4ss  %s\n' "$tool" "$name" "$verdict" "$secs" "$summary"
}
export B LIMIT CS LOGS
export -f run_one
{
  echo "compute-sanitizer $($CS --version | tail -1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  # GPUMATS_SANITIZE_JOBS (8) at a time: one GPU, the CPU side of each sanitizer is single-threaded
  # the OOM test fills the GPU on purpose: it runs alone, after the others
  grep -v '|cihybrid_oom|' "$LOGS/jobs" > "$LOGS/jobs.shared"
  grep '|cihybrid_oom|' "$LOGS/jobs" > "$LOGS/jobs.alone"
  while IFS='|' read -r tool name limit opts cmd; do
    while [ "$(jobs -r | wc -l)" -ge "${GPUMATS_SANITIZE_JOBS:-8}" ]; do sleep 1; done
    run_one "$tool" "$name" "$limit" "$opts" "$cmd" | tee "$LOGS/result.$tool.$name" >> "$OUT/sanitizer.partial" &
  done < "$LOGS/jobs.shared"
  wait
  while IFS='|' read -r tool name limit opts cmd; do
    run_one "$tool" "$name" "$limit" "$opts" "$cmd" | tee "$LOGS/result.$tool.$name" >> "$OUT/sanitizer.partial"
  done < "$LOGS/jobs.alone"
  cat "$LOGS"/result.* | sort
} > "$OUT/sanitizer.txt"
rm -f "$OUT/sanitizer.partial" # each run's line as it finished, for a script stopped before here
# the reports of runs with errors, and the end of the output of runs that did not finish cleanly
for r in "$LOGS"/result.*; do
  grep -qE " (clean|skipped) " "$r" && continue
  f="$LOGS/$(basename "$r" | sed 's/^result\.//').log"
  echo "---- $(basename "$f")" >> "$OUT/sanitizer.txt"
  { grep -E "^========= (Invalid|Race|Barrier|Uninitialized|Error|Program hit)" "$f" | head -10; grep -v "Host Frame\|^=========     " "$f" | tail -15; } >> "$OUT/sanitizer.txt"
done
cat "$OUT/sanitizer.txt"
! grep -qE " (ERRORS|exit [0-9]+) " "$OUT/sanitizer.txt"
