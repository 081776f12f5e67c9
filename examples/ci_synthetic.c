/* Deterministic paper-like CI matrices (see ci_synthetic.h).

   Pattern.  The columns are split at R = round(ref_fraction*n): the
   reference block [0,R) and the rest [R,n).
   - symmetric = false (the paper's matrices): row i holds each column of the
     reference block with probability ref_density and each other column with
     probability density, independently, plus the diagonal.  For n = 32768,
     ref_fraction 0.10, ref_density 0.20, density 0.01 that is
     1 + 0.2*3277 + 0.01*29491 = 951 entries a row, 31.2M in all.
   - symmetric = true: row i returns columns j > i, each with probability
     ref_density when i < R and density otherwise, plus the diagonal.  Once
     mirrored, a row i >= R holds the reference block with density ref_density
     and the rest with density, exactly as in the paper; the first R rows are
     dense all along (ref_density), the "arrow" of a real CI Hamiltonian whose
     reference determinants couple to every other one.

   Sampling.  The columns of a region are a run of Bernoulli(p) trials, drawn
   by geometric skips (the gap to the next chosen column is
   floor(log(u)/log(1-p))): one draw per chosen column, no rejection, output
   already ascending.  A region never returns more than
   cap = mean + 10 standard deviations + 16 columns, a limit reached with
   probability below 1e-20 that makes CISyntheticMaxRowLength a true bound.

   Randomness.  Every number is splitmix64 of (seed, row, key): the k-th skip
   of region r of row i, the value of entry (i,j), the diagonal noise of row i
   each have their own key, so a row depends only on (spec, i) and not on
   which rows were generated before.

   Values.  Off-diagonal a(i,j) uniform in [-0.1, 0.1], drawn from
   (seed, min(i,j), max(i,j)), so the mirrored symmetric matrix is exactly
   symmetric.  Diagonal a(i,i) = -1 + (2i + e)/n with e uniform in
   [-0.5, 0.5]: strictly increasing, like a sorted CI energy spectrum, so the
   lowest eigenvalues are distinct. */
#include "ci_synthetic.h"
#include <math.h>
#include <stdint.h>

#define CI_KEY_SKIP_REF  ((uint64_t)1 << 40) /* + draw index: skips in the reference block */
#define CI_KEY_SKIP_REST ((uint64_t)2 << 40) /* + draw index: skips in the rest */
#define CI_KEY_VALUE     ((uint64_t)3 << 40) /* + column max(i,j): off-diagonal value */
#define CI_KEY_DIAGONAL  ((uint64_t)4 << 40) /* diagonal noise */

static uint64_t SplitMix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Uniform in [0,1) from (seed, row, key): 53 random bits. */
static double CIUniform(unsigned long seed, PetscInt row, uint64_t key)
{
  uint64_t h = SplitMix64((uint64_t)seed);
  h          = SplitMix64(h ^ (uint64_t)row);
  h          = SplitMix64(h ^ key);
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static PetscInt CIReferenceWidth(const CISyntheticSpec *spec)
{
  double r = floor(spec->ref_fraction * (double)spec->n + 0.5);
  if (r < 0) return 0;
  if (r > (double)spec->n) return spec->n;
  return (PetscInt)r;
}

/* Most columns a region of 'len' columns with density p may return. */
static PetscInt CIRegionCap(PetscInt len, double p)
{
  double mean, cap;
  if (len <= 0 || p <= 0) return 0;
  if (p >= 1) return len;
  mean = (double)len * p;
  cap  = ceil(mean + 10.0 * sqrt(mean * (1.0 - p)) + 16.0);
  return cap >= (double)len ? len : (PetscInt)cap;
}

static PetscScalar CIOffDiagonal(const CISyntheticSpec *spec, PetscInt i, PetscInt j)
{
  PetscInt lo = i < j ? i : j, hi = i < j ? j : i;
  return (PetscScalar)(0.2 * CIUniform(spec->seed, lo, CI_KEY_VALUE + (uint64_t)hi) - 0.1);
}

static PetscScalar CIDiagonal(const CISyntheticSpec *spec, PetscInt i)
{
  double e = CIUniform(spec->seed, i, CI_KEY_DIAGONAL) - 0.5;
  return (PetscScalar)(-1.0 + (2.0 * (double)i + e) / (double)spec->n);
}

/* Appends to cols[*nz..] the columns of [lo,hi) chosen with probability p,
   ascending, at most 'cap' of them, leaving out column 'diag' (the caller
   places the diagonal itself). */
static void CISampleRegion(const CISyntheticSpec *spec, PetscInt i, uint64_t key, PetscInt lo, PetscInt hi, double p, PetscInt cap, PetscInt diag, PetscInt *nz, PetscInt *cols)
{
  const double log1mp = p < 1 ? log1p(-p) : 0;
  double       c      = (double)lo - 1; /* last column chosen (or lo-1); double: skips can be huge */
  PetscInt     taken  = 0;
  uint64_t     k;

  if (lo >= hi || p <= 0) return;
  for (k = 0; taken < cap; k++) {
    double u = 1.0 - CIUniform(spec->seed, i, key + k); /* (0,1] */
    c += 1.0 + (p < 1 ? floor(log(u) / log1mp) : 0);
    if (c >= (double)hi) break;
    if ((PetscInt)c == diag) continue;
    cols[(*nz)++] = (PetscInt)c;
    taken++;
  }
}

PetscInt CISyntheticMaxRowLength(const CISyntheticSpec *spec)
{
  const PetscInt n = spec->n, R = CIReferenceWidth(spec);
  PetscInt       ref, rest;

  if (n <= 0) return 0;
  if (!spec->symmetric) return 1 + CIRegionCap(R, spec->ref_density) + CIRegionCap(n - R, spec->density);
  /* the longest upper rows are row 0 (reference rows) and row R (the others) */
  ref  = R > 0 ? CIRegionCap(n - 1, spec->ref_density) : 0;
  rest = R < n ? CIRegionCap(n - 1 - R, spec->density) : 0;
  return 1 + (ref > rest ? ref : rest);
}

void CISyntheticRow(const CISyntheticSpec *spec, PetscInt i, PetscInt *nz, PetscInt *cols, PetscScalar *vals)
{
  const PetscInt n = spec->n, R = CIReferenceWidth(spec);
  PetscInt       k, m = 0;

  *nz = 0;
  if (i < 0 || i >= n) return;
  if (spec->symmetric) {
    const double p = i < R ? spec->ref_density : spec->density;
    cols[m++]      = i;
    CISampleRegion(spec, i, CI_KEY_SKIP_REST, i + 1, n, p, CIRegionCap(n - 1 - i, p), -1, &m, cols);
  } else {
    PetscInt pos;
    CISampleRegion(spec, i, CI_KEY_SKIP_REF, 0, R, spec->ref_density, CIRegionCap(R, spec->ref_density), i, &m, cols);
    CISampleRegion(spec, i, CI_KEY_SKIP_REST, R, n, spec->density, CIRegionCap(n - R, spec->density), i, &m, cols);
    /* insert the diagonal at its sorted place */
    for (pos = m; pos > 0 && cols[pos - 1] > i; pos--) cols[pos] = cols[pos - 1];
    cols[pos] = i;
    m++;
  }
  for (k = 0; k < m; k++) vals[k] = cols[k] == i ? CIDiagonal(spec, i) : CIOffDiagonal(spec, i, cols[k]);
  *nz = m;
}
