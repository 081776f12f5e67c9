#!/bin/sh
# device call 1 (2026-11-28, ninth session): the staged kernel with the warp's pairs read 32 at a time (full pairs as
# 16-byte records in shared memory, no row test) against the kernel before (.device/orig)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/srcold && mkdir /tmp/srcold && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcold
cp .device/orig/diag_product_staged.cu .device/orig/diag_product.cu .device/orig/diag_cudaimpl.h .device/orig/diag_cuda.h /tmp/srcold/cuda/diag/
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/bold /tmp/srcold -Dcuda=enabled && ninja -C /tmp/bold benchmarks/bench_diag_products; } > /tmp/buildold.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
ROWS=t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,t1-6000,t1-10000,band-10240-51,band-10240-101,band-10240-401
for v in old new; do
  bin=$B/benchmarks/bench_diag_products; csr=5e7
  [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products && csr=0
  timeout 150 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz $csr -csv $OUT/products_$v.csv > $OUT/products_$v.txt 2>&1; echo "bench $v rc $?"
  sed -e 's/ \+/ /g' $OUT/products_$v.txt | grep -oE "^[a-z0-9x-]+|num [0-9.]+|pairs [0-9.-]+ staged [0-9.-]+|aijcusparse first [0-9.-]+ num [0-9.-]+|err [0-9.e+-]+" | paste -sd' ' | sed 's/ \(t[12]-\|band-\)/\n\1/g'
done
echo "bench at $(( $(date +%s) - T0 )) s"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in old new; do
  bin=$B/benchmarks/bench_diag_products; [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products
  timeout 60 $NCU --clock-control none -k regex:DiagProductStaged -c 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --csv --page details $bin -rows t2-600x600 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > $OUT/ncu_$v.csv 2> $OUT/ncu_$v.err
  echo "ncu $v rc $? at $(( $(date +%s) - T0 )) s"
  grep -E "Duration|Executed Instructions\"|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|Mem Pipes Busy|Registers" $OUT/ncu_$v.csv | awk -F'","' '{print $(NF-2)": "$NF}' | head -14
done
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
cp /tmp/t.log $OUT/tests.log
echo "elapsed $(( $(date +%s) - T0 )) s"
