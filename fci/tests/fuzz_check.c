/* What every input of the FCIDUMP reader must come to (fuzz_check.h). */
#include <math.h>
#include <string.h>
#include "fuzz_check.h"
#include "gpumats_compat.h"

/* What a parsed file must satisfy: sizes in range, every value finite, h and the 8-fold (ij|kl) symmetric. */
static PetscBool FuzzConsistent(const FCIIntegrals *ig, char why[], size_t size)
{
  const PetscInt n = ig->norb;
  PetscInt       na, nb;

  if (n < 1 || n > 64 || ig->nelec < 0 || ig->nelec > 2 * n) {
    PetscSNPrintf(why, size, "NORB %" PetscInt_FMT " / NELEC %" PetscInt_FMT " out of range", n, ig->nelec);
    return PETSC_FALSE;
  }
  na = (ig->nelec + ig->ms2) / 2, nb = (ig->nelec - ig->ms2) / 2;
  if ((ig->nelec + ig->ms2) % 2 || na < 0 || nb < 0 || na > n || nb > n || ig->isym < 0 || ig->isym > 8 || !isfinite(ig->ecore)) {
    PetscSNPrintf(why, size, "electrons %" PetscInt_FMT "/%" PetscInt_FMT ", ISYM %" PetscInt_FMT " or core energy inconsistent", na, nb, ig->isym);
    return PETSC_FALSE;
  }
  for (PetscInt i = 0; i < n; i++) {
    if (ig->orbsym[i] < 1 || ig->orbsym[i] > 8) {
      PetscSNPrintf(why, size, "ORBSYM[%" PetscInt_FMT "] = %" PetscInt_FMT, i, ig->orbsym[i]);
      return PETSC_FALSE;
    }
    for (PetscInt j = 0; j < n; j++) {
      if (!isfinite(ig->h[i * n + j]) || ig->h[i * n + j] != ig->h[j * n + i]) {
        PetscSNPrintf(why, size, "h(%" PetscInt_FMT ",%" PetscInt_FMT ") not finite or not symmetric", i, j);
        return PETSC_FALSE;
      }
      if (n > 8) continue; /* the full (ij|kl) check is n^4: the small files only */
      for (PetscInt k = 0; k < n; k++)
        for (PetscInt l = 0; l < n; l++) {
          const double v = ig->eri[FCI_ERI_INDEX(n, i, j, k, l)];
          if (!isfinite(v) || v != ig->eri[FCI_ERI_INDEX(n, j, i, k, l)] || v != ig->eri[FCI_ERI_INDEX(n, k, l, i, j)] || v != ig->eri[FCI_ERI_INDEX(n, i, j, l, k)]) {
            PetscSNPrintf(why, size, "(%" PetscInt_FMT "%" PetscInt_FMT "|%" PetscInt_FMT "%" PetscInt_FMT ") not finite or not 8-fold symmetric", i, j, k, l);
            return PETSC_FALSE;
          }
        }
    }
  }
  return PETSC_TRUE;
}

PetscBool FCIDumpFuzzAcceptable(PetscErrorCode ierr, const FCIIntegrals *ints, const char name[], char why[], size_t size)
{
  const char *text;
  const char *spec = NULL;
  char        prefix[96];

  why[0] = 0;
  if (!ierr) return FuzzConsistent(ints, why, size);
  if (ints) {
    PetscSNPrintf(why, size, "error %d returned integrals", (int)ierr);
    return PETSC_FALSE;
  }
  GpuMatsErrorMessage(ierr, &text, &spec);
  PetscSNPrintf(prefix, sizeof(prefix), "FCIDUMP %s", name);
  if (ierr != PETSC_ERR_FILE_UNEXPECTED) PetscSNPrintf(why, size, "error class %d, not PETSC_ERR_FILE_UNEXPECTED: %s", (int)ierr, spec ? spec : "");
  else if (!spec || strncmp(spec, prefix, strlen(prefix))) PetscSNPrintf(why, size, "message does not name the file: %s", spec ? spec : "(none)");
  return why[0] ? PETSC_FALSE : PETSC_TRUE;
}
