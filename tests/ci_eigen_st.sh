#!/bin/sh
# ci_eigen with one SLEPc solver / spectral transformation given as the remaining arguments, on a
# cihybrid Hamiltonian of one kind: the energies must match the reference and the same solve on
# MATAIJ (-check), and ci_eigen must say the matrix is of that kind.
#   device      made on the GPU (-fci_assembly device: no host matrix; MATAIJ is the host copy
#               of the device-made matrix); skipped (77) where there is no GPU
#   compressed  -mat_cihybrid_compress full: made on the host, multiplied on the GPU where
#               there is one
#   ci_eigen_st.sh <device|compressed> <ci_eigen> <libgpumats.so> <FCIDUMP> <reference> [solver options...]
set -u
kind=$1 prog=$2 lib=$3 fcidump=$4 ref=$5
shift 5
. "$(dirname "$0")/ci_eigen_env.sh"
case $kind in
  device)
    nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
    opts="-fci_assembly device" says="Hamiltonian .*made on the GPU" ;;
  compressed) opts="-mat_cihybrid_compress full" says="^cihybrid compressed: .* bytes a nonzero" ;;
  *) echo "ci_eigen_st.sh: the kind is device or compressed, not '$kind'" >&2; exit 2 ;;
esac
log=${kind}_st.$$.log
# shellcheck disable=SC2086
"$prog" -fcidump "$fcidump" -reference "$ref" -dll_append "$lib" -mat_type cihybrid $opts \
  -check -check_tol 1e-11 "$@" > "$log" 2>&1
status=$?
cat "$log"
grep -q "$says" "$log" || { echo "FAILED: ci_eigen does not say the matrix is $kind ('$says')"; status=1; }
rm -f "$log"
exit $status
