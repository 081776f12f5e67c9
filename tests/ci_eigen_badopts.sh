#!/bin/sh
# ci_eigen_badopts.sh <ci_eigen> <libgpumats.so>
#
# Bad invocations of examples/ci_eigen: each must end with a PETSc error that names the problem,
# a nonzero exit status, no crash (signal, sanitizer report) and within 60 s.  One line per case,
# then "N passed, M failed"; exit status 1 if any case failed.
#
# The expected text of a case is looked for in the output without PETSc's "Option Table entries"
# (which repeats the command line), so it must come from the error message itself.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 <ci_eigen> <libgpumats.so>" >&2
  exit 2
fi
EXE=$1
LIB=$2
case $EXE in /*) ;; *) EXE=$PWD/$EXE ;; esac
case $LIB in /*) ;; *) LIB=$PWD/$LIB ;; esac
. "$(dirname "$0")/ci_eigen_env.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ci_eigen_badopts.XXXXXX") || exit 2
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
OUT=$T/out
npass=0
nfail=0

# without the option table, which echoes the command line
message() {
  awk '/PETSc Option Table entries:/ { skip = 1 } /End of Error Message/ { skip = 0; next } !skip' "$OUT"
}

pass() {
  npass=$((npass + 1))
  echo "ok    $1"
}

fail() {
  nfail=$((nfail + 1))
  echo "FAIL  $1: $2"
  # the error message, or the last lines when there is none
  if grep -q 'PETSC ERROR' "$OUT"; then
    message | grep 'PETSC ERROR' | sed -n '2,3p' | sed 's/^/        /'
  else
    tail -n 5 "$OUT" | sed 's/^/        /'
  fi
}

# message_has <text1|text2|...>: the message (without the option table) has every one of them
message_has() {
  rest=$1
  while :; do
    part=${rest%%|*}
    if ! message | grep -q -F -- "$part"; then
      missing=$part
      return 1
    fi
    [ "$rest" = "$part" ] && return 0
    rest=${rest#*|}
  done
}

# bad <name> <expected text, several separated by |> <ci_eigen arguments...>
bad() {
  name=$1
  expect=$2
  shift 2
  timeout 60 "$EXE" "$@" >"$OUT" 2>&1 </dev/null
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "$name" "did not finish within 60 s"
  elif [ "$rc" -eq 0 ]; then
    fail "$name" "exit status 0: accepted"
  elif grep -q -e 'Caught signal' -e 'SEGV' -e 'Segmentation' -e 'AddressSanitizer' -e 'runtime error:' "$OUT"; then
    fail "$name" "crashed (exit status $rc)"
  elif ! grep -q 'PETSC ERROR' "$OUT"; then
    fail "$name" "exit status $rc without a PETSc error"
  elif ! message_has "$expect"; then
    fail "$name" "the error does not say '$missing'"
  else
    pass "$name"
  fi
}

CIH="-dll_append $LIB -mat_type cihybrid"

# ---- -hubbard shapes and electrons ----
bad "hubbard 0x3" "-hubbard '0x3': expected" -hubbard 0x3
bad "hubbard 3x" "-hubbard '3x': expected" -hubbard 3x
bad "hubbard x3" "-hubbard 'x3': expected" -hubbard x3
bad "hubbard -2x2" "-hubbard '-2x2': expected" -hubbard -2x2
bad "hubbard 9x9 (81 sites)" "1..64 sites" -hubbard 9x9
bad "hubbard 3x4x5" "-hubbard '3x4x5': expected" -hubbard 3x4x5
bad "hubbard 99999999999x1" "1..64 sites" -hubbard 99999999999x1
bad "hubbard 1x99999999999" "1..64 sites" -hubbard 1x99999999999
bad "hubbard empty" "-hubbard '': expected" -hubbard ""
bad "hubbard_lx 0" "both sides must be positive" -hubbard_lx 0
bad "hubbard_lx 65" "1..64 sites" -hubbard_lx 65 -hubbard_ly 1
bad "hubbard_nup > sites" "do not fit on 4 sites" -hubbard 2x2 -hubbard_nup 5
bad "hubbard_ndown > sites" "do not fit on 4 sites" -hubbard 2x2 -hubbard_ndown 9
bad "hubbard_nup < 0" "do not fit on 4 sites" -hubbard 2x2 -hubbard_nup -1
bad "hubbard_ndown < 0" "do not fit on 4 sites" -hubbard 2x2 -hubbard_ndown -3
bad "hubbard_nup 4294967297 (2^32 + 1)" "-hubbard_nup 4294967297|-2147483648..2147483647" -hubbard 2x2 -hubbard_nup 4294967297
bad "hubbard_ly 4294967298" "-hubbard_ly 4294967298|-2147483648..2147483647" -hubbard_lx 2 -hubbard_ly 4294967298
bad "hubbard_t nan" "-hubbard_t nan|must be finite" -hubbard 2x2 -hubbard_t nan
bad "hubbard_t inf" "-hubbard_t inf|must be finite" -hubbard 2x2 -hubbard_t inf
bad "hubbard_u -inf" "-hubbard_u -inf|must be finite" -hubbard 2x2 -hubbard_u -inf
bad "hubbard_t abc" "abc" -hubbard 2x2 -hubbard_t abc
bad "hubbard_wrap nonsense" "nonsense" -hubbard 2x2 -hubbard_periodic -hubbard_wrap nonsense
bad "two sources" "Give one matrix source" -hubbard 2x2 -synthetic

# ---- gpumats type options ----
bad "cihybrid_boundary -5" "-mat_cihybrid_boundary: expected a nonnegative integer or 'auto', got '-5'" -hubbard 2x2 $CIH -mat_cihybrid_boundary -5
bad "cihybrid_boundary abc" "got 'abc'" -hubbard 2x2 $CIH -mat_cihybrid_boundary abc
bad "cihybrid_boundary huge" "got '99999999999999999999'" -hubbard 2x2 $CIH -mat_cihybrid_boundary 99999999999999999999
bad "cihybrid_boundary 12x" "got '12x'" -hubbard 2x2 $CIH -mat_cihybrid_boundary 12x
bad "cihybrid_split nonsense" "nonsense" -hubbard 2x2 $CIH -mat_cihybrid_split nonsense
bad "cihybrid_kernel nonsense" "nonsense" -hubbard 2x2 $CIH -mat_cihybrid_kernel nonsense
bad "gpumats_backend nonsense" "nonsense" -hubbard 2x2 $CIH -mat_gpumats_backend nonsense
bad "pcsr_kernel nonsense" "nonsense" -hubbard 2x2 -dll_append "$LIB" -mat_type pcsr -mat_pcsr_kernel nonsense
bad "pcsr_transpose nonsense" "nonsense" -hubbard 2x2 -dll_append "$LIB" -mat_type pcsr -mat_pcsr_transpose nonsense
bad "diag_scheme nonsense" "nonsense" -hubbard 2x2 -dll_append "$LIB" -mat_type diag -mat_diag_scheme nonsense
bad "diag_max_fill -1" "-mat_diag_max_fill -1|must be 0 (no limit) or positive" -hubbard 2x2 -dll_append "$LIB" -mat_type diag -mat_diag_max_fill -1
bad "mat_type cihybrid without the library" "cihybrid" -hubbard 2x2 -mat_type cihybrid

# ---- -synthetic sizes and densities ----
bad "synthetic -n 0" "-n 0: the dimension must be positive" -synthetic -n 0
bad "synthetic -n -1" "-n -1: the dimension must be positive" -synthetic -n -1
bad "synthetic -n 1000000000000" "-n 1000000000000|-2147483648..2147483647" -synthetic -n 1000000000000
bad "synthetic -n 2147483647" "-n 2147483647|nonzeros" -synthetic -n 2147483647
bad "ci_ref_fraction 1.5" "-ci_ref_fraction 1.5|must be in [0, 1]" -synthetic -n 100 -ci_ref_fraction 1.5
bad "ci_ref_fraction -0.1" "-ci_ref_fraction -0.1|must be in [0, 1]" -synthetic -n 100 -ci_ref_fraction -0.1
bad "ci_ref_fraction nan" "-ci_ref_fraction nan|must be finite" -synthetic -n 100 -ci_ref_fraction nan
bad "ci_ref_density 2" "-ci_ref_density 2|must be in [0, 1]" -synthetic -n 100 -ci_ref_density 2
bad "ci_ref_density -1" "-ci_ref_density -1|must be in [0, 1]" -synthetic -n 100 -ci_ref_density -1
bad "ci_density 1.01" "-ci_density 1.01|must be in [0, 1]" -synthetic -n 100 -ci_density 1.01
bad "ci_density -0.5" "-ci_density -0.5|must be in [0, 1]" -synthetic -n 100 -ci_density -0.5
bad "ci_seed 4294967296" "-ci_seed 4294967296|-2147483648..2147483647" -synthetic -n 100 -ci_seed 4294967296
bad "ci_seed -1" "-ci_seed -1: the seed must be nonnegative" -synthetic -n 100 -ci_seed -1

# ---- the eigenproblem and the checks ----
bad "eps_nev 10 > n 4" "-eps_nev 10|at most 4" -hubbard 2x1 -eps_nev 10
bad "eps_nev 4294967297" "-eps_nev 4294967297|-2147483648..2147483647" -hubbard 2x1 -eps_nev 4294967297
bad "eps_nev 0" "nev. Must be > 0" -hubbard 2x1 -eps_nev 0
bad "5 references > n 4" "5 reference energies|only 4 eigenvalues" -hubbard 2x1 -reference -1,-0.5,0,0.5,1
bad "reference abc" "abc" -hubbard 2x1 -reference abc
bad "ref_tol -1" "-ref_tol -1|must be nonnegative" -hubbard 2x1 -ref_tol -1
bad "ref_tol nan" "-ref_tol nan|must be finite" -hubbard 2x1 -ref_tol nan
bad "check_tol -1" "-check_tol -1|must be nonnegative" -hubbard 2x1 -check -check_tol -1
bad "fci_droptol -1" "-fci_droptol -1|must be nonnegative" -hubbard 2x1 -fci_droptol -1
bad "fci_droptol nan" "-fci_droptol nan|must be finite" -hubbard 2x1 -fci_droptol nan
bad "fci_threads 0" "-fci_threads 0" -hubbard 2x1 -fci_threads 0
bad "fci_sector 9" "-fci_sector 9" -hubbard 2x1 -fci_sector 9

# ---- -load ----
GOOD=$T/good.bin
timeout 60 "$EXE" -hubbard 2x2 -save "$GOOD" >"$OUT" 2>&1
if [ $? -ne 0 ] || [ ! -s "$GOOD" ]; then
  fail "make a good binary file with -save" "exit status or empty file"
fi
size=$(wc -c <"$GOOD")
head -c $((size / 2)) "$GOOD" >"$T/half.bin"
head -c $((size - 8)) "$GOOD" >"$T/short.bin"
head -c 12 "$GOOD" >"$T/header.bin"
printf 'this is a text file, not a PETSc binary matrix\n' >"$T/text.txt"
: >"$T/empty.bin"
mkdir "$T/dir"
bad "load a text file" "$T/text.txt" -load "$T/text.txt"
bad "load an empty file" "$T/empty.bin" -load "$T/empty.bin"
bad "load a directory" "$T/dir" -load "$T/dir"
bad "load a missing file" "$T/missing.bin" -load "$T/missing.bin"
bad "load half a matrix file" "$T/half.bin" -load "$T/half.bin"
bad "load a matrix file short of 8 bytes" "$T/short.bin" -load "$T/short.bin"
bad "load a matrix file header only" "$T/header.bin" -load "$T/header.bin"
bad "load without a file name" "-load needs a file name" -load ""
bad "save into a missing directory" "-save $T/nodir/m.bin: cannot create files in the directory $T/nodir" -hubbard 2x1 -save "$T/nodir/m.bin"
bad "save onto a directory" "-save $T/dir: is a directory" -hubbard 2x1 -save "$T/dir"
bad "save without a file name" "-save needs a file name" -hubbard 2x1 -save ""

# ---- -fcidump ----
bad "fcidump a directory" "$T/dir|not a regular file" -fcidump "$T/dir"
bad "fcidump an empty file" "$T/empty.bin" -fcidump "$T/empty.bin"
bad "fcidump a missing file" "$T/missing.fcidump" -fcidump "$T/missing.fcidump"
bad "fcidump a binary file" "$T/good.bin" -fcidump "$GOOD"
bad "fcidump a text file" "$T/text.txt" -fcidump "$T/text.txt"
# header keys that change the physics (the reader's regression inputs): refused, never dropped
printf ' &FCI NORB=2,NELEC=2,MS2=0,\n  SYML=1,1,\n  SYMLZ=1,-1\n /\n  0.5 1 1 1 1\n' >"$T/symlz.fcidump"
bad "fcidump with Lz labels (SYMLZ)" "Lz label '1'" -fcidump "$T/symlz.fcidump"
printf ' &FCI NORB=2,NELEC=2,MS2=0, TREF=1.0 /\n  0.5 1 1 1 1\n' >"$T/tref.fcidump"
bad "fcidump with an unknown header key" "-fcidump_ignore_keys TREF" -fcidump "$T/tref.fcidump"
if [ "$(id -u)" = 0 ]; then
  echo "skip  fcidump an unreadable file: running as root, whom chmod 000 does not stop"
else
  printf '&FCI NORB=2,NELEC=2,MS2=0,\n ORBSYM=1,1,\n ISYM=1,\n&END\n' >"$T/unreadable.fcidump"
  chmod 000 "$T/unreadable.fcidump"
  bad "fcidump an unreadable file" "$T/unreadable.fcidump: cannot open the file" -fcidump "$T/unreadable.fcidump"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
