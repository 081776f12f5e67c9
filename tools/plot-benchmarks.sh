#!/bin/sh
# Draws the benchmark figures (PNG) from the CSVs of a benchmark run.
#
#   sh tools/plot-benchmarks.sh [RUN_DIR] [MEMORY_CSV] [OUT_DIR]
#
#   RUN_DIR     CSVs of examples/bench_cihybrid (default benchmarks/h200-2026-11-22):
#               bench_32768.csv, bench_131072.csv, sweep_32768.csv
#   MEMORY_CSV  output of examples/ci_memory -csv (default benchmarks/memory.csv)
#   OUT_DIR     where the PNGs go (default benchmarks)
#
# Writes OUT_DIR/spmv_h200.png (SpMV time per kernel, both matrices),
# OUT_DIR/boundary_sweep_h200.png (kernel time against BOUNDARY) and
# OUT_DIR/memory.png (memory of the formats relative to CSR).  A missing
# input skips its figure.  Installs gnuplot (Debian gnuplot-nox) if missing.
set -e

root=$(cd "$(dirname "$0")/.." && pwd)
run=${1:-$root/benchmarks/h200-2026-11-22}
mem=${2:-$root/benchmarks/memory.csv}
out=${3:-$root/benchmarks}

if ! command -v gnuplot >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "plot-benchmarks: installing gnuplot-nox"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
fi

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

font='Sans,12'

# ---- (a) SpMV time per kernel, one panel per matrix -------------------------
# kernel rows of table 'spmv'; the matrix size and nonzeros come from the CSV
# itself (n from the file name; nnz from GB/s x time = nnz*12 + (n+1)*4 + 16n bytes)
spmv_panel() { # $1 csv, $2 n, $3 data out, $4 gnuplot snippet out
  awk -F, -v n="$2" -v snip="$4" '
    function label(k) {
      if (k == "cusparse_csr_alg1") return "cuSPARSE\\nCSR ALG1";
      if (k == "cusparse_csr_alg2") return "cuSPARSE\\nCSR ALG2";
      if (k == "petsc_seqaijcusparse") return "PETSc\\naijcusparse";
      if (k == "cihybrid_paper") return "cihybrid\\npaper kernel";
      if (k ~ /^cihybrid_tuned/) return "cihybrid\\ntuned kernel";
      return k;
    }
    NR > 1 && $1 == "spmv" {
      if (!nnz) nnz = ($13 * 1e9 * $11 * 1e-3 - 4 * (n + 1) - 16 * n) / 12;
      printf "%d %s %s\n", i, $11, $14;
      tics = tics (i ? ", " : "") sprintf("\"%s\" %d", label($2), i);
      i++;
    }
    END {
      printf "set xtics (%s)\n", tics > snip;
      printf "set title sprintf(\"%d rows, %.1fM nonzeros\")\n", n, nnz / 1e6 >> snip;
      printf "set xrange [-0.6:%f]\n", i - 0.4 >> snip;
    }' "$1" > "$3"
}

if [ -f "$run/bench_32768.csv" ] && [ -f "$run/bench_131072.csv" ]; then
  spmv_panel "$run/bench_32768.csv" 32768 "$tmp/spmv1.dat" "$tmp/spmv1.gp"
  spmv_panel "$run/bench_131072.csv" 131072 "$tmp/spmv2.dat" "$tmp/spmv2.gp"
  cat > "$tmp/spmv.gp" <<EOF
set terminal pngcairo size 1500,720 font '$font'
set output '$out/spmv_h200.png'
set multiplot layout 1,2 title "SpMV y = Ax on an NVIDIA H200, paper-like CI matrices (median of 200 runs)\nlabels: milliseconds and % of the measured read bandwidth (minimal CSR bytes / time)" font 'Sans,14'
set style fill solid 0.85 border -1
set boxwidth 0.6
set grid ytics
set ylabel 'SpMV time (ms, median)'
set yrange [0:*]
set offsets 0, 0, graph 0.18, 0
set bmargin 4
unset key
load '$tmp/spmv1.gp'
plot '$tmp/spmv1.dat' using 1:2:(\$1 < 3 ? 0x7f7f7f : (\$1 == 3 ? 0x4a90d9 : 0x1f5fa8)) with boxes lc rgb variable, \
     '' using 1:2:(sprintf("%.4f ms\n%.1f%% of read BW", \$2, \$3)) with labels offset 0,1.8 font 'Sans,11'
load '$tmp/spmv2.gp'
plot '$tmp/spmv2.dat' using 1:2:(\$1 < 3 ? 0x7f7f7f : (\$1 == 3 ? 0x4a90d9 : 0x1f5fa8)) with boxes lc rgb variable, \
     '' using 1:2:(sprintf("%.4f ms\n%.1f%% of read BW", \$2, \$3)) with labels offset 0,1.8 font 'Sans,11'
unset multiplot
EOF
  gnuplot "$tmp/spmv.gp"
  echo "plot-benchmarks: $out/spmv_h200.png"
else
  echo "plot-benchmarks: no $run/bench_32768.csv and bench_131072.csv: spmv_h200.png skipped"
fi

# ---- (b) kernel time against BOUNDARY (sweep) -------------------------------
if [ -f "$run/sweep_32768.csv" ]; then
  awk -F, 'NR > 1 && $1 == "sweep" && $2 == "cihybrid_paper" { print $4, $11, $9 / 1e6 }' "$run/sweep_32768.csv" > "$tmp/sweep_paper.dat"
  awk -F, 'NR > 1 && $1 == "sweep" && $2 ~ /^cihybrid_tuned/ { print $4, $11 }' "$run/sweep_32768.csv" > "$tmp/sweep_tuned.dat"
  # reference lines: the kernels at the automatic BOUNDARY and cuSPARSE ALG1, same run
  awk -F, 'NR > 1 && $1 == "spmv" {
      if ($2 == "cihybrid_paper") printf "paper_auto = %s\n", $11;
      else if ($2 ~ /^cihybrid_tuned/) printf "tuned_auto = %s\n", $11;
      else if ($2 == "cusparse_csr_alg1") printf "cusparse = %s\n", $11;
    }' "$run/sweep_32768.csv" > "$tmp/sweep_ref.gp"
  # the automatic BOUNDARY of this matrix, from the memory CSV when there is one
  auto=""
  if [ -f "$mem" ]; then
    auto=$(awk -F, '$1 == "\"synthetic 32768\"" { print $6 }' "$mem")
  fi
  : > "$tmp/sweep_auto.gp"
  if [ -n "$auto" ]; then
    cat > "$tmp/sweep_auto.gp" <<EOF
set arrow from $auto, graph 0 to $auto, graph 1 nohead dt 3 lw 1.5 lc rgb '#555555'
set label 'automatic BOUNDARY $auto' at $auto, graph 0.04 right offset -0.5,0 font 'Sans,10'
EOF
  fi
  cat > "$tmp/sweep.gp" <<EOF
set terminal pngcairo size 1200,700 font '$font'
set output '$out/boundary_sweep_h200.png'
set title "CIHYBRID SpMV time against BOUNDARY, 32768-row paper-like matrix (31.2M nonzeros), NVIDIA H200\nentries split; median of 50 runs per point; dashed: the same kernels at the automatic BOUNDARY (200 runs)" font 'Sans,13'
set xlabel 'BOUNDARY (ELLPACK width, entries per row; longest row 1070)'
set ylabel 'SpMV time (ms, median)'
set y2label 'format memory on the device (MB)'
set ytics nomirror
set y2tics
set yrange [0.094:0.136]
set y2range [360:440]
set xrange [-20:1100]
set grid
set key at graph 0.02, graph 0.89 left top Left reverse box opaque
load '$tmp/sweep_ref.gp'
load '$tmp/sweep_auto.gp'
plot '$tmp/sweep_paper.dat' using 1:2 with linespoints pt 7 ps 1.1 lw 2 lc rgb '#4a90d9' title 'paper kernel', \\
     '$tmp/sweep_tuned.dat' using 1:2 with linespoints pt 5 ps 1.0 lw 2 lc rgb '#1f5fa8' title 'tuned kernel', \\
     paper_auto with lines dt 2 lw 1.5 lc rgb '#4a90d9' title sprintf('paper kernel, automatic BOUNDARY (%.4f ms)', paper_auto), \\
     tuned_auto with lines dt 2 lw 1.5 lc rgb '#1f5fa8' title sprintf('tuned kernel, automatic BOUNDARY (%.4f ms)', tuned_auto), \\
     cusparse with lines dt 4 lw 1.5 lc rgb '#7f7f7f' title sprintf('cuSPARSE CSR ALG1 (%.4f ms)', cusparse), \\
     '$tmp/sweep_paper.dat' using 1:3 axes x1y2 with linespoints pt 6 ps 0.8 lw 1.5 lc rgb '#d9822b' title 'format memory on the device (MB, right axis)'
EOF
  gnuplot "$tmp/sweep.gp"
  echo "plot-benchmarks: $out/boundary_sweep_h200.png"
else
  echo "plot-benchmarks: no $run/sweep_32768.csv: boundary_sweep_h200.png skipped"
fi

# ---- (c) memory of the formats relative to CSR (ci_memory -csv) -------------
if [ -f "$mem" ]; then
  # columns of ci_memory -csv: 1 matrix, 2 n, 3 nnz, 11 csr_bytes, 12 ell_bytes, 13 sell32_bytes,
  # 14 hyb_ell_bytes, 15 hyb_csr_bytes, 16 hyb_bytes, 17 paper_formula_bytes
  awk -F, 'NR > 1 {
      name = $1; gsub(/"/, "", name);
      csr = $11;
      printf "%d %.4f %.4f %.4f %.4f %.4f\n", NR - 2, $12 / csr, $13 / csr, $14 / csr, $15 / csr, $17 / csr;
      if ($11 >= 1e9) size = sprintf("%.2f GB", $11 / 1e9); else if ($11 >= 1e6) size = sprintf("%.1f MB", $11 / 1e6); else size = sprintf("%.0f kB", $11 / 1e3);
      tics = tics (NR > 2 ? ", " : "") sprintf("\"%s\\n%s rows\\nCSR %s\" %d", name, $2, size, NR - 2);
      last = NR - 2;
      for (c = 12; c <= 17; c++) if (c != 14 && c != 15 && $c / csr > ymax) ymax = $c / csr;
    }
    END { printf "set xtics (%s)\nset xrange [-0.6:%f]\nset yrange [0:%f]\n", tics, last + 0.6, ymax * 1.3 + 0.1 > "/dev/stderr" }' "$mem" > "$tmp/mem.dat" 2> "$tmp/mem.gp"
  cat > "$tmp/memplot.gp" <<EOF
set terminal pngcairo size 1700,800 font '$font'
set output '$out/memory.png'
set title "Memory of a CI matrix in each format, relative to CSR (8-byte values, 4-byte indices; CSR = 1)\nCIHYBRID with the automatic BOUNDARY: ELL part (dark) + CSR part (light) as built by CIHybridBuildFromCSR" font 'Sans,14'
set ylabel 'memory / memory of CSR'
set grid ytics
set style fill solid 0.9 border -1
set key inside top center horizontal maxrows 3 box opaque width -2
set xtics font 'Sans,10'
set bmargin 5.5
load '$tmp/mem.gp'
bw = 0.18
plot '$tmp/mem.dat' using (\$1 - 1.5*bw):2:(bw) with boxes lc rgb '#9e9e9e' title 'ELLPACK (padded to the longest row)', \
     '' using (\$1 - 0.5*bw):3:(bw) with boxes lc rgb '#e0a040' title 'sliced ELLPACK, 32-row slices', \
     '' using (\$1 + 0.5*bw):(\$4 + \$5):(bw) with boxes lc rgb '#a8c8ec' notitle, \
     '' using (\$1 + 0.5*bw):4:(bw) with boxes lc rgb '#1f5fa8' notitle, \
     keyentry with boxes lc rgb '#1f5fa8' title 'CIHYBRID as built: ELL part (128-byte row pitch)', \
     keyentry with boxes lc rgb '#a8c8ec' title 'CIHYBRID as built: CSR part (stacked on top)', \
     '' using (\$1 + 1.5*bw):6:(bw) with boxes lc rgb '#5aa05a' title "CIHYBRID, the paper's formula (N·W·12 + nnz_{CSR}·12 + 4(N+1))", \
     1 with lines dt 2 lw 1.5 lc rgb '#000000' title 'CSR', \
     '' using (\$1 - 1.5*bw):2:(sprintf("%.2f", \$2)) with labels offset 0,0.7 font 'Sans,9' notitle, \
     '' using (\$1 - 0.5*bw):3:(sprintf("%.2f", \$3)) with labels offset 0,0.7 font 'Sans,9' notitle, \
     '' using (\$1 + 0.5*bw):(\$4 + \$5):(sprintf("%.2f", \$4 + \$5)) with labels offset 0,0.7 font 'Sans,9' notitle, \
     '' using (\$1 + 1.5*bw):6:(sprintf("%.2f", \$6)) with labels offset 0,0.7 font 'Sans,9' notitle
EOF
  gnuplot "$tmp/memplot.gp"
  echo "plot-benchmarks: $out/memory.png"
else
  echo "plot-benchmarks: no $mem (build/examples/ci_memory -csv $mem): memory.png skipped"
fi
