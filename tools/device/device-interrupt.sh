#!/bin/bash
# On the GPU machine: interrupting the main job (SIGINT, SIGTERM) at several moments of the
# Hamiltonian build, the upload and the solve leaves no process on the GPU, its memory back
# at the level before, and no temporary file of -save behind.
#   bash tools/device/device-interrupt.sh <build dir> <output dir>
# Writes <output dir>/interrupt.txt; exits 1 when a check fails.
set -u
B=${1:-/tmp/gpumats-build}
OUT=${2:-/tmp/gpumats-out}
W=$(mktemp -d)
mkdir -p "$OUT"
used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1; }
apps() { nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c . ; }
fail=0 n=0
base=$(used)
{
  echo "GPU memory used before: $base MiB"
  for sig in TERM INT; do
    for delay in 0.3 0.7 1.1 1.6 2.2; do
      n=$((n + 1))
      # through timeout(1), which forwards the signal: a background job of a non-interactive shell
      # ignores SIGINT itself; stdbuf so that the log tells which phase the signal hit
      timeout -k 5 120 stdbuf -oL "$B/examples/ci_eigen" -dll_append "$B/libgpumats.so" -mat_type cihybrid -hubbard 3x4 \
        -save "$W/H.bin" > "$W/log.$sig.$delay" 2>&1 &
      pid=$!
      sleep "$delay"
      kill -s "$sig" "$pid" 2>/dev/null
      wait "$pid"
      rc=$?
      sleep 1 # the driver tears the context down after the process is gone
      now=$(used) left=$(apps) tmp=$(ls "$W" | grep -c '\.tmp\.')
      phase=$(grep -E "^(Determinants|Matrix:|Build time|Matrix saved|Eigensolver|Products)" "$W/log.$sig.$delay" | tail -1 | cut -c1-40)
      ok=yes
      [ "$left" -eq 0 ] && [ $((now - base)) -le 64 ] && [ "$tmp" -eq 0 ] || ok=NO
      [ "$ok" = yes ] || fail=$((fail + 1))
      printf 'SIG%-4s after %-4s s: exit %3d, last line "%s"; GPU processes %d, memory %s MiB (%+d), temporaries %d: %s\n' \
        "$sig" "$delay" "$rc" "$phase" "$left" "$now" $((now - base)) "$tmp" "$ok"
      rm -f "$W"/H.bin*
    done
  done
  echo "$((n - fail)) of $n interruptions clean"
} | tee "$OUT/interrupt.txt"
rm -rf "$W"
! grep -q ": NO$" "$OUT/interrupt.txt"
