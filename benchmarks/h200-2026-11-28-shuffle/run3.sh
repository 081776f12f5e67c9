#!/bin/sh
# device call 3 (2026-11-28, thirteenth session): the shuffle kernel in the tree (taken with 3-16 pairs a diagonal
# of C); the diag tests; test_diag_device's lines; the tables' rows like for like against aijcusparse and cuSPARSE
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
grep -c "DiagProductShuffleKernel" cuda/diag/diag_product_staged.cu
[ -d $B ] || { meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 6 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
tail -12 /tmp/t.log | grep -E "^(Ok|Fail|Skipped|Timeout|ERROR)|No such|FAIL"
timeout 200 $B/tests/test_diag_device > $OUT/test_diag_device.txt 2>&1; echo "test_diag_device rc $? at $(( $(date +%s) - T0 )) s"
tail -1 $OUT/test_diag_device.txt
echo "shuffle checks: $(grep -c '^ok .*shuffle, pass' $OUT/test_diag_device.txt) ok, against pairs bit for bit: $(grep -c '^ok .*the shuffle kernel (4 rows a lane) against the pairs kernel.*bit for bit' $OUT/test_diag_device.txt) (4 rows), $(grep -c '^ok .*the shuffle kernel (2 rows a lane) against the pairs kernel.*bit for bit' $OUT/test_diag_device.txt) (2 rows); ours is the shuffle: $(grep -c 'ours is the shuffle kernel.*bit for bit' $OUT/test_diag_device.txt)"
grep -c "^FAILED" $OUT/test_diag_device.txt; grep "^FAILED" $OUT/test_diag_device.txt | head -5
grep "ours is the shuffle" $OUT/test_diag_device.txt | head -4
ROWS=t1-5000,t1-6000,t1-7000,t1-8000,t1-9000,t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500
timeout 240 $B/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csv $OUT/products.csv > $OUT/products.txt 2>&1; echo "bench rc $? at $(( $(date +%s) - T0 )) s"
echo "row first numeric kernel pairs staged aij_first aij_num spgemm_first spgemm_num err shuffle"
cut -d, -f1,16-20,24-27,31,34 $OUT/products.csv | tr ',' ' '
timeout 60 $B/benchmarks/bench_diag_products -scheme hm -rows t2-200x200,t2-300x300,t2-400x200 -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/products_hm.csv > $OUT/products_hm.txt 2>&1; echo "bench HM rc $? at $(( $(date +%s) - T0 )) s"
cut -d, -f1,16-20,31,34 $OUT/products_hm.csv | tr ',' ' '
timeout 30 $B/benchmarks/bench_diag_products -rows t2-200x200 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 -info > /tmp/info.txt 2>&1; grep -i "kernel" /tmp/info.txt | sort | uniq -c | head -5
echo "elapsed $(( $(date +%s) - T0 )) s"
