#!/bin/sh
# The DIAG benchmarks on a GPU machine (benchmarks/src/bench_diag.cu), issue 8's two:
#  1. SpMV y = A x and y = A^T x on 5-, 7- and 27-point stencils (1M-9M rows), HM and
#     CDM kernels against cuSPARSE CSR ALG1/ALG2 (and its transpose) and PETSc's
#     aijcusparse, and MatMult of the seqdiag type itself on VECCUDA vectors;
#  2. C = A A at n = 10,000 (banded w = 5..401, structured sparse 10..600 diagonals)
#     and n = 10^6 (banded w = 5, 21, 101): our pairs kernel, the paper's Algorithm 1
#     (CDM) and 2 (HM), cusparseSpGEMM and aijcusparse MatMatMult.
# About 2-3 minutes on an H200.  Output: bench_diag.txt and bench_diag.csv.
# Usage: benchmarks/scripts/device-bench-diag.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
REPS=${GPUMATS_BENCH_REPS:-200}
mkdir -p "$OUT"
rm -f "$OUT/bench_diag.csv" "$OUT/bench_diag.txt"
"$B/benchmarks/bench_diag" -reps "$REPS" -csv "$OUT/bench_diag.csv" \
  -matrices stencil5:2000,stencil7:160,stencil27:100,stencil5:3000,stencil7:200 \
  -products band:10000:5,band:10000:21,band:10000:101,band:10000:401,sparse:10000:10,sparse:10000:100,sparse:10000:600,band:1000000:5,band:1000000:21,band:1000000:101 \
  > "$OUT/bench_diag.txt" 2>&1
status=$?
cat "$OUT/bench_diag.txt"
exit $status
