#!/bin/sh
# device call: pcsr tests after the row-block change; transfer threads 2-16 on the first product (issue 20)
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bs
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
meson test -C $B --no-rebuild --num-processes 8 --print-errorlogs pcsr_device pcsr_ops pcsr_ops_np2 pcsr_ops_np3 coo_pcsr coo_pcsr_np2 coo_cihybrid value_changes value_changes_np2 cihybrid_ops cihybrid_device_rows cihybrid_oom ci_eigen_n2_sto3g_pcsr ci_eigen_n2_sto3g_cihybrid bench_refresh_pcsr_setvalues bench_refresh_cihybrid_setvalues > $OUT/tests.txt 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:" $OUT/tests.txt | cut -c1-120
grep -E "pcsr_device:.*(FAILED|differ)" $OUT/tests.txt | head
plugin() { [ "$1" = aijcusparse ] || echo "-dll_append $B/libgpumats.so"; }
one() { # type threads label
  timeout 120 $B/benchmarks/bench_refresh -n 160 -stencil star $(plugin $1) -dm_mat_type $1 -dm_vec_type cuda -path setvalues -steps 3 -mults 20 -gpumats_transfer_threads $2 -label "threads$2" -csv $OUT/threads.csv -info > /tmp/r.txt 2>&1 || echo "FAILED $1 $2"
  echo "$1 threads $2: $(grep -E 'relative error' /tmp/r.txt | sed 's/.*first MatMult/first MatMult/' | cut -c1-90)"
  grep -E "PCSR device copy of 4096000|CIHYBRID filled on the device from the AIJ arrays \(3" /tmp/r.txt | sed 's/.*<sys> //;s/.*<mat:[a-z]*> //' | cut -c1-240
}
for round in 1 2; do
  one aijcusparse 4
  for th in 1 2 4 8 16; do one pcsr $th; done
  for th in 4 8; do one cihybrid $th; done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
