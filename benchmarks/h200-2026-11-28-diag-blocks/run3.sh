#!/bin/sh
# device call 3 (2026-11-28, fifth session): build, the diag product tests and the products benchmark
# on the bands and Table 2 (the blocks schedule only where it runs), then where the 2-rank MatMult of
# pcsr and cihybrid goes against aijcusparse's (-log_view, pinned ghosts on and off)
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
PETSC_OPTIONS="$PETSC_OPTIONS -vec_type cuda" meson test -C $B --print-errorlogs diag_device diag_products diag_products_plan_device diag_products_np2 > $OUT/tests.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok|^Fail" $OUT/tests.log | sort -u
echo "tests at $(( $(date +%s) - T0 )) s"
timeout 100 $B/benchmarks/bench_diag_products -reps 20 -first_reps 5 -rows t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,band-10240-21,band-10240-51,band-10240-101,band-10240-201,band-10240-401 -csv $OUT/bench_diag_products.csv > $OUT/bench_diag_products.txt 2>&1; echo "bench rc $?"
echo "bench at $(( $(date +%s) - T0 )) s"
for t in aijcusparse pcsr cihybrid; do
  for pg in 1 0; do
    [ $t = aijcusparse ] && [ $pg = 0 ] && continue
    timeout 60 mpiexec -n 2 $B/benchmarks/bench_refresh -n 160 -stencil star -dof 1 -dll_append $B/libgpumats.so -dm_mat_type $t -dm_vec_type cuda -path coo -coo_memory device -steps 2 -mults 200 -mat_gpumats_pinned_ghosts $([ $pg = 1 ] && echo true || echo false) -label $t-pg$pg -csv $OUT/mpi_mult.csv -log_view > $OUT/logview-$t-pg$pg.txt 2>&1
    echo "$t pinned $pg rc $?: $(grep -E '^MatMult |^VecScatterBegin|^VecScatterEnd|^SFPack|^SFUnpack' $OUT/logview-$t-pg$pg.txt | awk '{print $1, $2, $4}' | tr '\n' ' ')"
  done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
