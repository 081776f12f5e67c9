#!/bin/sh
# The PCSR SpMV benchmark on a GPU machine (benchmarks/src/bench_pcsr.cu): every PCSR
# kernel against cuSPARSE CSR ALG1/ALG2 and PETSc's aijcusparse, the transposed
# products and SpMM (k = 8), on the matrix set of benchmarks/src/matgen.h at 1M-5M rows:
# the generated matrices in one run (one bandwidth measurement), then the FCI
# matrices, each in its own run: H2O 6-31G in its ISYM sector (read from
# $GPUMATS_FCIDUMP_DIR, default .device/fcidump, relative to the repository root;
# skipped with a message when absent) and the Hubbard 3x4 model.  About 3-4
# minutes on an H100 or H200 (host generation with OpenMP, all cores).
# Output: bench_pcsr.txt (the reports) and bench_pcsr.csv (one line per matrix
# and kernel) in the output directory.
# Usage: benchmarks/scripts/device-bench-pcsr.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
F=${GPUMATS_FCIDUMP_DIR:-.device/fcidump}
REPS=${GPUMATS_BENCH_REPS:-200}
status=0
mkdir -p "$OUT"
rm -f "$OUT/bench_pcsr.csv" "$OUT/bench_pcsr.txt"
bench() {
  echo "== bench_pcsr $*" | tee -a "$OUT/bench_pcsr.txt"
  "$B/benchmarks/bench_pcsr" "$@" -reps "$REPS" -spmm_k 8 -csv "$OUT/bench_pcsr.csv" > /tmp/bench_pcsr_run.txt 2>&1 || status=1
  tee -a "$OUT/bench_pcsr.txt" < /tmp/bench_pcsr_run.txt
}
# rows: 4M, 4.1M, 1M, 1.03M, 1.96M, 1M, 4.2M, 2M, 5M
bench -matrices stencil5:2000,stencil7:160,stencil27:100,elasticity:70,navierstokes:700,rmat:20,rmat:22,circuit:2000000,circuit:5000000
# 414,441 rows, 273M nonzeros
h2o=$F/H2O.631G.FCIDUMP
if [ -f "$h2o" ]; then
  bench -matrix fci -label h2o_631g_isym -fcidump "$h2o" -fci_sector isym
else
  echo "== H2O 6-31G ISYM: SKIPPED, $h2o missing (copy ../shared/data/fcidump/H2O.631G.FCIDUMP into $F)" | tee -a "$OUT/bench_pcsr.txt"
fi
# 853,776 rows, 16.7M nonzeros
bench -matrix fci -label hubbard34 -hubbard_lx 3 -hubbard_ly 4
exit $status
