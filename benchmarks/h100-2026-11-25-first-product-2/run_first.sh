#!/bin/sh
# dev call 2 (session 10): build, the tests that failed in dev1 and the cihybrid/pcsr tests, first products (issue 20)
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bfinal
stamp="cuda slepc=/opt/slepc-cuda mpi_tests_parallel"
{ [ -f $B/build.ninja ] || { meson setup $B -Dcuda=enabled -Dmpi_tests_parallel=true && echo "$stamp" > $B/.device-test-setup; }; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --no-rebuild --num-processes 12 --print-errorlogs cihybrid_badinput cihybrid_ops coo_cihybrid cihybrid_ops_np2 coo_cihybrid_np2 cihybrid_ops_np3 cihybrid_product_np3 coo_cihybrid_np3 cihybrid_oom cihybrid_solvers cihybrid_product cihybrid_device_rows value_changes fci_cihybrid fci_device bench_refresh_cihybrid_setvalues fci_device_np2 bench_refresh_cihybrid_algebra pcsr_device sizes diag_device > $OUT/tests.txt 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:" $OUT/tests.txt | cut -c1-110
plugin() { [ "$1" = aijcusparse ] || echo "-dll_append $B/libgpumats.so"; }
one() { # type stencil n round
  timeout 120 $B/benchmarks/bench_refresh -n $3 -stencil $2 $(plugin $1) -dm_mat_type $1 -dm_vec_type cuda -path setvalues -steps 3 -mults 20 -label "r$4" -csv $OUT/first.csv -info > /tmp/r.txt 2>&1 || echo "FAILED $1 $2"
  echo "$1 $2 $3: $(grep -E 'relative error' /tmp/r.txt | sed 's/.*create/create/' | cut -c1-100)"
  grep -E "PCSR device copy of [0-9]{6}|CIHYBRID filled on the device from the AIJ arrays \([1-9]|CIHYBRID fill of [0-9]{6}" /tmp/r.txt | sed 's/.*<sys> //;s/.*<mat:[a-z]*> //' | cut -c1-200
}
for round in 1 2 3; do
  for c in "star 160" "box 100"; do set -- $c; for t in aijcusparse pcsr cihybrid; do one $t $1 $2 $round; done; done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
