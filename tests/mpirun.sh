#!/bin/sh
# mpirun.sh <nprocs> <program> [args...]
# Runs <program> on <nprocs> ranks with $MPIEXEC (default: mpiexec on PATH).
# Open MPI refuses to run as root and to start more ranks than cores unless told;
# MPICH's (hydra) mpiexec allows both and rejects those flags, so they are added
# only for Open MPI.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 <nprocs> <program> [args...]" >&2
  exit 2
fi
np=$1
prog=$2
shift 2
# meson may pass the program relative to the working directory; hydra's execvp
# would then search PATH for it
case $prog in
  */*) ;;
  *) [ -x "./$prog" ] && prog=./$prog ;;
esac
mpiexec=${MPIEXEC:-mpiexec}
flags=
if "$mpiexec" --version 2>&1 | grep -qi -e 'open mpi' -e 'openrte' -e 'open-rte'; then
  flags="--oversubscribe"
  if [ "$(id -u)" = 0 ]; then
    flags="$flags --allow-run-as-root"
  fi
fi
# shellcheck disable=SC2086
exec "$mpiexec" $flags -n "$np" "$prog" "$@"
