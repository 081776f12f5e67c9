#!/bin/sh
# device call 2 (2026-11-28, seventh session), two GPUs: the changed tests on 1-3 ranks (a GPU each
# and one shared), mpidiag's MatMult with and without the pinned exchange on a GPU a rank, and
# where the CI job's 2-rank build goes (-info)
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
for gpus in two one; do
  if [ $gpus = one ]; then export CUDA_VISIBLE_DEVICES=0; else unset CUDA_VISIBLE_DEVICES; fi
  meson test -C $B --print-errorlogs --num-processes 6 coo_ahead coo_ahead_np2 coo_ahead_np3 coo_ahead_pinned_ghosts_np2 coo_ahead_pinned_ghosts_np3 coo_diag_np2 coo_diag_np3 coo_pcsr_np3 coo_cihybrid_np3 coo_diag coo_cihybrid diag_ops_np3 diag_random_np2 diag_random_sor_device_np3 diag_dmda_np2 pcsr_ops_np3 cihybrid_ops_np2 cihybrid_solvers_np2 > /tmp/t.log 2>&1
  echo "== tests, $gpus GPU(s): $(grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/t.log | tr -s ' ' | tr '\n' ' ')"
  grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" /tmp/t.log
  grep -hE "MISMATCH|PETSC ERROR: [A-Za-z]" /tmp/t.log | grep -v "Configure options\|See https\|Release Version" | sort | uniq -c | head -10
  grep -h "coo_ahead .*: ok" $B/meson-logs/testlog.txt | sort | uniq -c | head -8
  mpiexec -n 2 $B/tests/test_coo_ahead -mat_type pcsr -n 40 -info :mat 2>&1 | grep -h "Ghost values" | sort | uniq -c | cut -c1-200 | head -4
done
unset CUDA_VISIBLE_DEVICES
echo "tests done at $(( $(date +%s) - T0 )) s"
L=${LABEL:-call2}
for op in box:100 star:160; do
  st=${op%%:*}; n=${op#*:}
  for pin in auto false; do
    timeout 90 mpiexec -n 2 $B/benchmarks/bench_refresh -n $n -stencil $st -dof 1 -dll_append $B/libgpumats.so -dm_mat_type diag -dm_vec_type cuda -path coo -coo_memory device -steps 20 -mults 50 -mat_gpumats_pinned_ghosts $pin -label $L-two-gpu-np2-$st-diag-pinned-$pin -csv $OUT/refresh.csv > /tmp/loop.txt 2>&1 || { echo "$st $pin rc $?"; tail -5 /tmp/loop.txt; }
  done
done
python3 - $OUT/refresh.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['label']:46s} insert {float(r['insert_s'])*1e3/int(r['steps']):.3f} ms/step  steady {float(r['steady_mult_ms']):.4f} ms  steps {float(r['steps_s']):.4f} s  err {r['rel_error']}")
PY
echo "loops done at $(( $(date +%s) - T0 )) s"
for np in 1 2; do
  for sector in isym full; do
    sec=""; [ $sector = isym ] && sec="-fci_sector isym"
    s0=$(date +%s.%N)
    mpiexec -n $np $B/examples/ci_eigen -fcidump .device/fcidump/H2O.631G.FCIDUMP $sec -fci_threads $(( $(nproc) / np )) -ci_log_gpu_time 0 -eps_nev 4 -dll_append $B/libgpumats.so -mat_type cihybrid -info > /tmp/ci.txt 2>&1
    echo "== np$np $sector cihybrid process $(awk "BEGIN { print $(date +%s.%N) - $s0 }") s"
    grep -h "Time to solution" /tmp/ci.txt
    grep -h "FCI Hamiltonian\|FCI device rows\|assembled on the device\|Assembled on the device\|Determinants" /tmp/ci.txt | cut -c1-300 | head -10
  done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
