#!/bin/sh
# The comparison of tests/run_tutorial.sh on outputs made up here: what it must accept (the last
# digits of a real, roundoff below 1e-12 in both runs) and what it must refuse (a real off by more
# than 1e-5 relative, an iteration count, a small real against roundoff, a missing line).
#   test_run_tutorial.sh RUN_TUTORIAL
set -u
run_tutorial=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/test_run_tutorial.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# a program that prints $FAKE_AIJ when its last argument is aij, else $FAKE_TYPE
cat >"$work/fake" <<'PROG'
#!/bin/sh
for last in "$@"; do :; done
if [ "$last" = aij ]; then printf '%b' "$FAKE_AIJ"; else printf '%b' "$FAKE_TYPE"; fi
PROG
chmod +x "$work/fake"
failures=0
# expect WANT(0 pass, 1 fail) AIJ_OUTPUT TYPE_OUTPUT WHAT
expect() {
  FAKE_AIJ=$2 FAKE_TYPE=$3 sh "$run_tutorial" -type pcsr "$work/fake" none >"$work/log" 2>&1
  got=$?
  if [ "$got" -eq "$1" ]; then
    echo "ok: $4"
  else
    echo "WRONG: $4: run_tutorial.sh exited with $got, expected $1"
    cat "$work/log"
    failures=$((failures + 1))
  fi
}
expect 0 'its 12\nResidual norm 5.06501e-15\n' 'its 12\nResidual norm 5.06501e-15\n' 'the same output'
expect 0 'Residual norm 5.06501e-15\n' 'Residual norm 5.08041e-15\n' 'roundoff in both runs'
expect 0 'Norm of error 1.11229e-13 iterations 1\n' 'Norm of error 1.17752e-13 iterations 1\n' 'roundoff beside an iteration count'
expect 0 'Residual norm 0.0123456\n' 'Residual norm 0.0123457\n' 'a real to 1e-5 relative'
expect 0 'type: seqaij\n' 'type: seqaijpcsr\n' 'the type name'
expect 1 'Residual norm 0.012345\n' 'Residual norm 0.012346\n' 'a real off by 8e-5 relative'
expect 1 'Residual norm 5.06501e-15\n' 'Residual norm 5.06501e-11\n' 'roundoff against a small real'
expect 1 'Norm of error 1.1e-13 iterations 1\n' 'Norm of error 1.1e-13 iterations 2\n' 'an iteration count'
expect 1 'its 12\nResidual norm 1e-15\n' 'its 12\n' 'a line missing'
expect 1 'converged\n' 'diverged\n' 'a word'
[ "$failures" -eq 0 ] && echo "PASS: run_tutorial.sh compares as it says" && exit 0
echo "FAIL: $failures comparison(s) of run_tutorial.sh wrong"
exit 1
