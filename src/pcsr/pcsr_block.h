/* pcsr's block class of the MPI mechanism (src/common/mpiclass.h): a MATSEQAIJ block
   converted in place to MATSEQAIJPCSR, shown in one line.  The blocks of MATMPIAIJPCSR
   (mpipcsr.c) and the off-process block of MATMPIDIAG (src/diag/mpidiag_class.c). */
#pragma once
#include "common/gpumats_impl.h"

PETSC_INTERN const GpuMatsMPIBlockClass PCSRMPIBlock;
