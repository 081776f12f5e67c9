/* The factorizations of the AIJ subclasses of the formats, sequential and MPI: AIJ's, by any
   package PETSc has for AIJ.  Their numeric phases read the host AIJ without an op of the
   matrix, now and at every refactorization, so a format whose host AIJ may be behind its
   device copy (or not made yet) composes GPUMATS_FACTOR_PREPARE on its matrices: called before
   the factor is made, it makes the host AIJ current and keeps it so (pcsr marks the matrix as
   read on the host, values then given on the device going back to it at once: shadow_ahead.c;
   cihybrid first makes the host copy of a matrix made on the device).

   MatGetFactor() finds a package named by the user (-pc_factor_mat_solver_type, or in code, as
   SLEPc may) by the prefix of the matrix's type name, and "seqaij" ("mpiaij"), registered with
   PETSc, comes before any type registered later: a package's MatGetFactor registered for these
   types themselves would never be found (measured: LU by "petsc" named read values the device
   had replaced).  So gpumats puts its own in place of each package's AIJ MatGetFactor: it calls
   the matrix's GPUMATS_FACTOR_PREPARE where there is one, then, for any matrix, the package's. */
#include "common/gpumats_impl.h"

/* The packages PETSc may have for AIJ (those it was built without are not registered) */
#define GPUMATS_AIJ_PACKAGES(X) \
  X(petsc) X(mumps) X(superlu) X(superlu_dist) X(strumpack) X(umfpack) X(cholmod) X(klu) X(spqr) X(mkl_pardiso) X(mkl_cpardiso) X(pastix) X(essl) X(lusol) X(matlab) X(bas)

typedef PetscErrorCode (*GetFactorFn)(Mat, MatFactorType, Mat *);

#define AIJ_PACKAGE_INDEX(pkg) AIJ_PACKAGE_##pkg,
enum {
  GPUMATS_AIJ_PACKAGES(AIJ_PACKAGE_INDEX) AIJ_NPACKAGES
};

#define AIJ_PACKAGE_NAME(pkg) #pkg,
static const char *const AIJPackageName[AIJ_NPACKAGES] = {GPUMATS_AIJ_PACKAGES(AIJ_PACKAGE_NAME)};

/* Each package's own MatGetFactor, by AIJ (0: MATSEQAIJ, 1: MATMPIAIJ) and factor type */
static GetFactorFn AIJGetFactor[AIJ_NPACKAGES][2][MAT_FACTOR_NUM_TYPES];

static PetscErrorCode GetFactorThroughGpuMats(int package, int mpi, Mat A, MatFactorType ftype, Mat *F)
{
  PetscErrorCode (*prepare)(Mat, const char *) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, GPUMATS_FACTOR_PREPARE, &prepare));
  if (prepare) {
    char why[96];

    PetscCall(PetscSNPrintf(why, sizeof(why), "a factorization (%s by %s)", MatFactorTypes[ftype], AIJPackageName[package]));
    PetscCall((*prepare)(A, why));
  }
  PetscCheck(AIJGetFactor[package][mpi][ftype], PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpumats holds no %s MatGetFactor of %s for %s", MatFactorTypes[ftype], AIJPackageName[package], mpi ? MATMPIAIJ : MATSEQAIJ);
  PetscCall((*AIJGetFactor[package][mpi][ftype])(A, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define AIJ_PACKAGE_GET_FACTOR(pkg) \
  static PetscErrorCode MatGetFactor_SeqAIJ_GpuMats_##pkg(Mat A, MatFactorType ftype, Mat *F) \
  { \
    PetscFunctionBegin; \
    PetscCall(GetFactorThroughGpuMats(AIJ_PACKAGE_##pkg, 0, A, ftype, F)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  } \
  static PetscErrorCode MatGetFactor_MPIAIJ_GpuMats_##pkg(Mat A, MatFactorType ftype, Mat *F) \
  { \
    PetscFunctionBegin; \
    PetscCall(GetFactorThroughGpuMats(AIJ_PACKAGE_##pkg, 1, A, ftype, F)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
GPUMATS_AIJ_PACKAGES(AIJ_PACKAGE_GET_FACTOR)

#define AIJ_PACKAGE_THROUGH(pkg) {MatGetFactor_SeqAIJ_GpuMats_##pkg, MatGetFactor_MPIAIJ_GpuMats_##pkg},
static const GetFactorFn AIJGetFactorThrough[AIJ_NPACKAGES][2] = {GPUMATS_AIJ_PACKAGES(AIJ_PACKAGE_THROUGH)};

PetscErrorCode GpuMatsRegisterAIJFactors(void)
{
  const MatType aij[2] = {MATSEQAIJ, MATMPIAIJ};
  char          names[512] = "";

  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* PETSc's packages registered first */
  for (int k = 0; k < AIJ_NPACKAGES; k++) {
    PetscBool some = PETSC_FALSE;

    for (int mpi = 0; mpi < 2; mpi++) {
      for (MatFactorType t = MAT_FACTOR_LU; t < MAT_FACTOR_NUM_TYPES; t = (MatFactorType)(t + 1)) {
        GetFactorFn get;
        PetscBool   foundtype, foundmtype;

        PetscCall(MatSolverTypeGet(AIJPackageName[k], aij[mpi], t, &foundtype, &foundmtype, &get));
        if (!get || get == AIJGetFactorThrough[k][mpi]) continue; /* none, or ours already (registered twice) */
        AIJGetFactor[k][mpi][t] = get;
        PetscCall(MatSolverTypeRegister(AIJPackageName[k], aij[mpi], t, AIJGetFactorThrough[k][mpi]));
        some = PETSC_TRUE;
      }
    }
    if (some) {
      PetscCall(PetscStrlcat(names, " ", sizeof(names)));
      PetscCall(PetscStrlcat(names, AIJPackageName[k], sizeof(names)));
    }
  }
  PetscCall(PetscInfo(NULL, "gpumats: the AIJ factorizations of%s go through gpumats for pcsr and cihybrid\n", names[0] ? names : " no package"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
