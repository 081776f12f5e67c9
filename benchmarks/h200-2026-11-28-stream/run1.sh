#!/bin/sh
# device call 1 (2026-11-28, eleventh session): the stream kernel against the pairs and staged kernels, kernels alone;
# variants: loads16 (DIAG_STREAM_LOADS 16), t512 (DIAG_STREAM_THREADS 512)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
for v in loads16 t512; do
  rm -rf /tmp/src$v && mkdir /tmp/src$v && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/src$v
done
sed -i 's/#define DIAG_STREAM_LOADS   8 /#define DIAG_STREAM_LOADS   16/' /tmp/srcloads16/cuda/diag/diag_product_stream.cu
sed -i 's/#define DIAG_STREAM_THREADS 256/#define DIAG_STREAM_THREADS 512/' /tmp/srct512/cuda/diag/diag_product_stream.cu
grep -c "DIAG_STREAM_LOADS   16" /tmp/srcloads16/cuda/diag/diag_product_stream.cu; grep -c "DIAG_STREAM_THREADS 512" /tmp/srct512/cuda/diag/diag_product_stream.cu
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
for v in loads16 t512; do
  { meson setup /tmp/b$v /tmp/src$v -Dcuda=enabled && ninja -C /tmp/b$v benchmarks/bench_diag_products; } > /tmp/build$v.log 2>&1 &
done
wait
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 4 diag_device > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -c "stream kernel against the pairs kernel.*bit for bit" $B/meson-logs/testlog.txt
grep -E "FAILED" $B/meson-logs/testlog.txt | head -5
ROWS=t1-1000,t1-2000,t1-3000,t1-4000,t1-5000,t1-6000,t1-7000,t1-8000,t1-9000,t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,band-10240-5,band-10240-21,band-10240-51,band-10240-101,band-10240-401
for v in new loads16 t512; do
  bin=$B/benchmarks/bench_diag_products
  [ $v != new ] && bin=/tmp/b$v/benchmarks/bench_diag_products
  timeout 150 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/k_$v.csv > /tmp/k_$v.txt 2>&1; echo "bench $v rc $? at $(( $(date +%s) - T0 )) s"
  cut -d, -f1,12,18-22,32 $OUT/k_$v.csv | column -t -s,
done
echo "elapsed $(( $(date +%s) - T0 )) s"
