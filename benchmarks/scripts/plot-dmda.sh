#!/bin/sh
# Draws the whole-DMDA-program figure from the CSV of benchmarks/scripts/device-bench-dmda.sh:
# for each grid, the seconds of each part (DMCreateMatrix, fill, CG+Jacobi, multigrid, Newton)
# of diag and aijcusparse on the GPU, the multigrid solve with Jacobi smoothing, and aij on the
# CPU cores, stacked.
#
#   sh benchmarks/scripts/plot-dmda.sh [CSV] [PNG]
#
#   CSV  dmda.csv (default benchmarks/results/dmda.csv)
#   PNG  default benchmarks/results/dmda_h100.png.  Installs gnuplot if missing.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
csv=${1:-$root/benchmarks/results/dmda.csv}
png=${2:-$root/benchmarks/results/dmda_h100.png}
. "$root/benchmarks/scripts/need-gnuplot.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# one bar a run: "grid type label" create fill cg mg newton
awk -F, 'NR > 1 { type = $3; sub(/^(seq|mpi)/, "", type); label = $4 == "gpu-mg-jacobi" ? "MG, Jacobi" : ($4 == "cpu" ? "16 cores" : "GPU");
  printf "\"%s %s\\n%s\\n%s\" %s %s %s %s %s\n", $1, $2, type, label, $6, $7, $8, $11, $13 }' "$csv" > "$tmp/parts.dat"
gnuplot <<GP
set terminal pngcairo size 1400,600 font "sans,10" noenhanced
set bmargin 5
set output "$png"
set title "A whole DMDA program on an H100 (one rank, CUDA vectors) and on 16 CPU cores: seconds of each part"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set ylabel "s"
set grid ytics
set key top right
plot "$tmp/parts.dat" using 2:xtic(1) title "DMCreateMatrix", '' using 3 title "fill (MatSetValuesStencil)", '' using 4 title "CG + Jacobi (operator made inside)", '' using 5 title "multigrid", '' using 6 title "Newton, coloured FD Jacobians"
GP
echo "wrote $png"
