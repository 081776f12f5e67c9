/* FCI matrix builders: everything in one include.

     fcidump.h       FCIIntegrals: FCIDUMP reader (FCIDumpRead), Hubbard model (FCIHubbardCreate)
     determinants.h  FCIDetSpace: alpha/beta strings, symmetry sector, lexical or excitation ordering
     hamiltonian.h   FCIRowGenerator (rows one at a time), FCIHamiltonianAssemble / FCIHamiltonianCreate
     slatercondon.h  one matrix element at a time (checks, small problems)

   Typical use (the matrix type comes from -mat_type: aij, sbaij, dense,
   cihybrid with -dll_append libgpumats.so, ...):

     FCIIntegrals      *ints;
     FCIDetSpaceOptions opts;
     FCIDetSpace       *space;
     Mat                H;
     PetscViewer        v;

     PetscCall(FCIDumpRead(PETSC_COMM_WORLD, "N2.STO3G.FCIDUMP", &ints));
     PetscCall(FCIDetSpaceOptionsDefault(&opts));
     PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_WORLD, NULL, &opts)); // -fci_sector, -fci_ordering, -fci_reference
     PetscCall(FCIDetSpaceCreate(ints, &opts, &space));
     PetscCall(MatCreate(PETSC_COMM_WORLD, &H));
     PetscCall(MatSetFromOptions(H));
     PetscCall(FCIHamiltonianAssemble(ints, space, 0.0, H)); // sizes, exact preallocation, values, assembly
     // ... EPSSetOperators(eps, H, NULL) ...
     // to keep it: a binary file that MatLoad reads back (any number of ranks;
     // an SBAIJ matrix writes its upper triangle only: load it as SBAIJ)
     PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, "H.bin", FILE_MODE_WRITE, &v));
     PetscCall(MatView(H, v));
     PetscCall(PetscViewerDestroy(&v));
     PetscCall(MatDestroy(&H));
     PetscCall(FCIDetSpaceDestroy(&space));
     PetscCall(FCIIntegralsDestroy(&ints));

   Basis index i of H is determinant FCIDetSpaceGetDeterminant(space, i, ...).
   Everything but the matrix is replicated on every rank (integrals norb^4,
   two permutation arrays of ndet entries with the excitation ordering,
   per-string excitation tables); each rank generates only its own rows. */
#pragma once
#include "fcidump.h"
#include "determinants.h"
#include "hamiltonian.h"
#include "slatercondon.h"
