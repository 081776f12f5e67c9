#!/bin/sh
# End-to-end CI eigensolves on a GPU machine: examples/ci_eigen on the H2O/6-31G
# FCI Hamiltonian, the 4 lowest states, with PETSc's aij on all CPU cores (one
# rank per core), PETSc's aijcusparse and gpumats' cihybrid (one rank, one GPU):
#   - Krylov-Schur (ci_eigen's default: one MatMult per step);
#   - LOBPCG with block size 8 and 16 and a diagonal (Davidson) preconditioner,
#     once with SLEPc's BVMatMult as one MatMatMult (-bv_matmult mat: the block
#     product, cihybrid's SpMM) and once as k MatMults (-bv_matmult vecs).
# Needs a PETSc with CUDA (PETSC_DIR) and a SLEPc built for it (SLEPC_DIR): see
# ../shared/device/README.md; this script builds neither.  FCIDUMP files from
# $GPUMATS_FCIDUMP_DIR (default .device/fcidump).
# Output in $OUT: eigen.csv (one line per solve, ci_eigen -csv) and eigen.txt.
# GPUMATS_EIGEN_SPACES: "isym" (the 414,441-determinant sector, default), "full"
# (1,656,369 determinants, 1.1e9 nonzeros) or "isym full".  GPUMATS_EIGEN_REPEAT:
# runs of each GPU configuration (default 1; one CSV line each, take the median),
# the CPU ones run once.  GPUMATS_EIGEN_GPU_TIME=1: event times wait for the GPU
# kernels (ci_eigen -ci_log_gpu_time; default 0 here: solve times without that
# synchronisation, MatMult and MatMatMult times are launch times).
# GPUMATS_EIGEN_CPU=0 leaves the CPU runs out; GPUMATS_EIGEN_ONLY_KS=1 the LOBPCG and
# shift-and-invert runs.  cihybrid's Hamiltonian is made on the GPU (ci_eigen's default); the
# '_hostmade' runs make it on the host and upload it, as before issue 10.
# The '_sinvert' runs find the first excited state of the sector (-75.7752) by shift-and-invert
# with an iterative inner solve (GMRES + Jacobi on A - sigma I, all products on the GPU).
# Usage: tools/device/device-eigen.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
F=${GPUMATS_FCIDUMP_DIR:-.device/fcidump}
NP=${GPUMATS_CPU_RANKS:-$(nproc)}
MPIEXEC=${MPIEXEC:-$PETSC_DIR/bin/mpiexec}
LIMIT=${GPUMATS_EIGEN_TIMEOUT:-240}
status=0

# $1 label, $2 ranks, then ci_eigen options; a GPU run (one rank) is repeated
solve() {
  label=$1 np=$2
  shift 2
  runs=1; [ "$np" = 1 ] && runs=${GPUMATS_EIGEN_REPEAT:-1}
  for run in $(seq "$runs"); do
    echo "== $label ($np rank(s), run $run of $runs): $*" | tee -a "$OUT/eigen.txt"
    timeout "$LIMIT" "$MPIEXEC" -n "$np" "$B/examples/ci_eigen" -fcidump "$F/H2O.631G.FCIDUMP" -ci_log_gpu_time "${GPUMATS_EIGEN_GPU_TIME:-0}" "$@" \
      -csv "$OUT/eigen.csv" -csv_label "$label" > /tmp/eigen_run.txt 2>&1 || { status=1; echo "   FAILED or timed out"; }
    grep -vE "^(FCIDUMP|Determinants)" /tmp/eigen_run.txt | tee -a "$OUT/eigen.txt"
  done
}

gpumats="-dll_append $B/libgpumats.so -mat_type cihybrid"
cusparse="-mat_type aijcusparse"
# LOBPCG: Jacobi preconditioner of A - sigma I with sigma below the ground state (Davidson's)
lobpcg="-eps_type lobpcg -st_ksp_type preonly -st_pc_type jacobi -st_shift -77"
for space in ${GPUMATS_EIGEN_SPACES:-isym}; do
  sector=""; [ "$space" = isym ] && sector="-fci_sector isym"
  cpu=${GPUMATS_EIGEN_CPU:-1}
  [ "$cpu" = 1 ] && solve "${space}_ks_aij_cpu" "$NP" $sector -mat_type aij
  solve "${space}_ks_aijcusparse" 1 $sector $cusparse
  solve "${space}_ks_cihybrid" 1 $sector $gpumats
  solve "${space}_ks_cihybrid_hostmade" 1 $sector $gpumats -fci_assembly host
  # one eigensolver for the full space, or where asked (GPUMATS_EIGEN_ONLY_KS=1)
  { [ "$space" = full ] || [ "${GPUMATS_EIGEN_ONLY_KS:-0}" = 1 ]; } && continue
  for bs in 8 16; do
    solve "${space}_lobpcg${bs}_cihybrid_spmm" 1 $sector $gpumats $lobpcg -eps_lobpcg_blocksize $bs -bv_matmult mat
    solve "${space}_lobpcg${bs}_cihybrid_spmv" 1 $sector $gpumats $lobpcg -eps_lobpcg_blocksize $bs -bv_matmult vecs
    solve "${space}_lobpcg${bs}_aijcusparse" 1 $sector $cusparse $lobpcg -eps_lobpcg_blocksize $bs -bv_matmult mat
    [ "$cpu" = 1 ] && solve "${space}_lobpcg${bs}_aij_cpu" "$NP" $sector -mat_type aij $lobpcg -eps_lobpcg_blocksize $bs -bv_matmult mat
  done
  sinvert="-st_type sinvert -eps_target -75.80 -eps_nev 1 -eps_tol 1e-8 -st_ksp_type gmres -st_ksp_gmres_restart 100 -st_pc_type jacobi -st_ksp_rtol 1e-10"
  solve "${space}_sinvert_cihybrid" 1 $sector $gpumats $sinvert
  solve "${space}_sinvert_aijcusparse" 1 $sector $cusparse $sinvert
done
exit $status
