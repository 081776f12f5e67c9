#!/bin/sh
# device call 2 (2026-11-28, sixth session), two GPUs, one rank each: the loop of 20 COO updates
# from device values x 50 MatMults at 1 and 2 ranks, every type (pinned ghosts forced too, for the
# crossover); then the CI main job on 1 and 2 ranks (tools/device/device-fci-build.sh)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
if [ ! -f $B/build.ninja ]; then { meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1; fi
ninja -C $B >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
nvidia-smi -L
L=${LABEL:-call2}
loop() { # np stencil n type label-suffix [options]
  np=$1 st=$2 n=$3 t=$4 sfx=$5; shift 5
  timeout 90 mpiexec -n $np $B/benchmarks/bench_refresh -n $n -stencil $st -dof 1 -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label $L-np$np-$st-$t$sfx -csv $OUT/refresh_2gpu.csv "$@" > /tmp/loop.txt 2>&1 || { echo "np$np $st $t$sfx rc $?"; tail -5 /tmp/loop.txt; }
}
# which GPU each rank took
(timeout 60 mpiexec -n 2 $B/benchmarks/bench_refresh -n 160 -stencil star -dof 1 -dll_append $B/libgpumats.so -dm_mat_type pcsr -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 > /dev/null 2>&1 &)
sleep 8; nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv; sleep 6
for op in star:160 box:100; do
  st=${op%%:*}; n=${op#*:}
  for t in aijcusparse pcsr cihybrid diag; do loop 2 $st $n $t ""; done
  for t in pcsr cihybrid; do loop 2 $st $n $t -pinned -mat_gpumats_pinned_ghosts true; done
  for t in aijcusparse pcsr cihybrid diag; do loop 1 $st $n $t ""; done
done
python3 - $OUT/refresh_2gpu.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['label']:36s} insert {float(r['insert_s'])*1e3/int(r['steps']):.3f} ms/step  steady {float(r['steady_mult_ms']):.4f} ms  steps {float(r['steps_s']):.4f} s  first {float(r['first_mult_s'])*1e3:.2f} ms  err {r['rel_error']}")
PY
echo "loops done at $(( $(date +%s) - T0 )) s"
MPIEXEC=mpiexec GPUMATS_FCI_RANKS="1 2" GPUMATS_FCI_TIMEOUT=120 sh tools/device/device-fci-build.sh $B - $OUT > /tmp/fci.txt 2>&1; echo "fci rc $?"
python3 - $OUT/fci_build.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r['label'], r['mat_type'], 'build', r['build_s'], 'solve', r['solve_s'], 'matmult', r['matmult_s'], r['matmult_calls'], 'it', r['iterations'], 'e0', r['e0'])
PY
grep "process wall" $OUT/fci_build.txt | tr '\n' ' '; echo
echo "elapsed $(( $(date +%s) - T0 )) s"
