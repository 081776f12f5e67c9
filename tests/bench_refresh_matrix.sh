#!/bin/sh
# bench_refresh_matrix.sh <ci_eigen> <bench_refresh_matrix> <libgpumats.so>
#
# A smoke test of benchmarks/src/bench_refresh_matrix (issue 20's refresh loop on a loaded matrix):
# ci_eigen -save writes a small Hamiltonian (the 2x3 Hubbard model, 400 determinants), then the
# benchmark runs on it for pcsr and diag (with -mat_diag_max_fill 8), every path (setvalues, coo with the default values memory:
# the device's where PETSc has CUDA and there is a GPU, algebra), -steps 2 -mults 3; with $MPIEXEC set also on
# 2 ranks (through tests/mpirun.sh).  Each run checks its products against MATAIJ and ends in an
# error above a relative error of 1e-12: a run fails on a non-zero exit status, and also when its
# CSV line is missing.  One line per run, then "N passed, M failed"; exit status 1 if any failed.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 <ci_eigen> <bench_refresh_matrix> <libgpumats.so>" >&2
  exit 2
fi
abs() {
  case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}
CI=$(abs "$1")
BENCH=$(abs "$2")
LIB=$(abs "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/ci_eigen_env.sh
. "$HERE/ci_eigen_env.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/bench_refresh_matrix.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
npass=0
nfail=0

if ! timeout 120 "$CI" -hubbard 2x3 -hubbard_u 4 -eps_nev 1 -save "$T/h.bin" >"$T/save.out" 2>&1 || [ ! -s "$T/h.bin" ]; then
  cat "$T/save.out"
  echo "FAIL  ci_eigen -save of the 2x3 Hubbard Hamiltonian"
  exit 1
fi

: >"$T/out.csv"
ranks=1
[ -n "${MPIEXEC:-}" ] && ranks="1 2"
runs=0
for np in $ranks; do
  for type in pcsr diag; do
    for path in setvalues coo algebra; do
      name="$type -path $path on $np rank(s)"
      set -- "$BENCH" -f "$T/h.bin" -dll_append "$LIB" -mat_type "$type" -path "$path" -steps 2 -mults 3 -label "np$np" -csv "$T/out.csv"
      # a CI matrix is not banded: its 29 diagonals would store 3.1 times its nonzeros, past diag's
      # default limit of 3
      [ "$type" = diag ] && set -- "$@" -mat_diag_max_fill 8
      [ "$np" -gt 1 ] && set -- sh "$HERE/mpirun.sh" "$np" "$@"
      before=$(wc -l <"$T/out.csv")
      timeout 120 "$@" >"$T/run.out" 2>&1
      rc=$?
      after=$(wc -l <"$T/out.csv")
      runs=$((runs + 1))
      if [ $rc -ne 0 ]; then
        nfail=$((nfail + 1))
        echo "FAIL  $name: exit status $rc"
        sed 's/^/      /' "$T/run.out" | head -n 30
      elif [ "$after" -le "$before" ]; then
        nfail=$((nfail + 1))
        echo "FAIL  $name: no CSV line"
      else
        npass=$((npass + 1))
        echo "ok    $name: $(tail -n 1 "$T/run.out" | sed 's/.*relative error/relative error/')"
      fi
    done
  done
done
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -eq "$runs" ]
