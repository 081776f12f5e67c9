/* The FCI Hamiltonian made on the GPU (hamiltonian_device.cu), as a generator for
   MatCIHybridAssembleOnDevice() (gpumats.h): the rows of hamiltonian.c, entry for entry, written
   straight into the device arrays of a cihybrid matrix: the rows rstart..rend-1 (a process's,
   local row 0 first, global columns).  Lexical ordering.
   FCIHamiltonianAssemble() uses it by itself when it can (-fci_assembly auto|host|device). */
#pragma once
#include <gpumats.h>
#include "hamiltonian.h"

typedef struct _n_FCIDeviceRows *FCIDeviceRows;

/* The host tables are made here; the device ones on the generator's first call. */
PetscErrorCode FCIDeviceRowsCreate(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, PetscInt rstart, PetscInt rend, FCIDeviceRows *rows, MatCIHybridDeviceRows *generator);
PetscErrorCode FCIDeviceRowsDestroy(FCIDeviceRows *rows);
