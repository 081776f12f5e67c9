#!/bin/sh
# Draws the PCSR benchmark figures from the CSVs of benchmarks/scripts/device-bench-pcsr.sh and
# benchmarks/scripts/device-bench-pcsr-mpi.sh.
#
#   sh benchmarks/scripts/plot-pcsr.sh [SPMV_CSV] [MPI_CSV] [OUT_DIR]
#
#   SPMV_CSV  bench_pcsr.csv (default benchmarks/results/pcsr-spmv.csv)
#   MPI_CSV   bench_pcsr_mpi.csv (default benchmarks/results/pcsr-two-gpus.csv)
#   OUT_DIR   where the PNGs go (default benchmarks/results)
#
# Writes OUT_DIR/pcsr_spmv_h200.png (speed of every PCSR kernel and of PETSc's
# aijcusparse relative to cuSPARSE CSR ALG1, per matrix, log scale) and
# OUT_DIR/pcsr_mpi_h200.png (2-GPU parallel efficiency of PCSR-I and PCSR-II, with
# and without the communication).  Installs gnuplot (Debian gnuplot-nox) if missing.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
spmv=${1:-$root/benchmarks/results/pcsr-spmv.csv}
mpi=${2:-$root/benchmarks/results/pcsr-two-gpus.csv}
out=${3:-$root/benchmarks/results}
. "$root/benchmarks/scripts/need-gnuplot.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# one line per matrix: name, then ALG1 time / time of paper fused vector adaptive aijcusparse
awk -F, 'NR > 1 && $8 == "spmv" { t[$1 "," $9] = $12; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END { for (i = 0; i < n; i++) { m = order[i]; a = t[m ",cusparse_csr_alg1"]; name = m; sub(/:.*/, "", name);
        if (m ~ /:/) { s = m; sub(/^[^:]*:/, "", s); name = name "\\n" s }
        printf "\"%s\" %g %g %g %g %g\n", name, a / t[m ",pcsr_paper"], a / t[m ",pcsr_fused"], a / t[m ",pcsr_vector"], a / t[m ",pcsr_adaptive"], a / t[m ",petsc_seqaijcusparse"] } }' \
  "$spmv" > "$tmp/spmv.dat"
gnuplot <<GP
set terminal pngcairo size 1400,560 font "sans,10" noenhanced
set bmargin 4
set output "$out/pcsr_spmv_h200.png"
set title "PCSR SpMV on an H200: speed relative to cuSPARSE CSR ALG1 (> 1 is faster), median of 200"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y 2
set yrange [0.002:2]
set ytics (0.004, 0.016, 0.0625, 0.25, 0.5, 1, 1.5, 2)
set grid ytics
set key top left horizontal
set xtics font "sans,9"
plot "$tmp/spmv.dat" using 2:xtic(1) title "paper", '' using 3 title "fused", '' using 4 title "vector", '' using 5 title "adaptive", '' using 6 title "aijcusparse", 1 with lines lc rgb "black" notitle
GP

# efficiency per matrix: PCSR-I and PCSR-II, without and with communication
awk -F, 'NR > 1 { e[$1 "," $5 "," $6] = 100 * $11; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END { for (i = 0; i < n; i++) { m = order[i]; printf "\"%s\" %g %g %g %g\n", m, e[m ",rows,no"], e[m ",nnz,no"], e[m ",rows,yes"], e[m ",nnz,yes"] } }' \
  "$mpi" > "$tmp/mpi.dat"
gnuplot <<GP
set terminal pngcairo size 1400,520 font "sans,10" noenhanced
set bmargin 5
set output "$out/pcsr_mpi_h200.png"
set title "PCSR on 2 H200 GPUs: parallel efficiency T1 / (2 T2) in %"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set yrange [0:110]
set grid ytics
set key top right horizontal
set xtics font "sans,9" rotate by -20
plot "$tmp/mpi.dat" using 2:xtic(1) title "PCSR-I (rows), no comm.", '' using 3 title "PCSR-II (nnz), no comm.", '' using 4 title "PCSR-I, with comm.", '' using 5 title "PCSR-II, with comm.", 90 with lines lc rgb "black" dt 2 title "90%"
GP
echo "plot-pcsr: wrote $out/pcsr_spmv_h200.png and $out/pcsr_mpi_h200.png"
