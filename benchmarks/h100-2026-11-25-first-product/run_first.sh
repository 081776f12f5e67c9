#!/bin/sh
# device call: cihybrid (and pcsr) tests after the device layout; first products, quiet (issue 20); 16-thread host build (issue 21)
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bs
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
F=.device/fcidump/H2O.631G.FCIDUMP
for k in 1 2 3; do for t in cihybrid aij; do
  timeout 150 $B/examples/ci_eigen -fcidump $F -fci_threads 16 -eps_nev 1 -eps_max_it 1 -dll_append $B/libgpumats.so -fci_assembly host -fci_sector isym -mat_type $t > /tmp/r.txt 2>&1
  echo "ci_eigen host build $t: $(grep -E 'Build time' /tmp/r.txt | head -1)"
done; done
plugin() { [ "$1" = aijcusparse ] || echo "-dll_append $B/libgpumats.so"; }
one() { # type stencil n round
  timeout 120 $B/benchmarks/bench_refresh -n $3 -stencil $2 $(plugin $1) -dm_mat_type $1 -dm_vec_type cuda -path setvalues -steps 3 -mults 20 -label "r$4" -csv $OUT/first.csv -info > /tmp/r.txt 2>&1 || echo "FAILED $1 $2"
  echo "$1 $2 $3: $(grep -E 'relative error' /tmp/r.txt | sed 's/.*create/create/' | cut -c1-120)"
  grep -E "PCSR device copy of [0-9]{6}|CIHYBRID filled on the device from the AIJ arrays \([1-9]|CIHYBRID layout [0-9]{6}|Automatic BOUNDARY.*device|Large host-device" /tmp/r.txt | sed 's/.*<sys> //;s/.*<mat:[a-z]*> //' | cut -c1-240
}
for round in 1 2 3; do
  for c in "star 160" "box 100"; do set -- $c; for t in aijcusparse pcsr cihybrid; do one $t $1 $2 $round; done; done
done
meson test -C $B --no-rebuild --num-processes 10 --print-errorlogs fci_cihybrid fci_device fci_np3_cihybrid fci_device_np2 ci_eigen_h2o_sto2g_cihybrid ci_eigen_n2_sto3g_cihybrid ci_eigen_n2_sto3g_lobpcg_cihybrid ci_eigen_h2o_sto2g_cihybrid_np2 bench_refresh_cihybrid_setvalues bench_refresh_cihybrid_algebra cihybrid_ops cihybrid_solvers cihybrid_badinput cihybrid_product coo_cihybrid cihybrid_builder cihybrid_ops_np2 cihybrid_product_np2 coo_cihybrid_np2 cihybrid_solvers_np2 cihybrid_ops_np3 cihybrid_oom cihybrid_device_rows pcsr_device pcsr_ops pcsr_ops_np2 ci_eigen_n2_sto3g_pcsr > $OUT/tests.txt 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:" $OUT/tests.txt | cut -c1-110
echo "elapsed $(( $(date +%s) - T0 )) s"
