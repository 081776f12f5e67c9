/* FCIDUMP reader and Hubbard-model integrals (see fcidump.h). */
#include "fcidump.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

PetscErrorCode FCIIntegralsCreate(PetscInt norb, FCIIntegrals **ints)
{
  FCIIntegrals *ig;
  size_t        n4;

  PetscFunctionBeginUser;
  PetscCheck(norb >= 1 && norb <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Number of orbitals %" PetscInt_FMT " must be in 1..64 (determinant strings are 64-bit words)", norb);
  n4 = (size_t)norb * (size_t)norb * (size_t)norb * (size_t)norb;
  PetscCall(PetscNew(&ig));
  ig->norb = norb;
  ig->isym = 1;
  PetscCall(PetscMalloc1(norb, &ig->orbsym));
  for (PetscInt i = 0; i < norb; i++) ig->orbsym[i] = 1;
  PetscCall(PetscCalloc1((size_t)norb * norb, &ig->h));
  PetscCall(PetscCalloc1(n4, &ig->eri));
  *ints = ig;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIIntegralsDestroy(FCIIntegrals **ints)
{
  PetscFunctionBeginUser;
  if (!*ints) PetscFunctionReturn(0);
  PetscCall(PetscFree((*ints)->orbsym));
  PetscCall(PetscFree((*ints)->h));
  PetscCall(PetscFree((*ints)->eri));
  PetscCall(PetscFree(*ints));
  PetscFunctionReturn(0);
}

static void FCISetERI8(FCIIntegrals *ig, PetscInt i, PetscInt j, PetscInt k, PetscInt l, PetscReal v)
{
  const PetscInt n = ig->norb;
  ig->eri[FCI_ERI_INDEX(n, i, j, k, l)] = v;
  ig->eri[FCI_ERI_INDEX(n, j, i, k, l)] = v;
  ig->eri[FCI_ERI_INDEX(n, i, j, l, k)] = v;
  ig->eri[FCI_ERI_INDEX(n, j, i, l, k)] = v;
  ig->eri[FCI_ERI_INDEX(n, k, l, i, j)] = v;
  ig->eri[FCI_ERI_INDEX(n, l, k, i, j)] = v;
  ig->eri[FCI_ERI_INDEX(n, k, l, j, i)] = v;
  ig->eri[FCI_ERI_INDEX(n, l, k, j, i)] = v;
}

PetscErrorCode FCIIntegralsSetERI(FCIIntegrals *ints, PetscInt i, PetscInt j, PetscInt k, PetscInt l, PetscReal value)
{
  const PetscInt n = ints->norb;

  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < n && j >= 0 && j < n && k >= 0 && k < n && l >= 0 && l < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "(%" PetscInt_FMT " %" PetscInt_FMT "|%" PetscInt_FMT " %" PetscInt_FMT ") outside 0..%" PetscInt_FMT, i, j, k, l, n - 1);
  FCISetERI8(ints, i, j, k, l, value);
  PetscFunctionReturn(0);
}

PetscErrorCode FCIIntegralsSetOneElectron(FCIIntegrals *ints, PetscInt i, PetscInt j, PetscReal value)
{
  const PetscInt n = ints->norb;

  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < n && j >= 0 && j < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "h(%" PetscInt_FMT ",%" PetscInt_FMT ") outside 0..%" PetscInt_FMT, i, j, n - 1);
  ints->h[i * n + j] = value;
  ints->h[j * n + i] = value;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIIntegralsGetElectrons(const FCIIntegrals *ints, PetscInt *nalpha, PetscInt *nbeta)
{
  const PetscInt ne = ints->nelec, ms2 = ints->ms2;

  PetscFunctionBeginUser;
  PetscCheck(ne >= 0 && ((ne + ms2) % 2 == 0) && ne + ms2 >= 0 && ne - ms2 >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "NELEC = %" PetscInt_FMT " and MS2 = %" PetscInt_FMT " do not give whole numbers of alpha and beta electrons", ne, ms2);
  PetscCheck((ne + ms2) / 2 <= ints->norb && (ne - ms2) / 2 <= ints->norb, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "%" PetscInt_FMT " alpha / %" PetscInt_FMT " beta electrons do not fit in %" PetscInt_FMT " orbitals", (ne + ms2) / 2, (ne - ms2) / 2, ints->norb);
  if (nalpha) *nalpha = (ne + ms2) / 2;
  if (nbeta) *nbeta = (ne - ms2) / 2;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIIntegralsView(const FCIIntegrals *ints, PetscViewer viewer)
{
  PetscInt na, nb;

  PetscFunctionBeginUser;
  PetscCall(FCIIntegralsGetElectrons(ints, &na, &nb));
  PetscCall(PetscViewerASCIIPrintf(viewer, "FCI integrals: %" PetscInt_FMT " orbitals, %" PetscInt_FMT " electrons (%" PetscInt_FMT " alpha, %" PetscInt_FMT " beta), ISYM %" PetscInt_FMT ", core energy %.12f\n", ints->norb, ints->nelec, na, nb, ints->isym, (double)ints->ecore));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ORBSYM"));
  for (PetscInt i = 0; i < ints->norb; i++) PetscCall(PetscViewerASCIIPrintf(viewer, " %" PetscInt_FMT, ints->orbsym[i]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* FCIDUMP parsing                                                           */

#define FCI_MAX_FIELDS 8

typedef struct {
  char    *s;    /* NUL-terminated, in the file buffer ("=" for the separator) */
  PetscInt line; /* 1-based line number */
} FCIToken;

static char FCIEqualsToken[] = "=";

static PetscBool FCIStrEqualNoCase(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return PETSC_FALSE;
  return (*a == 0 && *b == 0) ? PETSC_TRUE : PETSC_FALSE;
}

/* Position of the namelist terminator ('/', '&END', '$END') in line, or NULL. */
static char *FCIFindTerminator(char *line)
{
  for (char *p = line; *p; p++) {
    if (*p == '/') return p;
    if ((*p == '&' || *p == '$') && toupper((unsigned char)p[1]) == 'E' && toupper((unsigned char)p[2]) == 'N' && toupper((unsigned char)p[3]) == 'D') return p;
  }
  return NULL;
}

/* Integer: the whole token. */
static PetscBool FCIParseInt(const char *s, long *v)
{
  char *end;
  if (!*s) return PETSC_FALSE;
  errno = 0;
  *v    = strtol(s, &end, 10);
  return (*end == 0 && errno == 0) ? PETSC_TRUE : PETSC_FALSE;
}

/* Real token with E or D exponent, the whole token; *finite tells NaN/Inf apart. */
static PetscBool FCIParseReal(const char *s, double *v, PetscBool *finite)
{
  char  buf[128], *end;
  size_t n = strlen(s);
  if (n == 0 || n >= sizeof(buf)) return PETSC_FALSE;
  for (size_t i = 0; i <= n; i++) buf[i] = (s[i] == 'D' || s[i] == 'd') ? 'E' : s[i];
  errno   = 0;
  *v      = strtod(buf, &end);
  *finite = isfinite(*v) ? PETSC_TRUE : PETSC_FALSE;
  if (*end != 0) return PETSC_FALSE;
  if (errno == ERANGE && *v != 0) { /* overflow: inf */
    *finite = PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Logical: .TRUE., .T., T, TRUE, 1 / .FALSE., .F., F, FALSE, 0 */
static PetscBool FCIParseLogical(const char *s, PetscBool *v)
{
  while (*s == '.') s++;
  switch (toupper((unsigned char)*s)) {
  case 'T':
  case '1':
    *v = PETSC_TRUE;
    return PETSC_TRUE;
  case 'F':
  case '0':
    *v = PETSC_FALSE;
    return PETSC_TRUE;
  default:
    return PETSC_FALSE;
  }
}

/* Splits a header fragment into tokens: separators are blanks and commas; '=' is a token of its own. */
static PetscErrorCode FCIHeaderTokenize(char *p, PetscInt line, FCIToken **tok, PetscInt *ntok, PetscInt *maxtok)
{
  PetscFunctionBeginUser;
  while (*p) {
    char *start;
    while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
    if (!*p) break;
    if (*ntok + 2 > *maxtok) {
      FCIToken *t;
      PetscInt  nmax = 2 * (*maxtok) + 64;
      PetscCall(PetscMalloc1(nmax, &t));
      if (*ntok) PetscCall(PetscArraycpy(t, *tok, *ntok));
      PetscCall(PetscFree(*tok));
      *tok    = t;
      *maxtok = nmax;
    }
    if (*p == '=') {
      *p                    = 0;
      (*tok)[*ntok].s       = FCIEqualsToken;
      (*tok)[(*ntok)++].line = line;
      p++;
      continue;
    }
    start = p;
    while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '=') p++;
    (*tok)[*ntok].s        = start;
    (*tok)[(*ntok)++].line = line;
    if (*p == '=') { /* 'KEY=': end the key here and emit the '=' now (its byte is overwritten) */
      *p                     = 0;
      (*tok)[*ntok].s        = FCIEqualsToken;
      (*tok)[(*ntok)++].line = line;
      p++;
    } else if (*p) *p++ = 0;
  }
  PetscFunctionReturn(0);
}

#define FCIFileError(comm, fname, line, ...) \
  do { \
    char _msg[512]; \
    PetscCall(PetscSNPrintf(_msg, sizeof(_msg), __VA_ARGS__)); \
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "FCIDUMP %s, line %" PetscInt_FMT ": %s", fname, (PetscInt)(line), _msg); \
  } while (0)

/* Header keys that do not change the Hamiltonian of real orbitals or the states solved for:
   dropped, and -info says so.  Every other key gpumats does not read is an error (unless
   -fcidump_ignore_keys names it): a key that changes the physics must never be lost. */
static const char *const FCIHarmlessKeys[] = {
  "SYML",       /* orbital angular momentum l (NECI, HANDE): a label; the Lz sectors come from SYMLZ */
  "OCC",        /* reference occupation per irrep (NECI, Molpro): the FCI space has every determinant */
  "CLOSED",     /* closed-shell reference orbitals per irrep (NECI, Molpro): likewise */
  "PROPBITLEN", /* width of NPROP's fields (NECI): NPROP itself is checked */
};

static PetscBool FCIKeyInList(const char *key, const char *const list[], PetscInt n)
{
  for (PetscInt k = 0; k < n; k++)
    if (FCIStrEqualNoCase(key, list[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Keys that are integer lists whose every value must lie in [lo, hi] for the file to mean what
   gpumats solves: SYMLZ (all 0: no orbital carries Lz), NPROP (0 or 1: one k-point), FROZEN (<= 0:
   nothing frozen).  Returns the index of the first value that is not an integer in [lo, hi], or -1. */
static PetscInt FCIFirstValueOutside(const FCIToken *tok, PetscInt v0, PetscInt nv, long lo, long hi)
{
  for (PetscInt k = 0; k < nv; k++) {
    long v;
    if (!FCIParseInt(tok[v0 + k].s, &v) || v < lo || v > hi) return k;
  }
  return -1;
}

/* Interprets the header tokens; ignore[nignore]: extra keys the user accepts (-fcidump_ignore_keys). */
static PetscErrorCode FCIHeaderParse(MPI_Comm comm, const char *fname, FCIToken *tok, PetscInt ntok, PetscInt endline, char *const ignore[], PetscInt nignore, FCIIntegrals **ints)
{
  long        norb = -1, nelec = -1, ms2 = 0, isym = 1;
  PetscInt    norbline = 0, orbsymline = 0, orbsym_first = -1, norbsym = 0, nseen = 0;
  PetscBool   uhf = PETSC_FALSE;
  const char *seen[64];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ntok;) {
    const char *key;
    PetscInt    v0, nv, kbad;
    if (tok[i].s == FCIEqualsToken) FCIFileError(comm, fname, tok[i].line, "'=' without a key in the &FCI header");
    if (i + 1 >= ntok || tok[i + 1].s != FCIEqualsToken) {
      /* a word that is not KEY=: the &FCI opener, else a stray value */
      if (tok[i].s[0] == '&' || tok[i].s[0] == '$') {
        i++;
        continue;
      }
      FCIFileError(comm, fname, tok[i].line, "unexpected '%s' in the &FCI header (expected KEY=value)", tok[i].s);
    }
    key = tok[i].s;
    v0  = i + 2;
    for (nv = 0; v0 + nv < ntok && tok[v0 + nv].s != FCIEqualsToken && !(v0 + nv + 1 < ntok && tok[v0 + nv + 1].s == FCIEqualsToken); nv++) { }
    if (v0 + nv < ntok && tok[v0 + nv].s == FCIEqualsToken) FCIFileError(comm, fname, tok[v0 + nv].line, "'=' without a key in the &FCI header");
    if (FCIKeyInList(key, seen, nseen)) FCIFileError(comm, fname, tok[i].line, "key %s appears twice in the &FCI header: which value is meant?", key);
    if (nseen < (PetscInt)(sizeof(seen) / sizeof(seen[0]))) seen[nseen++] = key;
    if (FCIStrEqualNoCase(key, "NORB") || FCIStrEqualNoCase(key, "NELEC") || FCIStrEqualNoCase(key, "MS2") || FCIStrEqualNoCase(key, "ISYM") || FCIStrEqualNoCase(key, "IUHF")) {
      long v;
      if (nv != 1) FCIFileError(comm, fname, tok[i].line, "%s needs exactly one integer value, found %" PetscInt_FMT, key, nv);
      if (!FCIParseInt(tok[v0].s, &v)) FCIFileError(comm, fname, tok[v0].line, "%s = '%s' is not an integer", key, tok[v0].s);
      if (FCIStrEqualNoCase(key, "NORB")) {
        if (v < 1 || v > 64) FCIFileError(comm, fname, tok[v0].line, "NORB = %ld must be in 1..64", v);
        norb     = v;
        norbline = tok[v0].line;
      } else if (FCIStrEqualNoCase(key, "NELEC")) {
        if (v < 0 || v > 128) FCIFileError(comm, fname, tok[v0].line, "NELEC = %ld must be in 0..128 (two electrons in each of at most 64 orbitals)", v);
        nelec = v;
      } else if (FCIStrEqualNoCase(key, "MS2")) {
        if (v < -128 || v > 128) FCIFileError(comm, fname, tok[v0].line, "MS2 = %ld must be in -128..128", v);
        ms2 = v;
      } else if (FCIStrEqualNoCase(key, "ISYM")) {
        if (v < 0 || v > 8) FCIFileError(comm, fname, tok[v0].line, "ISYM = %ld must be an irrep 1..8 (D2h and subgroups), or 0 for none given", v);
        isym = v;
      } else if (v != 0) FCIFileError(comm, fname, tok[v0].line, "IUHF = %ld: unrestricted (spin-orbital) integrals are not supported", v);
    } else if (FCIStrEqualNoCase(key, "UHF") || FCIStrEqualNoCase(key, "TREL")) {
      PetscBool v;
      if (nv != 1 || !FCIParseLogical(tok[v0].s, &v)) FCIFileError(comm, fname, tok[i].line, "%s needs one logical value (.TRUE. or .FALSE.)", key);
      if (FCIStrEqualNoCase(key, "UHF")) {
        uhf = v;
        if (uhf) FCIFileError(comm, fname, tok[i].line, "UHF = %s: unrestricted (spin-orbital) integrals are not supported", tok[v0].s);
      } else if (v) FCIFileError(comm, fname, tok[i].line, "TREL = %s: relativistic (spinor) integrals are not supported: gpumats reads real spatial orbitals", tok[v0].s);
    } else if (FCIStrEqualNoCase(key, "SYMLZ")) {
      if ((kbad = FCIFirstValueOutside(tok, v0, nv, 0, 0)) >= 0)
        FCIFileError(comm, fname, tok[v0 + kbad].line,
                     "SYMLZ gives orbital %" PetscInt_FMT " the Lz label '%s': orbitals with Lz symmetry (complex orbitals of a linear molecule, HANDE/NECI style) are not supported. gpumats solves over every determinant of real orbitals without Lz sectors, so the states of all Lz values would mix (and such files' integrals can have only 4-fold symmetry). Write the integrals in real orbitals with point-group labels (ORBSYM, ISYM in D2h or a subgroup) and choose the state with -fci_sector",
                     kbad + 1, tok[v0 + kbad].s);
    } else if (FCIStrEqualNoCase(key, "NPROP")) {
      if ((kbad = FCIFirstValueOutside(tok, v0, nv, 0, 1)) >= 0)
        FCIFileError(comm, fname, tok[v0 + kbad].line, "NPROP = '%s': k-point symmetry (periodic systems, NECI style) is not supported; only NPROP of ones (the Gamma point) is", tok[v0 + kbad].s);
    } else if (FCIStrEqualNoCase(key, "FROZEN")) {
      if ((kbad = FCIFirstValueOutside(tok, v0, nv, LONG_MIN, 0)) >= 0)
        FCIFileError(comm, fname, tok[v0 + kbad].line, "FROZEN = '%s' asks for frozen orbitals: gpumats correlates every orbital of the file; freeze them when the file is written (the core energy then includes them)", tok[v0 + kbad].s);
    } else if (FCIStrEqualNoCase(key, "ORBSYM")) {
      orbsym_first = v0;
      norbsym      = nv;
      orbsymline   = tok[i].line;
      for (PetscInt k = 0; k < nv; k++) {
        long v;
        if (!FCIParseInt(tok[v0 + k].s, &v)) FCIFileError(comm, fname, tok[v0 + k].line, "ORBSYM value '%s' is not an integer", tok[v0 + k].s);
        if (v < 1 || v > 8) FCIFileError(comm, fname, tok[v0 + k].line, "ORBSYM value %ld outside 1..8 (D2h and subgroups)", v);
      }
    } else if (FCIKeyInList(key, FCIHarmlessKeys, (PetscInt)(sizeof(FCIHarmlessKeys) / sizeof(FCIHarmlessKeys[0])))) {
      PetscCall(PetscInfo(NULL, "FCIDUMP %s, line %" PetscInt_FMT ": key %s ignored (it does not change the Hamiltonian)\n", fname, tok[i].line, key));
    } else if (FCIKeyInList(key, (const char *const *)ignore, nignore)) {
      PetscCall(PetscInfo(NULL, "FCIDUMP %s, line %" PetscInt_FMT ": key %s ignored (-fcidump_ignore_keys)\n", fname, tok[i].line, key));
    } else {
      FCIFileError(comm, fname, tok[i].line,
                   "header key %s is unknown to gpumats and might change the problem (read: NORB NELEC MS2 ISYM ORBSYM UHF IUHF TREL SYMLZ NPROP FROZEN; ignored as harmless: SYML OCC CLOSED PROPBITLEN). If it does not change the Hamiltonian or the state wanted, accept it with -fcidump_ignore_keys %s",
                   key, key);
    }
    i = v0 + nv;
  }
  if (norb < 0) FCIFileError(comm, fname, endline, "the &FCI header (ending here) has no NORB");
  if (nelec < 0) FCIFileError(comm, fname, endline, "the &FCI header (ending here) has no NELEC");
  if (orbsym_first >= 0 && norbsym != norb) FCIFileError(comm, fname, orbsymline, "ORBSYM has %" PetscInt_FMT " values, NORB = %ld (line %" PetscInt_FMT ")", norbsym, norb, norbline);
  if ((nelec + ms2) % 2 != 0 || nelec + ms2 < 0 || nelec - ms2 < 0 || (nelec + ms2) / 2 > norb || (nelec - ms2) / 2 > norb) FCIFileError(comm, fname, endline, "NELEC = %ld and MS2 = %ld do not give whole numbers of alpha and beta electrons that fit in NORB = %ld orbitals", nelec, ms2, norb);
  PetscCall(FCIIntegralsCreate((PetscInt)norb, ints));
  (*ints)->nelec = (PetscInt)nelec;
  (*ints)->ms2   = (PetscInt)ms2;
  (*ints)->isym  = (PetscInt)isym;
  if (orbsym_first >= 0)
    for (PetscInt k = 0; k < norb; k++) (*ints)->orbsym[k] = (PetscInt)strtol(tok[orbsym_first + k].s, NULL, 10);
  PetscFunctionReturn(0);
}

/* Parses the whole file content buf (modified in place). */
static PetscErrorCode FCIDumpParse(MPI_Comm comm, const char *fname, char *buf, char *const ignore[], PetscInt nignore, FCIIntegrals **ints)
{
  FCIToken     *tok = NULL;
  PetscInt      ntok = 0, maxtok = 0, line = 0, endline = -1;
  PetscBool     seen_open = PETSC_FALSE;
  char         *p = buf;
  FCIIntegrals *ig;

  PetscFunctionBeginUser;
  *ints = NULL;
  /* header */
  while (*p) {
    char *l = p, *term;
    while (*p && *p != '\n') p++;
    if (*p) *p++ = 0;
    line++;
    if (!seen_open) {
      char *q = l;
      while (*q && isspace((unsigned char)*q)) q++;
      if (!*q) continue;
      if (!((q[0] == '&' || q[0] == '$') && toupper((unsigned char)q[1]) == 'F' && toupper((unsigned char)q[2]) == 'C' && toupper((unsigned char)q[3]) == 'I')) {
        PetscCall(PetscFree(tok));
        FCIFileError(comm, fname, line, "expected the namelist header '&FCI NORB=..., NELEC=..., ...', found '%.40s'", q);
      }
      seen_open = PETSC_TRUE;
      l         = q + 4;
    }
    term = FCIFindTerminator(l);
    if (term) *term = 0;
    PetscCall(FCIHeaderTokenize(l, line, &tok, &ntok, &maxtok));
    if (term) {
      endline = line;
      break;
    }
  }
  if (endline < 0) {
    PetscCall(PetscFree(tok));
    if (!seen_open) FCIFileError(comm, fname, line, "empty file: no &FCI header");
    FCIFileError(comm, fname, line, "end of file inside the &FCI header (no closing '/' or '&END')");
  }
  {
    PetscErrorCode ierr = FCIHeaderParse(comm, fname, tok, ntok, endline, ignore, nignore, ints);
    PetscCall(PetscFree(tok));
    PetscCall(ierr);
  }
  ig = *ints;
  /* body */
  while (*p) {
    char    *l = p, *field[FCI_MAX_FIELDS];
    int      nf = 0;
    long     idx[4];
    double   v;
    PetscBool finite;
    while (*p && *p != '\n') p++;
    if (*p) *p++ = 0;
    line++;
    for (char *q = l; *q;) {
      while (*q && isspace((unsigned char)*q)) q++;
      if (!*q) break;
      if (nf < FCI_MAX_FIELDS) field[nf] = q;
      nf++;
      while (*q && !isspace((unsigned char)*q)) q++;
      if (*q) *q++ = 0;
    }
    if (nf == 0) continue;
    if (nf != 5) {
      PetscCall(FCIIntegralsDestroy(ints));
      FCIFileError(comm, fname, line, "%s line: expected 5 fields 'value i j k l', found %d", nf < 5 ? "truncated" : "overlong", nf);
    }
    if (!FCIParseReal(field[0], &v, &finite)) {
      PetscCall(FCIIntegralsDestroy(ints));
      FCIFileError(comm, fname, line, "cannot read the number '%s'", field[0]);
    }
    if (!finite) {
      PetscCall(FCIIntegralsDestroy(ints));
      FCIFileError(comm, fname, line, "value '%s' is not finite", field[0]);
    }
    for (int k = 0; k < 4; k++) {
      if (!FCIParseInt(field[k + 1], &idx[k])) {
        PetscCall(FCIIntegralsDestroy(ints));
        FCIFileError(comm, fname, line, "index '%s' is not an integer", field[k + 1]);
      }
      if (idx[k] < 0 || idx[k] > ig->norb) {
        const long bad = idx[k];
        const PetscInt norb = ig->norb;
        PetscCall(FCIIntegralsDestroy(ints));
        if (bad < 0) FCIFileError(comm, fname, line, "negative orbital index %ld", bad);
        FCIFileError(comm, fname, line, "orbital index %ld > NORB = %" PetscInt_FMT, bad, norb);
      }
    }
    if (idx[0] > 0 && idx[1] > 0 && idx[2] > 0 && idx[3] > 0) FCISetERI8(ig, idx[0] - 1, idx[1] - 1, idx[2] - 1, idx[3] - 1, v);
    else if (idx[0] > 0 && idx[1] > 0 && idx[2] == 0 && idx[3] == 0) {
      ig->h[(idx[0] - 1) * ig->norb + idx[1] - 1] = v;
      ig->h[(idx[1] - 1) * ig->norb + idx[0] - 1] = v;
    } else if (idx[0] > 0 && idx[1] == 0 && idx[2] == 0 && idx[3] == 0) {
      /* orbital energy: not needed */
    } else if (idx[0] == 0 && idx[1] == 0 && idx[2] == 0 && idx[3] == 0) ig->ecore = v;
    else {
      PetscCall(FCIIntegralsDestroy(ints));
      FCIFileError(comm, fname, line, "index pattern %ld %ld %ld %ld is none of 'i j k l' (all > 0), 'i j 0 0', 'i 0 0 0', '0 0 0 0'", idx[0], idx[1], idx[2], idx[3]);
    }
  }
  PetscFunctionReturn(0);
}

#define FCI_MAX_IGNORED_KEYS 32

/* Checks and parses buf[0, len) (buf[len] writable): the header keys the user accepts come from
   -fcidump_ignore_keys. */
static PetscErrorCode FCIDumpParseBuffer(MPI_Comm comm, const char *fname, char *buf, size_t len, FCIIntegrals **ints)
{
  char          *ignore[FCI_MAX_IGNORED_KEYS];
  PetscInt       nignore = FCI_MAX_IGNORED_KEYS;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  *ints    = NULL;
  buf[len] = 0;
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == 0) {
      PetscInt line = 1;
      for (size_t k = 0; k < i; k++) line += buf[k] == '\n';
      SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "FCIDUMP %s, line %" PetscInt_FMT ": NUL byte: not a text file", fname, line);
    }
  }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-fcidump_ignore_keys", ignore, &nignore, NULL));
  ierr = FCIDumpParse(comm, fname, buf, ignore, nignore, ints);
  for (PetscInt k = 0; k < nignore; k++) PetscCall(PetscFree(ignore[k]));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDumpReadBytes(MPI_Comm comm, const char name[], const char bytes[], size_t len, FCIIntegrals **ints)
{
  char          *buf;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(len + 1, &buf));
  if (len) PetscCall(PetscMemcpy(buf, bytes, len));
  ierr = FCIDumpParseBuffer(comm, name, buf, len, ints);
  PetscCall(PetscFree(buf));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDumpRead(MPI_Comm comm, const char filename[], FCIIntegrals **ints)
{
  PetscMPIInt    rank;
  PetscInt64     len       = -1;
  int            status[2] = {0, 0}; /* what rank 0 found: 0 read, 1 cannot open, 2 not a regular file, 3 too large, 4 short read; errno */
  char          *buf       = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  *ints = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    struct stat st;

    /* a directory opens and "seeks" to a huge end on Linux: only a regular file is read */
    if (stat(filename, &st)) status[0] = 1, status[1] = errno;
    else if (!S_ISREG(st.st_mode)) status[0] = 2;
    else if ((PetscInt64)st.st_size >= PETSC_MPI_INT_MAX) status[0] = 3, len = (PetscInt64)st.st_size;
    else {
      FILE *f = fopen(filename, "rb");

      if (!f) status[0] = 1, status[1] = errno;
      else {
        len  = (PetscInt64)st.st_size;
        ierr = PetscMalloc1((size_t)len + 1, &buf);
        if (ierr) fclose(f);
        PetscCall(ierr);
        if (fread(buf, 1, (size_t)len, f) != (size_t)len) status[0] = 4, status[1] = ferror(f) ? errno : 0;
        fclose(f);
      }
    }
  }
  PetscCallMPI(MPI_Bcast(status, 2, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&len, 1, MPIU_INT64, 0, comm));
  if (status[0]) PetscCall(PetscFree(buf));
  PetscCheck(status[0] != 1, comm, PETSC_ERR_FILE_OPEN, "FCIDUMP %s: cannot open the file: %s", filename, strerror(status[1]));
  PetscCheck(status[0] != 2, comm, PETSC_ERR_FILE_OPEN, "FCIDUMP %s: not a regular file (a directory?): give the path of an FCIDUMP text file", filename);
  PetscCheck(status[0] != 3, comm, PETSC_ERR_FILE_UNEXPECTED, "FCIDUMP %s: file of %" PetscInt64_FMT " bytes is too large (at most %d)", filename, len, PETSC_MPI_INT_MAX - 1);
  PetscCheck(status[0] != 4, comm, PETSC_ERR_FILE_READ, "FCIDUMP %s: could not read its %" PetscInt64_FMT " bytes%s%s", filename, len, status[1] ? ": " : "", status[1] ? strerror(status[1]) : "");
  if (rank != 0) PetscCall(PetscMalloc1((size_t)len + 1, &buf));
  if (len > 0) PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  ierr = FCIDumpParseBuffer(comm, filename, buf, (size_t)len, ints);
  PetscCall(PetscFree(buf));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */

const char *const FCIHubbardWraps[] = {"bond", "sum", "FCIHubbardWrap", "FCI_HUBBARD_WRAP_", NULL};

PetscBool FCIHubbardWrapMatters(const FCIHubbardSpec *spec)
{
  return (PetscBool)((spec->periodic_x && spec->nx <= 2) || (spec->periodic_y && spec->ny <= 2));
}

/* The hop between sites a and b, both ways: h_ab and h_ba get -t each (a == b: h_aa gets -2t). */
static void FCIHubbardAddHop(FCIIntegrals *ig, PetscInt a, PetscInt b, PetscReal t)
{
  ig->h[a * ig->norb + b] -= t;
  ig->h[b * ig->norb + a] -= t;
}

/* The site after 'x' along a side of length L (site index step 'stride' from 'first'), or -1. */
static PetscInt FCIHubbardNext(PetscInt x, PetscInt L, PetscBool periodic, FCIHubbardWrap wrap, PetscInt first, PetscInt stride)
{
  if (x + 1 < L) return first + (x + 1) * stride;
  if (periodic && (wrap == FCI_HUBBARD_WRAP_SUM || L > 2)) return first; /* the wrap-around hop */
  return -1;
}

PetscErrorCode FCIHubbardCreate(const FCIHubbardSpec *spec, FCIIntegrals **ints)
{
  const PetscInt nx = spec->nx, ny = spec->ny;
  FCIIntegrals  *ig;

  PetscFunctionBeginUser;
  PetscCheck(nx >= 1 && ny >= 1 && nx * ny <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Hubbard lattice %" PetscInt_FMT " x %" PetscInt_FMT " must have 1..64 sites", nx, ny);
  PetscCheck(spec->nup >= 0 && spec->ndown >= 0 && spec->nup <= nx * ny && spec->ndown <= nx * ny, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " up and %" PetscInt_FMT " down electrons do not fit on %" PetscInt_FMT " sites", spec->nup, spec->ndown, nx * ny);
  PetscCheck(spec->wrap == FCI_HUBBARD_WRAP_BOND || spec->wrap == FCI_HUBBARD_WRAP_SUM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Hubbard wrap convention %d is neither bond (0) nor sum (1)", (int)spec->wrap);
  PetscCall(FCIIntegralsCreate(nx * ny, &ig));
  ig->nelec = spec->nup + spec->ndown;
  ig->ms2   = spec->nup - spec->ndown;
  for (PetscInt y = 0; y < ny; y++) {
    for (PetscInt x = 0; x < nx; x++) {
      const PetscInt s = x + nx * y;
      const PetscInt right = FCIHubbardNext(x, nx, spec->periodic_x, spec->wrap, nx * y, 1);
      const PetscInt up    = FCIHubbardNext(y, ny, spec->periodic_y, spec->wrap, x, nx);
      if (right >= 0) FCIHubbardAddHop(ig, s, right, spec->t);
      if (up >= 0) FCIHubbardAddHop(ig, s, up, spec->t);
      FCISetERI8(ig, s, s, s, s, spec->U);
    }
  }
  *ints = ig;
  PetscFunctionReturn(0);
}
