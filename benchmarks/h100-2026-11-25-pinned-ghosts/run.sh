#!/bin/sh
# device call: MPI suite (both vector kinds, short timeouts), then the pinned-ghosts bench
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
BUILD=/tmp/bg GPUMATS_SKIP_BENCH=1 GPUMATS_TEST_JOBS=16 GPUMATS_TEST_ARGS="--suite mpi --suite fci --timeout-multiplier 0.2" sh tools/device-test.sh
echo "suite done $(( $(date +%s) - T0 )) s"
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bg
F=.device/fcidump/H2O.631G.FCIDUMP
run() { label=$1 np=$2; shift 2
  timeout 45 mpiexec -n $np $B/examples/ci_eigen -fcidump $F -fci_threads 8 -ci_log_gpu_time 0 -eps_nev 4 -dll_append $B/libgpumats.so -mat_type cihybrid "$@" -info :mat -csv $OUT/ghosts.csv -csv_label $label > /tmp/r.txt 2>&1 || { echo "   FAILED $label"; tail -15 /tmp/r.txt; }
  echo "== $label: $*"; grep -E "hosts|Ghost|ghost|Solve time|Time to solution|^ +0 +-7" /tmp/r.txt | sed 's/^\[[0-9]*\] <mat> //' | sort -u | cut -c1-220
}
for rep in 1 2; do
for sp in isym full; do
  sec=""; [ $sp = isym ] && sec="-fci_sector isym"
  run ${sp}_np2_pinned 2 $sec
  run ${sp}_np2_petsc 2 $sec -mat_gpumats_pinned_ghosts false
done
done
run isym_np1 1 -fci_sector isym
run full_np1 1
export CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) CUDA_MPS_LOG_DIRECTORY=$(mktemp -d)
nvidia-cuda-mps-control -d && {
for sp in isym full; do
  sec=""; [ $sp = isym ] && sec="-fci_sector isym"
  run ${sp}_np2_pinned_mps 2 $sec
  run ${sp}_np2_petsc_mps 2 $sec -mat_gpumats_pinned_ghosts false
  run ${sp}_np4_pinned_mps 4 $sec
done
echo quit | nvidia-cuda-mps-control; }
echo "elapsed $(( $(date +%s) - T0 )) s"
