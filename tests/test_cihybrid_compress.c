/* Unit test of the compressed cihybrid form (gpumats_cihybrid_compress.h) against the plain
   format it is made from, everything bit for bit (memcmp of the doubles; a NaN product result
   only has to be a NaN, see SameUpToNaNs):
   - the decode gives back the plain arrays, layout and statistics;
   - each code and gap is what the layout says (dictionary index and sign, explicit values,
     escapes, padding marks), the dictionary holds the most frequent magnitudes;
   - the compressed host products, y0 NULL, distinct and aliasing y, equal the plain ones;
   - the statistics add up, the byte counts agree with CIHybridBytesPerMult;
   on random matrices (both splits, several boundaries and dictionary sizes; empty rows, rows
   longer than the ELL width, more distinct values than the dictionary, negative values, -0.0,
   +-Inf, NaN with payloads), column gaps of 0..70000 around the escape (65533..65536), 1 x 1,
   0 x 0 and rows without columns; bad arguments; and that a corrupted dictionary or side array
   is caught by these comparisons.
   With -fcidump FILE (N2/STO-3G in the suite): the same checks on that CI Hamiltonian, whose
   statistics it prints (bytes per nonzero against the plain format's). */
#include <gpumats_cihybrid_compress.h>
#include <petscsys.h>
#if defined(GPUMATS_TEST_FCI)
  #include "fci.h"
#endif
#include "testexit.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] = "Tests the compressed cihybrid form against the plain one.\n"
                           "  -fcidump FILE   also a CI Hamiltonian from this FCIDUMP (statistics printed)\n";

#include "testcheck.h"

#if !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)

typedef struct {
  PetscInt     m, n, *rowptr, *col;
  PetscScalar *val;
} CSR;

static unsigned long long rng_state = 4924;
static double             Uniform(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static uint64_t Bits(double v)
{
  uint64_t b;

  memcpy(&b, &v, sizeof(b));
  return b;
}

static double FromBits(uint64_t b)
{
  double v;

  memcpy(&v, &b, sizeof(v));
  return v;
}

static int IsNaNBits(uint64_t b)
{
  return (b & ~((uint64_t)1 << 63)) > 0x7ff0000000000000ULL;
}

static void *Alloc(size_t count, size_t size)
{
  void *p = malloc(count ? count * size : 1);

  if (!p) {
    fprintf(stderr, "test: out of host memory\n");
    exit(1);
  }
  return p;
}

static void CSRFree(CSR *a)
{
  free(a->rowptr);
  free(a->col);
  free(a->val);
  memset(a, 0, sizeof(*a));
}

/* ---------------------------------------------------------------------------------------- */
/* values: a palette of few magnitudes (CI-like), fresh random ones, and the special doubles  */

static const uint64_t special_bits[] = {
  0x0000000000000000ULL, /* +0.0 */
  0x8000000000000000ULL, /* -0.0 */
  0x7ff0000000000000ULL, /* +Inf */
  0xfff0000000000000ULL, /* -Inf */
  0x7ff8000000000000ULL, /* quiet NaN */
  0xfff8000000000000ULL, /* negative quiet NaN */
  0x7ff8000000000123ULL, /* NaN with a payload */
  0x7ff0000000000001ULL, /* signalling NaN */
  0x0000000000000001ULL, /* smallest subnormal */
  0x800fffffffffffffULL, /* largest negative subnormal */
  0x7fefffffffffffffULL, /* DBL_MAX */
};
#define NSPECIAL (sizeof(special_bits) / sizeof(special_bits[0]))

typedef struct {
  PetscInt palette;  /* distinct magnitudes of the palette */
  double   fresh;    /* share of values drawn fresh (nearly all distinct) */
  double   special;  /* share of special values */
} ValueMix;

static double Value(const ValueMix *mix)
{
  const double u = Uniform(), sign = Uniform() < 0.5 ? -1.0 : 1.0;

  if (u < mix->special) return FromBits(special_bits[(size_t)(Uniform() * NSPECIAL)]);
  if (u < mix->special + mix->fresh || mix->palette < 1) return sign * Uniform();
  /* palette value k: a fixed magnitude per k, the most frequent first (k small) */
  return sign * (1.0 + (double)(PetscInt)(pow(Uniform(), 3) * mix->palette)) / 7.0;
}

/* random CSR: sorted rows, some empty and some full */
static void RandomCSR(PetscInt m, PetscInt n, double density, const ValueMix *mix, CSR *a)
{
  PetscInt nnz = 0;

  a->m      = m;
  a->n      = n;
  a->rowptr = (PetscInt *)Alloc((size_t)m + 1, sizeof(PetscInt));
  a->col    = (PetscInt *)Alloc((size_t)m * n, sizeof(PetscInt));
  a->val    = (PetscScalar *)Alloc((size_t)m * n, sizeof(PetscScalar));
  a->rowptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    const double d = Uniform() < 0.1 ? 0.0 : (Uniform() < 0.1 ? 1.0 : density);

    for (PetscInt j = 0; j < n; j++)
      if (Uniform() < d) {
        a->col[nnz]   = j;
        a->val[nnz++] = Value(mix);
      }
    a->rowptr[i + 1] = nnz;
  }
}

/* Rows of a wide matrix whose column gaps are chosen: first columns and gaps around the escape
   (65533 is the largest stored gap), random gaps up to 70000, and a row of single steps. */
static void GapCSR(const ValueMix *mix, CSR *a)
{
  static const PetscInt firsts[] = {0, 1, 255, 65532, 65533, 65534, 65535, 65536, 65537, 70000, 199999};
  static const PetscInt gaps[]   = {1, 2, 65533, 65534, 65535, 65536, 65537, 70000, 256, 65535, 65536, 1, 65533, 65534};
  const PetscInt        nf = (PetscInt)(sizeof(firsts) / sizeof(firsts[0])), ng = (PetscInt)(sizeof(gaps) / sizeof(gaps[0]));
  const PetscInt        n = 1000000, rows = 2 * nf + 8, cap = rows * 64;
  PetscInt              nnz = 0;

  a->m      = rows;
  a->n      = n;
  a->rowptr = (PetscInt *)Alloc((size_t)rows + 1, sizeof(PetscInt));
  a->col    = (PetscInt *)Alloc((size_t)cap, sizeof(PetscInt));
  a->val    = (PetscScalar *)Alloc((size_t)cap, sizeof(PetscScalar));
  a->rowptr[0] = 0;
  for (PetscInt i = 0; i < rows; i++) {
    PetscInt c = i < 2 * nf ? firsts[i % nf] : (PetscInt)(Uniform() * 70001);

    for (PetscInt k = 0; k < 40 && c < n; k++) {
      a->col[nnz]   = c;
      a->val[nnz++] = Value(mix);
      if (i < nf) c += gaps[(i + k) % ng];                      /* the chosen gaps, each row shifted */
      else if (i < 2 * nf) c += 1 + (PetscInt)(Uniform() * 70000); /* any gap 1..70000 */
      else c += i == 2 * nf ? 1 : 1 + (PetscInt)(Uniform() * 70000);
    }
    a->rowptr[i + 1] = nnz;
  }
}

/* ---------------------------------------------------------------------------------------- */
/* comparisons: each returns the number of differences, so that the test can also check that */
/* a corrupted compressed matrix is caught                                                    */

static int DecodeDiffers(const CIHybridFormat *f, const CIHybridCompressed *c, const char *what, int report)
{
  CIHybridFormat d;
  const size_t   slots = (size_t)f->nrows * f->pitch;
  int            bad   = 0;

  if (CIHybridCompressedDecode(c, &d) != CIHYBRID_COMPRESS_OK) {
    if (report) fprintf(stderr, "%s: decode failed\n", what);
    return 1;
  }
  if (d.nrows != f->nrows || d.ncols != f->ncols || d.split != f->split || d.boundary != f->boundary || d.width != f->width || d.pitch != f->pitch) bad++;
  if (d.nnz != f->nnz || d.nnz_ell != f->nnz_ell || d.nnz_csr != f->nnz_csr || d.padding != f->padding || d.rows_with_csr != f->rows_with_csr || d.max_row_len != f->max_row_len) bad++;
  if (!bad) {
    if (f->nrows && memcmp(d.ell_len, f->ell_len, (size_t)f->nrows * sizeof(int32_t))) bad++;
    if (memcmp(d.csr_start, f->csr_start, ((size_t)f->nrows + 1) * sizeof(int32_t))) bad++;
    if (slots && memcmp(d.ell_col, f->ell_col, slots * sizeof(int32_t))) bad++;
    if (slots && memcmp(d.ell_val, f->ell_val, slots * sizeof(PetscScalar))) bad++;
    if (f->nnz_csr && memcmp(d.csr_col, f->csr_col, (size_t)f->nnz_csr * sizeof(int32_t))) bad++;
    if (f->nnz_csr && memcmp(d.csr_val, f->csr_val, (size_t)f->nnz_csr * sizeof(PetscScalar))) bad++;
  }
  if (bad && report) fprintf(stderr, "%s: the decode differs from the plain format (%d arrays or statistics)\n", what, bad);
  CIHybridFormatFree(&d);
  return bad;
}

static void FillX(PetscScalar *x, PetscInt n, int special)
{
  for (PetscInt j = 0; j < n; j++) x[j] = special && Uniform() < 0.05 ? FromBits(special_bits[(size_t)(Uniform() * NSPECIAL)]) : 2 * Uniform() - 1;
}

/* Bit for bit, except that a NaN result only has to be a NaN: where two NaNs meet in one
   operation, IEEE 754 leaves which one comes out (payload, sign) to the hardware, and the
   compiler may put the operands of a commutative product or sum in either order, so two
   compilations of the same loop can differ there (they do here: x86 returns the first
   operand's NaN).  Every other result, +-Inf and -0.0 included, must match to the bit. */
static int SameUpToNaNs(const PetscScalar *a, const PetscScalar *b, PetscInt n)
{
  for (PetscInt k = 0; k < n; k++)
    if (Bits(a[k]) != Bits(b[k]) && !(IsNaNBits(Bits(a[k])) && IsNaNBits(Bits(b[k])))) return 0;
  return 1;
}

/* y0 NULL, y0 distinct from y, y0 aliasing y: the compressed product against the plain one */
static int ProductsDiffer(const CIHybridFormat *f, const CIHybridCompressed *c, PetscBool transpose, int special, const char *what, int report)
{
  const PetscInt nin = transpose ? f->nrows : f->ncols, nout = transpose ? f->ncols : f->nrows;
  PetscScalar   *x = (PetscScalar *)Alloc((size_t)nin, sizeof(PetscScalar)), *y0 = (PetscScalar *)Alloc((size_t)nout, sizeof(PetscScalar));
  PetscScalar   *yp = (PetscScalar *)Alloc((size_t)nout, sizeof(PetscScalar)), *yc = (PetscScalar *)Alloc((size_t)nout, sizeof(PetscScalar));
  const size_t   bytes = (size_t)nout * sizeof(PetscScalar);
  int            bad   = 0;

  FillX(x, nin, special);
  FillX(y0, nout, special);
  for (int mode = 0; mode < 3; mode++) {
    const char *name[] = {"y0 NULL", "y0 distinct", "y0 = y"};

    if (mode == 2) {
      if (bytes) memcpy(yp, y0, bytes);
      if (bytes) memcpy(yc, y0, bytes);
    } else {
      for (PetscInt k = 0; k < nout; k++) yp[k] = yc[k] = 1234.5; /* overwritten: must not leak in */
    }
    if (transpose) {
      CIHybridMultTransposeHost(f, x, mode == 0 ? NULL : (mode == 1 ? y0 : yp), yp);
      CIHybridCompressedMultTransposeHost(c, x, mode == 0 ? NULL : (mode == 1 ? y0 : yc), yc);
    } else {
      CIHybridMultHost(f, x, mode == 0 ? NULL : (mode == 1 ? y0 : yp), yp);
      CIHybridCompressedMultHost(c, x, mode == 0 ? NULL : (mode == 1 ? y0 : yc), yc);
    }
    if (bytes && memcmp(yp, yc, bytes) && !SameUpToNaNs(yp, yc, nout)) {
      bad++;
      if (report) fprintf(stderr, "%s: %s product with %s differs from the plain one%s\n", what, transpose ? "transposed" : "", name[mode], special ? " (special x)" : "");
    }
  }
  free(x), free(y0), free(yp), free(yc);
  return bad;
}

/* ---------------------------------------------------------------------------------------- */
/* the layout, entry by entry, and the dictionary                                            */

typedef struct {
  uint64_t key;
  PetscInt64 count;
} KeyCount;

static int CompareU64(const void *a, const void *b)
{
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

  return x < y ? -1 : (x > y ? 1 : 0);
}

static int CompareKey(const void *a, const void *b)
{
  return CompareU64(&((const KeyCount *)a)->key, &((const KeyCount *)b)->key);
}

/* the non-NaN magnitudes of the stored entries with their counts, by magnitude */
static KeyCount *MagnitudeCounts(const CIHybridFormat *f, size_t *count)
{
  uint64_t *mag = (uint64_t *)Alloc((size_t)f->nnz, sizeof(uint64_t));
  KeyCount *kc  = (KeyCount *)Alloc((size_t)f->nnz, sizeof(KeyCount));
  size_t    n = 0, distinct = 0;

  for (PetscInt i = 0; i < f->nrows; i++) {
    for (PetscInt p = 0; p < f->ell_len[i]; p++)
      if (!IsNaNBits(Bits(f->ell_val[(size_t)i * f->pitch + p]))) mag[n++] = Bits(f->ell_val[(size_t)i * f->pitch + p]) & ~((uint64_t)1 << 63);
    for (PetscInt k = f->csr_start[i]; k < f->csr_start[i + 1]; k++)
      if (!IsNaNBits(Bits(f->csr_val[k]))) mag[n++] = Bits(f->csr_val[k]) & ~((uint64_t)1 << 63);
  }
  qsort(mag, n, sizeof(uint64_t), CompareU64);
  for (size_t k = 0; k < n; k++) {
    if (!distinct || kc[distinct - 1].key != mag[k]) {
      kc[distinct].key   = mag[k];
      kc[distinct].count = 0;
      distinct++;
    }
    kc[distinct - 1].count++;
  }
  free(mag);
  *count = distinct;
  return kc;
}

/* the dictionary: distinct magnitudes with the sign bit clear, no NaN, the most frequent ones
   (every magnitude left out is at most as frequent as any taken), most frequent first */
static void CheckDictionary(const CIHybridFormat *f, const CIHybridCompressed *c, const char *what)
{
  const PetscInt limit = PetscMin(c->dict_size, CIHYBRID_DICT_MAX_ENTRIES);
  size_t         distinct;
  KeyCount      *kc = MagnitudeCounts(f, &distinct);
  char          *in = (char *)calloc(distinct ? distinct : 1, 1);
  PetscInt64     min_in = INT64_MAX, max_out = 0, prev = INT64_MAX;

  CHECK(c->dict_count == PetscMin((PetscInt64)limit, (PetscInt64)distinct), "%s: %d dictionary entries, expected min(%d, %zu distinct)", what, (int)c->dict_count, (int)limit, distinct);
  for (PetscInt k = 0; k < c->dict_count; k++) {
    const KeyCount  key = {Bits(c->dict[k]), 0};
    const KeyCount *hit = (const KeyCount *)bsearch(&key, kc, distinct, sizeof(KeyCount), CompareKey);

    CHECK(hit && !in[hit - kc], "%s: dictionary entry %d (%a) is not a stored magnitude, or twice", what, (int)k, c->dict[k]);
    if (!hit || in[hit - kc]) continue;
    in[hit - kc] = 1;
    CHECK(hit->count <= prev, "%s: dictionary entry %d is more frequent than entry %d", what, (int)k, (int)k - 1);
    prev   = hit->count;
    min_in = PetscMin(min_in, hit->count);
  }
  for (size_t k = 0; k < distinct; k++)
    if (!in[k]) max_out = PetscMax(max_out, kc[k].count);
  CHECK(!c->dict_count || max_out <= min_in, "%s: a magnitude left out (%lld times) is more frequent than one taken (%lld times)", what, (long long)max_out, (long long)min_in);
  free(kc);
  free(in);
}

typedef struct {
  PetscInt64 explicit_values, escapes;
  int64_t    e, q; /* the running positions in the side arrays */
  int32_t    prev;
  int        first;
  uint64_t  *dict_sorted; /* the dictionary's bits, ascending */
} RowWalk;

/* one stored entry against its code and gap */
static void CheckEntry(const CIHybridCompressed *c, PetscInt i, int32_t col, double v, uint16_t code, uint16_t gap, RowWalk *w, const char *what)
{
  const uint64_t   b = Bits(v);
  const PetscInt64 g = (PetscInt64)col - w->prev;

  if (gap > CIHYBRID_GAP_MAX) {
    CHECK(gap == CIHYBRID_GAP_ESCAPE && g > CIHYBRID_GAP_MAX && c->esc_col[w->q] == col, "%s: row %d column %d: escape %#x, gap %lld", what, (int)i, (int)col, gap, (long long)g);
    w->q++;
    w->escapes++;
  } else CHECK(gap == g && (g > 0 || w->first), "%s: row %d column %d: gap %u, expected %lld", what, (int)i, (int)col, gap, (long long)g);
  if (code == CIHYBRID_CODE_EXPLICIT) {
    CHECK(Bits(c->expl_val[w->e]) == b, "%s: row %d column %d: explicit value %a, expected %a", what, (int)i, (int)col, c->expl_val[w->e], v);
    if (!IsNaNBits(b)) {
      const uint64_t mag = b & ~((uint64_t)1 << 63);

      CHECK(!bsearch(&mag, w->dict_sorted, (size_t)c->dict_count, sizeof(uint64_t), CompareU64), "%s: row %d column %d: explicit although |%a| is in the dictionary", what, (int)i, (int)col, v);
    }
    w->e++;
    w->explicit_values++;
  } else {
    const PetscInt idx = code & CIHYBRID_CODE_INDEX;

    CHECK(code != CIHYBRID_CODE_NONE && idx < c->dict_count && !IsNaNBits(b), "%s: row %d column %d: code %#x for %a (%d dictionary entries)", what, (int)i, (int)col, code, v, (int)c->dict_count);
    if (idx < c->dict_count) CHECK((Bits(c->dict[idx]) | ((uint64_t)(code >> 15) << 63)) == b, "%s: row %d column %d: code %#x gives %a, expected %a", what, (int)i, (int)col, code, c->dict[idx], v);
  }
  w->prev  = col;
  w->first = 0;
}

/* every code and gap, the padding marks, the row offsets of the side arrays, the counts */
static void CheckLayout(const CIHybridFormat *f, const CIHybridCompressed *c, const char *what)
{
  PetscInt64 expl = 0, esc = 0;
  uint64_t  *dict_sorted = (uint64_t *)Alloc((size_t)c->dict_count, sizeof(uint64_t));

  for (PetscInt k = 0; k < c->dict_count; k++) dict_sorted[k] = Bits(c->dict[k]);
  qsort(dict_sorted, (size_t)c->dict_count, sizeof(uint64_t), CompareU64);
  CHECK(c->nrows == f->nrows && c->ncols == f->ncols && c->width == f->width && c->pitch == f->pitch && c->split == f->split && c->boundary == f->boundary, "%s: sizes", what);
  CHECK(c->nnz == f->nnz && c->nnz_ell == f->nnz_ell && c->nnz_csr == f->nnz_csr && c->padding == f->padding, "%s: nnz %lld ell %lld csr %lld padding %lld, expected %lld %lld %lld %lld", what, (long long)c->nnz, (long long)c->nnz_ell, (long long)c->nnz_csr, (long long)c->padding, (long long)f->nnz, (long long)f->nnz_ell, (long long)f->nnz_csr, (long long)f->padding);
  CHECK(c->expl_start[0] == 0 && c->esc_start[0] == 0, "%s: side arrays do not start at 0", what);
  for (PetscInt i = 0; i < f->nrows; i++) {
    const size_t off = (size_t)i * f->pitch;
    RowWalk      w   = {0, 0, c->expl_start[i], c->esc_start[i], 0, 1, dict_sorted};

    CHECK(c->csr_start[i] == f->csr_start[i], "%s: csr_start[%d]", what, (int)i);
    for (PetscInt p = 0; p < f->ell_len[i]; p++) CheckEntry(c, i, f->ell_col[off + p], f->ell_val[off + p], c->ell_code[off + p], c->ell_gap[off + p], &w, what);
    for (PetscInt p = f->ell_len[i]; p < f->pitch; p++) CHECK(c->ell_code[off + p] == CIHYBRID_CODE_NONE && c->ell_gap[off + p] == CIHYBRID_GAP_PAD, "%s: row %d padding slot %d holds code %#x gap %#x", what, (int)i, (int)p, c->ell_code[off + p], c->ell_gap[off + p]);
    for (PetscInt k = f->csr_start[i]; k < f->csr_start[i + 1]; k++) CheckEntry(c, i, f->csr_col[k], f->csr_val[k], c->csr_code[k], c->csr_gap[k], &w, what);
    CHECK(w.e == c->expl_start[i + 1] && w.q == c->esc_start[i + 1], "%s: row %d: %lld explicit values and %lld escapes, its offsets say %d and %d", what, (int)i, (long long)w.explicit_values, (long long)w.escapes, (int)(c->expl_start[i + 1] - c->expl_start[i]), (int)(c->esc_start[i + 1] - c->esc_start[i]));
    expl += w.explicit_values;
    esc += w.escapes;
  }
  free(dict_sorted);
  CHECK(expl == c->nnz_explicit && esc == c->escapes && c->nnz_dict + c->nnz_explicit == c->nnz, "%s: %lld explicit values and %lld escapes counted, the statistics say %lld and %lld (dictionary %lld of %lld)", what, (long long)expl, (long long)esc, (long long)c->nnz_explicit, (long long)c->escapes, (long long)c->nnz_dict, (long long)c->nnz);
}

static void CheckStats(const CIHybridFormat *f, const CIHybridCompressed *c, const char *what)
{
  CIHybridCompressStats s;
  const double          rows = (double)f->nrows, slots = rows * (double)f->width;
  const double          expect = (slots + (double)f->nnz_csr) * 4 + 3 * 4 * (rows + 1) + 8.0 * (double)c->nnz_explicit + 4.0 * (double)c->escapes + 8.0 * (double)c->dict_count;

  CIHybridCompressedGetStats(c, &s);
  CHECK(s.nnz == f->nnz && s.nnz_dict + s.nnz_explicit == s.nnz && s.escapes == c->escapes && s.padding == f->padding && s.dict_count == c->dict_count && s.dict_size == c->dict_size, "%s: statistics do not add up", what);
  CHECK(s.dict_coverage == (f->nnz ? (double)s.nnz_dict / (double)f->nnz : 1.0), "%s: coverage %g", what, s.dict_coverage);
  CHECK(s.matrix_bytes == expect && s.bytes_per_mult == expect + 8.0 * (rows + (double)f->ncols), "%s: %g matrix bytes, expected %g", what, s.matrix_bytes, expect);
  /* the plain count is CIHybridBytesPerMult's, less x and y */
  CHECK(s.plain_matrix_bytes + 8.0 * (rows + (double)f->ncols) == CIHybridBytesPerMult(f), "%s: plain bytes %g, CIHybridBytesPerMult %g", what, s.plain_matrix_bytes, CIHybridBytesPerMult(f));
  CHECK(f->nnz ? s.bytes_per_nonzero == s.matrix_bytes / (double)f->nnz && s.plain_bytes_per_nonzero == s.plain_matrix_bytes / (double)f->nnz : s.bytes_per_nonzero == 0, "%s: bytes per nonzero", what);
}

/* Everything on one plain format and dictionary size (0: NULL options, the default). */
static void CheckCompressed(const CIHybridFormat *f, PetscInt dict_size, const char *what)
{
  CIHybridCompressOptions opts;
  CIHybridCompressed      c;
  CIHybridCompressStatus  st;

  opts.dict_size = dict_size;
  st             = CIHybridCompress(f, dict_size ? &opts : NULL, &c);
  CHECK(st == CIHYBRID_COMPRESS_OK, "%s: compress: %s", what, CIHybridCompressStatusString(st));
  if (st != CIHYBRID_COMPRESS_OK) return;
  CHECK(c.dict_size == (dict_size ? dict_size : CIHYBRID_DICT_DEFAULT), "%s: dictionary size %d", what, (int)c.dict_size);
  CheckLayout(f, &c, what);
  CheckDictionary(f, &c, what);
  CheckStats(f, &c, what);
  CHECK(!DecodeDiffers(f, &c, what, 1), "%s: decode", what);
  for (int special = 0; special < 2; special++) {
    CHECK(!ProductsDiffer(f, &c, PETSC_FALSE, special, what, 1), "%s: products", what);
    CHECK(!ProductsDiffer(f, &c, PETSC_TRUE, special, what, 1), "%s: transposed products", what);
  }
  CIHybridCompressedFree(&c);
}

static PetscInt MaxRowLength(const CSR *a)
{
  PetscInt len = 0;

  for (PetscInt i = 0; i < a->m; i++) len = PetscMax(len, a->rowptr[i + 1] - a->rowptr[i]);
  return len;
}

/* both splits, several boundaries (none in ELLPACK, some, all), several dictionary sizes */
static void CheckMatrix(const CSR *a, const PetscInt *dict_sizes, int ndict, const char *what)
{
  const PetscInt maxlen = MaxRowLength(a);
  const PetscInt entries[] = {0, 1, 2, 3, 8, 40, maxlen + 1}, columns[] = {0, 1, a->n / 3, a->n / 2, a->n + 1};

  for (int split = 0; split < 2; split++) {
    const PetscInt *b  = split ? columns : entries;
    const int       nb = split ? 5 : 7;

    for (int k = 0; k < nb; k++) {
      CIHybridFormat f;
      char           name[256];

      if (CIHybridBuildFromCSR(a->m, a->n, a->rowptr, a->col, a->val, split ? CIHYBRID_SPLIT_COLUMNS : CIHYBRID_SPLIT_ENTRIES, b[k], &f) != CIHYBRID_OK) {
        CHECK(0, "%s: plain build (split %d, boundary %d)", what, split, (int)b[k]);
        continue;
      }
      for (int d = 0; d < ndict; d++) {
        snprintf(name, sizeof(name), "%s (%s split, boundary %d, dictionary %d)", what, split ? "columns" : "entries", (int)b[k], (int)dict_sizes[d]);
        CheckCompressed(&f, dict_sizes[d], name);
      }
      CIHybridFormatFree(&f);
    }
  }
}

/* ---------------------------------------------------------------------------------------- */

static void TestRandom(void)
{
  const PetscInt dict_sizes[] = {0, 1, 2, 16, 32768};
  const ValueMix mixes[]      = {
    {8, 0.0, 0.0},    /* few values: all in the dictionary */
    {50, 0.2, 0.05},  /* CI-like, with special values */
    {5000, 0.5, 0.1}, /* more distinct values than small dictionaries */
    {0, 1.0, 0.0},    /* all distinct */
    {3, 0.0, 0.6},    /* mostly special values */
  };

  for (int trial = 0; trial < 120; trial++) {
    const ValueMix *mix = &mixes[trial % 5];
    CSR             a;
    char            what[64];

    RandomCSR((PetscInt)(Uniform() * 60), 1 + (PetscInt)(Uniform() * 60), Uniform() * 0.5, mix, &a);
    snprintf(what, sizeof(what), "random %d (%d x %d)", trial, (int)a.m, (int)a.n);
    CheckMatrix(&a, dict_sizes, 5, what);
    CSRFree(&a);
  }
  /* more distinct magnitudes than the default dictionary: 40,000 entries nearly all distinct,
     and more than the largest (32767 used of 32768) */
  {
    const ValueMix mix          = {20000, 0.6, 0.0};
    const PetscInt big_dicts[] = {0, 32768};
    CSR            a;

    RandomCSR(200, 400, 0.5, &mix, &a);
    CheckMatrix(&a, big_dicts, 2, "large random");
    CSRFree(&a);
  }
}

static void TestGaps(void)
{
  const PetscInt dict_sizes[] = {0, 4};
  const ValueMix mix          = {20, 0.1, 0.05};
  CSR            a;

  GapCSR(&mix, &a);
  CheckMatrix(&a, dict_sizes, 2, "column gaps");
  /* the escapes at the limits: a row's first column from 0, then gaps 65533 (stored), 65534 (escaped) */
  {
    CIHybridFormat     f;
    CIHybridCompressed c;
    const PetscInt     rp[] = {0, 3, 6}, col[] = {65533, 65533 + 65533, 65533 + 65533 + 65534, 65534, 65534 + 65535, 65534 + 65535 + 65536};
    const PetscScalar  v[]  = {1, 2, 3, 4, 5, 6};

    CHECK(CIHybridBuildFromCSR(2, 300000, rp, col, v, CIHYBRID_SPLIT_ENTRIES, 2, &f) == CIHYBRID_OK && CIHybridCompress(&f, NULL, &c) == CIHYBRID_COMPRESS_OK, "limits: build");
    CHECK(c.ell_gap[0] == 65533 && c.ell_gap[1] == 65533 && c.csr_gap[0] == CIHYBRID_GAP_ESCAPE, "limits: row 0 gaps %u %u %u", c.ell_gap[0], c.ell_gap[1], c.csr_gap[0]);
    CHECK(c.ell_gap[f.pitch] == CIHYBRID_GAP_ESCAPE && c.ell_gap[f.pitch + 1] == CIHYBRID_GAP_ESCAPE && c.csr_gap[1] == CIHYBRID_GAP_ESCAPE, "limits: row 1 gaps");
    CHECK(c.escapes == 4 && c.esc_start[1] == 1 && c.esc_col[0] == col[2] && c.esc_col[1] == col[3] && c.esc_col[3] == col[5], "limits: escapes %lld", (long long)c.escapes);
    CHECK(!DecodeDiffers(&f, &c, "limits", 1), "limits: decode");
    CIHybridCompressedFree(&c);
    CIHybridFormatFree(&f);
  }
  CSRFree(&a);
}

/* 1 x 1 (a value, -0.0, NaN, empty), 0 x 0, rows without columns, columns without rows */
static void TestSmall(void)
{
  const PetscInt    dict_sizes[] = {0, 1};
  const PetscInt    rp1[] = {0, 1}, rp0[] = {0, 0}, rp3[] = {0, 0, 0, 0}, c0[] = {0};
  const PetscScalar values[] = {2.5, FromBits(special_bits[1]), FromBits(special_bits[6]), FromBits(special_bits[3])};

  for (int k = 0; k < 4; k++) {
    CSR  a = {1, 1, (PetscInt *)rp1, (PetscInt *)c0, (PetscScalar *)&values[k]};
    char what[32];

    snprintf(what, sizeof(what), "1 x 1 (%a)", values[k]);
    CheckMatrix(&a, dict_sizes, 2, what);
  }
  {
    CSR a = {1, 1, (PetscInt *)rp0, NULL, NULL};
    CheckMatrix(&a, dict_sizes, 2, "1 x 1 empty");
  }
  {
    CSR a = {0, 0, (PetscInt *)rp0, NULL, NULL};
    CheckMatrix(&a, dict_sizes, 2, "0 x 0");
  }
  {
    CSR a = {3, 0, (PetscInt *)rp3, NULL, NULL};
    CheckMatrix(&a, dict_sizes, 2, "3 x 0");
  }
  {
    CSR a = {0, 4, (PetscInt *)rp0, NULL, NULL};
    CheckMatrix(&a, dict_sizes, 2, "0 x 4");
  }
  /* -0.0 goes through the dictionary as +0.0 with the sign bit, exactly */
  {
    const PetscInt    rp[] = {0, 2}, col[] = {0, 1};
    const PetscScalar v[]  = {0.0, FromBits(special_bits[1])};
    CIHybridFormat    f;
    CIHybridCompressed c;

    CHECK(CIHybridBuildFromCSR(1, 2, rp, col, v, CIHYBRID_SPLIT_ENTRIES, 2, &f) == CIHYBRID_OK && CIHybridCompress(&f, NULL, &c) == CIHYBRID_COMPRESS_OK, "-0.0: build");
    CHECK(c.dict_count == 1 && Bits(c.dict[0]) == 0 && c.ell_code[0] == 0 && c.ell_code[1] == CIHYBRID_CODE_SIGN && c.nnz_explicit == 0, "-0.0: codes %#x %#x, %d entries", c.ell_code[0], c.ell_code[1], (int)c.dict_count);
    CIHybridCompressedFree(&c);
    CIHybridFormatFree(&f);
  }
}

static void TestArguments(void)
{
  const PetscInt          rp[] = {0, 2, 3}, col[] = {0, 2, 1};
  const PetscScalar       v[]  = {1, -2, 3};
  const PetscInt          bad_sizes[] = {0, 3, 65536, -4, 12};
  CIHybridFormat          f, l;
  CIHybridCompressed      c;
  CIHybridCompressOptions opts;

  CIHybridCompressOptionsDefault(&opts);
  CHECK(opts.dict_size == 4096, "default dictionary size %d", (int)opts.dict_size);
  CHECK(CIHybridBuildFromCSR(2, 3, rp, col, v, CIHYBRID_SPLIT_ENTRIES, 1, &f) == CIHYBRID_OK, "arguments: build");
  for (int k = 0; k < 5; k++) {
    opts.dict_size = bad_sizes[k];
    CHECK(CIHybridCompress(&f, &opts, &c) == CIHYBRID_COMPRESS_ERR_ARGUMENT && !c.dict && !c.ell_code, "dictionary size %d accepted", (int)bad_sizes[k]);
  }
  /* a layout without its arrays */
  CHECK(CIHybridLayoutFromCSR(2, 3, rp, col, CIHYBRID_SPLIT_ENTRIES, 1, &l) == CIHYBRID_OK, "arguments: layout");
  CHECK(CIHybridCompress(&l, NULL, &c) == CIHYBRID_COMPRESS_ERR_ARGUMENT && !c.ell_code, "a layout without arrays accepted");
  CIHybridFormatFree(&l);
  /* columns not ascending (a format damaged by hand): refused, nothing kept */
  f.csr_col[0] = 0;
  CHECK(CIHybridCompress(&f, NULL, &c) == CIHYBRID_COMPRESS_ERR_ARGUMENT && !c.ell_code && !c.expl_val, "a row with columns 0, 0 accepted");
  CIHybridFormatFree(&f);
  for (int s = CIHYBRID_COMPRESS_OK; s <= CIHYBRID_COMPRESS_ERR_UNSUPPORTED; s++) CHECK(strlen(CIHybridCompressStatusString((CIHybridCompressStatus)s)) > 5, "status %d has no message", s);
  CHECK(strstr(CIHybridCompressStatusString(CIHYBRID_COMPRESS_ERR_UNSUPPORTED), "complex") != NULL, "the unsupported status does not name complex scalars");
}

/* The comparisons above must be able to fail: a compressed matrix damaged in its dictionary or
   in its explicit values decodes and multiplies differently, and the checks say so. */
static void TestChecksCanFail(void)
{
  const ValueMix     mix = {4, 0.3, 0.0};
  CSR                a;
  CIHybridFormat     f;
  CIHybridCompressed c;

  CIHybridCompressOptions opts = {2}; /* two magnitudes: the rest explicit */

  RandomCSR(30, 30, 0.4, &mix, &a);
  CHECK(CIHybridBuildFromCSR(a.m, a.n, a.rowptr, a.col, a.val, CIHYBRID_SPLIT_ENTRIES, 3, &f) == CIHYBRID_OK && CIHybridCompress(&f, &opts, &c) == CIHYBRID_COMPRESS_OK, "damage: build");
  CHECK(c.dict_count > 0 && c.nnz_explicit > 0, "damage: the matrix needs both dictionary and explicit values");
  CHECK(!DecodeDiffers(&f, &c, "damage", 1) && !ProductsDiffer(&f, &c, PETSC_FALSE, 0, "damage", 1), "damage: the intact matrix differs");
  if (c.dict_count > 0 && c.nnz_explicit > 0) {
    c.dict[0] = FromBits(Bits(c.dict[0]) ^ 1); /* one ulp */
    CHECK(DecodeDiffers(&f, &c, "damage", 0) && ProductsDiffer(&f, &c, PETSC_FALSE, 0, "damage", 0) && ProductsDiffer(&f, &c, PETSC_TRUE, 0, "damage", 0), "a dictionary entry one ulp off is not caught");
    c.dict[0] = FromBits(Bits(c.dict[0]) ^ 1);
    c.expl_val[c.nnz_explicit - 1] = -c.expl_val[c.nnz_explicit - 1];
    CHECK(DecodeDiffers(&f, &c, "damage", 0) && ProductsDiffer(&f, &c, PETSC_FALSE, 0, "damage", 0), "a negated explicit value is not caught");
  }
  CIHybridCompressedFree(&c);
  CIHybridFormatFree(&f);
  CSRFree(&a);
}

/* ---------------------------------------------------------------------------------------- */
/* a CI Hamiltonian                                                                          */

static void PrintStats(const char *name, const CIHybridFormat *f, const CIHybridCompressed *c)
{
  CIHybridCompressStats s;

  CIHybridCompressedGetStats(c, &s);
  printf("%s: %d rows, %lld nonzeros, %s split, boundary %d (ELL width %d, %lld padding slots, %lld nonzeros in the remainder)\n", name, (int)f->nrows, (long long)s.nnz, f->split == CIHYBRID_SPLIT_ENTRIES ? "entries" : "columns", (int)f->boundary, (int)f->width, (long long)s.padding, (long long)f->nnz_csr);
  printf("  dictionary %d of %d entries, coding %.2f%% of the nonzeros; %lld explicit values; %lld column escapes\n", (int)s.dict_count, (int)s.dict_size, 100 * s.dict_coverage, (long long)s.nnz_explicit, (long long)s.escapes);
  printf("  bytes per nonzero: %.3f compressed, %.3f plain (12 a slot, padding and row offsets included); bytes per product with x and y: %.0f compressed, %.0f plain\n", s.bytes_per_nonzero, s.plain_bytes_per_nonzero, s.bytes_per_mult, CIHybridBytesPerMult(f));
}

  #if defined(GPUMATS_TEST_FCI)
/* The Hamiltonian of an FCIDUMP as CSR (default determinant space, nothing dropped), as
   ci_eigen makes it. */
static PetscErrorCode FCIMatrix(const char *path, CSR *a)
{
  FCIIntegrals      *ints;
  FCIDetSpaceOptions o;
  FCIDetSpace       *sp;
  FCIRowGenerator    gen;
  PetscInt          *len, n;
  PetscInt64        *offset;

  PetscFunctionBeginUser;
  PetscCall(FCIDumpRead(PETSC_COMM_SELF, path, &ints));
  PetscCall(FCIDetSpaceOptionsDefault(&o));
  PetscCall(FCIDetSpaceCreate(ints, &o, &sp));
  PetscCall(FCIDetSpaceGetSize(sp, &n));
  PetscCall(FCIRowGeneratorCreate(ints, sp, 0.0, &gen));
  PetscCall(PetscMalloc2(n, &len, n + 1, &offset));
  PetscCall(FCIRowGeneratorCountRows(gen, 0, n, 0, n, len, NULL, NULL, NULL));
  offset[0] = 0;
  for (PetscInt i = 0; i < n; i++) offset[i + 1] = offset[i] + len[i];
  PetscCheck(offset[n] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt64_FMT " nonzeros: more than PetscInt holds", offset[n]);
  a->m      = n;
  a->n      = n;
  a->rowptr = (PetscInt *)Alloc((size_t)n + 1, sizeof(PetscInt));
  a->col    = (PetscInt *)Alloc((size_t)offset[n], sizeof(PetscInt));
  a->val    = (PetscScalar *)Alloc((size_t)offset[n], sizeof(PetscScalar));
  for (PetscInt i = 0; i <= n; i++) a->rowptr[i] = (PetscInt)offset[i];
  PetscCall(FCIRowGeneratorGetRows(gen, 0, n, offset, a->col, a->val));
  PetscCall(PetscFree2(len, offset));
  PetscCall(FCIRowGeneratorDestroy(&gen));
  PetscCall(FCIDetSpaceDestroy(&sp));
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

/* The statistics and every check on the Hamiltonian: the Mat type's default layout (entries
   split, automatic boundary) with the default dictionary, then the columns split and other
   dictionary sizes. */
static PetscErrorCode TestFCI(const char *path)
{
  const PetscInt dict_sizes[] = {0, 256, 32768};
  CSR            a;
  const char    *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

  PetscFunctionBeginUser;
  PetscCall(FCIMatrix(path, &a));
  for (int layout = 0; layout < 2; layout++) {
    const CIHybridSplit split    = layout ? CIHYBRID_SPLIT_COLUMNS : CIHYBRID_SPLIT_ENTRIES;
    const PetscInt      boundary = layout ? a.n / 10 : CIHybridChooseBoundary(a.m, a.rowptr, NULL); /* the Mat type's automatic choices */
    CIHybridFormat      f;

    PetscCheck(CIHybridBuildFromCSR(a.m, a.n, a.rowptr, a.col, a.val, split, boundary, &f) == CIHYBRID_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "plain build of %s failed", name);
    for (int d = 0; d < 3; d++) {
      CIHybridCompressOptions opts;
      CIHybridCompressed      c;
      char                    what[PETSC_MAX_PATH_LEN + 64];

      opts.dict_size = dict_sizes[d] ? dict_sizes[d] : CIHYBRID_DICT_DEFAULT;
      snprintf(what, sizeof(what), "%s, %s split, dictionary %d", name, layout ? "columns" : "entries", (int)opts.dict_size);
      CheckCompressed(&f, dict_sizes[d], what);
      if (CIHybridCompress(&f, &opts, &c) == CIHYBRID_COMPRESS_OK) {
        PrintStats(what, &f, &c);
        CIHybridCompressedFree(&c);
      }
    }
    CIHybridFormatFree(&f);
  }
  CSRFree(&a);
  PetscFunctionReturn(0);
}
  #endif

static PetscErrorCode Main(int argc, char **argv)
{
  char      fcidump[PETSC_MAX_PATH_LEN];
  PetscBool has_fcidump;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fcidump", fcidump, sizeof(fcidump), &has_fcidump));
  if (has_fcidump) {
  #if defined(GPUMATS_TEST_FCI)
    PetscCall(TestFCI(fcidump));
  #else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-fcidump: this test was built without the FCI library (-Dexamples=false)");
  #endif
  } else {
    TestArguments();
    TestSmall();
    TestGaps();
    TestRandom();
    TestChecksCanFail();
  }
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  PetscCall(PetscFinalize());
  PetscFunctionReturn(failures ? PETSC_ERR_PLIB : 0);
}

#else /* complex, single or quad scalars: compression is refused, with a message that says why */

static PetscErrorCode Main(int argc, char **argv)
{
  const PetscInt         rp[] = {0, 1}, col[] = {0};
  const PetscScalar      v[]  = {1};
  CIHybridFormat         f;
  CIHybridCompressed     c;
  CIHybridCompressStatus st;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  CHECK(CIHybridBuildFromCSR(1, 1, rp, col, v, CIHYBRID_SPLIT_ENTRIES, 1, &f) == CIHYBRID_OK, "build");
  st = CIHybridCompress(&f, NULL, &c);
  CHECK(st == CIHYBRID_COMPRESS_ERR_UNSUPPORTED && !c.ell_code, "compression of non-real-double scalars was not refused");
  printf("refused as it should: %s\n", CIHybridCompressStatusString(st));
  CIHybridFormatFree(&f);
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  PetscCall(PetscFinalize());
  PetscFunctionReturn(failures ? PETSC_ERR_PLIB : 0);
}

#endif

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
