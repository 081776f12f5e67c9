#!/bin/sh
# Every PETSc or SLEPc function libgpumats.so calls must be declared in the installed public
# headers of that PETSc (variables, such as log events, are not checked): a function declared
# only in include/petsc/private, or in no header, may become internal in a later release (as
# MatZeroEntries_SeqAIJ and MatFDColoringApply_AIJ did in 3.25).  Take such an op from an AIJ
# instance's ops table instead.
# Usage: tools/ci/check-petsc-symbols.sh <libgpumats.so> <PETSc prefix> [<SLEPc prefix>]
set -e
lib=$1 prefix=$2 slepc=${3:-}
defined=$(mktemp) used=$(mktemp)
for l in "$prefix"/lib/libpetsc.so ${slepc:+"$slepc"/lib/libslepc.so}; do nm -D --defined-only "$l" | awk '$2 ~ /^[TWi]$/ {print $3}'; done | sort -u > "$defined"
nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' | sort -u | comm -12 - "$defined" > "$used"
headers="$prefix/include ${slepc:+$slepc/include}"
bad=0
while read -r sym; do
  # shellcheck disable=SC2086
  if ! grep -rqw --include='*.h' --exclude-dir=private "$sym" $headers; then
    echo "check-petsc-symbols: $sym is not declared in a public header of $prefix"
    bad=1
  fi
done < "$used"
echo "check-petsc-symbols: $(wc -l < "$used") PETSc functions used by $(basename "$lib"), $([ $bad = 0 ] && echo 'all public' || echo 'NOT all public')"
rm -f "$defined" "$used"
exit $bad
