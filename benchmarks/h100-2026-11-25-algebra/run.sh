#!/bin/sh
# device call: the refresh loop by MatScale + MatDiagonalSet (issue 20), every type, 3 runs; tests of the changed paths
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bv
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B libgpumats.so tests/test_value_changes tests/test_diag_random tests/test_diag_ops benchmarks/bench_refresh >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
for vec in device host; do
  opts="-use_gpu_aware_mpi 0"; [ $vec = host ] && opts="$opts -vec_type standard"
  PETSC_OPTIONS="$opts" meson test -C $B --no-rebuild --print-errorlogs value_changes diag_random diag_random_sor_device diag_ops > $OUT/tests_$vec.txt 2>&1
  echo "== $vec vectors: $(grep -E "^Ok|^Fail" $OUT/tests_$vec.txt | tr -s ' ' | tr '\n' ' ')"; grep -E "PETSC ERROR: [A-Za-z]" $OUT/tests_$vec.txt | head -5
done
export GPUMATS_REFRESH_CASES="star:160 box:100" GPUMATS_REFRESH_TYPES="aijcusparse pcsr cihybrid diag" GPUMATS_REFRESH_PATHS="algebra" GPUMATS_REFRESH_TIMEOUT=120
for run in 1 2 3; do
  GPUMATS_REFRESH_LABEL=run$run sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh > /dev/null 2>&1 || echo "bench run $run: rc $?"
done
cut -c1-300 $OUT/refresh/refresh.txt | grep -v "^==" | sed 's/ 4096000 rows, 28518400 nonzeros;//; s/ 1000000 rows, 26463592 nonzeros;//'
echo "elapsed $(( $(date +%s) - T0 )) s"
