#!/bin/sh
# device call: the refresh loop on the H2O/6-31G ISYM Hamiltonian (bench_refresh_matrix)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bp
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
[ -x $B/examples/ci_eigen ] || { meson setup --wipe $B -Dcuda=enabled >> $OUT/build.log 2>&1; ninja -C $B >> $OUT/build.log 2>&1; }
echo "built in $(( $(date +%s) - T0 )) s"
H=/tmp/h2o631g_isym.bin
[ -f $H ] || $B/examples/ci_eigen -fcidump .device/fcidump/H2O.631G.FCIDUMP -fci_sector isym -eps_nev 1 -save $H 2>&1 | tail -2
ls -la $H; echo "saved at $(( $(date +%s) - T0 )) s"
GPUMATS_REFRESH_TIMEOUT=${HTO:-150} GPUMATS_REFRESH_CASES=none GPUMATS_REFRESH_MATRICES=$H GPUMATS_REFRESH_MATRIX_TYPES="${TYPES:-aijcusparse pcsr cihybrid}" GPUMATS_REFRESH_MATRIX_STEPS=${STEPS:-3} GPUMATS_REFRESH_MULTS=${MULTS:-20} GPUMATS_REFRESH_PATHS="${PATHS:-setvalues coo}" GPUMATS_REFRESH_LABEL=h2o sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/ham | cut -c1-400
echo "elapsed $(( $(date +%s) - T0 )) s"
timeout 60 $B/benchmarks/bench_diag_products -rows t2-200x200 -csr_max_nnz 0 -reps 3 -first_reps 3 -mat_diag_product_plan device -info > /tmp/dp.txt 2>&1 || echo "diag bench FAILED"
grep -E "lists kernel|plan on the device|^t2-" /tmp/dp.txt | cut -c1-330 | tail -6
