#!/bin/sh
# The SpMV benchmarks on a GPU machine (called by tools/device/device-test.sh):
# the paper-like CI matrices of 32768 and 131072 rows (32768 also with SpMM,
# k = 1, 8, 16), then the BOUNDARY sweep, then real CI matrices from the FCI
# row generator with SpMM: N2/STO-3G (full space), Hubbard 3x4 (U = 8, half
# filling), H2O/6-31G (ISYM sector, 273M nonzeros).  The FCIDUMP files are read
# from $GPUMATS_FCIDUMP_DIR (default .device/fcidump, relative to the repository
# root, where device-test.sh runs this: ../shared does not travel to the device).
# Output: bench.txt (appended), bench_32768.csv, bench_131072.csv, sweep_32768.csv,
# and bench_real.csv, the real matrices' CSVs in one file with a first column
# 'matrix' (few files come back from the device).
# Usage: benchmarks/scripts/device-bench.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
F=${GPUMATS_FCIDUMP_DIR:-.device/fcidump}
status=0
for n in 32768 131072; do
  # 131072 rows keep the paper's ~950 nonzeros a row (124.6M nonzeros): densities scaled by 1/4
  dens=""; [ $n = 131072 ] && dens="-ref_density 0.05 -density 0.0025"
  spmm=""; [ $n = 32768 ] && spmm="-spmm_k 1,8,16"
  "$B/benchmarks/bench_cihybrid" -n $n $dens $spmm -csv "$OUT/bench_$n.csv" > /tmp/bench_$n.txt 2>&1 || status=1
  cat /tmp/bench_$n.txt | tee -a "$OUT/bench.txt"
done
if [ "${GPUMATS_SWEEP:-1}" = 1 ]; then
  "$B/benchmarks/bench_cihybrid" -n 32768 -sweep -sweep_step 64 -csv "$OUT/sweep_32768.csv" > /tmp/sweep.txt 2>&1 || status=1
  tail -25 /tmp/sweep.txt | tee -a "$OUT/bench.txt"
fi

# real matrices: one run each (edge-case checks already done above), CSVs merged into bench_real.csv
real() { # $1 name, $2 FCIDUMP file or '-' (none needed), then the matrix options
  name=$1 file=$2
  shift 2
  if [ "$file" != - ] && [ ! -f "$file" ]; then
    echo "== real matrix $name: SKIPPED, $file missing (copy ../shared/data/fcidump/* into $F)" | tee -a "$OUT/bench.txt"
    status=1
    return
  fi
  rm -f /tmp/bench_real_$name.csv
  echo "== real matrix $name: bench_cihybrid $* -spmm_k 1,8,16 -check_shapes 0" | tee -a "$OUT/bench.txt"
  "$B/benchmarks/bench_cihybrid" "$@" -spmm_k 1,8,16 -check_shapes 0 \
    -csv /tmp/bench_real_$name.csv > /tmp/bench_real_$name.txt 2>&1 || status=1
  cat /tmp/bench_real_$name.txt | tee -a "$OUT/bench.txt"
  if [ -f /tmp/bench_real_$name.csv ]; then
    [ -f "$OUT/bench_real.csv" ] || head -1 /tmp/bench_real_$name.csv | sed 's/^/matrix,/' > "$OUT/bench_real.csv"
    tail -n +2 /tmp/bench_real_$name.csv | sed "s/^/$name,/" >> "$OUT/bench_real.csv"
  fi
}
if [ "${GPUMATS_REAL:-1}" = 1 ]; then
  rm -f "$OUT/bench_real.csv"
  real n2_sto3g "$F/N2.STO3G.FCIDUMP" -fcidump "$F/N2.STO3G.FCIDUMP"
  real hubbard34 - -hubbard_lx 3 -hubbard_ly 4
  # 414,441 rows, 273M nonzeros (3.3 GB as CSR, as much again as CIHYBRID and as PETSc's copy)
  real h2o_631g_isym "$F/H2O.631G.FCIDUMP" -fcidump "$F/H2O.631G.FCIDUMP" -fci_sector isym -reps 50
fi
exit $status
