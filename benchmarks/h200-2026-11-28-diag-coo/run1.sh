#!/bin/sh
# device call 1 (2026-11-28, third session): build, the COO tests on the device (CUDA vectors),
# issue 20's COO loops (star, box, 3-unknown box: two runs), diag's new COO kernel under ncu,
# and the H2O/6-31G Hamiltonian loop by COO from device values (aijcusparse, pcsr, cihybrid)
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
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead value_changes coo_cihybrid_np2 coo_cihybrid_np3 coo_pcsr_np2 coo_diag_np2 coo_diag_np3 coo_pcsr_np3 value_changes_np2 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log
for type in diag cihybrid; do
  $B/tests/test_coo -mat_type $type -info 2>&1 | grep -o "mapped by stored value ([^)]*)\|made on the device in [^(]*(.*)" | sed 's/[0-9]* values, //;s/in [0-9.e-]* s//' | sort | uniq -c
done
echo "tests done at $(( $(date +%s) - T0 )) s"
export GPUMATS_REFRESH_TIMEOUT=120
for rep in 1 2; do
  GPUMATS_REFRESH_CASES="star:160 box:100 box:50:3" GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_LABEL=gather$rep sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-420
  echo "bench rep $rep done at $(( $(date +%s) - T0 )) s"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for c in star:160:1 box:100:1 box:50:3; do
  s=${c%%:*} r=${c#*:}; n=${r%%:*}; dof=${r#*:}
  for type in aijcusparse diag; do
    P=""; [ $type = aijcusparse ] || P="-dll_append $B/libgpumats.so"
    timeout 100 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw $B/benchmarks/bench_refresh -n $n -stencil $s -dof $dof $P -dm_mat_type $type -dm_vec_type cuda -path coo -coo_memory device -steps 2 -mults 2 -warmup 0 2>/dev/null | grep -E "DiagCOOGather|MatAddCOOValues" | sed "s/^/$c,$type,/" >> $OUT/ncu.csv
  done
  echo "ncu $c at $(( $(date +%s) - T0 )) s"
done
$B/examples/ci_eigen -fcidump .device/fcidump/H2O.631G.FCIDUMP -fci_sector isym -eps_nev 1 -save /tmp/h2o631g.bin > /tmp/save.log 2>&1; echo "saved rc $? at $(( $(date +%s) - T0 )) s"
GPUMATS_REFRESH_TIMEOUT=200 GPUMATS_REFRESH_MATRIX_STEPS=3 GPUMATS_REFRESH_MULTS=20 GPUMATS_REFRESH_CASES=none GPUMATS_REFRESH_PATHS=coo GPUMATS_REFRESH_MATRICES=/tmp/h2o631g.bin GPUMATS_REFRESH_LABEL=h2o-coo sh benchmarks/scripts/device-bench-refresh.sh $B $OUT/refresh | cut -c1-420
echo "elapsed $(( $(date +%s) - T0 )) s"
