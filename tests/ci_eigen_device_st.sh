#!/bin/sh
# ci_eigen with the Hamiltonian made on the GPU (-fci_assembly device: no host matrix) and one
# SLEPc solver / spectral transformation given as the remaining arguments: the energies must
# match the reference and the same solve on MATAIJ (-check), the host copy of the device-made
# matrix.  Skipped (77) where there is no GPU.
#   ci_eigen_device_st.sh <ci_eigen> <libgpumats.so> <FCIDUMP> <reference> [solver options...]
set -u
prog=$1 lib=$2 fcidump=$3 ref=$4
shift 4
. "$(dirname "$0")/ci_eigen_env.sh"
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
"$prog" -fcidump "$fcidump" -reference "$ref" -dll_append "$lib" -mat_type cihybrid -fci_assembly device \
  -check -check_tol 1e-11 "$@" > device_st.$$.log 2>&1
status=$?
cat device_st.$$.log
grep -q "Hamiltonian .*made on the GPU" device_st.$$.log || { echo "FAILED: the Hamiltonian was not made on the GPU"; status=1; }
rm -f device_st.$$.log
exit $status
