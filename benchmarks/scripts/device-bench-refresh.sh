#!/bin/sh
# Matrices that change (issue 20) on a GPU machine (benchmarks/src/bench_refresh: a DMDA operator
# from DMCreateMatrix given new values on the same pattern -steps times, each followed by -mults
# MatMults; creation, first MatMult, updates, the first MatMult after each update and the steady
# MatMults timed): pcsr, cihybrid and diag against aijcusparse, the reference, in the same run,
# one rank, one GPU, CUDA vectors, on a 7-point 160^3 and a 27-point 100^3 operator; each type
# with both ways of changing the values: MatSetValuesStencil + assembly (setvalues) and
# MatSetValuesCOO from values on the device (coo; coo-host: from host values).  Every run checks
# its product against MATAIJ and fails on a relative error above 1e-12.
# Results: $OUT/refresh.csv (one line a run) and $OUT/refresh.txt.
# GPUMATS_REFRESH_CASES ("star:160 box:100" by default; stencil:n[:dof], e.g. box:60:3 for the
# elasticity-like operator of 3 unknowns a point), GPUMATS_REFRESH_TYPES ("aijcusparse pcsr
# cihybrid diag"), GPUMATS_REFRESH_PATHS ("setvalues coo"; coo-host too if wanted) to choose;
# GPUMATS_REFRESH_STEPS (20) and GPUMATS_REFRESH_MULTS (50); GPUMATS_REFRESH_LABEL the CSV label (gpu); GPUMATS_REFRESH_TIMEOUT seconds a run (300);
# GPUMATS_REFRESH_VEC the vector type (cuda; standard: host vectors, and with
# GPUMATS_REFRESH_TYPES="aij diag ..." GPUMATS_REFRESH_PATHS="setvalues coo-host" on a CPU machine).
# Usage: benchmarks/scripts/device-bench-refresh.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
mkdir -p "$OUT"
LIMIT=${GPUMATS_REFRESH_TIMEOUT:-300}
status=0
run() {
  what=$1
  shift
  echo "== $what: $*" >> "$OUT/refresh.txt"
  timeout "$LIMIT" "$B/benchmarks/bench_refresh" "$@" -steps "${GPUMATS_REFRESH_STEPS:-20}" -mults "${GPUMATS_REFRESH_MULTS:-50}" -csv "$OUT/refresh.csv" >> "$OUT/refresh.txt" 2>&1 || { status=1; echo "   FAILED or timed out" >> "$OUT/refresh.txt"; }
  tail -1 "$OUT/refresh.txt"
}
for case in ${GPUMATS_REFRESH_CASES:-star:160 box:100}; do
  stencil=${case%%:*} rest=${case#*:}
  n=${rest%%:*} dof=1
  [ "$rest" != "$n" ] && dof=${rest#*:}
  for type in ${GPUMATS_REFRESH_TYPES:-aijcusparse pcsr cihybrid diag}; do
    plugin="-dll_append $B/libgpumats.so"
    [ "$type" = aijcusparse ] && plugin=
    for path in ${GPUMATS_REFRESH_PATHS:-setvalues coo}; do
      case $path in
        setvalues) how="-path setvalues" ;;
        coo) how="-path coo -coo_memory device" ;;
        coo-host) how="-path coo -coo_memory host" ;;
        *) echo "unknown path $path (setvalues, coo, coo-host)"; exit 2 ;;
      esac
      # shellcheck disable=SC2086 # $plugin and $how are lists of options
      run "$stencil $n dof $dof $type $path" -n "$n" -stencil "$stencil" -dof "$dof" $plugin -dm_mat_type "$type" -dm_vec_type "${GPUMATS_REFRESH_VEC:-cuda}" $how -label "${GPUMATS_REFRESH_LABEL:-gpu}"
    done
  done
done
exit $status
