#!/bin/sh
# The diag products like for like on a GPU machine (issue 19): benchmarks/src/bench_diag_products.cu on
# every row of the DIAG paper's Tables 1-2 (each at its own n) and on bands at n = 10,240 (5-401
# diagonals) and n = 10^6 (5, 21, 101): first product (symbolic + numeric, C allocated on the
# device) and numeric phase of the seqdiag MatProduct, of aijcusparse's MatProduct and of
# cusparseSpGEMM (whole product; cusparseSpGEMMreuse_compute), the diag kernel alone, flops, bytes,
# fraction of the roofline, the paper's CUDA time; then the same in HM for both operands (auto
# makes most of these CDM); then the host numeric phase against seqaij's with the paper's CPU time
# (benchmarks/src/bench_diag_products_host.c).  About 2-3 minutes on an H200 (timeouts: 120 + 45 + 60 s).
# Usage: benchmarks/scripts/device-bench-diag-products.sh <build dir> <output dir>
#   (build dir: tools/device/device-test.sh's, e.g. /tmp/gpumats-build; after a pull: ninja -C <build dir>)
# Output: bench_diag_products.{csv,txt} (auto schemes), bench_diag_products_hm.{csv,txt},
#         bench_diag_products_host.{csv,txt}.  GPUMATS_BENCH_REPS (20) numeric repetitions.
set -u
B=$1 OUT=$2
REPS=${GPUMATS_BENCH_REPS:-20}
mkdir -p "$OUT"
status=0
ninja -C "$B" benchmarks/bench_diag_products benchmarks/bench_diag_products_host > "$OUT/bench_diag_products_build.log" 2>&1 || { tail -30 "$OUT/bench_diag_products_build.log"; exit 1; }
# all rows, the schemes auto takes; the n = 10^6 bands last (cuSPARSE is skipped above 5e7 nonzeros)
timeout 120 "$B/benchmarks/bench_diag_products" -reps "$REPS" -first_reps 5 -csv "$OUT/bench_diag_products.csv" > "$OUT/bench_diag_products.txt" 2>&1 || status=1
cat "$OUT/bench_diag_products.txt"
# HM for both operands on the structured-sparse rows (the pairs kernel on C's own diagonal lengths)
timeout 45 "$B/benchmarks/bench_diag_products" -scheme hm -reps "$REPS" -first_reps 3 -csr_max_nnz 0 \
  -rows t1-1000,t1-5000,t1-10000,t2-200x200,t2-300x300,t2-400x200,t2-500x500,t2-600x600,band-10240-101,band-10240-401 \
  -csv "$OUT/bench_diag_products_hm.csv" > "$OUT/bench_diag_products_hm.txt" 2>&1 || status=1
cat "$OUT/bench_diag_products_hm.txt"
# the host: diag's numeric phase against seqaij's (one core), the paper's CPU time beside
timeout 60 "$B/benchmarks/bench_diag_products_host" -reps 3 -first_reps 1 -csv "$OUT/bench_diag_products_host.csv" > "$OUT/bench_diag_products_host.txt" 2>&1 || status=1
cat "$OUT/bench_diag_products_host.txt"
exit $status
