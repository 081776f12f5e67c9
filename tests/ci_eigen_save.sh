#!/bin/sh
# ci_eigen_save.sh <ci_eigen>
#
# -save is atomic: the matrix goes to FILE.tmp.<pid> and is renamed onto FILE once complete.
#  (a) -save then -load gives the same lowest energy; no temporary is left, FILE.info is there
#  (b) a truncated copy of the saved file given to -load is a clear error, not a crash
#  (c) SIGTERM (and SIGINT) at several delays while the matrix is built and saved: afterwards no
#      FILE.tmp.* is left, and FILE is absent, the previous file or the complete new one, whatever
#      the timing (the log says which phase each signal hit, the assertions do not depend on it)
# One line per check, then "N passed, M failed"; exit status 1 if any failed.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 <ci_eigen>" >&2
  exit 2
fi
EXE=$1
case $EXE in /*) ;; *) EXE=$PWD/$EXE ;; esac
. "$(dirname "$0")/ci_eigen_env.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ci_eigen_save.XXXXXX") || exit 2
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
npass=0
nfail=0

pass() {
  npass=$((npass + 1))
  echo "ok    $1"
}
fail() {
  nfail=$((nfail + 1))
  echo "FAIL  $1: $2"
}
crashed() {
  grep -q -e 'SEGV' -e 'Segmentation' -e 'AddressSanitizer' -e 'runtime error:' "$1"
}
# the lowest energy printed by ci_eigen (row k = 0 of its table)
energy0() {
  awk '$1 == "0" && $2 ~ /^-?[0-9]+\.[0-9]+$/ { print $2; exit }' "$1"
}
leftovers() {
  ls "$T" | grep '\.tmp\.' | tr '\n' ' '
}

# ---- (a) round trip ----
SMALL="-hubbard 2x3 -hubbard_u 4"
timeout 60 "$EXE" $SMALL -save "$T/small.bin" >"$T/a_save.out" 2>&1
rc=$?
timeout 60 "$EXE" -load "$T/small.bin" >"$T/a_load.out" 2>&1
rc2=$?
e1=$(energy0 "$T/a_save.out")
e2=$(energy0 "$T/a_load.out")
if [ $rc -ne 0 ] || [ $rc2 -ne 0 ]; then
  fail "-save then -load" "exit status $rc (save), $rc2 (load)"
elif [ -z "$e1" ] || [ -z "$e2" ]; then
  fail "-save then -load" "no energy printed"
elif ! awk -v a="$e1" -v b="$e2" 'BEGIN { d = a - b; exit !(d <= 1e-9 && d >= -1e-9) }'; then
  fail "-save then -load" "lowest energy $e1 built, $e2 loaded"
else
  pass "-save then -load: lowest energy $e1 both times"
fi
if [ -n "$(leftovers)" ]; then fail "no temporary after -save" "left: $(leftovers)"; else pass "no temporary after -save"; fi
if [ -f "$T/small.bin.info" ]; then pass "-save puts FILE.info in place"; else fail "-save puts FILE.info in place" "no $T/small.bin.info"; fi

# saving over an existing file replaces it
cp "$T/small.bin" "$T/over.bin"
timeout 60 "$EXE" -hubbard 2x2 -save "$T/over.bin" >"$T/a_over.out" 2>&1
if [ $? -eq 0 ] && ! cmp -s "$T/small.bin" "$T/over.bin" && [ -z "$(leftovers)" ]; then
  pass "-save over an existing file"
else
  fail "-save over an existing file" "exit status, unchanged file or temporaries: $(leftovers)"
fi

# ---- (b) truncated copies ----
size=$(wc -c <"$T/small.bin")
for cut in $((size / 2)) $((size - 1)) 40; do
  head -c "$cut" "$T/small.bin" >"$T/cut.bin"
  timeout 60 "$EXE" -load "$T/cut.bin" >"$T/b.out" 2>&1
  rc=$?
  name="-load of the saved file cut to $cut of $size bytes"
  if [ $rc -eq 0 ]; then
    fail "$name" "accepted"
  elif [ $rc -eq 124 ]; then
    fail "$name" "did not finish within 60 s"
  elif crashed "$T/b.out" || grep -q 'Caught signal' "$T/b.out"; then
    fail "$name" "crashed"
  elif ! grep -q 'PETSC ERROR' "$T/b.out"; then
    fail "$name" "exit status $rc without a PETSc error"
  else
    pass "$name: $(grep 'PETSC ERROR' "$T/b.out" | sed -n 3p | sed 's/^.*PETSC ERROR: //')"
  fi
done

# ---- (c) signals while building and saving ----
# 313,600 determinants, 5.2M nonzeros, a 64 MB file: about 0.4 s to build and 0.3 s to save on one
# core, then the solve; the delays below hit all three phases on a fast or a slow machine.
BIG="-hubbard 4x4 -hubbard_nup 3 -hubbard_ndown 3 -eps_nev 1"
timeout 120 "$EXE" $BIG -save "$T/ref.bin" >"$T/c_ref.out" 2>&1
if [ $? -ne 0 ] || [ ! -s "$T/ref.bin" ]; then
  fail "a complete reference -save" "exit status or no file"
fi
timeout 120 "$EXE" -load "$T/ref.bin" -eps_nev 1 >"$T/c_load.out" 2>&1
if [ $? -eq 0 ] && [ "$(energy0 "$T/c_ref.out")" = "$(energy0 "$T/c_load.out")" ]; then
  pass "the reference loads with the same lowest energy $(energy0 "$T/c_load.out")"
else
  fail "the reference loads with the same lowest energy" "$(energy0 "$T/c_ref.out") built, $(energy0 "$T/c_load.out") loaded"
fi
# The run goes through timeout(1), which bounds it and forwards the signal it gets to ci_eigen (a
# background job of a non-interactive shell ignores SIGINT; timeout's child does not), and through
# stdbuf -oL when there is one, so that the output says which phase the signal hit.
STDBUF=
command -v stdbuf >/dev/null 2>&1 && STDBUF="stdbuf -oL"
k=0
for spec in TERM:0.1 TERM:0.3 TERM:0.5 TERM:0.7 TERM:0.9 TERM:1.1 TERM:1.3 TERM:1.6 TERM:2 INT:0.6 INT:1; do
  sig=${spec%%:*}
  delay=${spec#*:}
  k=$((k + 1))
  F=$T/kill.bin
  rm -f "$F" "$F.info"
  old=absent
  if [ $((k % 2)) -eq 0 ]; then # an older file that must survive intact unless replaced by a complete one
    cp "$T/small.bin" "$F"
    old=previous
  fi
  timeout -k 5 60 $STDBUF "$EXE" $BIG -save "$F" >"$T/c.out" 2>&1 &
  pid=$!
  sleep "$delay"
  kill -s "$sig" "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null
  rc=$?
  pid=
  name="SIG$sig after $delay s ($old file before)"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    fail "$name" "still running 60 s after the start"
    continue
  fi
  if grep -q 'Matrix saved to' "$T/c.out"; then phase="after the save"; elif grep -q '^Build time' "$T/c.out"; then phase="while saving"; else phase="while building"; fi
  left=$(leftovers)
  if crashed "$T/c.out"; then
    fail "$name" "crashed"
  elif [ -n "$left" ]; then
    fail "$name" "temporaries left: $left"
  elif [ ! -e "$F" ]; then
    if [ $old = absent ]; then pass "$name: hit $phase, no file"; else fail "$name" "the previous file is gone"; fi
  elif cmp -s "$F" "$T/ref.bin"; then
    pass "$name: hit $phase, complete file"
  elif [ $old = previous ] && cmp -s "$F" "$T/small.bin"; then
    pass "$name: hit $phase, previous file intact"
  else
    fail "$name" "hit $phase: $F is neither complete nor the previous one ($(wc -c <"$F") bytes)"
  fi
done

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
