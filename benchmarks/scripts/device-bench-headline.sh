#!/bin/sh
# The headline comparisons, each against the aijcusparse of the same PETSc in the same run (issue 46:
# every PETSc gpumats supports gives its own table): the CI main job (examples/ci_eigen, H2O/6-31G
# ISYM sector, Krylov-Schur, aijcusparse against cihybrid made on the GPU), the whole DMDA program
# (bench_dmda, 7-point 161^3: diag against aijcusparse, default multigrid and Chebyshev/Jacobi
# smoothing), the diag products (bench_diag_products, first product and numeric phase), the first
# product after new values (bench_refresh, 7-point 160^3, MatSetValues path: every type), and the
# MatMult of PETSc's own GPU types beside ours (KSP ex2, 1000 x 1000 5-point, CG + Jacobi, 300
# iterations: aijcusparse, sellcuda, pcsr, cihybrid, diag; -log_view's MatMult line, its time
# with -log_view_gpu_time: without it PETSc prints n/a for an event's time on the GPU).
# About 6 minutes on an H100.  Needs the build of tools/device-test.sh (all targets) and its
# PETSc in the environment (tools/device/petsc-env.sh).
# Usage: benchmarks/scripts/device-bench-headline.sh <build dir> <output dir>
# Output in <output dir>: eigen.csv, dmda.csv, bench_diag_products.csv, refresh.csv, mult.txt, and
# their logs.  GPUMATS_HEADLINE_REPEAT runs of each eigensolve (default 3: take the median).
set -u
B=$1 OUT=$2
mkdir -p "$OUT"
status=0
GPUMATS_EIGEN_SPACES=isym GPUMATS_EIGEN_CPU=0 GPUMATS_EIGEN_REPEAT=${GPUMATS_HEADLINE_REPEAT:-3} GPUMATS_EIGEN_ONLY_KS=1 \
  sh tools/device/device-eigen.sh "$B" "$OUT" > /dev/null || status=1
GPUMATS_DMDA_CASES=star:161 GPUMATS_DMDA_CPU=0 sh benchmarks/scripts/device-bench-dmda.sh "$B" "$OUT" > /dev/null || status=1
timeout 150 "$B/benchmarks/bench_diag_products" -reps 20 -first_reps 5 -csv "$OUT/bench_diag_products.csv" > "$OUT/bench_diag_products.txt" 2>&1 || status=1
GPUMATS_REFRESH_CASES=star:160 GPUMATS_REFRESH_PATHS=setvalues GPUMATS_REFRESH_STEPS=5 GPUMATS_REFRESH_MULTS=20 \
  sh benchmarks/scripts/device-bench-refresh.sh "$B" "$OUT" > /dev/null || status=1
: > "$OUT/mult.txt"
for t in aijcusparse sellcuda pcsr cihybrid diag; do
  o="-mat_type $t"
  case $t in pcsr | cihybrid | diag) o="$o -dll_append $B/libgpumats.so" ;; esac
  # shellcheck disable=SC2086
  timeout 60 "$B/tests/tutorials/ksp_ex2" -m 1000 -n 1000 $o -vec_type cuda -ksp_type cg -pc_type jacobi -ksp_max_it 300 -log_view -log_view_gpu_time > "$OUT/ex2_$t.txt" 2>&1 || status=1
  echo "$t: $(grep -E '^MatMult ' "$OUT/ex2_$t.txt")" >> "$OUT/mult.txt"
done
cat "$OUT/mult.txt"
exit $status
