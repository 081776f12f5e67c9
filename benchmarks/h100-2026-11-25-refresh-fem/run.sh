#!/bin/sh
# device call: the refresh loop on the elasticity-like operator (issue 20), the first diag product's parts (issue 19)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bb
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled -Dtests=false; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"; nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 $B/benchmarks/bench_diag_products -rows t1-10000,t2-200x200,t2-300x300,t2-500x500,t2-600x600 -csr_max_nnz 0 -reps 10 -first_reps 5 -info :mat > /tmp/dp.txt 2>&1
grep -E "^t[12]-" /tmp/dp.txt | cut -c1-175
grep -E "plan made|allocated on the device" /tmp/dp.txt | sed 's/.*DIAG product/DIAG product/' | sort | uniq -c | sort -rn | head -30 | cut -c1-200
echo "diag done $(( $(date +%s) - T0 )) s"
GPUMATS_REFRESH_CASES="box:50:3" GPUMATS_REFRESH_TIMEOUT=120 sh benchmarks/scripts/device-bench-refresh.sh $B $OUT
echo "elapsed $(( $(date +%s) - T0 )) s"
