#!/bin/sh
# Coverage-guided fuzzing of the FCIDUMP reader with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang and libclang-rt-dev from Debian; PETSc from pkg-config).
#   sh tools/qa/fuzz-fcidump.sh [seconds (default 300)] [work folder (default /tmp/gpumats-fuzz)]
# Seeds: the built-in inputs of fci/tests/fuzz_fcidump.c are not needed: the corpus starts
# from ../shared/data/fcidump and fci/tests/fuzz-regressions.  A failing input is written as
# <work>/crash-*: copy it into fci/tests/fuzz-regressions/<name>.fcidump, where the meson test
# fci_fuzz reads it on every run, then fix the reader.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-300}
work=${2:-/tmp/gpumats-fuzz}
command -v clang >/dev/null || { echo "fuzz-fcidump: clang is needed (apt-get install clang libclang-rt-14-dev)"; exit 1; }
mkdir -p "$work/corpus"
cp ../shared/data/fcidump/*DUMP "$work/corpus/" 2>/dev/null || true
cp fci/tests/fuzz-regressions/*.fcidump "$work/corpus/" 2>/dev/null || true
printf ' &FCI NORB=2,NELEC=2,MS2=0,\n ORBSYM=1,2,\n ISYM=2,\n /\n 0.7 1 1 1 1\n 0.1 2 1 1 1\n -1.25 1 1 0 0\n 0.7 0 0 0 0\n' > "$work/corpus/small.fcidump"
# shellcheck disable=SC2046
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I fci -I fci/tests $(pkg-config --cflags PETSc ompi-c) \
  fci/tests/fuzz_fcidump_libfuzzer.c fci/tests/fuzz_check.c fci/fcidump.c \
  $(pkg-config --libs PETSc ompi-c) -lm -o "$work/fuzz_fcidump_libfuzzer"
# leaks of PETSc's and Open MPI's initialisation are not the reader's: LeakSanitizer off here
# (the reader's own frees are checked by valgrind and the ASan build of the test suite)
ASAN_OPTIONS=detect_leaks=0 "$work/fuzz_fcidump_libfuzzer" -max_total_time="$secs" -max_len=4096 -timeout=10 \
  -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" 2>&1 | tail -25
