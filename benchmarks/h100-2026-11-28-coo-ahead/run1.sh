#!/bin/sh
# device call 1 (2026-11-28): build, issue 20's COO loops (values made on the device) for the four
# types on three operators, then the suite with device vectors
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
export GPUMATS_REFRESH_TIMEOUT=120
for rep in 1 2; do
  GPUMATS_REFRESH_CASES="star:160 box:100 box:50:3" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=ahead$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-330
  echo "bench rep $rep done at $(( $(date +%s) - T0 )) s"
done
GPUMATS_TEST_VECTORS=device GPUMATS_SKIP_BENCH=1 BUILD=$B timeout $((590 - $(date +%s) + T0)) sh tools/device/device-test.sh 2>&1 | tail -30
echo "elapsed $(( $(date +%s) - T0 )) s"
