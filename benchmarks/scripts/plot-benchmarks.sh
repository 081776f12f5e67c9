#!/bin/sh
# Draws the benchmark figures (PNG) from the CSVs in benchmarks/results.
#
#   sh benchmarks/scripts/plot-benchmarks.sh [RES_DIR] [MEMORY_CSV] [OUT_DIR]
#
#   RES_DIR     the CSVs (default benchmarks/results): of benchmarks/src/bench_cihybrid
#               spmv-synthetic-32768.csv, spmv-synthetic-131072.csv, boundary-sweep.csv, and
#               spmv-spmm-real.csv (benchmarks/scripts/device-bench.sh: the real matrices, a first
#               column `matrix`, SpMV and SpMM rows), and eigen-h2o.csv
#               (tools/device/device-eigen.sh: end-to-end SLEPc solves)
#   MEMORY_CSV  output of benchmarks/src/ci_memory -csv (default RES_DIR/memory.csv);
#               also gives the rows and nonzeros of the real matrices
#   OUT_DIR     where the PNGs go (default RES_DIR)
#
# Writes OUT_DIR/spmv_h200.png (SpMV time per kernel, both paper-like
# matrices), OUT_DIR/spmv_real_h200.png (the same for each real matrix),
# OUT_DIR/spmm_real_h200.png (SpMM against k SpMVs on the real matrices),
# OUT_DIR/eigen_h2o_h200.png (end-to-end eigensolve times),
# OUT_DIR/boundary_sweep_h200.png (kernel time against BOUNDARY) and
# OUT_DIR/memory.png (memory of the formats relative to CSR).  A missing
# input skips its figure.  Installs gnuplot (Debian gnuplot-nox) if missing.
set -e

root=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$root/benchmarks/results}
mem=${2:-$run/memory.csv}
out=${3:-$run}

. "$root/benchmarks/scripts/need-gnuplot.sh"

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

font='Sans,12'

# gnuplot settings of the SpMV bar panels (spmv_h200.png, spmv_real_h200.png)
spmv_bars() {
  printf '%s\n' "set style fill solid 0.85 border -1" "set boxwidth 0.6" "set grid ytics" \
    "set ylabel 'SpMV time (ms, median)'" "set yrange [0:*]" "set offsets 0, 0, graph 0.18, 0"
}

# ---- (a) SpMV time per kernel, one panel per matrix -------------------------
# kernel rows of table 'spmv', columns found by their header name (spmv-spmm-real.csv
# has an extra first column `matrix`); the matrix size and nonzeros come from
# the CSV itself (n from the file name or memory.csv; nnz from GB/s x time =
# nnz*12 + (n+1)*4 + 16n bytes).  Data: position, ms, % read, colour class
# (0 cuSPARSE/PETSc, 1 paper kernel, 2 tuned kernel).
spmv_panel() { # $1 csv, $2 matrix (rows whose `matrix` is this; '' all), $3 name for the title ('' none), $4 n ('' unknown), $5 data out, $6 gnuplot snippet out
  awk -F, -v matrix="$2" -v name="$3" -v n="$4" -v snip="$6" '
    function label(k, lanes) {
      if (k == "cusparse_csr_alg1") return "cuSPARSE\\nCSR ALG1";
      if (k == "cusparse_csr_alg2") return "cuSPARSE\\nCSR ALG2";
      if (k == "petsc_seqaijcusparse") return "PETSc\\naijcusparse";
      if (k == "cihybrid_paper") return "cihybrid\\npaper kernel";
      if (k ~ /^cihybrid_tuned/) return "cihybrid\\ntuned kernel" (lanes != 32 && lanes != "-" ? "\\n" lanes " lanes a row" : "");
      return k;
    }
    NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
    $col["table"] == "spmv" && (matrix == "" || $col["matrix"] == matrix) {
      ms = $col["ms_median"]; k = $col["kernel"];
      if (!nnz && n) nnz = ($col["gbs"] * 1e9 * ms * 1e-3 - 4 * (n + 1) - 16 * n) / 12;
      printf "%d %s %s %d\n", i, ms, $col["pct_read"], (k == "cihybrid_paper" ? 1 : (k ~ /^cihybrid_tuned/ ? 2 : 0));
      tics = tics (i ? ", " : "") sprintf("\"%s\" %d", label(k, $col["lanes"]), i);
      i++;
    }
    END {
      printf "set xtics (%s)\n", tics > snip;
      if (name == "")
        printf "set title sprintf(\"%d rows, %.1fM nonzeros\")\n", n, nnz / 1e6 >> snip;
      else if (n)
        printf "set title \"%s\\n%d rows, %.1fM nonzeros\"\n", name, n, nnz / 1e6 >> snip;
      else
        printf "set title \"%s\"\n", name >> snip;
      printf "set xrange [-0.6:%f]\n", i - 0.4 >> snip;
    }' "$1" > "$5"
}

if [ -f "$run/spmv-synthetic-32768.csv" ] && [ -f "$run/spmv-synthetic-131072.csv" ]; then
  spmv_panel "$run/spmv-synthetic-32768.csv" "" "" 32768 "$tmp/spmv1.dat" "$tmp/spmv1.gp"
  spmv_panel "$run/spmv-synthetic-131072.csv" "" "" 131072 "$tmp/spmv2.dat" "$tmp/spmv2.gp"
  cat > "$tmp/spmv.gp" <<EOF
set terminal pngcairo size 1500,720 font '$font'
set output '$out/spmv_h200.png'
set multiplot layout 1,2 title "SpMV y = Ax on an NVIDIA H200, paper-like CI matrices (median of 200 runs)\nlabels: milliseconds and % of the measured read bandwidth (minimal CSR bytes / time)" font 'Sans,14'
$(spmv_bars)
set bmargin 4
unset key
load '$tmp/spmv1.gp'
plot '$tmp/spmv1.dat' using 1:2:(\$4 == 0 ? 0x7f7f7f : (\$4 == 1 ? 0x4a90d9 : 0x1f5fa8)) with boxes lc rgb variable, \
     '' using 1:2:(sprintf("%.4f ms\n%.1f%% of read BW", \$2, \$3)) with labels offset 0,1.8 font 'Sans,11'
load '$tmp/spmv2.gp'
plot '$tmp/spmv2.dat' using 1:2:(\$4 == 0 ? 0x7f7f7f : (\$4 == 1 ? 0x4a90d9 : 0x1f5fa8)) with boxes lc rgb variable, \
     '' using 1:2:(sprintf("%.4f ms\n%.1f%% of read BW", \$2, \$3)) with labels offset 0,1.8 font 'Sans,11'
unset multiplot
EOF
  gnuplot "$tmp/spmv.gp"
  echo "plot-benchmarks: $out/spmv_h200.png"
else
  echo "plot-benchmarks: no $run/spmv-synthetic-32768.csv and spmv-synthetic-131072.csv: spmv_h200.png skipped"
fi

# ---- (a') the same on the real matrices, one panel per matrix of spmv-spmm-real.csv
# the display name of a real matrix (the `matrix` key of benchmarks/scripts/device-bench.sh)
# and its name in memory.csv, whose n gives the panel its size
real_names() { # $1 key; sets rname, rmem
  case $1 in
    n2_sto3g) rname='N2 STO-3G, full space'; rmem='N2 STO-3G (full)' ;;
    hubbard34) rname='Hubbard 3x4, U=8, half filling'; rmem='Hubbard 3x4 U=8 (full)' ;;
    h2o_631g_isym) rname='H2O 6-31G, ISYM sector'; rmem='H2O 6-31G (ISYM sector)' ;;
    *) rname=$1; rmem='' ;;
  esac
}
real="$run/spmv-spmm-real.csv"
if [ -f "$real" ]; then
  # the matrices in the order of the CSV
  reals=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$real")
  nreal=$(echo "$reals" | wc -w)
fi

if [ -f "$real" ] && [ "$nreal" -gt 0 ]; then
  cat > "$tmp/spmvr.gp" <<EOF
set terminal pngcairo size $((640 * nreal + 160)),760 font '$font'
set output '$out/spmv_real_h200.png'
set multiplot layout 1,$nreal title "SpMV y = Ax on an NVIDIA H200, real CI matrices (FCI Hamiltonians, automatic BOUNDARY; median of 200 runs)\nlabels: milliseconds and % of the measured read bandwidth (minimal CSR bytes / time)" font 'Sans,14'
$(spmv_bars)
set bmargin 5
unset key
EOF
  for m in $reals; do
    real_names "$m"
    n=""
    [ -z "$rmem" ] || [ ! -f "$mem" ] || n=$(awk -F, -v name="\"$rmem\"" '$1 == name { print $2 }' "$mem")
    spmv_panel "$real" "$m" "$rname" "$n" "$tmp/spmvr_$m.dat" "$tmp/spmvr_$m.gp"
    cat >> "$tmp/spmvr.gp" <<EOF
load '$tmp/spmvr_$m.gp'
plot '$tmp/spmvr_$m.dat' using 1:2:(\$4 == 0 ? 0x7f7f7f : (\$4 == 1 ? 0x4a90d9 : 0x1f5fa8)) with boxes lc rgb variable, \\
     '' using 1:2:(sprintf("%.4f ms\n%.1f%% read BW", \$2, \$3)) with labels offset 0,1.8 font 'Sans,10'
EOF
  done
  echo "unset multiplot" >> "$tmp/spmvr.gp"
  gnuplot "$tmp/spmvr.gp"
  echo "plot-benchmarks: $out/spmv_real_h200.png"
else
  echo "plot-benchmarks: no $real: spmv_real_h200.png skipped"
fi

# ---- (a'') SpMM against k SpMVs on the real matrices ------------------------
# rows of table 'spmm' (the BENCHMARKS.md SpMM table): for each k, the k tuned
# SpMVs back to back, one CIHybridDeviceSpMM and cuSPARSE SpMM (default
# algorithm; ALG2 is in the CSV but not in the table).  The bar height is
# time / k, so that one SpMV and the per-column cost of the block products
# compare at every k; the labels give the time of the whole product and
# speedup_vs_spmvs.  Data: x, ms / k, ms, speed-up, bar (0 SpMVs, 1 cihybrid, 2 cuSPARSE).
spmm_panel() { # $1 csv, $2 matrix, $3 name for the title, $4 data out, $5 gnuplot snippet out
  awk -F, -v matrix="$2" -v name="$3" -v snip="$5" '
    NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
    $col["table"] == "spmm" && $col["matrix"] == matrix {
      kern = $col["kernel"]; k = $col["k"];
      if (kern == "cihybrid_tuned_spmv_x_k") b = 0;
      else if (kern == "cihybrid_spmm") b = 1;
      else if (kern == "cusparse_spmm_default") b = 2;
      else next;
      if (!(k in group)) {
        group[k] = ng++;
        tics = tics (group[k] ? ", " : "") sprintf("\"k = %s\" %d", k, group[k]);
      }
      printf "%f %g %s %s %d\n", group[k] + (b - 1) * 0.27, $col["ms_median"] / k, $col["ms_median"], $col["speedup_vs_spmvs"], b;
    }
    END {
      printf "set xtics (%s)\n", tics > snip;
      printf "set title \"%s\"\n", name >> snip;
      printf "set xrange [-0.6:%f]\n", ng - 0.4 >> snip;
    }' "$1" > "$4"
}

if [ -f "$real" ] && [ "$nreal" -gt 0 ] && awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next } $col["table"] == "spmm" { found = 1 } END { exit !found }' "$real"; then
  cat > "$tmp/spmmr.gp" <<EOF
set terminal pngcairo size 1600,$((400 * nreal + 100)) font '$font'
set output '$out/spmm_real_h200.png'
set multiplot layout $nreal,1 title "SpMM C = AB (B, C n×k, column-major) against k SpMVs on an NVIDIA H200, real CI matrices (median of 200 runs)\nbar height: time / k (ms per column of B); labels: time of the whole product and speed-up over the k tuned SpMVs" font 'Sans,14'
set style fill solid 0.85 border -1
set boxwidth 0.27
set grid ytics
set ylabel 'time / k (ms per column, median)'
set yrange [0:*]
set offsets 0, 0, graph 0.22, 0
set lmargin 12
set bmargin 2
set key top right horizontal maxrows 1 Left reverse box opaque font 'Sans,10' samplen 2 width 1
EOF
  first=1
  for m in $reals; do
    real_names "$m"
    spmm_panel "$real" "$m" "$rname" "$tmp/spmmr_$m.dat" "$tmp/spmmr_$m.gp"
    [ -s "$tmp/spmmr_$m.dat" ] || continue
    # the key (which bar is which) in the first panel only
    if [ $first = 1 ]; then
      keys="keyentry with boxes lc rgb '#1f5fa8' title 'k tuned SpMVs', keyentry with boxes lc rgb '#d9822b' title 'cihybrid SpMM', keyentry with boxes lc rgb '#7f7f7f' title 'cuSPARSE SpMM (default)', "
      first=0
    else
      keys=""
      echo "unset key" >> "$tmp/spmmr.gp"
    fi
    cat >> "$tmp/spmmr.gp" <<EOF
load '$tmp/spmmr_$m.gp'
plot '$tmp/spmmr_$m.dat' using 1:2:(\$5 == 0 ? 0x1f5fa8 : (\$5 == 1 ? 0xd9822b : 0x7f7f7f)) with boxes lc rgb variable notitle, $keys\\
     '' using 1:2:(\$5 == 0 ? sprintf(\$3 < 2 ? "%.4f ms" : "%.3f ms", \$3) : sprintf(\$3 < 2 ? "%.4f ms\n%.2f×" : "%.3f ms\n%.2f×", \$3, \$4)) with labels offset 0,1.5 font 'Sans,10' notitle
EOF
  done
  echo "unset multiplot" >> "$tmp/spmmr.gp"
  gnuplot "$tmp/spmmr.gp"
  echo "plot-benchmarks: $out/spmm_real_h200.png"
else
  echo "plot-benchmarks: no $real or no spmm rows in it: spmm_real_h200.png skipped"
fi

# ---- (b) kernel time against BOUNDARY (sweep) -------------------------------
if [ -f "$run/boundary-sweep.csv" ]; then
  awk -F, 'NR > 1 && $1 == "sweep" && $2 == "cihybrid_paper" { print $4, $11, $9 / 1e6 }' "$run/boundary-sweep.csv" > "$tmp/sweep_paper.dat"
  awk -F, 'NR > 1 && $1 == "sweep" && $2 ~ /^cihybrid_tuned/ { print $4, $11 }' "$run/boundary-sweep.csv" > "$tmp/sweep_tuned.dat"
  # reference lines: the kernels at the automatic BOUNDARY and cuSPARSE ALG1, same run
  awk -F, 'NR > 1 && $1 == "spmv" {
      if ($2 == "cihybrid_paper") printf "paper_auto = %s\n", $11;
      else if ($2 ~ /^cihybrid_tuned/) printf "tuned_auto = %s\n", $11;
      else if ($2 == "cusparse_csr_alg1") printf "cusparse = %s\n", $11;
    }' "$run/boundary-sweep.csv" > "$tmp/sweep_ref.gp"
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
  echo "plot-benchmarks: no $run/boundary-sweep.csv: boundary_sweep_h200.png skipped"
fi

# ---- (d) end-to-end eigensolves (tools/device/device-eigen.sh, eigen-h2o.csv) --------
# EPSSolve wall time of each configuration (the format set up on the device is
# inside it), from the labels 'space_solver_type' that device-eigen.sh writes.
# Two panels: Krylov-Schur (ISYM sector and full space), LOBPCG (block 8 and 16).
if [ -f "$run/eigen-h2o.csv" ]; then
  awk -F, -v ks="$tmp/eig_ks.dat" -v lob="$tmp/eig_lob.dat" '
    # the median of the runs of a label (repeated GPU runs: GPUMATS_EIGEN_REPEAT)
    function value(key,    i, j, m, x, v) {
      if (!(key in cnt)) return "NaN";
      m = cnt[key];
      for (i = 1; i <= m; i++) v[i] = runs[key, i];
      for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j] < v[j - 1]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
      return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2;
    }
    NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
    { k = $col["label"]; runs[k, ++cnt[k]] = $col["solve_s"]; nnz[k] = $col["nnz"]; n[k] = $col["n"] }
    END {
      split("isym full", sp, " ");
      split("aij_cpu aijcusparse cihybrid", ks_types, " ");
      for (g = 1; g <= 2; g++) {
        key = sp[g] "_ks_cihybrid";
        printf "%d \"%s\\n%d determinants\\n%.2fG nonzeros\"", g - 1, g == 1 ? "ISYM sector" : "full space", n[key], nnz[key] / 1e9 > ks;
        for (j = 1; j <= 3; j++) printf " %s", value(sp[g] "_ks_" ks_types[j]) > ks;
        printf "\n" > ks;
      }
      split("8 16", bs, " ");
      split("aij_cpu aijcusparse cihybrid_spmv cihybrid_spmm", lob_types, " ");
      for (g = 1; g <= 2; g++) {
        printf "%d \"block size %s\"", g - 1, bs[g] > lob;
        for (j = 1; j <= 4; j++) printf " %s", value("isym_lobpcg" bs[g] "_" lob_types[j]) > lob;
        printf "\n" > lob;
      }
    }' "$run/eigen-h2o.csv"
  cat > "$tmp/eig.gp" <<EOF
set terminal pngcairo size 1700,760 font '$font'
set output '$out/eigen_h2o_h200.png'
set multiplot layout 1,2 title "The 4 lowest eigenpairs of the H2O/6-31G FCI Hamiltonian, SLEPc 3.22, tolerance 1e-10: EPSSolve time (GPU: median of the runs)\nCPU: PETSc aij, 16 ranks on 16 cores; GPU: one NVIDIA H200, one rank, the format set up on the device inside the solve" font 'Sans,14'
set style data histogram
set style histogram clustered gap 1.5
set style fill solid 0.9 border -1
set logscale y
set grid ytics
set ylabel 'EPSSolve time (s, log scale)'
set key top right box opaque
set yrange [0.3:600]
set xrange [-0.6:1.6]
set bmargin 6
set title 'Krylov-Schur (one MatMult a step)'
plot '$tmp/eig_ks.dat' using 3:xtic(2) lc rgb '#9e9e9e' title 'aij, CPU', \\
     '' using 4 lc rgb '#e0a040' title 'aijcusparse', \\
     '' using 5 lc rgb '#1f5fa8' title 'cihybrid', \\
     '' using (\$1 - 0.25):3:(sprintf("%.1f s", \$3)) with labels offset 0,0.8 font 'Sans,10' notitle, \\
     '' using (\$1):4:(sprintf("%.2f s", \$4)) with labels offset 0,0.8 font 'Sans,10' notitle, \\
     '' using (\$1 + 0.25):5:(sprintf("%.2f s", \$5)) with labels offset 0,0.8 font 'Sans,10' notitle
set title 'LOBPCG, ISYM sector, Jacobi preconditioner of A - (-77) I (Davidson)'
plot '$tmp/eig_lob.dat' using 3:xtic(2) lc rgb '#9e9e9e' title 'aij, CPU (MatMatMult)', \\
     '' using 4 lc rgb '#e0a040' title 'aijcusparse (cuSPARSE SpMM)', \\
     '' using 5 lc rgb '#a8c8ec' title 'cihybrid, k MatMults (-bv_matmult vecs)' noenhanced, \\
     '' using 6 lc rgb '#1f5fa8' title 'cihybrid SpMM (-bv_matmult mat)' noenhanced, \\
     '' using (\$1 - 0.3):3:(sprintf("%.1f", \$3)) with labels offset 0,0.8 font 'Sans,10' notitle, \\
     '' using (\$1 - 0.1):4:(sprintf("%.2f", \$4)) with labels offset 0,0.8 font 'Sans,10' notitle, \\
     '' using (\$1 + 0.1):5:(sprintf("%.2f", \$5)) with labels offset 0,0.8 font 'Sans,10' notitle, \\
     '' using (\$1 + 0.3):6:(sprintf("%.2f", \$6)) with labels offset 0,0.8 font 'Sans,10' notitle
unset multiplot
EOF
  gnuplot "$tmp/eig.gp"
  echo "plot-benchmarks: $out/eigen_h2o_h200.png"
else
  echo "plot-benchmarks: no $run/eigen-h2o.csv (tools/device/device-eigen.sh): eigen_h2o_h200.png skipped"
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
  echo "plot-benchmarks: no $mem (build/benchmarks/ci_memory -csv $mem): memory.png skipped"
fi
