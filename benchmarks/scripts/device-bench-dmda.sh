#!/bin/sh
# A whole DMDA program on a GPU machine (benchmarks/src/bench_dmda: DMCreateMatrix + fill, CG/Jacobi,
# multigrid, Newton with coloured finite-difference Jacobians, each part timed): diag against
# aijcusparse (one rank, one GPU, CUDA vectors) and aij (on every CPU core), on a 7-point 161^3
# and a 27-point 97^3 operator (multigrid to 6^3 and 7^3).  Each GPU configuration also runs the
# multigrid solve alone with Chebyshev/Jacobi smoothing (-mg_mg_levels_pc_type jacobi: the smoother
# on the GPU; PETSc's default SOR runs on the GPU for diag's large grids, on the host for aijcusparse).
# Results: $OUT/dmda.csv (one line a run) and $OUT/dmda.txt.
# GPUMATS_DMDA_REPEAT runs of each GPU configuration (default 1); GPUMATS_DMDA_CASES to choose
# ("star:161 box:97" by default); GPUMATS_DMDA_CPU=0 leaves the CPU runs out.
# Usage: benchmarks/scripts/device-bench-dmda.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
NP=${GPUMATS_CPU_RANKS:-$(nproc)}
MPIEXEC=${MPIEXEC:-$PETSC_DIR/bin/mpiexec}
LIMIT=${GPUMATS_DMDA_TIMEOUT:-240}
status=0
run() {
  label=$1 np=$2
  shift 2
  echo "== $label ($np rank(s)): $*" >> "$OUT/dmda.txt"
  timeout "$LIMIT" "$MPIEXEC" -n "$np" "$B/benchmarks/bench_dmda" "$@" -csv "$OUT/dmda.csv" >> "$OUT/dmda.txt" 2>&1 || { status=1; echo "   FAILED or timed out" >> "$OUT/dmda.txt"; }
  tail -1 "$OUT/dmda.txt"
}
for case in ${GPUMATS_DMDA_CASES:-star:161 box:97}; do
  stencil=${case%%:*} n=${case##*:}
  for r in $(seq "${GPUMATS_DMDA_REPEAT:-1}"); do
    run "$stencil $n diag" 1 -n "$n" -stencil "$stencil" -dll_append "$B/libgpumats.so" -dm_mat_type diag -dm_vec_type cuda -label gpu
    run "$stencil $n aijcusparse" 1 -n "$n" -stencil "$stencil" -dm_mat_type aijcusparse -dm_vec_type cuda -label gpu
    run "$stencil $n diag mg-jacobi" 1 -n "$n" -stencil "$stencil" -dll_append "$B/libgpumats.so" -dm_mat_type diag -dm_vec_type cuda -cg 0 -newton 0 -mg_mg_levels_pc_type jacobi -label gpu-mg-jacobi
    run "$stencil $n aijcusparse mg-jacobi" 1 -n "$n" -stencil "$stencil" -dm_mat_type aijcusparse -dm_vec_type cuda -cg 0 -newton 0 -mg_mg_levels_pc_type jacobi -label gpu-mg-jacobi
  done
  [ "${GPUMATS_DMDA_CPU:-1}" = 1 ] && run "$stencil $n aij" "$NP" -n "$n" -stencil "$stencil" -dm_mat_type aij -label cpu
done
exit $status
