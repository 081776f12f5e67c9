/* libFuzzer harness of the FCIDUMP reader (coverage-guided; built by tools/qa/fuzz-fcidump.sh with
   clang -fsanitize=fuzzer,address,undefined).  Every input must satisfy FCIDumpFuzzAcceptable:
   anything else aborts, and libFuzzer keeps the input as crash-<hash>. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  if (PetscInitializeNoArguments()) abort();
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FCIIntegrals  *ints = NULL;
  char           why[256];
  PetscErrorCode ierr = FCIDumpReadBytes(PETSC_COMM_SELF, "input", (const char *)data, size, &ints);

  if (!FCIDumpFuzzAcceptable(ierr, ints, "input", why, sizeof(why))) {
    fprintf(stderr, "fuzz_fcidump_libfuzzer: %s\n", why);
    abort();
  }
  if (FCIIntegralsDestroy(&ints)) abort();
  return 0;
}
