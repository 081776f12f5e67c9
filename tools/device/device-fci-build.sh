#!/bin/sh
# Time to solution of the CI main job (examples/ci_eigen, H2O/6-31G, 4 lowest states,
# Krylov-Schur, -ci_log_gpu_time 0) with the Hamiltonian made on the GPU straight into the
# cihybrid arrays (-fci_assembly device), against the host builds, on both spaces (the
# 414,441-determinant ISYM sector and the full 1,656,369-determinant space):
#   before_aijcusparse, before_cihybrid  an older build (the host build with one MatSetValues
#                                        per row: the code before this work), if given;
#   host_aijcusparse, host_cihybrid      this build, the Hamiltonian made on the host;
#   device_cihybrid                      this build, made on the GPU (GPUMATS_FCI_REPEAT runs,
#                                        default 3: take the median).
# Then one more device run with -info for the parts of the device build.  Needs a CUDA PETSc and
# SLEPc (../shared/device/README.md); FCIDUMP files from $GPUMATS_FCIDUMP_DIR (default
# .device/fcidump), the integrals $GPUMATS_FCI_FILE (default H2O.631G.FCIDUMP).  Rows are made on
# $GPUMATS_FCI_THREADS host threads (default: the cores, shared by the ranks).
# With GPUMATS_FCI_RANKS="1 2 4" only the MPI runs instead (MPIEXEC, default mpiexec): npN_<type>
# for each N and each of $GPUMATS_FCI_MPI_TYPES (default "cihybrid aijcusparse"), each type's own
# build (-fci_assembly auto: cihybrid's rows made on the device by each rank, the others on the
# host), for the parallel efficiency of build and solve.  The same script serves one GPU a rank
# and ranks sharing one GPU; with GPUMATS_FCI_MPS=1 the runs of more than one rank are repeated
# under an MPS control daemon of their own (private pipe directory, stopped at the end), labelled
# npN_<type>_mps: the ranks' kernels then share the GPU at once instead of taking turns.
# Output in $OUT: fci_build.csv (ci_eigen -csv, one line per run), fci_build.txt (what each run
# printed, with the process wall time) and fci_build_info.txt.
# Usage: tools/device/device-fci-build.sh <build dir> <older build dir or -> <output dir>
set -u
B=$1 OLD=$2 OUT=$3
F=${GPUMATS_FCIDUMP_DIR:-.device/fcidump}
FILE=${GPUMATS_FCI_FILE:-H2O.631G.FCIDUMP}
THREADS=${GPUMATS_FCI_THREADS:-$(nproc)}
LIMIT=${GPUMATS_FCI_TIMEOUT:-180}
status=0

launch=""
# $1 label, $2 build dir, then ci_eigen options (run under $launch)
run() {
  label=$1 build=$2
  shift 2
  echo "== $label: $*" | tee -a "$OUT/fci_build.txt"
  start=$(date +%s.%N)
  timeout "$LIMIT" $launch "$build/examples/ci_eigen" -fcidump "$F/$FILE" -fci_threads "$THREADS" -ci_log_gpu_time 0 -eps_nev 4 "$@" \
    -csv "$OUT/fci_build.csv" -csv_label "$label" > /tmp/fci_run.txt 2>&1 || { status=1; echo "   FAILED or timed out"; }
  end=$(date +%s.%N)
  grep -vE "^(FCIDUMP|Determinants)" /tmp/fci_run.txt | tee -a "$OUT/fci_build.txt"
  echo "process wall time $(awk "BEGIN { printf \"%.3f\", $end - $start }") s" | tee -a "$OUT/fci_build.txt"
}

if [ -n "${GPUMATS_FCI_RANKS:-}" ]; then
  ALL_THREADS=$THREADS
  mps_runs() { # $1: label suffix; the MPI runs of both spaces
    for space in isym full; do
      sector=""; [ "$space" = isym ] && sector="-fci_sector isym"
      for np in $GPUMATS_FCI_RANKS; do
        [ -n "$1" ] && [ "$np" = 1 ] && continue
        launch="${MPIEXEC:-mpiexec} -n $np"
        THREADS=$(( ALL_THREADS / np > 0 ? ALL_THREADS / np : 1 ))
        for type in ${GPUMATS_FCI_MPI_TYPES:-cihybrid aijcusparse}; do
          run "${space}_np${np}_$type$1" "$B" $sector -dll_append "$B/libgpumats.so" -mat_type "$type"
        done
      done
    done
  }
  mps_runs ""
  if [ "${GPUMATS_FCI_MPS:-0}" = 1 ]; then
    CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) CUDA_MPS_LOG_DIRECTORY=$(mktemp -d)
    export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    if nvidia-cuda-mps-control -d; then
      mps_runs _mps
      echo quit | nvidia-cuda-mps-control
    else
      echo "   no MPS control daemon: the _mps runs are left out" | tee -a "$OUT/fci_build.txt"
    fi
  fi
  exit $status
fi
for space in isym full; do
  sector=""; [ "$space" = isym ] && sector="-fci_sector isym"
  if [ "$OLD" != - ]; then
    run "${space}_before_aijcusparse" "$OLD" $sector -mat_type aijcusparse
    run "${space}_before_cihybrid" "$OLD" $sector -dll_append "$OLD/libgpumats.so" -mat_type cihybrid
  fi
  run "${space}_host_aijcusparse" "$B" $sector -mat_type aijcusparse
  run "${space}_host_cihybrid" "$B" $sector -dll_append "$B/libgpumats.so" -mat_type cihybrid -fci_assembly host
  for i in $(seq "${GPUMATS_FCI_REPEAT:-3}"); do
    run "${space}_device_cihybrid" "$B" $sector -dll_append "$B/libgpumats.so" -mat_type cihybrid -fci_assembly device
  done
  echo "== ${space}_device_cihybrid -info" >> "$OUT/fci_build_info.txt"
  timeout "$LIMIT" "$B/examples/ci_eigen" -fcidump "$F/$FILE" $sector -ci_log_gpu_time 0 -eps_nev 4 -dll_append "$B/libgpumats.so" \
    -mat_type cihybrid -fci_assembly device -info 2>&1 | grep -E "Assembled on the device|FCI Hamiltonian|FCI device rows|CIHYBRID layout|Automatic BOUNDARY|Time to solution|Build time" >> "$OUT/fci_build_info.txt"
  echo "== ${space}_host_cihybrid -info" >> "$OUT/fci_build_info.txt"
  timeout "$LIMIT" "$B/examples/ci_eigen" -fcidump "$F/$FILE" $sector -fci_threads "$THREADS" -ci_log_gpu_time 0 -eps_nev 4 -dll_append "$B/libgpumats.so" \
    -mat_type cihybrid -fci_assembly host -info 2>&1 | grep -E "FCI Hamiltonian|CIHYBRID filled|Time to solution|Build time" >> "$OUT/fci_build_info.txt"
done
exit $status
