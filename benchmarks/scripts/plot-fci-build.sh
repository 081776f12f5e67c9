#!/bin/sh
# Draws where the time of the CI main job goes, from the CSV of tools/device/device-fci-build.sh.
#
#   sh benchmarks/scripts/plot-fci-build.sh [CSV] [OUT_DIR]
#
#   CSV      fci_build.csv of tools/device/device-fci-build.sh (default benchmarks/results/fci-build.csv)
#   OUT_DIR  where the PNG goes (default benchmarks/results)
#
# Writes OUT_DIR/fci_build_h200.png: for each space (ISYM sector, full) and each way of running
# it, stacked seconds: the Hamiltonian build, the format build + upload (cihybrid; aijcusparse
# uploads inside its solve), the rest of the eigensolve.  Repeated runs: the one of median total.
# Installs gnuplot if missing.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
csv=${1:-$root/benchmarks/results/fci-build.csv}
out=${2:-$root/benchmarks/results}
. "$root/benchmarks/scripts/need-gnuplot.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# label total build format rest, then the run of median total for each label, in the CSV's order
awk -F, 'NR > 1 { printf "%s %.4f %.4f %.4f %.4f %d\n", $1, $7 + $8, $7, $13, $8 - $13, NR }' "$csv" |
  sort -k1,1 -k2,2n > "$tmp/runs"
awk '{ n[$1]++; line[$1, n[$1]] = $0; if (!($1 in first) || $6 < first[$1]) first[$1] = $6 }
  END { for (l in n) print first[l], line[l, int((n[l] + 1) / 2)] }' "$tmp/runs" | sort -n |
  awk '{ split($2, p, "_"); sub(/^[a-z]+_/, "", $2); gsub(/_/, " ", $2); printf "\"%s: %s\" %s %s %s\n", p[1], $2, $4, $5, $6 }' > "$tmp/time.dat"
gnuplot <<GP
set terminal pngcairo size 1200,560 font "sans,10" noenhanced
set output "$out/fci_build_h200.png"
set title "H2O/6-31G, 4 lowest states (Krylov-Schur) on an H200: where the time to solution goes, s"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics
set xtics rotate by -30 left
set bmargin 7
set key top right
plot "$tmp/time.dat" using 2:xtic(1) title "Hamiltonian build", '' using 3 title "cihybrid format build + upload", '' using 4 title "eigensolve (aijcusparse: with its upload)"
GP
echo "wrote $out/fci_build_h200.png"
