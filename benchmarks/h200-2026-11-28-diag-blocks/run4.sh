#!/bin/sh
# device call 4 (2026-11-28, fifth session): build; the 2-rank stencil loop with the chosen ghost
# exchange (default) against aijcusparse, -info of the choice; the FCI device tests at 2-3 ranks
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
if [ ! -f $B/build.ninja ]; then { meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1; fi
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
for st in star box; do
  n=160; [ $st = box ] && n=100
  for t in aijcusparse pcsr cihybrid; do
    timeout 90 mpiexec -n 2 $B/benchmarks/bench_refresh -n $n -stencil $st -dof 1 -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label $st-$t-chosen -csv $OUT/mpi_loop.csv -info :mat > $OUT/loop-$st-$t.txt 2>&1
    echo "$st $t rc $? $(grep -h 'Ghost values' $OUT/loop-$st-$t.txt | head -1 | cut -c1-160)"
  done
done
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda -info :mat" meson test -C $B --print-errorlogs fci_device_np2 fci_device_np3 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log | sort -u
grep -h "Ghost values" $B/meson-logs/testlog.txt | sort | uniq -c | head -5
echo "elapsed $(( $(date +%s) - T0 )) s"
