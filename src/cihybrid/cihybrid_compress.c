/* CIHYBRID -> its compressed form (value dictionary, 16-bit column gaps), the decode back, the
   statistics and the host kernels.  Plain C: no PETSc calls, so it can be unit-tested on its own.
   The layout is described in gpumats_cihybrid_compress.h. */
#include <gpumats_cihybrid_compress.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #define CIHYBRID_COMPRESS_SUPPORTED 1
#else
  #define CIHYBRID_COMPRESS_SUPPORTED 0
#endif

const char *CIHybridCompressStatusString(CIHybridCompressStatus s)
{
  switch (s) {
  case CIHYBRID_COMPRESS_OK:
    return "success";
  case CIHYBRID_COMPRESS_ERR_MEMORY:
    return "host memory allocation failed";
  case CIHYBRID_COMPRESS_ERR_INDEX_OVERFLOW:
    return "more explicit values or column escapes than 32-bit offsets hold";
  case CIHYBRID_COMPRESS_ERR_ARGUMENT:
    return "invalid argument (format not filled, columns not ascending, or a dictionary size that is not a power of two in 1..32768)";
  case CIHYBRID_COMPRESS_ERR_UNSUPPORTED:
    return "the compressed cihybrid format needs real double-precision scalars; this PETSc is built with complex or non-double scalars";
  }
  return "unknown status";
}

void CIHybridCompressOptionsDefault(CIHybridCompressOptions *opts)
{
  opts->dict_size = CIHYBRID_DICT_DEFAULT;
}

void CIHybridCompressedFree(CIHybridCompressed *cmp)
{
  free(cmp->dict);
  free(cmp->ell_code);
  free(cmp->ell_gap);
  free(cmp->csr_start);
  free(cmp->csr_code);
  free(cmp->csr_gap);
  free(cmp->expl_start);
  free(cmp->expl_val);
  free(cmp->esc_start);
  free(cmp->esc_col);
  memset(cmp, 0, sizeof(*cmp));
}

void CIHybridCompressedGetStats(const CIHybridCompressed *cmp, CIHybridCompressStats *st)
{
  const double rows = (double)cmp->nrows, slots = rows * (double)cmp->width;

  memset(st, 0, sizeof(*st));
  st->dict_size     = cmp->dict_size;
  st->dict_count    = cmp->dict_count;
  st->nnz           = cmp->nnz;
  st->nnz_dict      = cmp->nnz_dict;
  st->nnz_explicit  = cmp->nnz_explicit;
  st->escapes       = cmp->escapes;
  st->padding       = cmp->padding;
  st->dict_coverage = cmp->nnz ? (double)cmp->nnz_dict / (double)cmp->nnz : 1.0;
  /* code + gap of every ELL slot up to the width and of every remainder entry; three row
     offsets; the side arrays; the dictionary, read once */
  st->matrix_bytes = (slots + (double)cmp->nnz_csr) * 2 * sizeof(uint16_t) + 3 * (rows + 1) * sizeof(int32_t);
  st->matrix_bytes += (double)cmp->nnz_explicit * sizeof(double) + (double)cmp->escapes * sizeof(int32_t) + (double)cmp->dict_count * sizeof(double);
  st->bytes_per_mult          = st->matrix_bytes + (rows + (double)cmp->ncols) * sizeof(PetscScalar);
  st->bytes_per_nonzero       = cmp->nnz ? st->matrix_bytes / (double)cmp->nnz : 0;
  st->plain_matrix_bytes      = (slots + (double)cmp->nnz_csr) * (sizeof(PetscScalar) + sizeof(int32_t)) + (rows + 1) * sizeof(int32_t);
  st->plain_bytes_per_nonzero = cmp->nnz ? st->plain_matrix_bytes / (double)cmp->nnz : 0;
}

#if CIHYBRID_COMPRESS_SUPPORTED

  #define SIGN_BIT  ((uint64_t)1 << 63)
  #define INF_BITS  ((uint64_t)0x7ff0000000000000ULL)
  #define EMPTY_KEY UINT64_MAX /* a magnitude never has the sign bit */

static void *AllocArray(size_t count, size_t size)
{
  return malloc(count ? count * size : 1); /* never NULL for a valid empty array */
}

static inline uint64_t Bits(double v)
{
  uint64_t b;

  memcpy(&b, &v, sizeof(b));
  return b;
}

static inline double FromBits(uint64_t b)
{
  double v;

  memcpy(&v, &b, sizeof(v));
  return v;
}

/* the value of a code: the sign as a bit operation, exact for every magnitude (-0.0, -Inf) */
static inline double CodeValue(const double *dict, const double *expl, PetscInt64 *e, uint16_t code)
{
  if (code == CIHYBRID_CODE_EXPLICIT) return expl[(*e)++];
  return FromBits(Bits(dict[code & CIHYBRID_CODE_INDEX]) | ((uint64_t)(code >> 15) << 63));
}

static inline int32_t GapColumn(const int32_t *esc, PetscInt64 *q, int32_t prev, uint16_t gap)
{
  return gap == CIHYBRID_GAP_ESCAPE ? esc[(*q)++] : prev + (int32_t)gap;
}

/* ---- the magnitudes and their counts: open addressing, grown at half load ---- */

typedef struct {
  uint64_t *key;
  int64_t  *val; /* the count (all magnitudes), or the dictionary index (the dictionary's table) */
  size_t    cap, used;
} MagTable;

static size_t Hash(uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return (size_t)k;
}

static int TableInit(MagTable *t, size_t cap)
{
  t->cap  = cap;
  t->used = 0;
  t->key  = (uint64_t *)malloc(cap * sizeof(uint64_t));
  t->val  = (int64_t *)malloc(cap * sizeof(int64_t));
  if (!t->key || !t->val) return 0;
  memset(t->key, 0xff, cap * sizeof(uint64_t)); /* EMPTY_KEY */
  return 1;
}

static void TableFree(MagTable *t)
{
  free(t->key);
  free(t->val);
  t->key = NULL;
  t->val = NULL;
}

/* the slot of k, or the empty slot where it would go */
static size_t TableSlot(const MagTable *t, uint64_t k)
{
  size_t s = Hash(k) & (t->cap - 1);

  while (t->key[s] != k && t->key[s] != EMPTY_KEY) s = (s + 1) & (t->cap - 1);
  return s;
}

static int TableGrow(MagTable *t)
{
  MagTable big;
  size_t   s;

  if (!TableInit(&big, 2 * t->cap)) {
    TableFree(&big);
    return 0;
  }
  for (s = 0; s < t->cap; s++) {
    if (t->key[s] != EMPTY_KEY) {
      const size_t d = TableSlot(&big, t->key[s]);

      big.key[d] = t->key[s];
      big.val[d] = t->val[s];
    }
  }
  big.used = t->used;
  TableFree(t);
  *t = big;
  return 1;
}

static int TableCount(MagTable *t, uint64_t k)
{
  size_t s;

  if (2 * (t->used + 1) > t->cap && !TableGrow(t)) return 0;
  s = TableSlot(t, k);
  if (t->key[s] == EMPTY_KEY) {
    t->key[s] = k;
    t->val[s] = 0;
    t->used++;
  }
  t->val[s]++;
  return 1;
}

static inline int IsNaN(uint64_t b)
{
  return (b & ~SIGN_BIT) > INF_BITS;
}

/* Counts the magnitudes of the stored entries; NaN stays out (always explicit). */
static int CountMagnitudes(const CIHybridFormat *fmt, MagTable *t)
{
  PetscInt i, p;

  for (i = 0; i < fmt->nrows; i++) {
    const size_t off = (size_t)i * fmt->pitch;

    for (p = 0; p < fmt->ell_len[i]; p++)
      if (!IsNaN(Bits(fmt->ell_val[off + p])) && !TableCount(t, Bits(fmt->ell_val[off + p]) & ~SIGN_BIT)) return 0;
    for (p = fmt->csr_start[i]; p < fmt->csr_start[i + 1]; p++)
      if (!IsNaN(Bits(fmt->csr_val[p])) && !TableCount(t, Bits(fmt->csr_val[p]) & ~SIGN_BIT)) return 0;
  }
  return 1;
}

typedef struct {
  uint64_t key;
  int64_t  count;
} MagCount;

/* most frequent first; equal counts by magnitude, so the dictionary does not depend on the hash */
static int CompareMagCount(const void *a, const void *b)
{
  const MagCount *x = (const MagCount *)a, *y = (const MagCount *)b;

  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->key < y->key ? -1 : (x->key > y->key ? 1 : 0);
}

/* The dictionary: the 'limit' most frequent magnitudes into cmp->dict. */
static CIHybridCompressStatus ChooseDictionary(MagTable *t, size_t limit, CIHybridCompressed *cmp)
{
  MagCount *all = (MagCount *)AllocArray(t->used, sizeof(MagCount));
  size_t    s, n = 0, k;

  if (!all) return CIHYBRID_COMPRESS_ERR_MEMORY;
  for (s = 0; s < t->cap; s++) {
    if (t->key[s] == EMPTY_KEY) continue;
    all[n].key   = t->key[s];
    all[n].count = t->val[s];
    n++;
  }
  qsort(all, n, sizeof(MagCount), CompareMagCount);
  cmp->dict_count = (PetscInt)(n < limit ? n : limit);
  cmp->dict       = (double *)AllocArray((size_t)cmp->dict_count, sizeof(double));
  if (!cmp->dict) {
    free(all);
    return CIHYBRID_COMPRESS_ERR_MEMORY;
  }
  for (k = 0; k < (size_t)cmp->dict_count; k++) cmp->dict[k] = FromBits(all[k].key);
  free(all);
  return CIHYBRID_COMPRESS_OK;
}

/* The dictionary's own table, magnitude -> index, at most a quarter full: the codes are looked
   up there, a table that stays in cache, not in the table of every magnitude (millions in a CI
   Hamiltonian), so the encoding does not miss the cache once an entry. */
static int DictionaryTable(const CIHybridCompressed *cmp, MagTable *d)
{
  size_t cap = 16, k;

  while (cap < 4 * (size_t)cmp->dict_count) cap *= 2;
  if (!TableInit(d, cap)) return 0;
  for (k = 0; k < (size_t)cmp->dict_count; k++) {
    const size_t s = TableSlot(d, Bits(cmp->dict[k]));

    d->key[s] = Bits(cmp->dict[k]);
    d->val[s] = (int64_t)k;
    d->used++;
  }
  return 1;
}

/* ---- the codes and gaps ---- */

/* the code of v: its index in the dictionary's table d with the sign, or explicit */
static uint16_t ValueCode(const MagTable *d, double v)
{
  const uint64_t b = Bits(v);
  size_t         s;

  if (IsNaN(b)) return CIHYBRID_CODE_EXPLICIT;
  s = TableSlot(d, b & ~SIGN_BIT);
  if (d->key[s] == EMPTY_KEY) return CIHYBRID_CODE_EXPLICIT;
  return (uint16_t)((b & SIGN_BIT ? CIHYBRID_CODE_SIGN : 0) | (uint16_t)d->val[s]);
}

/* Entries off..off+n-1 of the arrays (a row's ELL part or its remainder), continuing from
   column *prev (*first: none yet); counts the row's explicit values and escapes.  Indices, not
   shifted pointers: an empty part may have NULL arrays.  Columns must rise. */
static CIHybridCompressStatus EncodeEntries(const MagTable *t, PetscInt ncols, const int32_t *col, const PetscScalar *val, size_t off, PetscInt n, int32_t *prev, PetscBool *first, uint16_t *code, uint16_t *gap, int32_t *nexpl, int32_t *nesc)
{
  size_t k;

  for (k = off; k < off + (size_t)n; k++) {
    const PetscInt64 g = (PetscInt64)col[k] - *prev;

    if (col[k] < 0 || col[k] >= ncols || g < 0 || (g == 0 && !*first)) return CIHYBRID_COMPRESS_ERR_ARGUMENT;
    gap[k]  = g <= CIHYBRID_GAP_MAX ? (uint16_t)g : (uint16_t)CIHYBRID_GAP_ESCAPE;
    code[k] = ValueCode(t, val[k]);
    if (gap[k] == CIHYBRID_GAP_ESCAPE) (*nesc)++;
    if (code[k] == CIHYBRID_CODE_EXPLICIT) (*nexpl)++;
    *prev  = col[k];
    *first = PETSC_FALSE;
  }
  return CIHYBRID_COMPRESS_OK;
}

/* Codes and gaps of every row; expl_start[i+1] and esc_start[i+1] get the row's counts. */
static CIHybridCompressStatus EncodeRows(const CIHybridFormat *fmt, const MagTable *t, CIHybridCompressed *cmp)
{
  PetscInt i, p;

  for (i = 0; i < fmt->nrows; i++) {
    const size_t           off = (size_t)i * fmt->pitch, c0 = (size_t)fmt->csr_start[i];
    const PetscInt         s = fmt->ell_len[i], ncsr = fmt->csr_start[i + 1] - fmt->csr_start[i];
    int32_t                prev = 0, *nexpl = &cmp->expl_start[i + 1], *nesc = &cmp->esc_start[i + 1];
    PetscBool              first = PETSC_TRUE;
    CIHybridCompressStatus st;

    *nexpl = 0;
    *nesc  = 0;
    st     = EncodeEntries(t, fmt->ncols, fmt->ell_col, fmt->ell_val, off, s, &prev, &first, cmp->ell_code, cmp->ell_gap, nexpl, nesc);
    if (st == CIHYBRID_COMPRESS_OK) st = EncodeEntries(t, fmt->ncols, fmt->csr_col, fmt->csr_val, c0, ncsr, &prev, &first, cmp->csr_code, cmp->csr_gap, nexpl, nesc);
    if (st != CIHYBRID_COMPRESS_OK) return st;
    for (p = s; p < fmt->pitch; p++) {
      cmp->ell_code[off + p] = CIHYBRID_CODE_NONE;
      cmp->ell_gap[off + p]  = CIHYBRID_GAP_PAD;
    }
  }
  return CIHYBRID_COMPRESS_OK;
}

/* counts -> offsets, in 64 bits: the totals may pass INT_MAX */
static PetscInt64 PrefixSum(int32_t *start, PetscInt nrows)
{
  PetscInt64 sum = 0;
  PetscInt   i;

  start[0] = 0;
  for (i = 0; i < nrows; i++) {
    sum += start[i + 1];
    start[i + 1] = (int32_t)(sum <= INT_MAX ? sum : 0); /* an overflow is reported by the caller */
  }
  return sum;
}

/* the explicit values and escaped columns of entries off..off+n-1, in entry order */
static void FillSideEntries(const int32_t *col, const PetscScalar *val, const uint16_t *code, const uint16_t *gap, size_t off, PetscInt n, double *expl, int32_t *e, int32_t *esc, int32_t *q)
{
  size_t k;

  for (k = off; k < off + (size_t)n; k++) {
    if (code[k] == CIHYBRID_CODE_EXPLICIT) expl[(*e)++] = val[k];
    if (gap[k] == CIHYBRID_GAP_ESCAPE) esc[(*q)++] = col[k];
  }
}

static void FillSide(const CIHybridFormat *fmt, CIHybridCompressed *cmp)
{
  PetscInt i;

  for (i = 0; i < fmt->nrows; i++) {
    const size_t off = (size_t)i * fmt->pitch, c0 = (size_t)fmt->csr_start[i];
    int32_t      e = cmp->expl_start[i], q = cmp->esc_start[i];

    FillSideEntries(fmt->ell_col, fmt->ell_val, cmp->ell_code, cmp->ell_gap, off, fmt->ell_len[i], cmp->expl_val, &e, cmp->esc_col, &q);
    FillSideEntries(fmt->csr_col, fmt->csr_val, cmp->csr_code, cmp->csr_gap, c0, fmt->csr_start[i + 1] - fmt->csr_start[i], cmp->expl_val, &e, cmp->esc_col, &q);
  }
}

/* a filled format whose row offsets agree with its sizes */
static PetscBool FormatIsFilled(const CIHybridFormat *fmt)
{
  const size_t slots = (size_t)fmt->nrows * (size_t)fmt->pitch;
  PetscInt     i;

  if (fmt->nrows < 0 || fmt->ncols < 0 || fmt->width < 0 || fmt->pitch < fmt->width || fmt->nnz_csr < 0) return PETSC_FALSE;
  if (!fmt->ell_len || !fmt->csr_start || (slots && (!fmt->ell_col || !fmt->ell_val)) || (fmt->nnz_csr && (!fmt->csr_col || !fmt->csr_val))) return PETSC_FALSE;
  if (fmt->csr_start[0] != 0 || fmt->csr_start[fmt->nrows] != fmt->nnz_csr) return PETSC_FALSE;
  for (i = 0; i < fmt->nrows; i++)
    if (fmt->ell_len[i] < 0 || fmt->ell_len[i] > fmt->width || fmt->csr_start[i + 1] < fmt->csr_start[i]) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscBool PowerOfTwo(PetscInt n)
{
  return n > 0 && (n & (n - 1)) == 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* sizes, the arrays that do not depend on the counts, and the statistics of the layout */
static CIHybridCompressStatus AllocFixed(const CIHybridFormat *fmt, CIHybridCompressed *cmp)
{
  const size_t slots = (size_t)fmt->nrows * (size_t)fmt->pitch, rows = (size_t)fmt->nrows + 1;
  PetscInt     i;

  cmp->nrows      = fmt->nrows;
  cmp->ncols      = fmt->ncols;
  cmp->split      = fmt->split;
  cmp->boundary   = fmt->boundary;
  cmp->width      = fmt->width;
  cmp->pitch      = fmt->pitch;
  cmp->ell_code   = (uint16_t *)AllocArray(slots, sizeof(uint16_t));
  cmp->ell_gap    = (uint16_t *)AllocArray(slots, sizeof(uint16_t));
  cmp->csr_start  = (int32_t *)AllocArray(rows, sizeof(int32_t));
  cmp->csr_code   = (uint16_t *)AllocArray((size_t)fmt->nnz_csr, sizeof(uint16_t));
  cmp->csr_gap    = (uint16_t *)AllocArray((size_t)fmt->nnz_csr, sizeof(uint16_t));
  cmp->expl_start = (int32_t *)AllocArray(rows, sizeof(int32_t));
  cmp->esc_start  = (int32_t *)AllocArray(rows, sizeof(int32_t));
  if (!cmp->ell_code || !cmp->ell_gap || !cmp->csr_start || !cmp->csr_code || !cmp->csr_gap || !cmp->expl_start || !cmp->esc_start) return CIHYBRID_COMPRESS_ERR_MEMORY;
  memcpy(cmp->csr_start, fmt->csr_start, rows * sizeof(int32_t));
  cmp->nnz_csr = fmt->nnz_csr;
  for (i = 0; i < fmt->nrows; i++) cmp->nnz_ell += fmt->ell_len[i];
  cmp->nnz     = cmp->nnz_ell + cmp->nnz_csr;
  cmp->padding = (PetscInt64)fmt->nrows * fmt->width - cmp->nnz_ell;
  return CIHYBRID_COMPRESS_OK;
}

static CIHybridCompressStatus Compress(const CIHybridFormat *fmt, PetscInt dict_size, CIHybridCompressed *cmp)
{
  const size_t           limit = (size_t)(dict_size < CIHYBRID_DICT_MAX_ENTRIES ? dict_size : CIHYBRID_DICT_MAX_ENTRIES);
  MagTable               t, d;
  CIHybridCompressStatus st;

  cmp->dict_size = dict_size;
  st             = AllocFixed(fmt, cmp);
  if (st != CIHYBRID_COMPRESS_OK) return st;
  if (!TableInit(&t, 1024)) {
    TableFree(&t);
    return CIHYBRID_COMPRESS_ERR_MEMORY;
  }
  st = CountMagnitudes(fmt, &t) ? ChooseDictionary(&t, limit, cmp) : CIHYBRID_COMPRESS_ERR_MEMORY;
  TableFree(&t);
  if (st != CIHYBRID_COMPRESS_OK) return st;
  if (!DictionaryTable(cmp, &d)) st = CIHYBRID_COMPRESS_ERR_MEMORY;
  else st = EncodeRows(fmt, &d, cmp);
  TableFree(&d);
  if (st != CIHYBRID_COMPRESS_OK) return st;
  cmp->nnz_explicit = PrefixSum(cmp->expl_start, fmt->nrows);
  cmp->escapes      = PrefixSum(cmp->esc_start, fmt->nrows);
  cmp->nnz_dict     = cmp->nnz - cmp->nnz_explicit;
  if (cmp->nnz_explicit > INT_MAX || cmp->escapes > INT_MAX) return CIHYBRID_COMPRESS_ERR_INDEX_OVERFLOW;
  cmp->expl_val = (double *)AllocArray((size_t)cmp->nnz_explicit, sizeof(double));
  cmp->esc_col  = (int32_t *)AllocArray((size_t)cmp->escapes, sizeof(int32_t));
  if (!cmp->expl_val || !cmp->esc_col) return CIHYBRID_COMPRESS_ERR_MEMORY;
  FillSide(fmt, cmp);
  return CIHYBRID_COMPRESS_OK;
}

CIHybridCompressStatus CIHybridCompress(const CIHybridFormat *fmt, const CIHybridCompressOptions *opts, CIHybridCompressed *cmp)
{
  CIHybridCompressOptions defaults;
  CIHybridCompressStatus  st;

  memset(cmp, 0, sizeof(*cmp));
  if (!opts) {
    CIHybridCompressOptionsDefault(&defaults);
    opts = &defaults;
  }
  if (!PowerOfTwo(opts->dict_size) || opts->dict_size > CIHYBRID_DICT_MAX_SIZE || !FormatIsFilled(fmt)) return CIHYBRID_COMPRESS_ERR_ARGUMENT;
  st = Compress(fmt, opts->dict_size, cmp);
  if (st != CIHYBRID_COMPRESS_OK) CIHybridCompressedFree(cmp);
  return st;
}

/* ---- back to the plain arrays ---- */

static CIHybridCompressStatus DecodeAlloc(const CIHybridCompressed *cmp, CIHybridFormat *fmt)
{
  const size_t slots = (size_t)cmp->nrows * (size_t)cmp->pitch;

  fmt->nrows     = cmp->nrows;
  fmt->ncols     = cmp->ncols;
  fmt->split     = cmp->split;
  fmt->boundary  = cmp->boundary;
  fmt->width     = cmp->width;
  fmt->pitch     = cmp->pitch;
  fmt->ell_len   = (int32_t *)AllocArray((size_t)cmp->nrows, sizeof(int32_t));
  fmt->csr_start = (int32_t *)AllocArray((size_t)cmp->nrows + 1, sizeof(int32_t));
  fmt->ell_col   = (int32_t *)AllocArray(slots, sizeof(int32_t));
  fmt->ell_val   = (PetscScalar *)AllocArray(slots, sizeof(PetscScalar));
  fmt->csr_col   = (int32_t *)AllocArray((size_t)cmp->nnz_csr, sizeof(int32_t));
  fmt->csr_val   = (PetscScalar *)AllocArray((size_t)cmp->nnz_csr, sizeof(PetscScalar));
  if (!fmt->ell_len || !fmt->csr_start || !fmt->ell_col || !fmt->ell_val || !fmt->csr_col || !fmt->csr_val) return CIHYBRID_COMPRESS_ERR_MEMORY;
  memcpy(fmt->csr_start, cmp->csr_start, ((size_t)cmp->nrows + 1) * sizeof(int32_t));
  fmt->nnz_csr = cmp->nnz_csr;
  return CIHYBRID_COMPRESS_OK;
}

CIHybridCompressStatus CIHybridCompressedDecode(const CIHybridCompressed *cmp, CIHybridFormat *fmt)
{
  CIHybridCompressStatus st;
  PetscInt               i, p;

  memset(fmt, 0, sizeof(*fmt));
  st = DecodeAlloc(cmp, fmt);
  if (st != CIHYBRID_COMPRESS_OK) {
    CIHybridFormatFree(fmt);
    return st;
  }
  for (i = 0; i < cmp->nrows; i++) {
    const size_t     off = (size_t)i * cmp->pitch;
    const PetscInt64 len_csr = cmp->csr_start[i + 1] - cmp->csr_start[i];
    PetscInt64       e = cmp->expl_start[i], q = cmp->esc_start[i];
    int32_t          col = 0;

    for (p = 0; p < cmp->pitch && cmp->ell_gap[off + p] != CIHYBRID_GAP_PAD; p++) {
      col                   = GapColumn(cmp->esc_col, &q, col, cmp->ell_gap[off + p]);
      fmt->ell_col[off + p] = col;
      fmt->ell_val[off + p] = CodeValue(cmp->dict, cmp->expl_val, &e, cmp->ell_code[off + p]);
    }
    fmt->ell_len[i] = (int32_t)p;
    fmt->nnz_ell += p;
    for (; p < cmp->pitch; p++) {
      fmt->ell_col[off + p] = -1;
      fmt->ell_val[off + p] = 0;
    }
    for (p = cmp->csr_start[i]; p < cmp->csr_start[i + 1]; p++) {
      col              = GapColumn(cmp->esc_col, &q, col, cmp->csr_gap[p]);
      fmt->csr_col[p]  = col;
      fmt->csr_val[p]  = CodeValue(cmp->dict, cmp->expl_val, &e, cmp->csr_code[p]);
    }
    if (len_csr) fmt->rows_with_csr++;
    if (fmt->ell_len[i] + len_csr > fmt->max_row_len) fmt->max_row_len = fmt->ell_len[i] + len_csr;
  }
  fmt->nnz     = fmt->nnz_ell + fmt->nnz_csr;
  fmt->padding = (PetscInt64)fmt->nrows * fmt->width - fmt->nnz_ell;
  return CIHYBRID_COMPRESS_OK;
}

/* ---- host kernels: the plain kernels' loops, the entries decoded on the way ---- */

void CIHybridCompressedMultHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscInt i, p;

  for (i = 0; i < cmp->nrows; i++) {
    const uint16_t *ecode = cmp->ell_code + (size_t)i * cmp->pitch, *egap = cmp->ell_gap + (size_t)i * cmp->pitch;
    PetscInt64      e = cmp->expl_start[i], q = cmp->esc_start[i];
    int32_t         col = 0;
    PetscScalar     sum = y0 ? y0[i] : 0;

    /* the order of CIHybridMultHost: y0, the ELL prefix, then the remainder */
    for (p = 0; p < cmp->width && egap[p] != CIHYBRID_GAP_PAD; p++) {
      col = GapColumn(cmp->esc_col, &q, col, egap[p]);
      sum += CodeValue(cmp->dict, cmp->expl_val, &e, ecode[p]) * x[col];
    }
    for (p = cmp->csr_start[i]; p < cmp->csr_start[i + 1]; p++) {
      col = GapColumn(cmp->esc_col, &q, col, cmp->csr_gap[p]);
      sum += CodeValue(cmp->dict, cmp->expl_val, &e, cmp->csr_code[p]) * x[col];
    }
    y[i] = sum;
  }
}

void CIHybridCompressedMultTransposeHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  PetscInt i, p;

  /* as CIHybridMultTransposeHost: no memcpy/memset of 0 bytes (the arrays may be NULL) */
  if (cmp->ncols > 0) {
    if (y0 && y0 != y) memcpy(y, y0, (size_t)cmp->ncols * sizeof(PetscScalar));
    else if (!y0) memset(y, 0, (size_t)cmp->ncols * sizeof(PetscScalar));
  }
  for (i = 0; i < cmp->nrows; i++) {
    const uint16_t   *ecode = cmp->ell_code + (size_t)i * cmp->pitch, *egap = cmp->ell_gap + (size_t)i * cmp->pitch;
    const PetscScalar xi    = x[i];
    PetscInt64        e = cmp->expl_start[i], q = cmp->esc_start[i];
    int32_t           col = 0;

    for (p = 0; p < cmp->width && egap[p] != CIHYBRID_GAP_PAD; p++) {
      col = GapColumn(cmp->esc_col, &q, col, egap[p]);
      y[col] += CodeValue(cmp->dict, cmp->expl_val, &e, ecode[p]) * xi;
    }
    for (p = cmp->csr_start[i]; p < cmp->csr_start[i + 1]; p++) {
      col = GapColumn(cmp->esc_col, &q, col, cmp->csr_gap[p]);
      y[col] += CodeValue(cmp->dict, cmp->expl_val, &e, cmp->csr_code[p]) * xi;
    }
  }
}

#else /* complex, single or quad scalars */

CIHybridCompressStatus CIHybridCompress(const CIHybridFormat *fmt, const CIHybridCompressOptions *opts, CIHybridCompressed *cmp)
{
  memset(cmp, 0, sizeof(*cmp));
  return CIHYBRID_COMPRESS_ERR_UNSUPPORTED;
}

CIHybridCompressStatus CIHybridCompressedDecode(const CIHybridCompressed *cmp, CIHybridFormat *fmt)
{
  memset(fmt, 0, sizeof(*fmt));
  return CIHYBRID_COMPRESS_ERR_UNSUPPORTED;
}

/* No compressed matrix can be made in this build: NaN rather than a number that looks right. */
static void FillNaN(PetscInt n, PetscScalar *y)
{
  PetscInt i;

  for (i = 0; i < n; i++) y[i] = (PetscScalar)NAN;
}

void CIHybridCompressedMultHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  FillNaN(cmp->nrows, y);
}

void CIHybridCompressedMultTransposeHost(const CIHybridCompressed *cmp, const PetscScalar *x, const PetscScalar *y0, PetscScalar *y)
{
  FillNaN(cmp->ncols, y);
}

#endif
