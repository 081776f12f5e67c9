# Sourced by the shell tests of ci_eigen (ci_eigen_badopts.sh, ci_eigen_save.sh): the environment
# the program runs in, the same wherever the suite runs.
# Open MPI refuses root without these (singleton runs: no mpiexec)
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# the environment's PETSc options would change what is tested: only what a CUDA PETSc on an MPI that
# is not GPU-aware needs to start at all is kept
case " ${PETSC_OPTIONS:-} " in
  *" -use_gpu_aware_mpi 0 "*) PETSC_OPTIONS="-use_gpu_aware_mpi 0"; export PETSC_OPTIONS ;;
  *) unset PETSC_OPTIONS ;;
esac
