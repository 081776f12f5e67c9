/* Slater-Condon rules in the spin-orbital picture (see slatercondon.h).

   Spin orbital P = p (alpha) or norb + p (beta) for spatial orbital p, so a
   determinant a+_{P1} a+_{P2} ... |0> with P1 < P2 < ... has all its alpha
   operators left of its beta ones, the convention of determinants.h.  The
   phases come from applying the creation / annihilation operators one by
   one to the occupation (sign (-1)^(occupied spin orbitals below P)), not
   from a closed formula, so this file checks the builder's phase rules. */
#include "slatercondon.h"

typedef struct {
  uint64_t w[2]; /* w[0]: alpha, w[1]: beta */
} FCISpinDet;

static int FCIOcc(const FCISpinDet *d, int norb, int P)
{
  return P < norb ? (int)((d->w[0] >> P) & 1) : (int)((d->w[1] >> (P - norb)) & 1);
}

/* Occupied spin orbitals below P. */
static int FCIBelow(const FCISpinDet *d, int norb, int P)
{
  if (P < norb) return __builtin_popcountll(d->w[0] & ((UINT64_C(1) << P) - 1));
  return __builtin_popcountll(d->w[0]) + __builtin_popcountll(d->w[1] & ((UINT64_C(1) << (P - norb)) - 1));
}

static void FCIFlip(FCISpinDet *d, int norb, int P)
{
  if (P < norb) d->w[0] ^= UINT64_C(1) << P;
  else d->w[1] ^= UINT64_C(1) << (P - norb);
}

/* a_P (create = 0) or a+_P (create = 1) on d; returns the sign, 0 if the result vanishes. */
static int FCIApply(FCISpinDet *d, int norb, int P, int create)
{
  int occ = FCIOcc(d, norb, P), s;
  if (occ == create) return 0;
  s = (FCIBelow(d, norb, P) & 1) ? -1 : 1;
  FCIFlip(d, norb, P);
  return s;
}

/* <PR|QS> (physicists) = (PQ|RS) (chemists) with spin conservation. */
static PetscReal FCIPhys(const FCIIntegrals *ig, int P, int R, int Q, int S)
{
  const int n = (int)ig->norb;
  if ((P < n) != (Q < n) || (R < n) != (S < n)) return 0;
  return ig->eri[FCI_ERI_INDEX(n, P % n, Q % n, R % n, S % n)];
}

static PetscReal FCIOne(const FCIIntegrals *ig, int P, int Q)
{
  const int n = (int)ig->norb;
  if ((P < n) != (Q < n)) return 0;
  return ig->h[(P % n) * n + (Q % n)];
}

static int FCIOccList(const FCISpinDet *d, int norb, int *list)
{
  int k = 0;
  for (int P = 0; P < 2 * norb; P++)
    if (FCIOcc(d, norb, P)) list[k++] = P;
  return k;
}

PetscReal FCISlaterCondonDiagonal(const FCIIntegrals *ints, uint64_t alpha, uint64_t beta)
{
  return FCISlaterCondonElement(ints, alpha, beta, alpha, beta);
}

PetscReal FCISlaterCondonElement(const FCIIntegrals *ig, uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2)
{
  const int  n = (int)ig->norb;
  FCISpinDet d1 = {{a1, b1}}, d2 = {{a2, b2}};
  int        occ[128], nocc, holes[2], parts[2], nh = 0, np = 0, ndiff;
  PetscReal  e = 0;

  ndiff = __builtin_popcountll(a1 ^ a2) + __builtin_popcountll(b1 ^ b2);
  if (__builtin_popcountll(a1) != __builtin_popcountll(a2) || __builtin_popcountll(b1) != __builtin_popcountll(b2) || ndiff > 4) return 0;
  for (int P = 0; P < 2 * n; P++) {
    int o1 = FCIOcc(&d1, n, P), o2 = FCIOcc(&d2, n, P);
    if (o2 && !o1) holes[nh++] = P; /* emptied when going from D2 to D1 */
    if (o1 && !o2) parts[np++] = P; /* filled */
  }
  nocc = FCIOccList(&d2, n, occ);
  if (ndiff == 0) {
    e = ig->ecore;
    for (int i = 0; i < nocc; i++) e += FCIOne(ig, occ[i], occ[i]);
    for (int i = 0; i < nocc; i++)
      for (int j = 0; j < nocc; j++) e += 0.5 * (FCIPhys(ig, occ[i], occ[j], occ[i], occ[j]) - FCIPhys(ig, occ[i], occ[j], occ[j], occ[i]));
    return e;
  } else if (ndiff == 2) { /* D1 = s a+_p a_q D2 */
    const int  p = parts[0], q = holes[0];
    FCISpinDet t = d2;
    int        s = FCIApply(&t, n, q, 0);
    s *= FCIApply(&t, n, p, 1);
    e = FCIOne(ig, p, q);
    for (int i = 0; i < nocc; i++)
      if (occ[i] != q) e += FCIPhys(ig, p, occ[i], q, occ[i]) - FCIPhys(ig, p, occ[i], occ[i], q);
    return s * e;
  } else { /* D1 = s a+_p a+_r a_s a_q D2 */
    const int  p = parts[0], r = parts[1], q = holes[0], ss = holes[1];
    FCISpinDet t = d2;
    int        s = FCIApply(&t, n, q, 0);
    s *= FCIApply(&t, n, ss, 0);
    s *= FCIApply(&t, n, r, 1);
    s *= FCIApply(&t, n, p, 1);
    return s * (FCIPhys(ig, p, r, q, ss) - FCIPhys(ig, p, r, ss, q));
  }
}
