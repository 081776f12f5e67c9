#!/bin/sh
# device call 1 (2026-11-28, tenth session): the staged kernel's grid filling the device (DIAG_STAGED_FILL 256, and 1024)
# (this call's "new" is DIAG_STAGED_FILL 256 with no least number of diagonals a warp: call1_fill256.csv; "fill" is 1024: call1_fill1024.csv)
# against the kernel before (.device/orig3); the banded kernel against the staged one at n = 10^6
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
# two rows at n = 10^6 for this call only
sed -i 's|^  {"band-1e6-101", 1000000, 101, 101, PETSC_TRUE, 0, 0, 0, 0, 0},|  {"band-1e6-51", 1000000, 51, 51, PETSC_TRUE, 0, 0, 0, 0, 0},\n&\n  {"band-1e6-201", 1000000, 201, 201, PETSC_TRUE, 0, 0, 0, 0, 0},|' benchmarks/src/diag_tables.c
grep -c "band-1e6" benchmarks/src/diag_tables.c
for v in old fill; do
  rm -rf /tmp/src$v && mkdir /tmp/src$v && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/src$v
done
cp .device/orig3/diag_product_staged.cu /tmp/srcold/cuda/diag/
sed -i 's/#define DIAG_STAGED_FILL 256/#define DIAG_STAGED_FILL 1024/' /tmp/srcfill/cuda/diag/diag_product_staged.cu
grep -c "DIAG_STAGED_FILL 1024" /tmp/srcfill/cuda/diag/diag_product_staged.cu
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
for v in old fill; do
  { meson setup /tmp/b$v /tmp/src$v -Dcuda=enabled && ninja -C /tmp/b$v benchmarks/bench_diag_products; } > /tmp/build$v.log 2>&1 &
done
wait
echo "built in $(( $(date +%s) - T0 )) s"
ROWS=band-10240-21,band-10240-51,band-10240-101,band-10240-201,band-10240-401,t2-200x200,t2-500x500,t2-600x600,band-1e6-21,band-1e6-51,band-1e6-101,band-1e6-201
for v in old new fill; do
  bin=$B/benchmarks/bench_diag_products
  [ $v != new ] && bin=/tmp/b$v/benchmarks/bench_diag_products
  timeout 170 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/products_$v.csv > $OUT/products_$v.txt 2>&1; echo "bench $v rc $? at $(( $(date +%s) - T0 )) s"
  cut -d, -f1,9,17-21,31 $OUT/products_$v.csv | column -t -s,
done
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
cp /tmp/t.log $OUT/tests.log
echo "elapsed $(( $(date +%s) - T0 )) s"
