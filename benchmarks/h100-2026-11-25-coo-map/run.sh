#!/bin/sh
# device call: diag plan lists timing, COO refresh loops twice, map time (-info)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bp
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
timeout 60 $B/benchmarks/bench_diag_products -rows t2-200x200,t2-300x300 -csr_max_nnz 0 -reps 5 -first_reps 3 -mat_diag_product_plan device -info > /tmp/dp.txt 2>&1 || echo "diag bench FAILED"
grep -E "lists kernel|^t2-" /tmp/dp.txt | cut -c1-250 | tail -8
$B/benchmarks/bench_refresh -n 50 -stencil box -dof 3 -dll_append $B/libgpumats.so -dm_mat_type pcsr -dm_vec_type cuda -path coo -steps 2 -mults 3 -info 2>&1 | grep -E "COO|bench|box" | cut -c1-250 | head
export GPUMATS_REFRESH_TIMEOUT=200
for rep in 1 2; do
GPUMATS_REFRESH_CASES="box:50:3 star:160" GPUMATS_REFRESH_TYPES="aijcusparse pcsr cihybrid" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=devmap$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | sed 's/, device values//' | cut -c1-330
done
echo "elapsed $(( $(date +%s) - T0 )) s"
