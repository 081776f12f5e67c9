#!/bin/sh
# device call 1 (2026-11-28, second session): build, the COO tests on the device, issue 20's COO
# loops (values made on the device, MatSetValuesCOO timed alone), the update kernels under ncu
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
{ meson setup $B -Dcuda=enabled -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > $OUT/build.log 2>&1
ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead value_changes coo_cihybrid_np2 coo_cihybrid_np3 coo_pcsr_np2 coo_diag_np2 value_changes_np2 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log
echo "tests done at $(( $(date +%s) - T0 )) s"
export GPUMATS_REFRESH_TIMEOUT=120
for rep in 1 2; do
  GPUMATS_REFRESH_CASES="star:160 box:100 box:50:3" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=blockrows$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-420
  echo "bench rep $rep done at $(( $(date +%s) - T0 )) s"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for type in aijcusparse pcsr cihybrid diag; do
  P=""; [ $type = aijcusparse ] || P="-dll_append $B/libgpumats.so"
  timeout 100 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw $B/benchmarks/bench_refresh -n 160 -stencil star $P -dm_mat_type $type -dm_vec_type cuda -path coo -coo_memory device -steps 2 -mults 2 -warmup 0 > $OUT/ncu-$type.csv 2> $OUT/ncu-$type.err
  echo "ncu $type rc $? at $(( $(date +%s) - T0 )) s"
done
echo "elapsed $(( $(date +%s) - T0 )) s"
