#!/bin/sh
# device call 1 (2026-11-28, fifth session): build, the diag product tests with the blocks kernel as
# the default, the products benchmark (every kernel timed and checked), ncu of the blocks kernel
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs diag_products diag_products_plan_device diag_products_np2 diag_products_np3 diag_device diag_dmda diag_ops > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log | sort -u
echo "tests at $(( $(date +%s) - T0 )) s"
timeout 150 $B/benchmarks/bench_diag_products -reps 20 -first_reps 5 -csv $OUT/bench_diag_products.csv > $OUT/bench_diag_products.txt 2>&1; echo "bench rc $?"
cut -c1-60,150-400 $OUT/bench_diag_products.txt | grep -v "^ *$" | head -40
echo "bench at $(( $(date +%s) - T0 )) s"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 90 $NCU --clock-control none -k regex:DiagProduct -c 12 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --csv --page details $B/benchmarks/bench_diag_products -rows t2-200x200,t2-600x600 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc $? at $(( $(date +%s) - T0 )) s"
