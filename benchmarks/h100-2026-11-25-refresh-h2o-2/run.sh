#!/bin/sh
# dev call 3 (session 10): why aijcusparse does not finish the H2O/6-31G refresh loop (issue 20's Hamiltonian case)
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
[ -f /opt/petsc-cuda/lib/libpetsc.so ] || tar xJf .device/petsc-cuda.tar.xz -C /
[ -f /opt/slepc-cuda/lib/libslepc.so ] || tar xJf .device/slepc-cuda.tar.xz -C /
export PETSC_DIR=/opt/petsc-cuda SLEPC_DIR=/opt/slepc-cuda PATH=/opt/petsc-cuda/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/opt/slepc-cuda/lib:/opt/petsc-cuda/lib PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=/tmp/bfinal
stamp="cuda slepc=/opt/slepc-cuda mpi_tests_parallel"
{ [ -f $B/build.ninja ] || { meson setup $B -Dcuda=enabled -Dmpi_tests_parallel=true && echo "$stamp" > $B/.device-test-setup; }; } > $OUT/build.log 2>&1 && ninja -C $B >> $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
H=/tmp/h2o631g_isym.bin
$B/examples/ci_eigen -fcidump .device/fcidump/H2O.631G.FCIDUMP -fci_sector isym -eps_nev 1 -save $H 2>&1 | tail -1
ls -la $H; echo "saved at $(( $(date +%s) - T0 )) s"
left=$(( 560 - ($(date +%s) - T0) ))
( timeout $left $B/benchmarks/bench_refresh_matrix -f $H -mat_type aijcusparse -vec_type cuda -path setvalues -steps 3 -mults 20 -label h2o -csv $OUT/h2o.csv -info > /tmp/a.txt 2>&1; echo "rc=$?" >> /tmp/a.txt ) 
echo "aijcusparse setvalues ended at $(( $(date +%s) - T0 )) s"
grep -v "PetscCommDuplicate\|PetscGetHostName\|PetscDevice" /tmp/a.txt | cut -c1-250 | tail -25
grep -c . /tmp/a.txt
cp /tmp/a.txt $OUT/aijcusparse_setvalues_info.txt 2>/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s"
