#!/bin/sh
# device call 2 (2026-11-28, ninth session): the whole products table with the new default (staged kernel before the
# blocks kernel), the 8-byte record variant of the staged kernel (.device/variant), the diag tests
# (the 8-byte record variant is not in the tree: it lay in the carried .device/variant; BENCHMARKS.md gives its times)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/srcv && mkdir /tmp/srcv && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/srcv
cp .device/variant/diag_product_staged.cu /tmp/srcv/cuda/diag/
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/bv /tmp/srcv -Dcuda=enabled && ninja -C /tmp/bv benchmarks/bench_diag_products tests/test_diag_device; } > /tmp/buildv.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 diag_products_np3 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
grep -c "^ok .*staged" $B/meson-logs/testlog.txt; grep "FAILED" $B/meson-logs/testlog.txt | head -5
(cd /tmp/srcv/tests 2>/dev/null; /tmp/bv/tests/test_diag_device > $OUT/variant_test_diag_device.txt 2>&1; echo "variant test_diag_device rc $?: $(grep -c '^ok' $OUT/variant_test_diag_device.txt) ok, $(grep -c FAILED $OUT/variant_test_diag_device.txt) failed")
ROWS=t2-500x500,t2-600x600,band-10240-51,band-10240-101,band-10240-201,band-10240-401
for v in new variant; do
  bin=$B/benchmarks/bench_diag_products; [ $v = variant ] && bin=/tmp/bv/benchmarks/bench_diag_products
  timeout 60 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/staged_$v.csv > $OUT/staged_$v.txt 2>&1; echo "bench $v rc $?"
  sed -e 's/ \+/ /g' $OUT/staged_$v.txt | grep -oE "^[a-z0-9x-]+|num [0-9.]+|pairs [0-9.-]+ staged [0-9.-]+ blocks [0-9.-]+|err [0-9.e+-]+" | paste -sd' ' | sed 's/ \(t[12]-\|band-\)/\n\1/g'
done
echo "variant at $(( $(date +%s) - T0 )) s"
sh benchmarks/scripts/device-bench-diag-products.sh $B $OUT > /tmp/full.log 2>&1; echo "full table rc $?"
cut -c1-60,150-330 $OUT/bench_diag_products.txt | grep -v "^ *$" | tail -27
echo "elapsed $(( $(date +%s) - T0 )) s"
