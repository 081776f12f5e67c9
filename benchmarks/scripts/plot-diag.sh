#!/bin/sh
# Draws the DIAG SpMV figure from the CSV of benchmarks/scripts/device-bench-diag.sh.
#
#   sh benchmarks/scripts/plot-diag.sh [CSV] [OUT_DIR]
#
#   CSV      bench_diag.csv of the script (default benchmarks/results/diag-spmv.csv)
#   OUT_DIR  where the PNG goes (default benchmarks/results)
#
# Writes OUT_DIR/diag_spmv_h200.png (SpMV and transposed SpMV of HM and CDM, PETSc's
# aijcusparse and the seqdiag type's MatMult, speed relative to cuSPARSE CSR ALG1).
# Installs gnuplot if missing.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
csv=${1:-$root/benchmarks/results/diag-spmv.csv}
out=${2:-$root/benchmarks/results}
. "$root/benchmarks/scripts/need-gnuplot.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

awk -F, 'NR > 1 && $1 ~ /^stencil/ { t[$1 "," $4] = $7; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END { for (i = 0; i < n; i++) { m = order[i]; a = t[m ",cusparse_csr_alg1"];
        printf "\"%s\" %g %g %g %g %g %g\n", m, a / t[m ",diag_hm"], a / t[m ",diag_cdm"], a / t[m ",diag_hm_transpose"], a / t[m ",diag_cdm_transpose"], a / t[m ",petsc_seqdiag_cdm"], a / t[m ",petsc_seqaijcusparse"] } }' \
  "$csv" > "$tmp/spmv.dat"
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

echo "plot-diag: wrote $out/diag_spmv_h200.png"
