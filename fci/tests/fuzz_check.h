/* The rule every input of the FCIDUMP reader must satisfy, shared by the mutation fuzzer
   (fuzz_fcidump.c) and the libFuzzer harness (fuzz_fcidump_libfuzzer.c). */
#pragma once
#include "fcidump.h"

/* ierr and ints: what FCIDumpReadBytes(..., name, ...) returned.  True when the input parsed into
   consistent integrals (sizes in range, values finite, h and (ij|kl) symmetric) or gave a clean
   error: class PETSC_ERR_FILE_UNEXPECTED, a message that starts with 'FCIDUMP <name>', no
   integrals.  Otherwise false, with the reason in why. */
PetscBool FCIDumpFuzzAcceptable(PetscErrorCode ierr, const FCIIntegrals *ints, const char name[], char why[], size_t size);
