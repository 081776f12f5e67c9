#!/bin/sh
# device call 1 (2026-11-28, sixth session): build; the COO tests on the device (1-3 ranks);
# the loop of 20 COO updates from device values x 50 MatMults, 1 and 2 ranks, every type
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
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs coo_cihybrid coo_pcsr coo_diag coo_mpidiag coo_ahead coo_cihybrid_np2 coo_pcsr_np2 coo_diag_np2 coo_cihybrid_np3 coo_pcsr_np3 coo_diag_np3 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log | sort -u | grep -v " OK " ; grep -E "^Ok|^Fail" $OUT/tests.log
echo "tests at $(( $(date +%s) - T0 )) s"
L=${LABEL:-call1}
for np in 2 1; do
  for op in star:160:1 box:100:1; do
    st=${op%%:*}; r=${op#*:}; n=${r%%:*}; dof=${r#*:}
    for run in 1 2; do
      for t in aijcusparse pcsr cihybrid diag; do
        timeout 90 mpiexec -n $np $B/benchmarks/bench_refresh -n $n -stencil $st -dof $dof -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -label $L-np$np-$st-$t-$run -csv $OUT/refresh.csv > $OUT/loop-np$np-$st-$t-$run.txt 2>&1 || echo "np$np $st $t rc $?"
      done
    done
  done
done
python3 - $OUT/refresh.csv <<'PY'
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    print(f"{r['label']:36s} insert {float(r['insert_s'])*1e3/int(r['steps']):.3f} ms/step  steady {float(r['steady_mult_ms']):.4f} ms  steps {float(r['steps_s']):.4f} s  err {r['rel_error']}")
PY
echo "elapsed $(( $(date +%s) - T0 )) s"
