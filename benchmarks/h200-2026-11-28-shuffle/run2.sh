#!/bin/sh
# device call 2 (2026-11-28, thirteenth session; call 1 broadcast lane t's own row with its pair): the staged kernel with R rows a lane, pairs by shuffles (experiment,
# GPUMATS_STAGED_R=1/2/4; 0 the kernel in the tree); its correctness by test_diag_device; the tables' rows and bands
# GPUMATS_STAGED_R was the experiment's switch in DiagDeviceProductNumericStaged (0: the staged kernel; R: the kernel that is now
# DiagProductShuffleKernel<R>, R = 1 measured only here); it is not in the tree.
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
grep -c "DiagProductStagedRowsKernel" cuda/diag/diag_product_staged.cu
[ -d $B ] || { meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B libgpumats.so tests/test_diag_device benchmarks/bench_diag_products > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
for R in 1 2 4; do
  GPUMATS_STAGED_R=$R timeout 120 $B/tests/test_diag_device > $OUT/test_R$R.txt 2>&1; echo "test R=$R rc $?"
  grep -c "^ok .*staged, pass" $OUT/test_R$R.txt; grep -c "^FAILED" $OUT/test_R$R.txt; grep "^FAILED" $OUT/test_R$R.txt | head -5; tail -1 $OUT/test_R$R.txt
done
ROWS=t1-5000,t1-6000,t1-7000,t1-8000,t1-9000,t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,band-10240-51,band-10240-101,band-10240-201,band-10240-401,band-1e6-101
for R in 0 1 2 4; do
  GPUMATS_STAGED_R=$R timeout 100 $B/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 2 -csr_max_nnz 0 -csv $OUT/k_R$R.csv > /tmp/k_R$R.txt 2>&1; echo "bench R=$R rc $? at $(( $(date +%s) - T0 )) s"
done
echo "row pairs_kernel staged_R0 R1 R2 R4 (ms) err_R4"
paste -d, $OUT/k_R0.csv $OUT/k_R1.csv $OUT/k_R2.csv $OUT/k_R4.csv | awk -F, 'NR>1{print $1, $19, $20, $(20+33), $(20+66), $(20+99), $(31+99)}'
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for R in 4; do
  GPUMATS_STAGED_R=$R timeout 90 $NCU -k regex:DiagProductStagedRows -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --csv --page details $B/benchmarks/bench_diag_products -rows t2-200x200 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > $OUT/ncu_R${R}_200x200.csv 2>/tmp/ncu.err; echo "ncu R=$R rc $?"
  grep -E '"(Duration|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|Executed Instructions|L1/TEX Hit Rate|L2 Hit Rate|Warp Cycles Per Issued Instruction|Grid Size)"' $OUT/ncu_R${R}_200x200.csv | awk -F'","' '{print $(NF-2)" = "$NF}' | tr -d '"' | head -20
done
echo "elapsed $(( $(date +%s) - T0 )) s"
