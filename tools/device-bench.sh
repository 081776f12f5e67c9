#!/bin/sh
# The SpMV benchmarks on a GPU machine (called by tools/device-test.sh):
# the paper-like CI matrices of 32768 and 131072 rows, then the BOUNDARY sweep.
# Usage: tools/device-bench.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
status=0
for n in 32768 131072; do
  # 131072 rows keep the paper's ~950 nonzeros a row (124.6M nonzeros): densities scaled by 1/4
  dens=""; [ $n = 131072 ] && dens="-ref_density 0.05 -density 0.0025"
  "$B/examples/bench_cihybrid" -n $n $dens -csv "$OUT/bench_$n.csv" > /tmp/bench_$n.txt 2>&1 || status=1
  cat /tmp/bench_$n.txt | tee -a "$OUT/bench.txt"
done
if [ "${GPUMATS_SWEEP:-1}" = 1 ]; then
  "$B/examples/bench_cihybrid" -n 32768 -sweep -sweep_step 64 -csv "$OUT/sweep_32768.csv" > /tmp/sweep.txt 2>&1 || status=1
  tail -25 /tmp/sweep.txt | tee -a "$OUT/bench.txt"
fi
exit $status
