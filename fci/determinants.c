/* Determinant space: strings, symmetry blocks, orderings (see determinants.h). */
#include "determinants.h"
#include <stdlib.h>

static uint64_t FCIBinom[65][65];
static int      FCIBinomReady = 0;

static void FCIBinomInit(void)
{
  if (FCIBinomReady) return;
  for (int n = 0; n <= 64; n++) {
    FCIBinom[n][0] = 1;
    for (int k = 1; k <= 64; k++) FCIBinom[n][k] = (n == 0) ? 0 : FCIBinom[n - 1][k - 1] + FCIBinom[n - 1][k]; /* may wrap for huge values: never used there */
  }
  FCIBinomReady = 1;
}

PetscInt FCIStringRank(uint64_t s)
{
  uint64_t r = 0;
  int      k = 1;
  FCIBinomInit();
  while (s) {
    r += FCIBinom[__builtin_ctzll(s)][k++];
    s &= s - 1;
  }
  return (PetscInt)r;
}

int FCIStringIrrep(uint64_t s, const PetscInt orbsym[])
{
  int g = 0;
  while (s) {
    g ^= (int)(orbsym[__builtin_ctzll(s)] - 1);
    s &= s - 1;
  }
  return g;
}

/* All strings of ne electrons in norb orbitals, ascending. */
static PetscErrorCode FCIStringsCreate(PetscInt norb, PetscInt ne, PetscInt *nstr, uint64_t **str)
{
  uint64_t count, v;

  PetscFunctionBeginUser;
  FCIBinomInit();
  PetscCheck(ne >= 0 && ne <= norb && norb <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " electrons in %" PetscInt_FMT " orbitals", ne, norb);
  count = FCIBinom[norb][ne];
  PetscCheck(count < (uint64_t)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " electrons in %" PetscInt_FMT " orbitals: too many strings for PetscInt", ne, norb);
  *nstr = (PetscInt)count;
  PetscCall(PetscMalloc1(count, str));
  v = ne ? ((UINT64_C(1) << ne) - 1) : 0;
  for (uint64_t k = 0; k < count; k++) {
    (*str)[k] = v;
    if (k + 1 < count) { /* Gosper: next word with the same number of bits */
      uint64_t t = v | (v - 1);
      v          = (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctzll(v) + 1));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceOptionsDefault(FCIDetSpaceOptions *opts)
{
  PetscFunctionBeginUser;
  opts->sector    = FCI_SECTOR_NONE;
  opts->ordering  = FCI_ORDER_LEXICAL;
  opts->reference = FCI_REFERENCE_LOWEST_DIAGONAL;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceOptionsSetFromOptions(MPI_Comm comm, const char prefix[], FCIDetSpaceOptions *opts)
{
  const char *orderings[]  = {"lexical", "excitation"};
  const char *references[] = {"lowest", "aufbau"};
  char        sector[32]   = "";
  PetscBool   set;
  PetscInt    ord = opts->ordering, ref = opts->reference;

  PetscFunctionBeginUser;
  if (opts->sector == FCI_SECTOR_NONE) PetscCall(PetscStrncpy(sector, "none", sizeof(sector)));
  else if (opts->sector == FCI_SECTOR_ISYM) PetscCall(PetscStrncpy(sector, "isym", sizeof(sector)));
  else PetscCall(PetscSNPrintf(sector, sizeof(sector), "%" PetscInt_FMT, opts->sector));
  PetscOptionsBegin(comm, prefix, "FCI determinant space", NULL);
  PetscCall(PetscOptionsString("-fci_sector", "Symmetry restriction: none, isym (the FCIDUMP's ISYM) or an irrep 1..8", "FCIDetSpaceCreate", sector, sector, sizeof(sector), &set));
  if (set) {
    PetscBool none, isym;
    PetscCall(PetscStrcasecmp(sector, "none", &none));
    PetscCall(PetscStrcasecmp(sector, "isym", &isym));
    if (none) opts->sector = FCI_SECTOR_NONE;
    else if (isym) opts->sector = FCI_SECTOR_ISYM;
    else {
      char *end;
      long  g = strtol(sector, &end, 10);
      PetscCheck(*end == 0 && g >= 1 && g <= 8, comm, PETSC_ERR_ARG_WRONG, "-fci_sector %s: expected none, isym or an irrep 1..8", sector);
      opts->sector = (PetscInt)g;
    }
  }
  PetscCall(PetscOptionsEList("-fci_ordering", "Determinant ordering", "FCIDetSpaceCreate", orderings, 2, orderings[ord], &ord, NULL));
  PetscCall(PetscOptionsEList("-fci_reference", "Reference determinant of the excitation ordering", "FCIDetSpaceCreate", references, 2, references[ref], &ref, NULL));
  PetscOptionsEnd();
  opts->ordering  = (FCIOrdering)ord;
  opts->reference = (FCIReference)ref;
  PetscFunctionReturn(0);
}

void FCIDetSpaceLexicalToStrings(const FCIDetSpace *sp, PetscInt L, PetscInt *Ia, PetscInt *Ib)
{
  PetscInt lo = 0, hi = sp->nstr_a; /* first Ia with aoffset[Ia] > L is in (lo, hi] */
  while (hi - lo > 1) {
    PetscInt mid = (lo + hi) / 2;
    if (sp->aoffset[mid] > L) hi = mid;
    else lo = mid;
  }
  *Ia = lo;
  *Ib = sp->bgroup[sp->bgroup_start[sp->sector ^ sp->sym_a[lo]] + (L - sp->aoffset[lo])];
}

/* Diagonal elements of all determinants, lexical order: E_alpha(Ia) + E_beta(Ib) + sum_{i in a, j in b} (ii|jj) + ecore. */
static PetscErrorCode FCIDetSpaceDiagonals(const FCIDetSpace *sp, const FCIIntegrals *ig, PetscReal *diag)
{
  const PetscInt n = sp->norb;
  PetscReal     *Ea, *Eb, *Jb, *J;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(sp->nstr_a, &Ea, sp->nstr_b, &Eb, (size_t)sp->nstr_b * n, &Jb, n * n, &J));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) J[i * n + j] = ig->eri[FCI_ERI_INDEX(n, i, i, j, j)];
  for (int spin = 0; spin < 2; spin++) {
    const PetscInt  ns  = spin ? sp->nstr_b : sp->nstr_a;
    const uint64_t *str = spin ? sp->str_b : sp->str_a;
    PetscReal      *E   = spin ? Eb : Ea;
    for (PetscInt s = 0; s < ns; s++) {
      PetscReal e = 0;
      for (uint64_t x = str[s]; x; x &= x - 1) {
        const int i = __builtin_ctzll(x);
        e += ig->h[i * n + i];
        for (uint64_t y = str[s]; y; y &= y - 1) {
          const int j = __builtin_ctzll(y);
          e += 0.5 * (J[i * n + j] - ig->eri[FCI_ERI_INDEX(n, i, j, j, i)]);
        }
      }
      E[s] = e;
    }
  }
  for (PetscInt s = 0; s < sp->nstr_b; s++)
    for (PetscInt i = 0; i < n; i++) {
      PetscReal e = 0;
      for (uint64_t y = sp->str_b[s]; y; y &= y - 1) e += J[i * n + __builtin_ctzll(y)];
      Jb[(size_t)s * n + i] = e;
    }
  for (PetscInt Ia = 0; Ia < sp->nstr_a; Ia++) {
    const PetscInt g = sp->sector ^ sp->sym_a[Ia];
    for (PetscInt k = sp->bgroup_start[g]; k < sp->bgroup_start[g + 1]; k++) {
      const PetscInt   Ib = sp->bgroup[k];
      const PetscReal *jb = Jb + (size_t)Ib * n;
      PetscReal        e  = ig->ecore + Ea[Ia] + Eb[Ib];
      for (uint64_t x = sp->str_a[Ia]; x; x &= x - 1) e += jb[__builtin_ctzll(x)];
      diag[sp->aoffset[Ia] + (k - sp->bgroup_start[g])] = e;
    }
  }
  PetscCall(PetscFree4(Ea, Eb, Jb, J));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceCreate(const FCIIntegrals *ints, const FCIDetSpaceOptions *opts, FCIDetSpace **space)
{
  FCIDetSpace       *sp;
  FCIDetSpaceOptions def;
  PetscInt64         ndet = 0;
  PetscInt           cnt[8] = {0};

  PetscFunctionBeginUser;
  if (!opts) {
    PetscCall(FCIDetSpaceOptionsDefault(&def));
    opts = &def;
  }
  PetscCall(PetscNew(&sp));
  sp->norb     = ints->norb;
  sp->ordering = opts->ordering;
  sp->ref_lex  = -1;
  PetscCall(FCIIntegralsGetElectrons(ints, &sp->nalpha, &sp->nbeta));
  PetscCall(FCIStringsCreate(sp->norb, sp->nalpha, &sp->nstr_a, &sp->str_a));
  PetscCall(FCIStringsCreate(sp->norb, sp->nbeta, &sp->nstr_b, &sp->str_b));
  PetscCall(PetscCalloc2(sp->nstr_a, &sp->sym_a, sp->nstr_b, &sp->sym_b));
  if (opts->sector != FCI_SECTOR_NONE) {
    const PetscInt g = opts->sector == FCI_SECTOR_ISYM ? ints->isym : opts->sector;
    PetscCheck(g >= 1 && g <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Symmetry sector %" PetscInt_FMT "%s must be an irrep 1..8", g, opts->sector == FCI_SECTOR_ISYM ? " (the FCIDUMP's ISYM)" : "");
    for (PetscInt i = 0; i < sp->norb; i++) PetscCheck(ints->orbsym[i] >= 1 && ints->orbsym[i] <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ORBSYM of orbital %" PetscInt_FMT " is %" PetscInt_FMT ", not an irrep 1..8", i + 1, ints->orbsym[i]);
    sp->restricted = PETSC_TRUE;
    sp->sector     = g - 1;
    for (PetscInt s = 0; s < sp->nstr_a; s++) sp->sym_a[s] = FCIStringIrrep(sp->str_a[s], ints->orbsym);
    for (PetscInt s = 0; s < sp->nstr_b; s++) sp->sym_b[s] = FCIStringIrrep(sp->str_b[s], ints->orbsym);
  }
  /* beta strings grouped by irrep */
  PetscCall(PetscMalloc3(sp->nstr_b, &sp->bgroup, sp->nstr_b, &sp->bpos, sp->nstr_a + 1, &sp->aoffset));
  for (PetscInt s = 0; s < sp->nstr_b; s++) sp->bpos[s] = cnt[sp->sym_b[s]]++;
  sp->bgroup_start[0] = 0;
  for (int g = 0; g < 8; g++) sp->bgroup_start[g + 1] = sp->bgroup_start[g] + cnt[g];
  for (PetscInt s = 0; s < sp->nstr_b; s++) sp->bgroup[sp->bgroup_start[sp->sym_b[s]] + sp->bpos[s]] = s;
  for (PetscInt s = 0; s < sp->nstr_a; s++) {
    sp->aoffset[s] = (PetscInt)ndet;
    ndet += cnt[sp->sector ^ sp->sym_a[s]];
    PetscCheck(ndet < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d determinants: rebuild PETSc with 64-bit indices", PETSC_MAX_INT);
  }
  sp->aoffset[sp->nstr_a] = (PetscInt)ndet;
  sp->ndet                = (PetscInt)ndet;
  PetscCheck(ndet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No determinant of %" PetscInt_FMT " alpha and %" PetscInt_FMT " beta electrons in %" PetscInt_FMT " orbitals has irrep %" PetscInt_FMT, sp->nalpha, sp->nbeta, sp->norb, sp->sector + 1);

  if (opts->ordering == FCI_ORDER_EXCITATION) {
    uint64_t  a0, b0;
    PetscInt  maxlevel, *count;
    PetscReal *diag;
    PetscCall(PetscMalloc1(sp->ndet, &diag));
    PetscCall(FCIDetSpaceDiagonals(sp, ints, diag));
    if (opts->reference == FCI_REFERENCE_AUFBAU) {
      /* lexical index 0: orbitals 0..n-1 of both spins, or with a symmetry restriction the
         lowest alpha string and its lowest beta partner in the sector */
      sp->ref_lex = 0;
    } else {
      sp->ref_lex = 0;
      for (PetscInt L = 1; L < sp->ndet; L++)
        if (diag[L] < diag[sp->ref_lex]) sp->ref_lex = L;
    }
    sp->ref_diagonal = diag[sp->ref_lex];
    PetscCall(PetscFree(diag));
    {
      PetscInt Ia, Ib;
      FCIDetSpaceLexicalToStrings(sp, sp->ref_lex, &Ia, &Ib);
      a0 = sp->str_a[Ia];
      b0 = sp->str_b[Ib];
    }
    maxlevel = PetscMin(sp->nalpha, sp->norb - sp->nalpha) + PetscMin(sp->nbeta, sp->norb - sp->nbeta);
    PetscCall(PetscCalloc1(maxlevel + 2, &count));
    PetscCall(PetscMalloc2(sp->ndet, &sp->perm, sp->ndet, &sp->iperm));
    /* counting sort by level, lexical within a level */
    for (int pass = 0; pass < 2; pass++) {
      for (PetscInt Ia = 0; Ia < sp->nstr_a; Ia++) {
        const PetscInt g  = sp->sector ^ sp->sym_a[Ia];
        const int      la = __builtin_popcountll(sp->str_a[Ia] ^ a0);
        for (PetscInt k = sp->bgroup_start[g]; k < sp->bgroup_start[g + 1]; k++) {
          const int lev = (la + __builtin_popcountll(sp->str_b[sp->bgroup[k]] ^ b0)) / 2;
          if (pass == 0) count[lev + 1]++;
          else {
            const PetscInt L = sp->aoffset[Ia] + (k - sp->bgroup_start[g]);
            sp->perm[L]      = count[lev]++;
            sp->iperm[sp->perm[L]] = L;
          }
        }
      }
      if (pass == 0) {
        for (PetscInt l = 0; l <= maxlevel; l++) count[l + 1] += count[l];
        sp->nlevel = maxlevel + 1;
        PetscCall(PetscMalloc1(maxlevel + 2, &sp->level_start));
        PetscCall(PetscArraycpy(sp->level_start, count, maxlevel + 2));
        while (sp->nlevel > 1 && sp->level_start[sp->nlevel] == sp->level_start[sp->nlevel - 1]) sp->nlevel--;
      }
    }
    PetscCall(PetscFree(count));
  }
  *space = sp;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceDestroy(FCIDetSpace **space)
{
  FCIDetSpace *sp = *space;

  PetscFunctionBeginUser;
  if (!sp) PetscFunctionReturn(0);
  PetscCall(PetscFree(sp->str_a));
  PetscCall(PetscFree(sp->str_b));
  PetscCall(PetscFree2(sp->sym_a, sp->sym_b));
  PetscCall(PetscFree3(sp->bgroup, sp->bpos, sp->aoffset));
  PetscCall(PetscFree2(sp->perm, sp->iperm));
  PetscCall(PetscFree(sp->level_start));
  PetscCall(PetscFree(*space));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceGetSize(const FCIDetSpace *space, PetscInt *ndet)
{
  PetscFunctionBeginUser;
  *ndet = space->ndet;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceGetDeterminant(const FCIDetSpace *sp, PetscInt idx, uint64_t *alpha, uint64_t *beta)
{
  PetscInt Ia, Ib;

  PetscFunctionBeginUser;
  PetscCheck(idx >= 0 && idx < sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Determinant %" PetscInt_FMT " outside 0..%" PetscInt_FMT, idx, sp->ndet - 1);
  FCIDetSpaceLexicalToStrings(sp, sp->iperm ? sp->iperm[idx] : idx, &Ia, &Ib);
  if (alpha) *alpha = sp->str_a[Ia];
  if (beta) *beta = sp->str_b[Ib];
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceGetIndex(const FCIDetSpace *sp, uint64_t alpha, uint64_t beta, PetscInt *idx)
{
  const uint64_t mask = sp->norb == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << sp->norb) - 1);
  PetscInt       L;

  PetscFunctionBeginUser;
  *idx = -1;
  if ((alpha & ~mask) || (beta & ~mask) || __builtin_popcountll(alpha) != sp->nalpha || __builtin_popcountll(beta) != sp->nbeta) PetscFunctionReturn(0);
  L = FCIDetSpaceLexical(sp, FCIStringRank(alpha), FCIStringRank(beta));
  if (L >= 0) *idx = FCIDetSpaceIndexOfLexical(sp, L);
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDetSpaceView(const FCIDetSpace *sp, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "FCI determinant space: %" PetscInt_FMT " determinants = %" PetscInt_FMT " alpha x %" PetscInt_FMT " beta strings (%" PetscInt_FMT "+%" PetscInt_FMT " electrons in %" PetscInt_FMT " orbitals)", sp->ndet, sp->nstr_a, sp->nstr_b, sp->nalpha, sp->nbeta, sp->norb));
  if (sp->restricted) PetscCall(PetscViewerASCIIPrintf(viewer, ", irrep %" PetscInt_FMT " only\n", sp->sector + 1));
  else PetscCall(PetscViewerASCIIPrintf(viewer, ", no symmetry restriction\n"));
  if (sp->ordering == FCI_ORDER_EXCITATION) {
    PetscInt Ia, Ib;
    FCIDetSpaceLexicalToStrings(sp, sp->ref_lex, &Ia, &Ib);
    PetscCall(PetscViewerASCIIPrintf(viewer, "  excitation ordering from reference alpha %#llx beta %#llx (diagonal %.10f); determinants per level:", (unsigned long long)sp->str_a[Ia], (unsigned long long)sp->str_b[Ib], (double)sp->ref_diagonal));
    for (PetscInt l = 0; l < sp->nlevel; l++) PetscCall(PetscViewerASCIIPrintf(viewer, " %" PetscInt_FMT, sp->level_start[l + 1] - sp->level_start[l]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  lexical ordering\n"));
  PetscFunctionReturn(0);
}
