#!/bin/sh
# device call 3 (2026-11-28, third session): diag's COO kernel with its lanes chosen by the diagonals
# (1 on the 7-point, 4 on the 27-point, 8 on the 3-unknown operator); tests, loops, ncu as call 2
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_diag coo_diag_np2 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log
$B/tests/test_coo -mat_type diag -info 2>&1 | grep -o "mapped by stored value ([^)]*)" | sed 's/[0-9]* values, //' | sort | uniq -c
echo "tests done at $(( $(date +%s) - T0 )) s"
export GPUMATS_REFRESH_TIMEOUT=120
for rep in 1 2; do
  GPUMATS_REFRESH_TYPES="aijcusparse diag" GPUMATS_REFRESH_CASES="star:160 box:100 box:50:3" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=lanes$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-420
  echo "bench rep $rep done at $(( $(date +%s) - T0 )) s"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for c in star:160:1 box:100:1 box:50:3; do
  s=${c%%:*} r=${c#*:}; n=${r%%:*}; dof=${r#*:}
  timeout 100 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw $B/benchmarks/bench_refresh -n $n -stencil $s -dof $dof -dll_append $B/libgpumats.so -dm_mat_type diag -dm_vec_type cuda -path coo -coo_memory device -steps 2 -mults 2 -warmup 0 2>/dev/null | grep -E "^\"ID\"|DiagCOOGather" | sed "s/^/$c,diag,/" >> $OUT/ncu.csv
  echo "ncu $c at $(( $(date +%s) - T0 )) s"
done
echo "elapsed $(( $(date +%s) - T0 )) s"
