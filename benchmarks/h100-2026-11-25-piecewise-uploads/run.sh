#!/bin/sh
# device call: the diag products like for like after the piecewise uploads (issue 19)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bp
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 || exit 1
sh benchmarks/scripts/device-bench-diag-products.sh $B $OUT/diag-products > $OUT/bench.txt 2>&1; echo "bench rc $?"
grep -E "^(t[12]|band)-" $OUT/diag-products/bench_diag_products.txt | cut -c1-140
timeout 60 $B/benchmarks/bench_diag_products -rows t2-200x200,t2-300x300,t2-400x200,t2-500x500 -csr_max_nnz 0 -reps 10 -first_reps 5 -info > $OUT/info.txt 2>&1 || echo "info run FAILED"
grep -E "DiagPlanLists|allocated on the device" $OUT/info.txt | sed 's/^[^:]*: //' | cut -c1-200 | awk 'NR%6==0' | head -20
echo "elapsed $(( $(date +%s) - T0 )) s"
