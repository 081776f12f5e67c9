#!/bin/sh
# device call 3 (2026-11-28, ninth session): the staged kernel with the pairs of consecutive
# diagonals of C packed 32 at a time (a warp a share of the pairs, whole diagonals) against the
# staged kernel of commit 190d3e6 (.device/orig2), the diag product tests, ncu on 200 x 200
# (the packed kernel is not in the tree: it was the working tree of then, its diff kept in the carried .device/packed.diff; BENCHMARKS.md gives its times)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/srcold && mkdir /tmp/srcold && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcold
cp .device/orig2/diag_product_staged.cu .device/orig2/diag_cudaimpl.h /tmp/srcold/cuda/diag/
sed -i 's|  PetscCall(GpuMatsCUDAFree((\*prod)->rec_b)); /\* and rec_lo, rec_hi, rec_c \*/|  PetscCall(GpuMatsCUDAFree((*prod)->rec_lo));\n  PetscCall(GpuMatsCUDAFree((*prod)->rec_hi));\n  PetscCall(GpuMatsCUDAFree((*prod)->rec_b));|' /tmp/srcold/cuda/diag/diag_product.cu
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/bold /tmp/srcold -Dcuda=enabled && ninja -C /tmp/bold benchmarks/bench_diag_products; } > /tmp/buildold.log 2>&1 || grep -E "error" -A3 /tmp/buildold.log | head &
wait
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 diag_products_np3 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
echo "staged ok: $(grep -c '^ok .*staged' $B/meson-logs/testlog.txt); ours named ok: $(grep -c '^ok .*ours is the' $B/meson-logs/testlog.txt); kinds: $(grep -o 'ours is the [a-z]* kernel' $B/meson-logs/testlog.txt | sort | uniq -c | tr '\n' ' ')"
grep "FAILED" $B/meson-logs/testlog.txt | head -5
ROWS=t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,t1-6000,t1-10000,band-10240-21,band-10240-51,band-10240-101,band-10240-401
for v in old new; do
  bin=$B/benchmarks/bench_diag_products; [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products
  timeout 100 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/staged_$v.csv > /tmp/staged_$v.txt 2>&1; echo "bench $v rc $?"
  sed -e 's/ \+/ /g' /tmp/staged_$v.txt | grep -oE "^[a-z0-9x-]+|num [0-9.]+|pairs [0-9.-]+ staged [0-9.-]+|err [0-9.e+-]+" | paste -sd' ' | sed 's/ \(t[12]-\|band-\)/\n\1/g'
done
echo "bench at $(( $(date +%s) - T0 )) s"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in old new; do
  bin=$B/benchmarks/bench_diag_products; [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products
  timeout 60 $NCU --clock-control none -k regex:DiagProductStaged -c 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --csv --page details $bin -rows t2-200x200 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > /tmp/ncu_$v.csv 2>/dev/null
  echo "ncu 200x200 $v rc $?"
  grep '^"' /tmp/ncu_$v.csv > $OUT/ncu200_$v.csv
  grep -E "\"(Duration|Executed Instructions|L1/TEX Cache Throughput|L2 Cache Throughput|Issue Slots Busy|Warp Cycles Per Issued Instruction|Achieved Occupancy|Mem Pipes Busy|Stall [A-Za-z ]*)\"" $OUT/ncu200_$v.csv | awk -F'","' '{print $(NF-2)": "$NF}' | head -12
done
(cuobjdump -sass -fun DiagProductStagedKernel $B/libgpumats*.so 2>/dev/null || cuobjdump -sass $B/libgpumats*.so 2>/dev/null) | awk '/DiagProductStagedKernel/,/EXIT/' | head -1200 > $OUT/staged_sass.txt; echo "sass lines $(wc -l < $OUT/staged_sass.txt), BRA $(grep -c BRA $OUT/staged_sass.txt)"
echo "elapsed $(( $(date +%s) - T0 )) s"
