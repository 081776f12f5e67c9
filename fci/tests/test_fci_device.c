/* The FCI Hamiltonian made on the GPU (hamiltonian_device.cu) against the one made on the host
   (hamiltonian.c), entry by entry: same columns, same values to the bit, for molecules (with and
   without a symmetry sector, with a drop tolerance), Hubbard lattices (exact zeros dropped,
   unequal alpha and beta electron counts, periodic wraps), and the products of the device-only
   matrix before any host copy.  On several processes each makes its own rows on the device: the
   same entries, and the operations that the MPI matrix keeps on the device (the Frobenius norm,
   the diagonal, duplicate, AXPY, shift, scale) give the host matrix's results without a host
   copy.  -fci_assembly device where it cannot be done is an error, auto falls back to the host.
   Skipped (exit 77) without a usable device.
   Usage: [mpiexec -n <p>] test_fci_device <fcidump directory> */
#include <gpumats.h>
#include <stdlib.h>
#include <string.h>
#include "fci.h"
#include "tests/testmat.h" /* the shared MATAIJ comparisons of the library tests */

static const char help[] = "FCI Hamiltonian on the GPU against the host one\n";

/* H with the given matrix type and -fci_assembly choice */
static PetscErrorCode Build(const FCIIntegrals *ints, const FCIDetSpace *sp, PetscReal droptol, MatType type, const char *assembly, Mat *H)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-fci_assembly", assembly));
  PetscCall(MatCreate(PETSC_COMM_WORLD, H));
  PetscCall(MatSetSizes(*H, PETSC_DECIDE, PETSC_DECIDE, sp->ndet, sp->ndet));
  PetscCall(MatSetType(*H, type));
  PetscCall(FCIHamiltonianAssemble(ints, sp, droptol, *H));
  PetscCall(PetscOptionsClearValue(NULL, "-fci_assembly"));
  PetscFunctionReturn(0);
}

/* y = A x against y = B x */
static PetscErrorCode CompareMult(Mat A, Mat B, const char *what)
{
  Vec       x, y, yref;
  PetscReal err, nrm;
  PetscInt  lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(B, &x, &yref));
  PetscCall(MatCreateVecs(A, NULL, &y));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(x, i, PetscSinReal(0.37 * (PetscReal)i + 0.1), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yref));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nrm));
  PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: device-built H x differs from the host one by %g (|H x| %g)", what, (double)err, (double)nrm);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(0);
}

/* A must still be device-only after 'op' */
static PetscErrorCode ExpectDeviceOnly(Mat A, const char *what, const char *op)
{
  PetscBool only;

  PetscFunctionBeginUser;
  PetscCall(MatCIHybridIsDeviceOnly(A, &only));
  PetscCheck(only, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s made a host copy", what, op);
  PetscFunctionReturn(0);
}

/* What a solver does to the operator, on D (device-only) and on the host matrix H alike: the
   results agree and D has made no host copy */
static PetscErrorCode CompareOperations(Mat D, Mat H, const char *what)
{
  Mat       E, F;
  Vec       dd, dh;
  PetscReal nd, nh, err;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(D, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(ExpectDeviceOnly(D, what, "MatView with the info format"));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(H, NORM_FROBENIUS, &nh));
  PetscCheck(PetscAbsReal(nd - nh) <= 1e-12 * nh, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: Frobenius norm %.17g, the host's %.17g", what, (double)nd, (double)nh);
  PetscCall(ExpectDeviceOnly(D, what, "MatNorm"));
  PetscCall(MatCreateVecs(D, NULL, &dd));
  PetscCall(MatCreateVecs(H, NULL, &dh));
  PetscCall(MatGetDiagonal(D, dd));
  PetscCall(MatGetDiagonal(H, dh));
  PetscCall(VecAXPY(dd, -1.0, dh));
  PetscCall(VecNorm(dd, NORM_INFINITY, &err));
  PetscCheck(err == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the diagonal differs from the host's by %g", what, (double)err);
  PetscCall(ExpectDeviceOnly(D, what, "MatGetDiagonal"));
  /* E = 3 D + 0.5 I - D, as STSINVERT's shifted operators are made */
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &E));
  PetscCall(ExpectDeviceOnly(E, what, "MatDuplicate"));
  PetscCall(MatScale(E, 3.0));
  PetscCall(MatShift(E, 0.5));
  PetscCall(MatAXPY(E, -1.0, D, SAME_NONZERO_PATTERN));
  PetscCall(ExpectDeviceOnly(E, what, "MatScale, MatShift and MatAXPY"));
  PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &F));
  PetscCall(MatScale(F, 2.0));
  PetscCall(MatShift(F, 0.5));
  PetscCall(CompareMult(E, F, what));
  PetscCall(ExpectDeviceOnly(E, what, "MatMult"));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&F));
  PetscCall(VecDestroy(&dd));
  PetscCall(VecDestroy(&dh));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(const FCIIntegrals *ints, const FCIDetSpace *sp, PetscReal droptol, const char *what)
{
  Mat      D, H;
  PetscInt n, nnz;

  PetscFunctionBeginUser;
  PetscCall(Build(ints, sp, droptol, MATAIJ, "host", &H));
  PetscCall(Build(ints, sp, droptol, MATCIHYBRID, "device", &D));
  PetscCall(ExpectDeviceOnly(D, what, "-fci_assembly device"));
  PetscCall(CompareMult(D, H, what));
  PetscCall(ExpectDeviceOnly(D, what, "MatMult"));
  PetscCall(CompareOperations(D, H, what));
  PetscCall(MatGetSize(H, &n, NULL));
  PetscCall(ExpectSameEntries(D, H, what, &nnz)); /* the device-made rows against the host-made ones */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(CompareMult(D, H, what)); /* the device copy is still current after the host copy */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " determinants, %" PetscInt_FMT " nonzeros, every entry identical\n", what, n, nnz));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareSpace(const FCIIntegrals *ints, PetscInt sector, FCIOrdering ordering, PetscReal droptol, const char *what)
{
  FCIDetSpaceOptions opts;
  FCIDetSpace       *sp;

  PetscFunctionBeginUser;
  PetscCall(FCIDetSpaceOptionsDefault(&opts));
  opts.sector   = sector;
  opts.ordering = ordering;
  PetscCall(FCIDetSpaceCreate(ints, &opts, &sp));
  PetscCall(Compare(ints, sp, droptol, what));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscFunctionReturn(0);
}

static PetscErrorCode Molecule(const char *dir, const char *file, PetscInt sector, PetscReal droptol, const char *what)
{
  char          path[PETSC_MAX_PATH_LEN];
  FCIIntegrals *ints;
  PetscBool     exists;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, file));
  PetscCall(PetscTestFile(path, 'r', &exists));
  if (!exists) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s not found, skipped\n", what, path));
    PetscFunctionReturn(0);
  }
  PetscCall(FCIDumpRead(PETSC_COMM_WORLD, path, &ints));
  PetscCall(CompareSpace(ints, sector, FCI_ORDER_LEXICAL, droptol, what));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

static PetscErrorCode Hubbard(PetscInt nx, PetscInt ny, PetscBool periodic, PetscInt nup, PetscInt ndown, FCIHubbardWrap wrap, const char *what)
{
  FCIHubbardSpec spec = {nx, ny, periodic, periodic, 1.0, 4.0, nup, ndown, wrap};
  FCIIntegrals  *ints;

  PetscFunctionBeginUser;
  PetscCall(FCIHubbardCreate(&spec, &ints));
  PetscCall(CompareSpace(ints, FCI_SECTOR_NONE, FCI_ORDER_LEXICAL, 0.0, what));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

/* -fci_assembly device where it cannot be: an error that says why; auto: the host */
static PetscErrorCode Refusals(void)
{
  FCIHubbardSpec     spec = {2, 3, PETSC_FALSE, PETSC_FALSE, 1.0, 4.0, 3, 3, FCI_HUBBARD_WRAP_BOND};
  FCIIntegrals      *ints;
  FCIDetSpaceOptions opts;
  FCIDetSpace       *sp;
  Mat                H;
  PetscBool          only;
  PetscErrorCode     ierr;
  const char        *text;
  const char        *specific;

  PetscFunctionBeginUser;
  PetscCall(FCIHubbardCreate(&spec, &ints));
  PetscCall(FCIDetSpaceOptionsDefault(&opts));
  opts.ordering = FCI_ORDER_EXCITATION;
  PetscCall(FCIDetSpaceCreate(ints, &opts, &sp));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Build(ints, sp, 0.0, MATCIHYBRID, "device", &H);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(NULL, "-fci_assembly"));
  PetscCheck(ierr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "-fci_assembly device with the excitation ordering: no error");
  PetscCall(GpuMatsErrorMessage(ierr, &text, &specific));
  PetscCheck(specific && strstr(specific, "lexical"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "-fci_assembly device with the excitation ordering: the error does not say why: %s", specific ? specific : "(none)");
  PetscCall(MatDestroy(&H));
  PetscCall(Build(ints, sp, 0.0, MATCIHYBRID, "auto", &H));
  PetscCall(MatCIHybridIsDeviceOnly(H, &only));
  PetscCheck(!only, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-fci_assembly auto with the excitation ordering: built on the device");
  PetscCall(MatDestroy(&H));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusals: excitation ordering refused on the device with the reason, built on the host by auto\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Run(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = ".";
  Mat       probe;
  PetscBool uses;

  PetscFunctionBeginUser;
  if (argc > 1 && argv[1][0] != '-') PetscCall(PetscStrncpy(dir, argv[1], sizeof(dir)));
  PetscCall(GpuMatsInitializePackage());
  PetscCall(MatCreateSeqAIJCIHybrid(PETSC_COMM_SELF, 1, 1, 1, NULL, &probe));
  PetscCall(MatGpuMatsUsesDevice(probe, &uses));
  PetscCall(MatDestroy(&probe));
  if (!uses) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "fci device: no usable device, skipped\n"));
    PetscCall(PetscFinalize());
    exit(77);
  }
  PetscCall(Molecule(dir, "H2O.STO2G.INTDUMP", FCI_SECTOR_ISYM, 0.0, "H2O/STO-2G, ISYM sector"));
  PetscCall(Molecule(dir, "H2O.STO2G.INTDUMP", FCI_SECTOR_NONE, 0.0, "H2O/STO-2G, all sectors"));
  PetscCall(Molecule(dir, "H2O.STO2G.INTDUMP", FCI_SECTOR_NONE, 1e-6, "H2O/STO-2G, drop tolerance 1e-6"));
  PetscCall(Molecule(dir, "N2.STO3G.FCIDUMP", FCI_SECTOR_NONE, 0.0, "N2/STO-3G"));
  PetscCall(Molecule(dir, "N2.STO3G.FCIDUMP", 3, 0.0, "N2/STO-3G, irrep 3"));
  PetscCall(Hubbard(3, 3, PETSC_FALSE, 4, 4, FCI_HUBBARD_WRAP_BOND, "Hubbard 3x3 open, 4+4"));
  PetscCall(Hubbard(2, 3, PETSC_TRUE, 3, 2, FCI_HUBBARD_WRAP_SUM, "Hubbard 2x3 periodic (sum), 3+2"));
  PetscCall(Hubbard(4, 2, PETSC_TRUE, 1, 3, FCI_HUBBARD_WRAP_BOND, "Hubbard 4x2 periodic, 1+3"));
  PetscCall(Refusals());
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ierr = Run(argc, argv);
  if (ierr) PetscCallMPI(MPI_Abort(PETSC_COMM_WORLD, 1));
  PetscCall(PetscFinalize());
  return 0;
}
