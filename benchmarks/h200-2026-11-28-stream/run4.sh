#!/bin/sh
# device call 4 (2026-11-28, eleventh session): the stream kernel with the pairs off the warp's rows left out of its
# records, 8 loads of B in flight (default) or 4 (variant L4); taken by DiagDeviceProductNumeric where the pairs
# kernel was; like for like against aijcusparse and cuSPARSE; the diag device tests
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/srcL4 && mkdir /tmp/srcL4 && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcL4
sed -i "s/#define DIAG_STREAM_LOADS   [0-9]* /#define DIAG_STREAM_LOADS   4 /" /tmp/srcL4/cuda/diag/diag_product_stream.cu
grep -c "DIAG_STREAM_LOADS   4 " /tmp/srcL4/cuda/diag/diag_product_stream.cu
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/bL4 /tmp/srcL4 -Dcuda=enabled && ninja -C /tmp/bL4 benchmarks/bench_diag_products; } > /tmp/buildL4.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 6 diag_device diag_products diag_products_plan_device diag_products_np2 diag_products_aij > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
grep -c "stream kernel against the pairs kernel.*bit for bit" $B/meson-logs/testlog.txt
grep -c "ours is the stream kernel.*bit for bit" $B/meson-logs/testlog.txt
grep -E "FAILED" $B/meson-logs/testlog.txt | head -5
ROWS=t1-5000,t1-6000,t1-7000,t1-8000,t1-9000,t1-10000,t2-200x200,t2-300x300,t2-400x200
timeout 100 /tmp/bL4/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/k_L4.csv > /tmp/k_L4.txt 2>&1; echo "bench L4 rc $? at $(( $(date +%s) - T0 )) s"
cut -d, -f1,18,19,22,32 $OUT/k_L4.csv | tr ',' ' '
timeout 200 $B/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csv $OUT/products.csv > $OUT/products.txt 2>&1; echo "bench rc $? at $(( $(date +%s) - T0 )) s"
cut -d, -f1,16-19,22,25-28,32 $OUT/products.csv | tr ',' ' '
echo "elapsed $(( $(date +%s) - T0 )) s"
