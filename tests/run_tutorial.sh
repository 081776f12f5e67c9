#!/bin/sh
# Runs a PETSc/SLEPc program twice, once on MATAIJ and once on a gpumats
# type, and compares what the two print.
#
#   run_tutorial.sh [-n RANKS] [-mpiexec PATH] [-type TYPE] [-typeoption KEY] [-typeopts OPTS] [-eigenvalues N] PROGRAM LIBRARY [ARGS...]
#
#   -n RANKS        run under mpiexec with RANKS processes (default 1: no mpiexec)
#   -mpiexec PATH   the MPI launcher (default: $MPIEXEC, else mpiexec on PATH)
#   -type TYPE      the type to compare with aij (default cihybrid)
#   -typeoption KEY the option that sets the type (default -mat_type; -dm_mat_type
#                   for programs whose matrices come from a DMDA)
#   -typeopts OPTS  options for the TYPE run only, one argument split on blanks
#                   (e.g. "-mat_cihybrid_boundary 2"; given to the aij run too,
#                   a debug PETSc would warn there only that it was not used)
#   -eigenvalues N  compare only the first column of the first N rows of the
#                   eigenvalue table (SLEPc's "k  ||Ax-kx||/||kx||" after its
#                   dashes): with a CUDA SLEPc the GPU type's basis vectors live
#                   on the device, whose rounding can change the iteration count,
#                   the residuals and how many pairs converge beyond those asked
#                   for (seen on the H200 with eps ex1), not the eigenvalues
#   PROGRAM         the program; exit 77 (meson's "skipped") when it is absent
#   LIBRARY         the plugin given to -dll_append, or 'none' to load nothing
#                   (to try the script on PETSc's own types, e.g. -type aijsell)
#   ARGS            further options given to both runs
#
# GPUMATS_TUTORIAL_OPTIONS, when set, holds options for both runs too, split on blanks: the
# device suite's vectors (tools/device/device-test.sh: -vec_type cuda -dm_vec_type cuda in its
# device-vector pass, since a tutorial's own vectors come from VecSetFromOptions or its DM, whose
# default is a host vector whatever the matrix).
#
# The runs are  PROGRAM ARGS -mat_type aij  and
#               PROGRAM ARGS -dll_append LIBRARY -mat_type TYPE OPTS
# (KEY instead of -mat_type with -typeoption);
# their standard outputs must agree line by line.  Exit 0 when they do,
# 1 (with the diff, or the failing run's output) otherwise.
#
# Lines that may legitimately differ, and nothing else, are normalised before
# the comparison:
#  - the instantiated type names: KSPView and -mat_view ::ascii_info print
#    "type: seqaij" for one run and "type: seqaijcihybrid" for the other
#    (mpiaij / mpiaijcihybrid in parallel), so seqaijTYPE, mpiaijTYPE (and
#    seqTYPE, mpiTYPE for a type not derived from AIJ) read as seqaij, mpiaij;
#  - the section a format's viewer adds to that ascii_info output (its own
#    statistics: regions, padding, bytes on the device): it begins with a
#    line that names the format ("CIHYBRID: split entries, ...") followed by
#    lines indented deeper than that one.  After the renaming above, a line
#    that still contains the type's name is dropped together with the deeper
#    indented lines right after it.  AIJ's output never names the type.
set -u

usage() {
  echo "usage: $0 [-n RANKS] [-mpiexec PATH] [-type TYPE] [-typeoption KEY] [-typeopts OPTS] [-eigenvalues N] PROGRAM LIBRARY [ARGS...]" >&2
  exit 2
}

ranks=1
launcher=${MPIEXEC:-mpiexec}
type=cihybrid
typeoption=-mat_type
typeopts=
eigenvalues=0
while [ $# -gt 0 ]; do
  case $1 in
    -n) [ $# -ge 2 ] || usage; ranks=$2; shift 2 ;;
    -mpiexec) [ $# -ge 2 ] || usage; launcher=$2; shift 2 ;;
    -type) [ $# -ge 2 ] || usage; type=$2; shift 2 ;;
    -typeoption) [ $# -ge 2 ] || usage; typeoption=$2; shift 2 ;;
    -typeopts) [ $# -ge 2 ] || usage; typeopts=$2; shift 2 ;;
    -eigenvalues) [ $# -ge 2 ] || usage; eigenvalues=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
program=$1
library=$2
shift 2

if [ ! -x "$program" ]; then
  echo "SKIP: $program is not built"
  exit 77
fi
if [ "$library" = none ]; then
  load=""
elif [ -f "$library" ]; then
  case $library in
    /*) ;;
    *) library=$PWD/$library ;; # dlopen looks a bare name up in the library path, not here
  esac
  load="-dll_append $library"
else
  echo "FAIL: the plugin $library does not exist" >&2
  exit 1
fi

# OpenMPI refuses to run as root, and to start more ranks than cores, unless
# told; MPICH's mpiexec (hydra) rejects those flags.
if [ "$ranks" -gt 1 ]; then
  if ! command -v "$launcher" >/dev/null 2>&1; then
    echo "SKIP: no MPI launcher '$launcher' for $ranks ranks"
    exit 77
  fi
  if "$launcher" --version 2>&1 | grep -Eqi 'open ?mpi|openrte'; then
    set -- "$launcher" --allow-run-as-root --oversubscribe -n "$ranks" "$program" "$@"
  else
    set -- "$launcher" -n "$ranks" "$program" "$@"
  fi
else
  set -- "$program" "$@"
fi

# shellcheck disable=SC2086
set -- "$@" ${GPUMATS_TUTORIAL_OPTIONS:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/run_tutorial.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# run NAME OPTIONS...: the command line above plus OPTIONS; stdout to NAME.out, stderr to NAME.err
run() {
  name=$1
  shift
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  status=$?
  if [ $status -ne 0 ]; then
    echo "FAIL: the $name run exited with status $status: $*"
    cat "$work/$name.out" "$work/$name.err"
    exit 1
  fi
}
run aij "$@" "$typeoption" aij
# $load is empty or "-dll_append LIBRARY", $typeopts a list of options: split on purpose
# (a library path with blanks is not supported)
# shellcheck disable=SC2086
run "$type" "$@" $load "$typeoption" "$type" $typeopts

suffix=${type#aij} # the part after aij in seqaijTYPE-like names: cihybrid, or sell for aijsell
normalise() {
  sed -E "s/\\b(seq|mpi)(aij)?${suffix}\\b/\\1aij/g" "$1" | awk -v name="$suffix" '
    BEGIN { section = -1 }
    { match($0, /^ */); indent = RLENGTH }
    section >= 0 && indent > section { next }             # inside a dropped section
    { section = -1 }
    index(tolower($0), tolower(name)) { section = indent; next } # a section that names the type
    { print }' | awk -v n="$eigenvalues" '
    n == 0 { print; next }
    /^ *-+ +-+ *$/ { rows = n; next }   # the dashes under the table header
    rows > 0 { print $1; rows-- }'
}
normalise "$work/aij.out" >"$work/aij.cmp"
normalise "$work/$type.out" >"$work/$type.cmp"
if diff -u "$work/aij.cmp" "$work/$type.cmp" >"$work/diff"; then
  echo "PASS: $typeoption $type prints what $typeoption aij prints ($(wc -l <"$work/aij.out") lines): $*"
  exit 0
fi
# The same lines but for the last printed digits of a real number (a norm summed in another order,
# e.g. on the GPU): every word equal, integers exactly (iteration counts), reals to 1e-5 relative,
# or both below 1e-12 in magnitude: roundoff, whose every digit is the summation order's (the
# residual or error norm after a direct solve: 5.06501e-15 with aij, 5.08041e-15 on the GPU).
if awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
  function abs(v) { return v < 0 ? -v : v }
  { if (FNR > n) exit 1; na = split(a[FNR], x); nb = split($0, y); if (na != nb) exit 1
    for (i = 1; i <= na; i++) {
      if (x[i] == y[i]) continue
      if (x[i] !~ /^[-+]?[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?[,:;]?$/ || y[i] !~ /^[-+]?[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?[,:;]?$/) exit 1
      u = x[i] + 0; v = y[i] + 0
      if (abs(u) < 1e-12 && abs(v) < 1e-12) continue
      if (abs(u - v) > 1e-5 * abs(u)) exit 1 } }
  END { if (FNR != n) exit 1 }' "$work/aij.cmp" "$work/$type.cmp"; then
  echo "PASS: $typeoption $type prints what $typeoption aij prints, reals to 1e-5 relative or both below 1e-12 ($(wc -l <"$work/aij.out") lines): $*"
  cat "$work/diff"
  exit 0
fi
echo "FAIL: $typeoption $type prints something else than $typeoption aij: $*"
cat "$work/diff"
for name in aij "$type"; do
  if [ -s "$work/$name.err" ]; then
    echo "--- standard error of the $name run:"
    cat "$work/$name.err"
  fi
done
exit 1
