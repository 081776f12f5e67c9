/* Table-driven Slater-Condon rows of the FCI Hamiltonian (see hamiltonian.h).

   Conventions (the same as slatercondon.c, which checks this file):
   a determinant is a+_{alpha occ, ascending} a+_{beta occ, ascending}|0>, so
   an excitation inside one spin's string has a phase that depends only on
   that string.  The single excitation i->a of a string s has phase
   (-1)^(electrons of s strictly between i and a); a same-spin double i->a,
   j->b (i<j, a<b) is i->a then j->b on the intermediate string, with element
   (ia|jb) - (ib|ja); an alpha-beta double is the product of the two single
   phases times (ia|jb).  A single i->a has element
   h_ia + sum_{k in same spin, k != i} [(ia|kk) - (ik|ka)] + sum_{k in other spin} (ia|kk). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (the blocks of the one sweep) */
#include "hamiltonian_impl.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(_OPENMP)
  #include <omp.h>
  #define FCI_OMP(...) _Pragma(#__VA_ARGS__)
#else
  #define FCI_OMP(...)
#endif

static inline uint64_t FCIMaskBetween(int p, int q) /* bits strictly between p and q */
{
  int lo = p < q ? p : q, hi = p < q ? q : p;
  return ((UINT64_C(1) << hi) - 1) & ~((UINT64_C(2) << lo) - 1);
}

static inline PetscReal FCIPhase(uint64_t s, int i, int a)
{
  return (__builtin_popcountll(s & FCIMaskBetween(i, a)) & 1) ? -1.0 : 1.0;
}

/* Sorts the n entries of a string's excitation list by target string (targets are distinct). */
static PetscErrorCode FCISortByTarget(PetscInt n, PetscInt *target, unsigned char *ci, unsigned char *ca, PetscReal *sign, PetscReal *val, PetscInt *perm, PetscReal *work)
{
  PetscBool sorted = PETSC_TRUE;

  PetscFunctionBeginUser;
  for (PetscInt k = 1; k < n; k++)
    if (target[k] < target[k - 1]) sorted = PETSC_FALSE;
  if (sorted) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < n; k++) perm[k] = k;
  PetscCall(PetscSortIntWithArray(n, target, perm)); /* target now sorted; perm[k] = old position */
  for (PetscInt k = 0; k < n; k++) work[k] = val[perm[k]];
  PetscCall(PetscArraycpy(val, work, n));
  if (sign) {
    for (PetscInt k = 0; k < n; k++) work[k] = sign[perm[k]];
    PetscCall(PetscArraycpy(sign, work, n));
  }
  if (ci) {
    for (PetscInt k = 0; k < n; k++) work[k] = ci[perm[k]];
    for (PetscInt k = 0; k < n; k++) ci[k] = (unsigned char)work[k];
  }
  if (ca) {
    for (PetscInt k = 0; k < n; k++) work[k] = ca[perm[k]];
    for (PetscInt k = 0; k < n; k++) ca[k] = (unsigned char)work[k];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode FCIStringTableCreate(const FCIIntegrals *ig, PetscInt nstr, const uint64_t *str, PetscInt ne, PetscReal droptol, FCIStringTable *t)
{
  const PetscInt  n    = ig->norb;
  const PetscInt  nsgl = ne * (n - ne);
  const PetscReal *eri = ig->eri;
  PetscInt        ndbl = 0, cap, maxd = 0, *perm;
  PetscReal      *work;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(PetscMax(nsgl, 1), &perm, PetscMax(nsgl, 1), &work));
  t->n    = ne;
  t->nstr = nstr;
  t->nsgl = nsgl;
  PetscCall(PetscMalloc6((size_t)nstr * nsgl, &t->sgl_target, (size_t)nstr * nsgl, &t->sgl_i, (size_t)nstr * nsgl, &t->sgl_a, (size_t)nstr * nsgl, &t->sgl_sign, (size_t)nstr * nsgl, &t->sgl_val, nstr, &t->energy));
  PetscCall(PetscMalloc1(nstr + 1, &t->dbl_start));
  cap = PetscMax(16, nstr * 8);
  PetscCall(PetscMalloc2(cap, &t->dbl_target, cap, &t->dbl_val));
  for (PetscInt s = 0; s < nstr; s++) {
    const uint64_t x = str[s];
    uint64_t       occ, vir;
    PetscInt       e = (size_t)s * nsgl;
    PetscReal      en = 0;
    for (occ = x; occ; occ &= occ - 1) {
      const int i = __builtin_ctzll(occ);
      en += ig->h[i * n + i];
      for (uint64_t o2 = x; o2; o2 &= o2 - 1) {
        const int j = __builtin_ctzll(o2);
        en += 0.5 * (eri[FCI_ERI_INDEX(n, i, i, j, j)] - eri[FCI_ERI_INDEX(n, i, j, j, i)]);
      }
    }
    t->energy[s] = en;
    /* singles (sorted by target below) */
    for (occ = x; occ; occ &= occ - 1) {
      const int i = __builtin_ctzll(occ);
      for (vir = ~x & (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1); vir; vir &= vir - 1) {
        const int       a    = __builtin_ctzll(vir);
        const uint64_t  y    = x ^ (UINT64_C(1) << i) ^ (UINT64_C(1) << a);
        const PetscReal sign = FCIPhase(x, i, a);
        const PetscReal *ia  = eri + FCI_ERI_INDEX(n, i, a, 0, 0);
        PetscReal        v   = ig->h[i * n + a];
        for (uint64_t o2 = x; o2; o2 &= o2 - 1) {
          const int k = __builtin_ctzll(o2);
          if (k != i) v += ia[k * n + k] - eri[FCI_ERI_INDEX(n, i, k, k, a)];
        }
        t->sgl_target[e] = FCIStringRank(y);
        t->sgl_i[e]      = (unsigned char)i;
        t->sgl_a[e]      = (unsigned char)a;
        t->sgl_sign[e]   = sign;
        t->sgl_val[e]    = sign * v;
        e++;
      }
    }
    PetscCall(FCISortByTarget(nsgl, t->sgl_target + (size_t)s * nsgl, t->sgl_i + (size_t)s * nsgl, t->sgl_a + (size_t)s * nsgl, t->sgl_sign + (size_t)s * nsgl, t->sgl_val + (size_t)s * nsgl, perm, work));
    /* same-spin doubles i<j -> a<b with a nonzero element (sorted by target below) */
    t->dbl_start[s] = ndbl;
    for (uint64_t oi = x; oi; oi &= oi - 1) {
      const int i = __builtin_ctzll(oi);
      for (uint64_t oj = oi & (oi - 1); oj; oj &= oj - 1) {
        const int j = __builtin_ctzll(oj);
        for (vir = ~x & (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1); vir; vir &= vir - 1) {
          const int a = __builtin_ctzll(vir);
          for (uint64_t vb = vir & (vir - 1); vb; vb &= vb - 1) {
            const int       b = __builtin_ctzll(vb);
            const PetscReal v = eri[FCI_ERI_INDEX(n, i, a, j, b)] - eri[FCI_ERI_INDEX(n, i, b, j, a)];
            uint64_t        y;
            PetscReal       sign;
            if (PetscAbsReal(v) <= droptol) continue;
            y    = x ^ (UINT64_C(1) << i) ^ (UINT64_C(1) << a);
            sign = FCIPhase(x, i, a) * FCIPhase(y, j, b);
            y ^= (UINT64_C(1) << j) ^ (UINT64_C(1) << b);
            if (ndbl == cap) {
              PetscInt  *nt;
              PetscReal *nv;
              PetscCall(PetscMalloc2(2 * cap, &nt, 2 * cap, &nv));
              PetscCall(PetscArraycpy(nt, t->dbl_target, cap));
              PetscCall(PetscArraycpy(nv, t->dbl_val, cap));
              PetscCall(PetscFree2(t->dbl_target, t->dbl_val));
              t->dbl_target = nt;
              t->dbl_val    = nv;
              cap *= 2;
            }
            t->dbl_target[ndbl] = FCIStringRank(y);
            t->dbl_val[ndbl++]  = sign * v;
          }
        }
      }
    }
    if (ndbl - t->dbl_start[s] > maxd) {
      maxd = ndbl - t->dbl_start[s];
      PetscCall(PetscFree2(perm, work));
      PetscCall(PetscMalloc2(PetscMax(maxd, nsgl), &perm, PetscMax(maxd, nsgl), &work));
    }
    PetscCall(FCISortByTarget(ndbl - t->dbl_start[s], t->dbl_target + t->dbl_start[s], NULL, NULL, NULL, t->dbl_val + t->dbl_start[s], perm, work));
  }
  t->dbl_start[nstr] = ndbl;
  PetscCall(PetscFree2(perm, work));
  PetscFunctionReturn(0);
}

static PetscErrorCode FCIStringTableDestroy(FCIStringTable *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree6(t->sgl_target, t->sgl_i, t->sgl_a, t->sgl_sign, t->sgl_val, t->energy));
  PetscCall(PetscFree(t->dbl_start));
  PetscCall(PetscFree2(t->dbl_target, t->dbl_val));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIRowGeneratorCreate(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, FCIRowGenerator *gen)
{
  FCIRowGenerator g;
  const PetscInt  n = ints->norb;
  PetscInt        maxda = 0, maxdb = 0;

  PetscFunctionBeginUser;
  PetscCheck(space->norb == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Determinant space of %" PetscInt_FMT " orbitals, integrals of %" PetscInt_FMT, space->norb, n);
  PetscCall(PetscNew(&g));
  g->ints    = ints;
  g->sp      = space;
  g->droptol = droptol;
  PetscCall(FCIStringTableCreate(ints, space->nstr_a, space->str_a, space->nalpha, droptol, &g->ta));
  g->pa = &g->ta;
  if (space->nbeta == space->nalpha) g->pb = &g->ta;
  else {
    PetscCall(FCIStringTableCreate(ints, space->nstr_b, space->str_b, space->nbeta, droptol, &g->tb));
    g->pb = &g->tb;
  }
  PetscCall(PetscMalloc2(n * n, &g->pair_nz, n * n, &g->J));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt a = 0; a < n; a++) {
      const PetscReal *ia = ints->eri + FCI_ERI_INDEX(n, i, a, 0, 0);
      g->pair_nz[i * n + a] = PETSC_FALSE;
      for (PetscInt k = 0; k < n * n; k++)
        if (PetscAbsReal(ia[k]) > droptol) {
          g->pair_nz[i * n + a] = PETSC_TRUE;
          break;
        }
      g->J[i * n + a] = ints->eri[FCI_ERI_INDEX(n, i, i, a, a)];
    }
  for (PetscInt s = 0; s < g->pa->nstr; s++) maxda = PetscMax(maxda, g->pa->dbl_start[s + 1] - g->pa->dbl_start[s]);
  for (PetscInt s = 0; s < g->pb->nstr; s++) maxdb = PetscMax(maxdb, g->pb->dbl_start[s + 1] - g->pb->dbl_start[s]);
  g->maxlen = 1 + g->pa->nsgl + g->pb->nsgl + maxda + maxdb + g->pa->nsgl * g->pb->nsgl;
  g->maxlen = PetscMin(g->maxlen, space->ndet);
  PetscCall(PetscMalloc3(g->maxlen, &g->wcols, g->maxlen, &g->wvals, g->maxlen, &g->wlev));
#if defined(_OPENMP)
  g->nthreads = omp_get_max_threads();
#else
  g->nthreads = 1;
#endif
  *gen = g;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIRowGeneratorDestroy(FCIRowGenerator *gen)
{
  FCIRowGenerator g = *gen;

  PetscFunctionBeginUser;
  if (!g) PetscFunctionReturn(0);
  PetscCall(FCIStringTableDestroy(&g->ta));
  if (g->pb == &g->tb) PetscCall(FCIStringTableDestroy(&g->tb));
  PetscCall(PetscFree2(g->pair_nz, g->J));
  PetscCall(PetscFree3(g->wcols, g->wvals, g->wlev));
  PetscCall(PetscFree(*gen));
  PetscFunctionReturn(0);
}

PetscErrorCode FCIRowGeneratorGetMaxRowLength(FCIRowGenerator gen, PetscInt *maxlen)
{
  PetscFunctionBeginUser;
  *maxlen = gen->maxlen;
  PetscFunctionReturn(0);
}

#define FCI_EMIT(col, val) \
  do { \
    cols[nz]   = (col); \
    vals[nz++] = (val); \
  } while (0)

/* Row of lexical index L into cols (lexical indices, ascending) / vals.

   The targets are visited in ascending lexical order without sorting: the
   alpha targets Ia2 (Ia itself, its singles, its doubles: three sorted
   lists, merged) in ascending order, and for each the beta targets Ib2 in
   ascending order (for Ia2 = Ia: Ib, its singles, its doubles; for an alpha
   single: Ib and its singles; for an alpha double: Ib).  Since the lexical
   index is aoffset[Ia2] + bpos[Ib2] with bpos increasing within a symmetry
   group, the columns come out ascending. */
static PetscInt FCIRowLexical(FCIRowGenerator g, PetscInt L, PetscInt *cols, PetscScalar *vals)
{
  const FCIDetSpace    *sp  = g->sp;
  const FCIIntegrals   *ig  = g->ints;
  const FCIStringTable *ta  = g->pa, *tb = g->pb;
  const PetscInt        n   = ig->norb;
  const PetscReal       tol = g->droptol;
  const PetscReal      *eri = ig->eri;
  PetscInt              Ia, Ib, nz = 0, ob[64], nob = 0, oa[64], noa = 0;
  PetscInt              ps, pd, pse, pde, qs0, qs1, qd0, qd1;
  PetscBool             aself = PETSC_TRUE;

  FCIDetSpaceLexicalToStrings(sp, L, &Ia, &Ib);
  for (uint64_t x = sp->str_a[Ia]; x; x &= x - 1) oa[noa++] = __builtin_ctzll(x);
  for (uint64_t x = sp->str_b[Ib]; x; x &= x - 1) ob[nob++] = __builtin_ctzll(x);
  ps  = Ia * ta->nsgl;
  pse = ps + ta->nsgl;
  pd  = ta->dbl_start[Ia];
  pde = ta->dbl_start[Ia + 1];
  qs0 = Ib * tb->nsgl;
  qs1 = qs0 + tb->nsgl;
  qd0 = tb->dbl_start[Ib];
  qd1 = tb->dbl_start[Ib + 1];
  for (;;) {
    /* next alpha target: 0 self, 1 single ps, 2 double pd */
    PetscInt kind = -1, best = PETSC_MAX_INT;
    if (aself) {
      kind = 0;
      best = Ia;
    }
    if (ps < pse && ta->sgl_target[ps] < best) {
      kind = 1;
      best = ta->sgl_target[ps];
    }
    if (pd < pde && ta->dbl_target[pd] < best) {
      kind = 2;
      best = ta->dbl_target[pd];
    }
    if (kind < 0) break;
    if (kind == 0) { /* Ia2 = Ia: beta singles and doubles and the diagonal, merged */
      PetscInt qs = qs0, qd = qd0;
      PetscBool bself = PETSC_TRUE;
      aself = PETSC_FALSE;
      for (;;) {
        PetscInt bkind = -1, bbest = PETSC_MAX_INT, L2;
        if (bself) {
          bkind = 0;
          bbest = Ib;
        }
        if (qs < qs1 && tb->sgl_target[qs] < bbest) {
          bkind = 1;
          bbest = tb->sgl_target[qs];
        }
        if (qd < qd1 && tb->dbl_target[qd] < bbest) {
          bkind = 2;
          bbest = tb->dbl_target[qd];
        }
        if (bkind < 0) break;
        if (bkind == 0) {
          PetscReal d = ig->ecore + ta->energy[Ia] + tb->energy[Ib];
          bself       = PETSC_FALSE;
          for (PetscInt p = 0; p < noa; p++) {
            const PetscReal *Jrow = g->J + oa[p] * n;
            for (PetscInt q = 0; q < nob; q++) d += Jrow[ob[q]];
          }
          FCI_EMIT(L, d);
        } else if (bkind == 1) { /* beta single */
          const PetscInt e = qs++;
          if ((L2 = FCIDetSpaceLexical(sp, Ia, tb->sgl_target[e])) >= 0) {
            const PetscReal *ia = eri + FCI_ERI_INDEX(n, tb->sgl_i[e], tb->sgl_a[e], 0, 0);
            PetscReal        w  = 0, v;
            for (PetscInt p = 0; p < noa; p++) w += ia[oa[p] * (n + 1)];
            v = tb->sgl_val[e] + tb->sgl_sign[e] * w;
            if (PetscAbsReal(v) > tol) FCI_EMIT(L2, v);
          }
        } else { /* beta-beta double */
          const PetscInt e = qd++;
          if ((L2 = FCIDetSpaceLexical(sp, Ia, tb->dbl_target[e])) >= 0 && PetscAbsReal(tb->dbl_val[e]) > tol) FCI_EMIT(L2, tb->dbl_val[e]);
        }
      }
    } else if (kind == 1) { /* alpha single i->a: with Ib (single) and Ib's singles (alpha-beta doubles), merged */
      const PetscInt   e = ps++, Ia2 = ta->sgl_target[e];
      const int        i = ta->sgl_i[e], ai = ta->sgl_a[e];
      const PetscReal  sa = ta->sgl_sign[e];
      const PetscReal *ia = eri + FCI_ERI_INDEX(n, i, ai, 0, 0);
      const PetscBool  ab = g->pair_nz[i * n + ai];
      PetscInt         qs = ab ? qs0 : qs1;
      PetscBool        bself = PETSC_TRUE;
      for (;;) {
        PetscInt L2;
        if (bself && (qs == qs1 || Ib < tb->sgl_target[qs])) { /* the alpha single itself */
          bself = PETSC_FALSE;
          if ((L2 = FCIDetSpaceLexical(sp, Ia2, Ib)) >= 0) {
            PetscReal w = 0, v;
            for (PetscInt q = 0; q < nob; q++) w += ia[ob[q] * (n + 1)];
            v = ta->sgl_val[e] + sa * w;
            if (PetscAbsReal(v) > tol) FCI_EMIT(L2, v);
          }
        } else if (qs < qs1) { /* alpha-beta double */
          const PetscInt  f = qs++;
          const PetscReal v = ia[tb->sgl_i[f] * n + tb->sgl_a[f]];
          if (PetscAbsReal(v) > tol && (L2 = FCIDetSpaceLexical(sp, Ia2, tb->sgl_target[f])) >= 0) FCI_EMIT(L2, sa * tb->sgl_sign[f] * v);
        } else break;
      }
    } else { /* alpha-alpha double */
      const PetscInt e = pd++;
      PetscInt       L2;
      if ((L2 = FCIDetSpaceLexical(sp, ta->dbl_target[e], Ib)) >= 0 && PetscAbsReal(ta->dbl_val[e]) > tol) FCI_EMIT(L2, ta->dbl_val[e]);
    }
  }
  return nz;
}

/* Row 'row' of the space's ordering; callable from several threads at once: plain C, and the
   work rows of the excitation ordering (maxlen entries each; unused, may be NULL, with the
   lexical ordering) come from the caller. */
static PetscInt FCIRowOrdered(FCIRowGenerator gen, PetscInt row, PetscInt cols[], PetscScalar vals[], PetscInt wcols[], PetscScalar wvals[], unsigned char wlev[])
{
  const FCIDetSpace *sp = gen->sp;
  PetscInt           k, cnt[FCI_MAX_LEVELS + 1] = {0};

  if (!sp->perm) return FCIRowLexical(gen, row, cols, vals);
  /* Excitation ordering: index = level_start[level] + (rank within the level in lexical order), so the
     lexically sorted row becomes sorted by a stable counting sort on the level. */
  k = FCIRowLexical(gen, sp->iperm[row], wcols, wvals);
  for (PetscInt q = 0; q < k; q++) {
    const PetscInt c = sp->perm[wcols[q]];
    PetscInt       l = 0;
    while (c >= sp->level_start[l + 1]) l++;
    wlev[q]  = (unsigned char)l;
    wcols[q] = c;
    cnt[l + 1]++;
  }
  for (PetscInt l = 0; l < sp->nlevel; l++) cnt[l + 1] += cnt[l];
  for (PetscInt q = 0; q < k; q++) {
    const PetscInt pos = cnt[wlev[q]]++;
    cols[pos]          = wcols[q];
    vals[pos]          = wvals[q];
  }
  return k;
}

PetscErrorCode FCIRowGeneratorGetRow(FCIRowGenerator gen, PetscInt row, PetscInt *nz, PetscInt cols[], PetscScalar vals[])
{
  const FCIDetSpace *sp = gen->sp;

  PetscFunctionBeginUser;
  PetscCheck(row >= 0 && row < sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " outside 0..%" PetscInt_FMT, row, sp->ndet - 1);
  *nz = FCIRowOrdered(gen, row, cols, vals, gen->wcols, gen->wvals, gen->wlev);
  PetscFunctionReturn(0);
}

/* Per-thread work rows of the parallel sweeps: a row and, for the excitation ordering, the
   three work rows of FCIRowOrdered; plain malloc, since threads allocate them.  A failure
   returns 1 and the caller reports it after the parallel region. */
typedef struct {
  PetscInt      *cols, *wcols;
  PetscScalar   *vals, *wvals;
  unsigned char *wlev;
} FCIThreadWork;

static int FCIThreadWorkCreate(FCIRowGenerator gen, FCIThreadWork *w)
{
  const size_t len = (size_t)gen->maxlen;

  memset(w, 0, sizeof(*w));
  w->cols = (PetscInt *)malloc(len * sizeof(PetscInt));
  w->vals = (PetscScalar *)malloc(len * sizeof(PetscScalar));
  if (!w->cols || !w->vals) return 1;
  if (gen->sp->perm) {
    w->wcols = (PetscInt *)malloc(len * sizeof(PetscInt));
    w->wvals = (PetscScalar *)malloc(len * sizeof(PetscScalar));
    w->wlev  = (unsigned char *)malloc(len);
    if (!w->wcols || !w->wvals || !w->wlev) return 1;
  }
  return 0;
}

static void FCIThreadWorkDestroy(FCIThreadWork *w)
{
  free(w->cols);
  free(w->vals);
  free(w->wcols);
  free(w->wvals);
  free(w->wlev);
}

PetscErrorCode FCIRowGeneratorSetThreads(FCIRowGenerator gen, PetscInt nthreads)
{
  PetscFunctionBeginUser;
  PetscCheck(nthreads >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " threads: at least one is needed", nthreads);
#if defined(_OPENMP)
  gen->nthreads = (int)nthreads;
#else
  gen->nthreads = 1; /* built without OpenMP */
#endif
  PetscFunctionReturn(0);
}

PetscErrorCode FCIRowGeneratorGetThreads(FCIRowGenerator gen, PetscInt *nthreads)
{
  PetscFunctionBeginUser;
  *nthreads = gen->nthreads;
  PetscFunctionReturn(0);
}

/* Calls row(gen, r, work, ctx) for the rows rstart..rend-1 on the generator's threads, each
   thread with its own work rows; returns 1 if a thread could not allocate them. */
typedef void (*FCIRowFunction)(FCIRowGenerator, PetscInt, FCIThreadWork *, void *);

static int FCIForEachRow(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, FCIRowFunction row, void *ctx)
{
  int failed = 0;

  FCI_OMP(omp parallel num_threads(gen->nthreads))
  {
    FCIThreadWork w;
    const int     mine = FCIThreadWorkCreate(gen, &w);

    if (mine) {
      FCI_OMP(omp atomic write)
      failed = 1;
    }
    /* every thread meets the loop (OpenMP requires it); one without its work rows takes none */
    FCI_OMP(omp for schedule(dynamic, 64))
    for (PetscInt r = rstart; r < rend; r++)
      if (!mine) row(gen, r, &w, ctx);
    FCIThreadWorkDestroy(&w);
  }
  return failed;
}

typedef struct {
  PetscInt  rstart, cstart, cend;
  PetscInt *dnz, *onz, *dnzu, *onzu;
} FCICountCtx;

/* the lexical row of r's determinant, its columns mapped to the ordering: the counts need no sorted row */
static void FCICountRow(FCIRowGenerator gen, PetscInt r, FCIThreadWork *w, void *ctx)
{
  const FCICountCtx *c  = (const FCICountCtx *)ctx;
  const FCIDetSpace *sp = gen->sp;
  const PetscInt     k  = FCIRowLexical(gen, sp->iperm ? sp->iperm[r] : r, w->cols, w->vals);
  PetscInt           d = 0, o = 0, du = 0, ou = 0;

  for (PetscInt q = 0; q < k; q++) {
    const PetscInt col = sp->perm ? sp->perm[w->cols[q]] : w->cols[q];

    if (col >= c->cstart && col < c->cend) {
      d++;
      if (col >= r) du++;
    } else {
      o++;
      if (col >= r) ou++;
    }
  }
  c->dnz[r - c->rstart] = d;
  if (c->onz) c->onz[r - c->rstart] = o;
  if (c->dnzu) c->dnzu[r - c->rstart] = du;
  if (c->onzu) c->onzu[r - c->rstart] = ou;
}

PetscErrorCode FCIRowGeneratorCountRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, PetscInt dnz[], PetscInt onz[], PetscInt dnzu[], PetscInt onzu[])
{
  FCICountCtx ctx = {rstart, cstart, cend, dnz, onz, dnzu, onzu};

  PetscFunctionBeginUser;
  PetscCheck(0 <= rstart && rstart <= rend && rend <= gen->sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, rstart, rend - 1, gen->sp->ndet - 1);
  PetscCheck(!FCIForEachRow(gen, rstart, rend, FCICountRow, &ctx), PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the work rows of %d threads (%" PetscInt_FMT " entries each)", gen->nthreads, gen->maxlen);
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt          rstart;
  const PetscInt64 *offset;
  PetscInt         *cols;
  PetscScalar      *vals;
  PetscInt          bad; /* a row whose length is not the one counted, or -1 */
} FCIGetCtx;

/* into the thread's row first: a slot shorter than the row must not overflow */
static void FCIGetRow(FCIRowGenerator gen, PetscInt r, FCIThreadWork *w, void *ctx)
{
  FCIGetCtx       *c = (FCIGetCtx *)ctx;
  const PetscInt64 o = c->offset[r - c->rstart] - c->offset[0], len = c->offset[r - c->rstart + 1] - c->offset[r - c->rstart];
  const PetscInt   k = FCIRowOrdered(gen, r, w->cols, w->vals, w->wcols, w->wvals, w->wlev);

  if (k == len) {
    memcpy(c->cols + o, w->cols, (size_t)k * sizeof(PetscInt));
    memcpy(c->vals + o, w->vals, (size_t)k * sizeof(PetscScalar));
  } else {
    FCI_OMP(omp atomic write)
    c->bad = r;
  }
}

PetscErrorCode FCIRowGeneratorGetRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, const PetscInt64 offset[], PetscInt cols[], PetscScalar vals[])
{
  FCIGetCtx ctx = {rstart, offset, cols, vals, -1};

  PetscFunctionBeginUser;
  PetscCheck(0 <= rstart && rstart <= rend && rend <= gen->sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, rstart, rend - 1, gen->sp->ndet - 1);
  PetscCheck(!FCIForEachRow(gen, rstart, rend, FCIGetRow, &ctx), PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the work rows of %d threads (%" PetscInt_FMT " entries each)", gen->nthreads, gen->maxlen);
  PetscCheck(ctx.bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT ": its length differs from offset[%" PetscInt_FMT "] - offset[%" PetscInt_FMT "] (give the lengths of FCIRowGeneratorCountRows)", ctx.bad, ctx.bad - rstart + 1, ctx.bad - rstart);
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt           rstart, cstart, cend;
  const PetscInt    *doffset, *ooffset;
  PetscInt          *dcols, *ocols;
  PetscScalar       *dvals, *ovals;
  PetscInt           bad; /* a row whose lengths are not the ones counted, or -1 */
} FCISplitCtx;

/* The columns of a row are ascending, so its entries inside cstart..cend-1 are one run lo..hi-1
   between the others. */
static void FCIRowRun(const PetscInt cols[], PetscInt k, PetscInt cstart, PetscInt cend, PetscInt *lo, PetscInt *hi)
{
  PetscInt l = 0, h;

  while (l < k && cols[l] < cstart) l++;
  for (h = l; h < k && cols[h] < cend; h++) { }
  *lo = l;
  *hi = h;
}

/* The row's run lo..hi-1 to dcols (as column - cstart) and dvals, the entries before and after
   it, in that order, to ocols and ovals. */
static void FCIRowSplit(const PetscInt cols[], const PetscScalar vals[], PetscInt k, PetscInt lo, PetscInt hi, PetscInt cstart, PetscInt dcols[], PetscScalar dvals[], PetscInt ocols[], PetscScalar ovals[])
{
  for (PetscInt q = lo; q < hi; q++) dcols[q - lo] = cols[q] - cstart;
  memcpy(dvals, vals + lo, (size_t)(hi - lo) * sizeof(PetscScalar));
  if (k == hi - lo) return;
  memcpy(ocols, cols, (size_t)lo * sizeof(PetscInt));
  memcpy(ovals, vals, (size_t)lo * sizeof(PetscScalar));
  memcpy(ocols + lo, cols + hi, (size_t)(k - hi) * sizeof(PetscInt));
  memcpy(ovals + lo, vals + hi, (size_t)(k - hi) * sizeof(PetscScalar));
}

/* The row in the thread's work row, then its two parts to their slots. */
static void FCISplitRow(FCIRowGenerator gen, PetscInt r, FCIThreadWork *w, void *ctx)
{
  FCISplitCtx   *c = (FCISplitCtx *)ctx;
  const PetscInt i = r - c->rstart, dlen = c->doffset[i + 1] - c->doffset[i];
  const PetscInt olen = c->ooffset ? c->ooffset[i + 1] - c->ooffset[i] : 0;
  const PetscInt k    = FCIRowOrdered(gen, r, w->cols, w->vals, w->wcols, w->wvals, w->wlev);
  PetscInt       lo, hi;

  FCIRowRun(w->cols, k, c->cstart, c->cend, &lo, &hi);
  if (hi - lo != dlen || k - dlen != olen) {
    FCI_OMP(omp atomic write)
    c->bad = r;
    return;
  }
  FCIRowSplit(w->cols, w->vals, k, lo, hi, c->cstart, c->dcols + c->doffset[i], c->dvals + c->doffset[i], olen ? c->ocols + c->ooffset[i] : NULL, olen ? c->ovals + c->ooffset[i] : NULL);
}

PetscErrorCode FCIRowGeneratorGetSplitRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, const PetscInt doffset[], PetscInt dcols[], PetscScalar dvals[], const PetscInt ooffset[], PetscInt ocols[], PetscScalar ovals[])
{
  FCISplitCtx ctx = {rstart, cstart, cend, doffset, ooffset, dcols, ocols, dvals, ovals, -1};

  PetscFunctionBeginUser;
  PetscCheck(0 <= rstart && rstart <= rend && rend <= gen->sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, rstart, rend - 1, gen->sp->ndet - 1);
  PetscCheck(!FCIForEachRow(gen, rstart, rend, FCISplitRow, &ctx), PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the work rows of %d threads (%" PetscInt_FMT " entries each)", gen->nthreads, gen->maxlen);
  PetscCheck(ctx.bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT ": its lengths inside and outside columns %" PetscInt_FMT "..%" PetscInt_FMT " differ from the offsets (give the counts of FCIRowGeneratorCountRows)", ctx.bad, cstart, cend - 1);
  PetscFunctionReturn(0);
}

/* The one sweep (FCIRowGeneratorSweepSplitRows): each thread appends the rows it makes to memory
   blocks of its own, a new block when a row does not fit.  The blocks are mapped, not malloc'ed:
   the copy unmaps each one as soon as its rows are in place, so the arrays' pages are mostly the
   ones the blocks gave back (malloc keeps them in its arenas), and the memory held and touched
   stays about that of the arrays: H2O/6-31G ISYM, 2 threads, at most 3.3 GB, as in two sweeps;
   6.4 GB with malloc'ed blocks, whose fresh pages took the copy from 0.8 to 4.4 s. */
#define FCI_ROW_BLOCK_ENTRIES ((size_t)1 << 18) /* 3 MB */

typedef struct _n_FCIRowBlock *FCIRowBlock;
struct _n_FCIRowBlock {
  FCIRowBlock  next; /* the thread's block before this one */
  size_t       bytes, used, cap;
  PetscInt     nrows; /* rows in the block, less those copied */
  PetscScalar *vals;  /* cap entries each, after this header */
  PetscInt    *cols;
};

typedef struct {
  FCIRowBlock block; /* where a row went: its diagonal-block part, then the other, from */
  size_t      at;    /* block->cols + at and block->vals + at */
} FCIRowPlace;

struct _n_FCISplitRows {
  PetscInt     m;
  int          nthreads;
  FCIRowBlock *last;  /* [nthreads] each thread's newest block, until the copy unmaps them */
  FCIRowPlace *place; /* [m] */
};

static inline int FCIThreadNum(void)
{
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* NULL without the memory (callable from the threads) */
static FCIRowBlock FCIRowBlockCreate(size_t cap, FCIRowBlock next)
{
  const size_t bytes = sizeof(struct _n_FCIRowBlock) + cap * (sizeof(PetscScalar) + sizeof(PetscInt));
  FCIRowBlock  b     = (FCIRowBlock)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (b == MAP_FAILED) return NULL;
  b->next  = next;
  b->bytes = bytes;
  b->used  = 0;
  b->cap   = cap;
  b->nrows = 0;
  b->vals  = (PetscScalar *)(b + 1);
  b->cols  = (PetscInt *)(b->vals + cap);
  return b;
}

static void FCISplitRowsFree(FCISplitRows rows)
{
  if (!rows) return;
  for (int t = 0; rows->last && t < rows->nthreads; t++) {
    for (FCIRowBlock b = rows->last[t], next; b; b = next) {
      next = b->next;
      munmap(b, b->bytes);
    }
  }
  free(rows->last);
  free(rows->place);
  free(rows);
}

typedef struct {
  PetscInt     rstart, cstart, cend;
  PetscInt    *dnz, *onz;
  FCISplitRows rows;
  int          failed; /* a block could not be allocated */
} FCISweepCtx;

/* The row in the thread's work row, then its two parts, one after the other, to the end of the
   thread's newest block (or of a new one). */
static void FCISweepRow(FCIRowGenerator gen, PetscInt r, FCIThreadWork *w, void *ctx)
{
  FCISweepCtx   *c    = (FCISweepCtx *)ctx;
  FCIRowBlock   *last = &c->rows->last[FCIThreadNum()];
  const PetscInt i    = r - c->rstart;
  PetscInt       k, lo, hi;
  FCIRowBlock    b;
  int            failed;

  FCI_OMP(omp atomic read)
  failed = c->failed;
  if (failed) return; /* no use: the caller makes the rows again */
  k = FCIRowOrdered(gen, r, w->cols, w->vals, w->wcols, w->wvals, w->wlev);
  if (!*last || (*last)->cap - (*last)->used < (size_t)k) {
    if (!(b = FCIRowBlockCreate(PetscMax(FCI_ROW_BLOCK_ENTRIES, (size_t)k), *last))) {
      FCI_OMP(omp atomic write)
      c->failed = 1;
      return;
    }
    *last = b;
  }
  b = *last;
  FCIRowRun(w->cols, k, c->cstart, c->cend, &lo, &hi);
  FCIRowSplit(w->cols, w->vals, k, lo, hi, c->cstart, b->cols + b->used, b->vals + b->used, b->cols + b->used + (hi - lo), b->vals + b->used + (hi - lo));
  c->rows->place[i].block = b;
  c->rows->place[i].at    = b->used;
  b->used += (size_t)k;
  b->nrows++;
  c->dnz[i] = hi - lo;
  if (c->onz) c->onz[i] = k - (hi - lo);
}

/* The records of rows rstart..rend-1, plain malloc: where they cannot be had the caller falls
   back instead of failing; NULL without the memory. */
static FCISplitRows FCISplitRowsCreate(PetscInt m, int nthreads)
{
  FCISplitRows rows = (FCISplitRows)calloc(1, sizeof(*rows));

  if (!rows) return NULL;
  rows->m        = m;
  rows->nthreads = nthreads;
  rows->last     = (FCIRowBlock *)calloc((size_t)nthreads, sizeof(FCIRowBlock));
  rows->place    = (FCIRowPlace *)malloc((size_t)PetscMax(m, 1) * sizeof(FCIRowPlace));
  if (rows->last && rows->place) return rows;
  FCISplitRowsFree(rows);
  return NULL;
}

PetscErrorCode FCIRowGeneratorSweepSplitRows(FCIRowGenerator gen, PetscInt rstart, PetscInt rend, PetscInt cstart, PetscInt cend, PetscInt dnz[], PetscInt onz[], FCISplitRows *rows)
{
  FCISweepCtx ctx = {rstart, cstart, cend, dnz, onz, NULL, 0};
  int         nowork;

  PetscFunctionBeginUser;
  *rows = NULL;
  PetscCheck(0 <= rstart && rstart <= rend && rend <= gen->sp->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, rstart, rend - 1, gen->sp->ndet - 1);
  PetscCheck(onz || (cstart == 0 && cend == gen->sp->ndet), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Columns %" PetscInt_FMT "..%" PetscInt_FMT " of %" PetscInt_FMT ": the lengths outside them (onz) are needed", cstart, cend - 1, gen->sp->ndet);
  if (!(ctx.rows = FCISplitRowsCreate(rend - rstart, gen->nthreads))) PetscFunctionReturn(0);
  nowork = FCIForEachRow(gen, rstart, rend, FCISweepRow, &ctx);
  if (nowork || ctx.failed) FCISplitRowsFree(ctx.rows);
  else *rows = ctx.rows;
  PetscCheck(!nowork, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the work rows of %d threads (%" PetscInt_FMT " entries each)", gen->nthreads, gen->maxlen);
  PetscFunctionReturn(0);
}

/* Row i's slots are contiguous in i: a static schedule gives each thread a contiguous range of
   the arrays, whose pages it touches first.  Each block is unmapped by the thread that copies its
   last row. */
PetscErrorCode FCISplitRowsCopy(FCISplitRows rows, const PetscInt doffset[], PetscInt dcols[], PetscScalar dvals[], const PetscInt ooffset[], PetscInt ocols[], PetscScalar ovals[])
{
  PetscFunctionBeginUser;
  FCI_OMP(omp parallel for num_threads(rows->nthreads) schedule(static))
  for (PetscInt i = 0; i < rows->m; i++) {
    const FCIRowBlock  b    = rows->place[i].block;
    const PetscInt    *cols = b->cols + rows->place[i].at;
    const PetscScalar *vals = b->vals + rows->place[i].at;
    const PetscInt     dlen = doffset[i + 1] - doffset[i];
    PetscInt           left;

    memcpy(dcols + doffset[i], cols, (size_t)dlen * sizeof(PetscInt));
    memcpy(dvals + doffset[i], vals, (size_t)dlen * sizeof(PetscScalar));
    if (ooffset) {
      const PetscInt olen = ooffset[i + 1] - ooffset[i];

      memcpy(ocols + ooffset[i], cols + dlen, (size_t)olen * sizeof(PetscInt));
      memcpy(ovals + ooffset[i], vals + dlen, (size_t)olen * sizeof(PetscScalar));
    }
    FCI_OMP(omp atomic capture seq_cst) /* after this thread's reads of the block */
    left = --b->nrows;
    if (!left) munmap(b, b->bytes);
  }
  for (int t = 0; t < rows->nthreads; t++) rows->last[t] = NULL; /* all unmapped */
  PetscFunctionReturn(0);
}

PetscErrorCode FCISplitRowsDestroy(FCISplitRows *rows)
{
  PetscFunctionBeginUser;
  FCISplitRowsFree(*rows);
  *rows = NULL;
  PetscFunctionReturn(0);
}
