#!/bin/sh
# device call 1 (2026-11-28, fourth session): build, the COO tests (device vectors, 1-3 ranks),
# that MPI device values take the device path (-info), and the COO loop at 2 ranks on one GPU
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
MPI="mpiexec"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead value_changes coo_cihybrid_np2 coo_cihybrid_np3 coo_pcsr_np2 coo_diag_np2 coo_diag_np3 coo_pcsr_np3 value_changes_np2 pcsr_ops_np2 cihybrid_ops_np2 cihybrid_product_np2 diag_ops_np2 ksp_ex2_pcsr_np2 eps_ex1_np2 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log
grep -E "MISMATCH|Error" $OUT/tests.log | head -20
for type in pcsr cihybrid diag; do
  echo "== $type np2 -info"
  $MPI -n 2 $B/tests/test_coo -mat_type $type -vec_type cuda -info 2>&1 | grep -o "COO: [0-9]* entries here\|go through the host\|mapped on the device\|takes these values on the host\|the blocks changed\|a block takes no device values" | sed 's/[0-9]* entries here/N entries here/' | sort | uniq -c
done
echo "tests done at $(( $(date +%s) - T0 )) s"
for c in star:160:1 box:100:1; do
  s=${c%%:*} r=${c#*:}; n=${r%%:*}; dof=${r#*:}
  for rep in 1 2; do
  for type in aijcusparse pcsr cihybrid diag; do
    P=""; [ $type = aijcusparse ] || P="-dll_append $B/libgpumats.so"
    timeout 120 $MPI -n 2 $B/benchmarks/bench_refresh -n $n -stencil $s -dof $dof $P -dm_mat_type $type -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label mpi2-$rep -csv $OUT/refresh_mpi2.csv > /tmp/r.txt 2>&1 || { echo "FAILED $c $type"; tail -5 /tmp/r.txt; }
    tail -1 /tmp/r.txt | cut -c1-300
  done
  done
  echo "bench $c at $(( $(date +%s) - T0 )) s"
done
GPUMATS_REFRESH_TIMEOUT=120 GPUMATS_REFRESH_CASES="star:160" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=seq sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-300
echo "elapsed $(( $(date +%s) - T0 )) s"
