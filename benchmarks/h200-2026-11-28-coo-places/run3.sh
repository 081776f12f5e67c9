#!/bin/sh
# device call 3 (2026-11-28, sixth session), two GPUs: the ghost exchange chosen by the new rule
# (-info), 2-rank loops one GPU a rank, and the same on one GPU (CUDA_VISIBLE_DEVICES=0)
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
L=${LABEL:-call3}
for gpus in two one; do
  for op in star:160 box:100; do
    st=${op%%:*}; n=${op#*:}
    for t in aijcusparse pcsr cihybrid; do
      if [ $gpus = one ]; then export CUDA_VISIBLE_DEVICES=0; else unset CUDA_VISIBLE_DEVICES; fi
      timeout 90 mpiexec -n 2 $B/benchmarks/bench_refresh -n $n -stencil $st -dof 1 -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label $L-$gpus-gpu-np2-$st-$t -csv $OUT/refresh_ghosts.csv -info :mat > /tmp/loop.txt 2>&1 || { echo "$gpus $st $t rc $?"; tail -5 /tmp/loop.txt; }
      echo "$gpus $st $t: $(grep -h 'Ghost values' /tmp/loop.txt | sort -u | head -2 | cut -c1-200)"
    done
  done
done
unset CUDA_VISIBLE_DEVICES
python3 - $OUT/refresh_ghosts.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['label']:40s} insert {float(r['insert_s'])*1e3/int(r['steps']):.3f} ms/step  steady {float(r['steady_mult_ms']):.4f} ms  steps {float(r['steps_s']):.4f} s  err {r['rel_error']}")
PY
echo "elapsed $(( $(date +%s) - T0 )) s"
