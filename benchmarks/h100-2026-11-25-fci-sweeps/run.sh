#!/bin/sh
# device call: the FCI host build in one sweep (issue 21), 16 cores
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bs
{ [ -f $B/build.ninja ] || meson setup $B -Dcuda=enabled; } > $OUT/build.log 2>&1 && ninja -C $B libgpumats.so examples/ci_eigen >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"; nproc
F=.device/fcidump/H2O.631G.FCIDUMP
run() { # label np threads options...
  label=$1 np=$2 th=$3; shift 3
  timeout 150 mpiexec -n $np $B/examples/ci_eigen -fcidump $F -fci_threads $th -ci_log_gpu_time 0 -eps_nev 1 -eps_max_it 1 -dll_append $B/libgpumats.so -fci_assembly host "$@" -info :mat > /tmp/r.txt 2>&1 
  echo "== $label (np $np, $th threads): $(grep -E 'Build time' /tmp/r.txt | head -1)"
  grep -E 'FCI Hamiltonian rows' /tmp/r.txt | sed 's/^\[[0-9]*\] <mat[^>]*> FCIHamiltonianFromArrays(): //' | cut -c1-300
}
for th in 2 4 8 16; do
  for sw in one two; do
    run isym_aij_${th}_$sw 1 $th -fci_sector isym -mat_type aij -fci_host_sweeps $sw
  done
done
for sw in one two; do
  run isym_cihybrid_np2_$sw 2 8 -fci_sector isym -mat_type cihybrid -fci_host_sweeps $sw
  run isym_cihybrid_16_$sw 1 16 -fci_sector isym -mat_type cihybrid -fci_host_sweeps $sw
done
echo "elapsed $(( $(date +%s) - T0 )) s"
