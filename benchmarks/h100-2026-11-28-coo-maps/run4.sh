#!/bin/sh
# device call 4 (2026-11-28, second session): build, the COO tests on the device, issue 20's COO
# loops (values made on the device, MatSetValuesCOO timed alone), the update kernels under ncu
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
{ meson setup $B -Dcuda=enabled -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > $OUT/build.log 2>&1
ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead value_changes coo_cihybrid_np2 coo_cihybrid_np3 coo_pcsr_np2 coo_diag_np2 coo_pcsr_np3 value_changes_np2 > $OUT/tests.log 2>&1; grep -c "in AIJ" $OUT/tests.log
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log
echo "tests done at $(( $(date +%s) - T0 )) s"
export GPUMATS_REFRESH_TIMEOUT=120
for rep in 1 2; do
  GPUMATS_REFRESH_CASES="star:160 box:100 box:50:3" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=slots$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-420
  echo "bench rep $rep done at $(( $(date +%s) - T0 )) s"
done
for type in pcsr cihybrid; do
  $B/tests/test_coo -mat_type $type -info 2>&1 | grep -o "made on the device in [^(]*(.*)" | sed 's/in [0-9.e-]* s//' | sort | uniq -c
done
echo "elapsed $(( $(date +%s) - T0 )) s"
