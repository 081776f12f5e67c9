#!/bin/sh
# device call 2 (2026-11-28, twelfth session): the sweep kernel staging by asynchronous copies; the diag device
# tests; the bands against every other kernel and aijcusparse/cuSPARSE in the same run; 8 diagonals a warp;
# Nsight Compute on band-1e6-101 and band-10240-101
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
grep -c "__pipeline_memcpy_async" cuda/diag/diag_product_sweep.cu
rm -rf /tmp/srcC8 && mkdir /tmp/srcC8 && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcC8
sed -i "s/#define DIAG_SWEEP_CC      16 /#define DIAG_SWEEP_CC      8 /" /tmp/srcC8/cuda/diag/diag_product_sweep.cu
grep -c "DIAG_SWEEP_CC      8 " /tmp/srcC8/cuda/diag/diag_product_sweep.cu
[ -d $B ] || { meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ [ -d /tmp/bC8 ] || meson setup /tmp/bC8 /tmp/srcC8 -Dcuda=enabled; ninja -C /tmp/bC8 benchmarks/bench_diag_products; } > /tmp/buildC8.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 6 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
tail -12 /tmp/t.log | grep -E "^(Ok|Fail|Skipped|Timeout|ERROR)|No such|FAIL"
grep -c "ok .*sweep, pass" $B/meson-logs/testlog.txt
grep -c "ours is the sweep kernel.*bit for bit" $B/meson-logs/testlog.txt
grep -E "FAILED" $B/meson-logs/testlog.txt | head -8
grep -E "sweep," $B/meson-logs/testlog.txt | head -30
ROWS=band-10240-5,band-10240-11,band-10240-21,band-10240-51,band-10240-101,band-10240-201,band-10240-401,band-1e6-5,band-1e6-21,band-1e6-101
timeout 150 $B/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csv $OUT/bands.csv > $OUT/bands.txt 2>&1; echo "bench rc $? at $(( $(date +%s) - T0 )) s"
echo "row first numeric kernel pairs staged blocks aijcusparse_first aijcusparse_num spgemm_first spgemm_num err sweep banded"
cut -d, -f1,16-18,19-21,24-27,31-33 $OUT/bands.csv | tr ',' ' '
timeout 60 /tmp/bC8/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/bands_c8.csv > /tmp/c8.txt 2>&1; echo "bench C8 rc $? at $(( $(date +%s) - T0 )) s"
cut -d, -f1,18,31-33 $OUT/bands_c8.csv | tr ',' ' '
timeout 40 $B/benchmarks/bench_diag_products -scheme hm -rows band-10240-51,band-10240-101,band-1e6-21 -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/bands_hm.csv > /tmp/hm.txt 2>&1; echo "bench HM rc $? at $(( $(date +%s) - T0 )) s"
cut -d, -f1,16-21,31-33 $OUT/bands_hm.csv | tr ',' ' '
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for row in band-1e6-101 band-10240-101; do
  timeout 90 $NCU -k regex:DiagProductSweep -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --csv --page details $B/benchmarks/bench_diag_products -rows $row -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > $OUT/ncu_sweep_$row.csv 2>/tmp/ncu.err; echo "ncu $row rc $?"
  grep -E '"(Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Executed Ipc Active|Issue Slots Busy|Shared Memory Configuration Size|Theoretical Occupancy|Block Limit Shared Mem|Stall Short Scoreboard|Warp Cycles Per Issued Instruction)"' $OUT/ncu_sweep_$row.csv | awk -F'","' '{print $(NF-2)" = "$NF}' | tr -d '"' | head -20
done
echo "elapsed $(( $(date +%s) - T0 )) s"
