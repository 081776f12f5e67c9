#!/bin/sh
# ci_eigen on a compressed cihybrid Hamiltonian (-mat_cihybrid_compress full: made on the host,
# multiplied on the GPU where there is one) and one SLEPc solver / spectral transformation given
# as the remaining arguments: the energies must match the reference and the same solve on
# MATAIJ (-check), and ci_eigen must say the matrix is compressed.
#   ci_eigen_compressed.sh <ci_eigen> <libgpumats.so> <FCIDUMP> <reference> [solver options...]
set -u
prog=$1 lib=$2 fcidump=$3 ref=$4
shift 4
. "$(dirname "$0")/ci_eigen_env.sh"
"$prog" -fcidump "$fcidump" -reference "$ref" -dll_append "$lib" -mat_type cihybrid -mat_cihybrid_compress full \
  -check -check_tol 1e-11 "$@" > compressed_st.$$.log 2>&1
status=$?
cat compressed_st.$$.log
grep -q "^cihybrid compressed: .* bytes a nonzero" compressed_st.$$.log || { echo "FAILED: the matrix does not say it is compressed"; status=1; }
rm -f compressed_st.$$.log
exit $status
