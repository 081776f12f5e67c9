#!/bin/sh
# Draws the DIAG benchmark figures from the CSV of benchmarks/scripts/device-bench-diag.sh.
#
#   sh benchmarks/scripts/plot-diag.sh [RUN_DIR] [OUT_DIR]
#
#   RUN_DIR  bench_diag.csv (default benchmarks/h200-2026-11-24-diag)
#   OUT_DIR  where the PNGs go (default benchmarks)
#
# Writes OUT_DIR/diag_spmv_h200.png (SpMV and transposed SpMV of HM and CDM, PETSc's
# aijcusparse and the seqdiag type's MatMult, speed relative to cuSPARSE CSR ALG1) and
# OUT_DIR/diag_product_h200.png (C = A A: our kernels, the paper's, aijcusparse's numeric
# MatMatMult and a whole cusparseSpGEMM, ms, log scale).  Installs gnuplot if missing.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$root/benchmarks/h200-2026-11-24-diag}
out=${2:-$root/benchmarks}
. "$root/benchmarks/scripts/need-gnuplot.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

awk -F, 'NR > 1 && $1 ~ /^stencil/ { t[$1 "," $4] = $7; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END { for (i = 0; i < n; i++) { m = order[i]; a = t[m ",cusparse_csr_alg1"];
        printf "\"%s\" %g %g %g %g %g %g\n", m, a / t[m ",diag_hm"], a / t[m ",diag_cdm"], a / t[m ",diag_hm_transpose"], a / t[m ",diag_cdm_transpose"], a / t[m ",petsc_seqdiag_cdm"], a / t[m ",petsc_seqaijcusparse"] } }' \
  "$run/bench_diag.csv" > "$tmp/spmv.dat"
gnuplot <<GP
set terminal pngcairo size 1300,520 font "sans,10" noenhanced
set output "$out/diag_spmv_h200.png"
set title "DIAG SpMV on an H200: speed relative to cuSPARSE CSR ALG1 (> 1 is faster), median of 200"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set yrange [0:3]
set grid ytics
set key top right horizontal
plot "$tmp/spmv.dat" using 2:xtic(1) title "HM", '' using 3 title "CDM", '' using 4 title "HM, A^T x", '' using 5 title "CDM, A^T x", '' using 6 title "MatMult seqdiag (CDM)", '' using 7 title "aijcusparse", 1 with lines lc rgb "black" notitle
GP

# C = A A: the best of our HM/CDM kernels, the best of the paper's two, aijcusparse, SpGEMM (0: failed)
awk -F, 'function best(a, b) { return (a > 0 && (b <= 0 || a < b)) ? a : b }
  NR > 1 && $1 !~ /^stencil/ { t[$1 "," $4] = $7; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END { for (i = 0; i < n; i++) { m = order[i]; s = t[m ",cusparse_spgemm"]; p = t[m ",petsc_aijcusparse_matmatmult"];
        printf "\"%s\" %g %g %g %g\n", m, best(t[m ",diag_hm_product"], t[m ",diag_cdm_product"]), best(t[m ",diag_hm_product_paper"], t[m ",diag_cdm_product_tiled"]), (p > 0 ? p : 1e-9), (s > 0 ? s : 1e-9) } }' \
  "$run/bench_diag.csv" > "$tmp/product.dat"
gnuplot <<GP
set terminal pngcairo size 1300,560 font "sans,10" noenhanced
set bmargin 5
set output "$out/diag_product_h200.png"
set title "C = A A on an H200, ms (log scale; band:n:w, sparse:n:d; no bar: failed)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [0.002:200]
set grid ytics
set key top left horizontal
set xtics font "sans,9" rotate by -20
plot "$tmp/product.dat" using 2:xtic(1) title "DIAG, ours (best scheme)", '' using 3 title "DIAG, the paper's (best)", '' using 4 title "aijcusparse MatMatMult (numeric)", '' using 5 title "cusparseSpGEMM (whole)"
GP
echo "plot-diag: wrote $out/diag_spmv_h200.png and $out/diag_product_h200.png"
