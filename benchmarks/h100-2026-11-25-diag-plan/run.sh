#!/bin/sh
# device call: the diag plan on the device (issue 19): tests, then the first products with -info
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bp
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B diag_products diag_products_plan_device diag_products_np2 diag_device --print-errorlogs 2>&1 > $OUT/tests.txt 2>&1; grep -E "^ *[0-9]+/|^Ok|^Fail|PETSC ERROR: [A-Z]" $OUT/tests.txt | head -20
for plan in ${PLANS:-host device}; do
timeout 90 $B/benchmarks/bench_diag_products -rows ${ROWS:-t1-1000,t1-6000,t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,band-10240-101,band-1e6-21} -csr_max_nnz 0 -reps 10 -first_reps 5 -mat_diag_product_plan $plan -info :mat -csv $OUT/plan_$plan.csv > /tmp/dp.txt 2>&1 || echo "bench FAILED ($plan)"
echo "== plan $plan"
grep -E "^(t[12]|band)-" /tmp/dp.txt | cut -c1-150
grep -E "plan made" /tmp/dp.txt | sed 's/.*diagonals give/give/' | awk '{print $1,$2,$(NF-6),$(NF-5),$(NF-4),$(NF-3),$(NF-2),$(NF-1),$NF}' | sort | uniq -c | head -40
cp /tmp/dp.txt $OUT/plan_$plan.txt
done
echo "elapsed $(( $(date +%s) - T0 )) s"
