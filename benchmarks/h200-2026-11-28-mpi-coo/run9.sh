#!/bin/sh
# device call 3 (2026-11-28, fourth session): build, the COO tests (device vectors, 1-3 ranks)
# and the MPI products and operations after the MPI ahead table
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead coo_cihybrid_np2 coo_cihybrid_np3 coo_pcsr_np2 coo_diag_np2 coo_diag_np3 coo_pcsr_np3 cihybrid_product_np2 cihybrid_product_np3 pcsr_ops_np3 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log | sort -u
grep -E "MISMATCH|ERROR: [A-Z]" $OUT/tests.log | sort | uniq -c | head -20
echo "elapsed $(( $(date +%s) - T0 )) s"
