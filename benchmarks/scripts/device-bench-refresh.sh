#!/bin/sh
# Matrices that change (issue 20) on a GPU machine (benchmarks/src/bench_refresh: a DMDA operator
# from DMCreateMatrix given new values on the same pattern -steps times, each followed by -mults
# MatMults; creation, first MatMult, updates, the first MatMult after each update and the steady
# MatMults timed): pcsr, cihybrid and diag against aijcusparse, the reference, in the same run,
# one rank, one GPU, CUDA vectors, on a 7-point 160^3 and a 27-point 100^3 operator; each type
# with both ways of changing the values: MatSetValuesStencil + assembly (setvalues) and
# MatSetValuesCOO from values made on the device (coo; coo-copied: made on the host and copied to the
# device each step; coo-host: from host values; algebra: MatScale and
# MatDiagonalSet, or MatScale and MatShift on a loaded matrix).  Every run checks
# its product against MATAIJ and fails on a relative error above 1e-12.
# Results: $OUT/refresh.csv (one line a run) and $OUT/refresh.txt.
# GPUMATS_REFRESH_CASES ("star:160 box:100" by default; stencil:n[:dof], e.g. box:60:3 for the
# elasticity-like operator of 3 unknowns a point; none: no DMDA case), GPUMATS_REFRESH_TYPES ("aijcusparse pcsr
# cihybrid diag"), GPUMATS_REFRESH_PATHS ("setvalues coo"; coo-host too if wanted) to choose;
# GPUMATS_REFRESH_STEPS (20) and GPUMATS_REFRESH_MULTS (50); GPUMATS_REFRESH_LABEL the CSV label (gpu); GPUMATS_REFRESH_TIMEOUT seconds a run (300);
# GPUMATS_REFRESH_VEC the vector type (cuda; standard: host vectors, and with
# GPUMATS_REFRESH_TYPES="aij diag ..." GPUMATS_REFRESH_PATHS="setvalues coo-host" on a CPU machine).
# Loaded matrices (benchmarks/src/bench_refresh_matrix: the same loop on a PETSc binary matrix H0,
# e.g. the H2O/6-31G Hamiltonian written by examples/ci_eigen -save; every stored entry scaled by
# 1 + 0.01 s and the diagonal shifted by 0.5 s at step s): GPUMATS_REFRESH_MATRICES, the files
# (space separated; none by default), each run for the types of GPUMATS_REFRESH_MATRIX_TYPES
# ("aijcusparse pcsr cihybrid") and the paths of GPUMATS_REFRESH_PATHS, GPUMATS_REFRESH_MATRIX_STEPS
# steps (5: the 6-31G Hamiltonian has 273M nonzeros) of GPUMATS_REFRESH_MULTS MatMults (x and y
# made by MatCreateVecs of the matrix, of the vector type its matrix type asks for), the same label
# and timeout; results in $OUT/refresh_matrix.csv and
# $OUT/refresh_matrix.txt.
# Usage: benchmarks/scripts/device-bench-refresh.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
mkdir -p "$OUT"
LIMIT=${GPUMATS_REFRESH_TIMEOUT:-300}
MULTS=${GPUMATS_REFRESH_MULTS:-50}
LABEL=${GPUMATS_REFRESH_LABEL:-gpu}
VEC=${GPUMATS_REFRESH_VEC:-cuda}
status=0
# run <program> <results: OUT/<name>.csv and .txt> <steps> <what> <options...>
run() {
  prog=$1 name=$2 steps=$3 what=$4
  shift 4
  echo "== $what: $*" >> "$OUT/$name.txt"
  timeout "$LIMIT" "$B/benchmarks/$prog" "$@" -steps "$steps" -mults "$MULTS" -csv "$OUT/$name.csv" >> "$OUT/$name.txt" 2>&1 || { status=1; echo "   FAILED or timed out" >> "$OUT/$name.txt"; }
  tail -1 "$OUT/$name.txt"
}
# the options of a type (the plugin for gpumats' types) and of a path
plugin() {
  [ "$1" = aijcusparse ] || echo "-dll_append $B/libgpumats.so"
}
how() {
  case $1 in
    setvalues) echo "-path setvalues" ;;
    coo) echo "-path coo -coo_memory device" ;;
    coo-copied) echo "-path coo -coo_memory copied" ;;
    coo-host) echo "-path coo -coo_memory host" ;;
    algebra) echo "-path algebra" ;;
    *) echo "unknown path $1 (setvalues, coo, coo-copied, coo-host, algebra)" >&2; exit 2 ;;
  esac
}
for path in ${GPUMATS_REFRESH_PATHS:-setvalues coo}; do how "$path" > /dev/null || exit 2; done
for case in ${GPUMATS_REFRESH_CASES:-star:160 box:100}; do
  [ "$case" = none ] && continue
  stencil=${case%%:*} rest=${case#*:}
  n=${rest%%:*} dof=1
  [ "$rest" != "$n" ] && dof=${rest#*:}
  for type in ${GPUMATS_REFRESH_TYPES:-aijcusparse pcsr cihybrid diag}; do
    for path in ${GPUMATS_REFRESH_PATHS:-setvalues coo}; do
      # shellcheck disable=SC2046 # plugin and how give lists of options
      run bench_refresh refresh "${GPUMATS_REFRESH_STEPS:-20}" "$stencil $n dof $dof $type $path" -n "$n" -stencil "$stencil" -dof "$dof" $(plugin "$type") -dm_mat_type "$type" -dm_vec_type "$VEC" $(how "$path") -label "$LABEL"
    done
  done
done
for file in ${GPUMATS_REFRESH_MATRICES:-}; do
  for type in ${GPUMATS_REFRESH_MATRIX_TYPES:-aijcusparse pcsr cihybrid}; do
    for path in ${GPUMATS_REFRESH_PATHS:-setvalues coo}; do
      # shellcheck disable=SC2046 # plugin and how give lists of options
      run bench_refresh_matrix refresh_matrix "${GPUMATS_REFRESH_MATRIX_STEPS:-5}" "$(basename "$file") $type $path" -f "$file" $(plugin "$type") -mat_type "$type" $(how "$path") -label "$LABEL"
    done
  done
done
exit $status
