#!/bin/sh
# device call 3 (2026-11-28, tenth session): pcsr against aijcusparse on the loop of 20 COO updates from device values
# x 50 MatMults, 7-point 160^3, one rank, five runs each (the sixth session's three runs: met once, 0.2% and 0.6% short)
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/gpumats-build
{ meson setup $B -Dcuda=enabled -Dexamples=true -Dmpi_tests_parallel=true && echo "cuda slepc=$SLEPC_DIR mpi_tests_parallel" > $B/.device-test-setup; } > /tmp/build.log 2>&1
ninja -C $B benchmarks/bench_refresh libgpumats.so >> /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
for run in 1 2 3 4 5; do
  for t in aijcusparse pcsr; do
    timeout 90 $B/benchmarks/bench_refresh -n 160 -stencil star -dof 1 -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label np1-star-$t-$run -csv $OUT/refresh.csv > $OUT/loop-star-$t-$run.txt 2>&1 || echo "$t $run rc $?"
  done
done
python3 - $OUT/refresh.csv <<'PY'
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
by={r['label']:r for r in rows}
for r in rows:
    print(f"{r['label']:28s} insert {float(r['insert_s'])*1e3/int(r['steps']):.3f} ms/step  steady {float(r['steady_mult_ms']):.4f} ms  steps {float(r['steps_s']):.4f} s  err {r['rel_error']}")
for run in range(1,6):
    a=by.get(f'np1-star-aijcusparse-{run}'); p=by.get(f'np1-star-pcsr-{run}')
    if a and p:
        print(f"run {run}: steps ratio {float(a['steps_s'])/float(p['steps_s']):.4f}  MatMult ratio {float(a['steady_mult_ms'])/float(p['steady_mult_ms']):.4f}")
PY
echo "elapsed $(( $(date +%s) - T0 )) s"
