#!/bin/sh
# device call: the FCI host build without MatSetValues (issue 21) against the build before it
set -u
OUT=${OUT:-/tmp/out}
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt; nproc
( { [ -f /tmp/bold/build.ninja ] || meson setup /tmp/bold .device/old -Dcuda=enabled; } > $OUT/build_old.log 2>&1 && ninja -C /tmp/bold examples/ci_eigen libgpumats.so >> $OUT/build_old.log 2>&1; echo "old build rc $?" ) &
{ [ -f /tmp/b/build.ninja ] || meson setup /tmp/b -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C /tmp/b >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
wait
echo "built in $(( $(date +%s) - T0 )) s"; git log --oneline -1 2>/dev/null
F=.device/fcidump/H2O.631G.FCIDUMP
run() { # label build np threads options...
  label=$1 b=$2 np=$3 th=$4; shift 4
  s=$(date +%s.%N)
  timeout 120 mpiexec -n $np $b/examples/ci_eigen -fcidump $F -fci_threads $th -ci_log_gpu_time 0 -eps_nev 4 -dll_append $b/libgpumats.so "$@" -info :mat -csv $OUT/fci_host.csv -csv_label $label > /tmp/r.txt 2>&1 || { echo "   FAILED $label"; tail -5 /tmp/r.txt; }
  e=$(date +%s.%N)
  echo "== $label np$np threads $th: $*"
  grep -E "FCI Hamiltonian rows|Build time|Solve time|^ +[0-3] +-7" /tmp/r.txt | sed 's/^\[[0-9]*\] <mat> //' | cut -c1-260
  echo "   process wall $(awk "BEGIN{printf \"%.2f\", $e - $s}") s"
}
for sp in ${SPACES:-isym}; do
  sec=""; [ $sp = isym ] && sec="-fci_sector isym"
  for v in old new; do
    [ $v = old ] && b=/tmp/bold || b=/tmp/b
    run ${sp}_${v}_np1_aijcusparse $b 1 16 $sec -mat_type aijcusparse
    run ${sp}_${v}_np1_cihybrid_host $b 1 16 $sec -mat_type cihybrid -fci_assembly host
    run ${sp}_${v}_np2_cihybrid $b 2 8 $sec -mat_type cihybrid
    run ${sp}_${v}_np2_aijcusparse $b 2 8 $sec -mat_type aijcusparse
  done
  run ${sp}_new_np1_cihybrid_device /tmp/b 1 16 $sec -mat_type cihybrid
  run ${sp}_new_np4_cihybrid /tmp/b 4 4 $sec -mat_type cihybrid
  [ $sp = isym ] && run ${sp}_new_np1_aij_cpu_build /tmp/b 1 16 $sec -mat_type aij -eps_max_it 1
  echo "elapsed $(( $(date +%s) - T0 )) s"
done
