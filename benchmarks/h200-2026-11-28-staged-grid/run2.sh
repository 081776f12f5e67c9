#!/bin/sh
# device call 2 (2026-11-28, tenth session): the staged kernel's grid (DIAG_STAGED_CPW_MIN 8, DIAG_STAGED_FILL 256)
# against the kernel before (.device/orig3), like for like with aijcusparse and cusparseSpGEMM in the same run
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/srcold && mkdir /tmp/srcold && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcold
cp .device/orig3/diag_product_staged.cu /tmp/srcold/cuda/diag/
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/bold /tmp/srcold -Dcuda=enabled && ninja -C /tmp/bold benchmarks/bench_diag_products; } > /tmp/buildold.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
ROWS=band-10240-51,band-10240-101,band-10240-201,band-10240-401,t2-500x500
for v in old new; do
  bin=$B/benchmarks/bench_diag_products
  [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products
  timeout 150 $bin -rows $ROWS -reps 20 -first_reps 3 -csv $OUT/products_$v.csv > $OUT/products_$v.txt 2>&1; echo "bench $v rc $? at $(( $(date +%s) - T0 )) s"
done
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
cp /tmp/t.log $OUT/tests.log
echo "elapsed $(( $(date +%s) - T0 )) s"
