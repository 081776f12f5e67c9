#!/bin/sh
# Multi-GPU PCSR on a GPU machine (benchmarks/src/bench_pcsr_mpi.c): one MPI process per
# GPU, equal rows (PCSR-I) against equal nonzeros (PCSR-II), with and without the
# communication of x, and the parallel efficiency against the whole matrix on one
# GPU, for the matrix set of benchmarks/scripts/device-bench-pcsr.sh: the generated matrices, H2O
# 6-31G in its ISYM sector (from $GPUMATS_FCIDUMP_DIR, default .device/fcidump;
# skipped when absent) and the Hubbard 3x4 model.
# On a machine with one GPU the processes share it: correctness only, no speed-up.
# Output: bench_pcsr_mpi.txt and bench_pcsr_mpi.csv in the output directory.
# Usage: benchmarks/scripts/device-bench-pcsr-mpi.sh <build dir> <output dir> [processes]
set -u
B=$1 OUT=$2 NP=${3:-2}
MPIEXEC=${MPIEXEC:-mpiexec}
status=0
mkdir -p "$OUT"
rm -f "$OUT/bench_pcsr_mpi.csv" "$OUT/bench_pcsr_mpi.txt"
F=${GPUMATS_FCIDUMP_DIR:-.device/fcidump}
bench() {
  "$MPIEXEC" -n "$NP" "$B/benchmarks/bench_pcsr_mpi" "$@" -csv "$OUT/bench_pcsr_mpi.csv" > /tmp/bench_pcsr_mpi_run.txt 2>&1 || status=1
  tee -a "$OUT/bench_pcsr_mpi.txt" < /tmp/bench_pcsr_mpi_run.txt
}
for m in stencil5:2000 stencil7:160 stencil27:100 elasticity:70 navierstokes:700 rmat:20 rmat:22 circuit:2000000 circuit:5000000; do
  bench -matrix "${m%%:*}" -size "${m#*:}"
done
if [ -f "$F/H2O.631G.FCIDUMP" ]; then
  bench -matrix fci -label h2o_631g_isym -fcidump "$F/H2O.631G.FCIDUMP" -fci_sector isym
else
  echo "== H2O 6-31G ISYM: SKIPPED, $F/H2O.631G.FCIDUMP missing" | tee -a "$OUT/bench_pcsr_mpi.txt"
fi
bench -matrix fci -label hubbard34 -hubbard_lx 3 -hubbard_ly 4
exit $status
