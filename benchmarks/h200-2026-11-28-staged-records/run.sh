#!/bin/sh
# device call 3 (2026-11-28, eighth session): the staged kernel's one-load records with every load
# issued before the multiply-adds (unroll 4 and 8) against the kernel before (HEAD's files in
# .device/orig).  The records variant was measured and not kept (BENCHMARKS.md, "The staged kernel
# with one record a pair"): it is not in the tree, so this script ran on the working tree of then.
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
rm -rf /tmp/src8 && mkdir /tmp/src8 && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/src8
sed -i 's/#define DIAG_STAGED_UNROLL 4/#define DIAG_STAGED_UNROLL 8/' /tmp/src8/cuda/diag/diag_product_staged.cu
rm -rf /tmp/srcold && cp -r /tmp/src8 /tmp/srcold && cp .device/orig/diag_product_staged.cu .device/orig/diag_cudaimpl.h .device/orig/diag_product.cu /tmp/srcold/cuda/diag/
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
{ ninja -C $B > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }; } &
{ meson setup /tmp/b8 /tmp/src8 -Dcuda=enabled && ninja -C /tmp/b8 benchmarks/bench_diag_products; } > /tmp/build8.log 2>&1 &
{ meson setup /tmp/bold /tmp/srcold -Dcuda=enabled && ninja -C /tmp/bold benchmarks/bench_diag_products; } > /tmp/buildold.log 2>&1 &
wait
echo "built in $(( $(date +%s) - T0 )) s"
ROWS=t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,t1-6000,t1-10000,band-10240-101
for v in old 4 8; do
  bin=$B/benchmarks/bench_diag_products; [ $v = 8 ] && bin=/tmp/b8/benchmarks/bench_diag_products; [ $v = old ] && bin=/tmp/bold/benchmarks/bench_diag_products
  csr=0; [ $v = 4 ] && csr=5e7
  timeout 120 $bin -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz $csr -csv $OUT/products_u$v.csv > $OUT/products_u$v.txt 2>&1; echo "bench u$v rc $?"
  sed -e 's/ \+/ /g' $OUT/products_u$v.txt | grep -oE "^[a-z0-9x-]+|first [0-9.-]+ num [0-9.]+|pairs [0-9.-]+ staged [0-9.-]+|err [0-9.e+-]+" | paste -sd' ' | sed 's/ \(t[12]-\|band-\)/\n\1/g'
done
echo "bench at $(( $(date +%s) - T0 )) s"
meson test -C $B --print-errorlogs --num-processes 4 diag_device diag_products diag_products_plan_device diag_products_np2 > /tmp/t.log 2>&1
echo "== tests: $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log | sort -u
echo "elapsed $(( $(date +%s) - T0 )) s"
