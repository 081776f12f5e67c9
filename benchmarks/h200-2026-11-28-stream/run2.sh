#!/bin/sh
# device call 2 (2026-11-28, eleventh session): the stream kernel, B's loads first and A read as summed; variants of
# loads in flight a warp (L) and blocks an SM the registers allow (K); Nsight Compute of stream and pairs on 200 x 200
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/petsc-cuda/lib:/opt/slepc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
VARS="L8K4 L16K2 L8K2 L16K4"
for v in $VARS; do
  L=$(echo $v | sed 's/L\([0-9]*\)K.*/\1/'); K=$(echo $v | sed 's/.*K//')
  rm -rf /tmp/src$v && mkdir /tmp/src$v && tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/src$v
  sed -i "s/#define DIAG_STREAM_LOADS   [0-9]* /#define DIAG_STREAM_LOADS   $L /; s/#define DIAG_STREAM_BLOCKS  [0-9]* /#define DIAG_STREAM_BLOCKS  $K /" /tmp/src$v/cuda/diag/diag_product_stream.cu
  grep -E "define DIAG_STREAM_(LOADS|BLOCKS)" /tmp/src$v/cuda/diag/diag_product_stream.cu | tr -s ' ' | tr '\n' ' '; echo
  { meson setup /tmp/b$v /tmp/src$v -Dcuda=enabled && ninja -C /tmp/b$v benchmarks/bench_diag_products; } > /tmp/build$v.log 2>&1 &
done
wait
echo "built in $(( $(date +%s) - T0 )) s"
ROWS=t1-6000,t1-10000,t2-200x200,t2-300x300,t2-400x200,band-10240-51
for v in $VARS; do
  timeout 100 /tmp/b$v/benchmarks/bench_diag_products -rows $ROWS -reps 20 -first_reps 3 -csr_max_nnz 0 -csv $OUT/k_$v.csv > /tmp/k_$v.txt 2>&1; echo "bench $v rc $? at $(( $(date +%s) - T0 )) s"
  cut -d, -f1,19,20,22,32 $OUT/k_$v.csv | tr ',' ' '
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 120 $NCU --clock-control none -k regex:"DiagProduct(Stream|Pairs)" -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --csv --page details /tmp/bL8K4/benchmarks/bench_diag_products -rows t2-200x200 -reps 1 -first_reps 1 -warmup 0 -csr_max_nnz 0 -check_max_n 0 > $OUT/ncu.csv 2> /tmp/ncu.err
echo "ncu rc $? at $(( $(date +%s) - T0 )) s"; tail -3 /tmp/ncu.err
echo "elapsed $(( $(date +%s) - T0 )) s"
