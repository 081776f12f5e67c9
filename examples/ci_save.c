/* -save FILE of the main job: see ci_save.h. */
#define _POSIX_C_SOURCE 200809L /* sigaction, sigprocmask */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ci_save.h"

/* -save FILE: the matrix is written to "FILE.tmp.<pid of rank 0>" in the same directory, and only once
   it is complete does rank 0 rename it onto FILE (and PETSc's companion "FILE.tmp.<pid>.info" onto
   "FILE.info"): FILE is absent, the previous one or the complete new one, never half written.  Until
   the rename, rank 0 removes the temporaries on an error, on PETSc's fatal signals (a handler pushed
   with PetscPushSignalHandler, then PetscSignalHandlerDefault) and on SIGINT and SIGTERM, which PETSc
   3.18 does not catch (then the signal's previous action: the run ends as it would have without
   -save).  The names are set on rank 0 only: the other ranks never remove what rank 0 writes. */
static char             CISaveTmp[PETSC_MAX_PATH_LEN + 32], CISaveTmpInfo[PETSC_MAX_PATH_LEN + 40];
static struct sigaction CISaveOldAction[2]; /* SIGINT, SIGTERM */
static PetscBool        CISaveCaught[2];

static void CISaveRemoveTemporaries(void)
{
  /* async-signal-safe; a name already renamed or never written is no error */
  if (CISaveTmp[0]) (void)unlink(CISaveTmp);
  if (CISaveTmpInfo[0]) (void)unlink(CISaveTmpInfo);
}

static PetscErrorCode CISaveSignalHandler(int sig, void *ctx)
{
  CISaveRemoveTemporaries();
  return PetscSignalHandlerDefault(sig, ctx);
}

static void CISaveInterrupted(int sig)
{
  CISaveRemoveTemporaries();
  (void)sigaction(sig, &CISaveOldAction[sig == SIGINT ? 0 : 1], NULL);
  (void)raise(sig); /* delivered with the previous action once this handler returns */
}

/* SIGINT and SIGTERM to CISaveInterrupted (catch true) or back to what they were; an ignored one stays ignored */
static void CISaveCatchInterrupts(PetscBool catch)
{
  const int sigs[2] = {SIGINT, SIGTERM};

  for (int k = 0; k < 2; k++) {
    if (catch) {
      struct sigaction act;

      CISaveCaught[k] = PETSC_FALSE;
      if (sigaction(sigs[k], NULL, &CISaveOldAction[k]) || CISaveOldAction[k].sa_handler == SIG_IGN) continue;
      memset(&act, 0, sizeof(act));
      act.sa_handler = CISaveInterrupted;
      sigemptyset(&act.sa_mask);
      CISaveCaught[k] = sigaction(sigs[k], &act, NULL) ? PETSC_FALSE : PETSC_TRUE;
    } else if (CISaveCaught[k]) {
      (void)sigaction(sigs[k], &CISaveOldAction[k], NULL);
      CISaveCaught[k] = PETSC_FALSE;
    }
  }
}

static PetscErrorCode CISaveWrite(Mat A, const char file[])
{
  PetscViewer v;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryOpen(PetscObjectComm((PetscObject)A), file, FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscFunctionReturn(0);
}

/* Before any work: FILE must not be a directory and its directory must let us create the temporary. */
PetscErrorCode CISaveCheckTarget(MPI_Comm comm, const char file[])
{
  PetscMPIInt rank;
  int         status[2] = {0, 0}; /* 1: FILE is a directory, 2: its directory is not writable; errno */
  char        dir[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrncpy(dir, file, sizeof(dir)));
  {
    char *slash = strrchr(dir, '/');

    if (!slash) PetscCall(PetscStrncpy(dir, ".", sizeof(dir)));
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
  }
  if (rank == 0) {
    struct stat st;

    if (!stat(file, &st) && S_ISDIR(st.st_mode)) status[0] = 1;
    else if (access(dir, W_OK | X_OK)) status[0] = 2, status[1] = errno;
  }
  PetscCallMPI(MPI_Bcast(status, 2, MPI_INT, 0, comm));
  PetscCheck(status[0] != 1, comm, PETSC_ERR_ARG_WRONG, "-save %s: is a directory; give a file name (e.g. %s/matrix.bin)", file, file);
  PetscCheck(status[0] != 2, comm, PETSC_ERR_FILE_OPEN, "-save %s: cannot create files in the directory %s: %s", file, dir, strerror(status[1]));
  PetscFunctionReturn(0);
}

PetscErrorCode CISaveMatrix(Mat A, const char file[])
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt    rank;
  PetscErrorCode ierr;
  int            failed, anyfailed, status[2] = {0, 0}; /* rank 0's renames: 0 done, 1 .info, 2 the matrix; errno */
  long           pid = 0;
  char           tmp[PETSC_MAX_PATH_LEN + 32], info[PETSC_MAX_PATH_LEN + 8];
  size_t         len;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrlen(file, &len));
  PetscCheck(len + 1 < PETSC_MAX_PATH_LEN, comm, PETSC_ERR_ARG_WRONG, "-save %s: the name is too long (at most %d characters)", file, PETSC_MAX_PATH_LEN - 2);
  if (rank == 0) pid = (long)getpid();
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_LONG, 0, comm));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp.%ld", file, pid));
  PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", file));
  if (rank == 0) {
    PetscCall(PetscStrncpy(CISaveTmp, tmp, sizeof(CISaveTmp)));
    PetscCall(PetscSNPrintf(CISaveTmpInfo, sizeof(CISaveTmpInfo), "%s.info", tmp));
  }
  PetscCall(PetscPushSignalHandler(CISaveSignalHandler, NULL));
  CISaveCatchInterrupts(PETSC_TRUE);

  ierr   = CISaveWrite(A, tmp);
  failed = ierr ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, comm));
  if (rank == 0) {
    sigset_t block, old;

    /* the renames, or the removal, in one piece: a signal now waits until they are done */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    if (!anyfailed) {
      if (rename(tmp, file)) status[0] = 2, status[1] = errno;
      else if (access(CISaveTmpInfo, F_OK) == 0) {
        if (rename(CISaveTmpInfo, info)) status[0] = 1, status[1] = errno;
      } else if (unlink(info) && errno != ENOENT) status[0] = 1, status[1] = errno; /* no stale FILE.info with a new FILE */
    }
    if (anyfailed || status[0]) CISaveRemoveTemporaries();
    CISaveTmp[0] = CISaveTmpInfo[0] = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
  CISaveCatchInterrupts(PETSC_FALSE);
  PetscCall(PetscPopSignalHandler());
  PetscCallMPI(MPI_Bcast(status, 2, MPI_INT, 0, comm));
  PetscCall(ierr);
  PetscCheck(!anyfailed, comm, PETSC_ERR_FILE_WRITE, "-save %s: writing the matrix failed on another rank", file);
  PetscCheck(status[0] != 2, comm, PETSC_ERR_FILE_WRITE, "-save %s: cannot rename the complete temporary %s onto it: %s", file, tmp, strerror(status[1]));
  PetscCheck(status[0] != 1, comm, PETSC_ERR_FILE_WRITE, "-save %s: the matrix is in place, but not its companion %s: %s", file, info, strerror(status[1]));
  PetscFunctionReturn(0);
}
