/* CSR -> CIHYBRID: the split, the arrays, the value refresh, the byte model.
   Plain C: no PETSc calls, so it can be unit-tested on its own. */
#include <gpumats_cihybrid_format.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *CIHybridStatusString(CIHybridStatus s)
{
  switch (s) {
  case CIHYBRID_OK:
    return "success";
  case CIHYBRID_ERR_MEMORY:
    return "host memory allocation failed";
  case CIHYBRID_ERR_INDEX_OVERFLOW:
    return "a size does not fit the 32-bit device indices";
  case CIHYBRID_ERR_ARGUMENT:
    return "invalid argument";
  }
  return "unknown status";
}

/* in 64 bits: a row of nearly 2^31 entries must not wrap (the slot check reports it) */
static PetscInt64 RoundUp(PetscInt64 w, PetscInt64 a)
{
  return ((w + a - 1) / a) * a;
}

/* Number of ELL entries of a row: a prefix of the sorted row either way. */
static PetscInt RowSplit(const PetscInt *cols, PetscInt len, CIHybridSplit split, PetscInt boundary)
{
  PetscInt s = 0;

  if (split == CIHYBRID_SPLIT_ENTRIES) return len < boundary ? len : boundary;
  while (s < len && cols[s] < boundary) s++;
  return s;
}

void CIHybridFormatFreeArrays(CIHybridFormat *fmt)
{
  free(fmt->ell_col);
  free(fmt->ell_val);
  free(fmt->csr_col);
  free(fmt->csr_val);
  fmt->ell_col = NULL;
  fmt->ell_val = NULL;
  fmt->csr_col = NULL;
  fmt->csr_val = NULL;
}

/* Every array, the layout's too; the sizes stay (for the caller's error message). */
static void FreeEveryArray(CIHybridFormat *fmt)
{
  CIHybridFormatFreeArrays(fmt);
  free(fmt->csr_start);
  free(fmt->ell_len);
  fmt->csr_start = NULL;
  fmt->ell_len   = NULL;
}

void CIHybridFormatFree(CIHybridFormat *fmt)
{
  FreeEveryArray(fmt);
  memset(fmt, 0, sizeof(*fmt));
}

static void *AllocArray(size_t count, size_t size)
{
  return malloc(count ? count * size : 1); /* never NULL for a valid empty array */
}

/* The sizes and statistics that follow from the split; an error, with the arrays freed, when
   they do not fit the device's int32 indices (before the big arrays are allocated: an absurd
   boundary must not try to allocate). */
static CIHybridStatus LayoutSizes(CIHybridFormat *fmt, PetscInt64 width, PetscInt64 nnz_ell, PetscInt64 nnz_csr, PetscInt64 maxlen)
{
  const PetscInt64 pitch = RoundUp(width, width >= CIHYBRID_PITCH_ALIGN ? CIHYBRID_PITCH_ALIGN : CIHYBRID_PITCH_ALIGN_NARROW);
  const PetscInt64 slots = fmt->nrows ? (PetscInt64)fmt->nrows * pitch : 0;

  fmt->width       = (PetscInt)width;
  fmt->pitch       = (PetscInt)PetscMin(pitch, (PetscInt64)PETSC_MAX_INT);
  fmt->nnz_ell     = nnz_ell;
  fmt->nnz_csr     = nnz_csr;
  fmt->max_row_len = maxlen;
  fmt->padding     = (PetscInt64)fmt->nrows * fmt->width - nnz_ell;
  if (slots > INT_MAX || fmt->nnz_csr > INT_MAX) {
    FreeEveryArray(fmt);
    return CIHYBRID_ERR_INDEX_OVERFLOW;
  }
  return CIHYBRID_OK;
}

CIHybridStatus CIHybridLayoutFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt)
{
  PetscInt64 width = 0, nnz_ell = 0, maxlen = 0, csr = 0;
  PetscInt   i;

  memset(fmt, 0, sizeof(*fmt));
  if (nrows < 0 || ncols < 0 || boundary < 0) return CIHYBRID_ERR_ARGUMENT;
  if (split != CIHYBRID_SPLIT_ENTRIES && split != CIHYBRID_SPLIT_COLUMNS) return CIHYBRID_ERR_ARGUMENT;
  if ((PetscInt64)nrows > INT_MAX || (PetscInt64)ncols > INT_MAX) return CIHYBRID_ERR_INDEX_OVERFLOW;
  /* the columns split reads the columns; a matrix with no entries may have none (NULL) */
  if (split == CIHYBRID_SPLIT_COLUMNS && !colidx && nrows && rowptr[nrows] > rowptr[0]) return CIHYBRID_ERR_ARGUMENT;
  fmt->nrows    = nrows;
  fmt->ncols    = ncols;
  fmt->split    = split;
  fmt->boundary = boundary;
  fmt->nnz      = nrows ? rowptr[nrows] - rowptr[0] : 0;
  fmt->ell_len  = (int32_t *)AllocArray((size_t)nrows, sizeof(int32_t));
  fmt->csr_start = (int32_t *)AllocArray((size_t)nrows + 1, sizeof(int32_t));
  if (!fmt->ell_len || !fmt->csr_start) {
    FreeEveryArray(fmt);
    return CIHYBRID_ERR_MEMORY;
  }
  fmt->csr_start[0] = 0;
  for (i = 0; i < nrows; i++) { /* one pass: checked, split, counted */
    const PetscInt len = rowptr[i + 1] - rowptr[i];
    PetscInt       s;

    if (len < 0) {
      FreeEveryArray(fmt);
      return CIHYBRID_ERR_ARGUMENT;
    }
    s = RowSplit(colidx ? colidx + rowptr[i] : NULL, len, split, boundary); /* colidx NULL: entries split */
    if (s > width) width = s;
    if (len > maxlen) maxlen = len;
    if (len > s) fmt->rows_with_csr++;
    nnz_ell += s;
    csr += len - s;
    fmt->ell_len[i] = (int32_t)s;
    fmt->csr_start[i + 1] = (int32_t)(csr <= INT_MAX ? csr : 0); /* an overflow is reported below */
  }
  return LayoutSizes(fmt, width, nnz_ell, csr, maxlen);
}

/* The layout of the entries split from sums over the rows that the device made: sizes and
   statistics, no arrays (the device holds them). */
CIHybridStatus CIHybridLayoutFromSums(PetscInt nrows, PetscInt ncols, PetscInt boundary, PetscInt64 nnz, PetscInt64 width, PetscInt64 nnz_ell, PetscInt64 rows_with_csr, PetscInt64 max_row_len, CIHybridFormat *fmt)
{
  memset(fmt, 0, sizeof(*fmt));
  if (nrows < 0 || ncols < 0 || boundary < 0 || nnz < nnz_ell) return CIHYBRID_ERR_ARGUMENT;
  if ((PetscInt64)nrows > INT_MAX || (PetscInt64)ncols > INT_MAX) return CIHYBRID_ERR_INDEX_OVERFLOW;
  fmt->nrows         = nrows;
  fmt->ncols         = ncols;
  fmt->split         = CIHYBRID_SPLIT_ENTRIES;
  fmt->boundary      = boundary;
  fmt->nnz           = nnz;
  fmt->rows_with_csr = rows_with_csr;
  return LayoutSizes(fmt, width, nnz_ell, nnz - nnz_ell, max_row_len);
}

CIHybridStatus CIHybridLayoutCopy(const CIHybridFormat *src, CIHybridFormat *dst)
{
  const size_t nrows = (size_t)src->nrows;

  *dst           = *src;
  dst->ell_col   = NULL;
  dst->ell_val   = NULL;
  dst->csr_col   = NULL;
  dst->csr_val   = NULL;
  if (!src->csr_start) return CIHYBRID_OK; /* a layout made on the device: none on the host either */
  dst->ell_len   = (int32_t *)AllocArray(nrows, sizeof(int32_t));
  dst->csr_start = (int32_t *)AllocArray(nrows + 1, sizeof(int32_t));
  if (!dst->ell_len || !dst->csr_start) {
    FreeEveryArray(dst);
    return CIHYBRID_ERR_MEMORY;
  }
  if (nrows) memcpy(dst->ell_len, src->ell_len, nrows * sizeof(int32_t));
  memcpy(dst->csr_start, src->csr_start, (nrows + 1) * sizeof(int32_t));
  return CIHYBRID_OK;
}

CIHybridStatus CIHybridFillFromCSR(const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridFormat *fmt)
{
  const size_t slots = (size_t)fmt->nrows * (size_t)fmt->pitch;
  PetscInt     i, k;

  CIHybridFormatFreeArrays(fmt);
  for (i = 0; i < fmt->nrows; i++)
    for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
      if (colidx[k] < 0 || colidx[k] >= fmt->ncols) return CIHYBRID_ERR_ARGUMENT;
      if (k > rowptr[i] && colidx[k] <= colidx[k - 1]) return CIHYBRID_ERR_ARGUMENT;
    }
  fmt->ell_col = (int32_t *)AllocArray(slots, sizeof(int32_t));
  fmt->ell_val = (PetscScalar *)AllocArray(slots, sizeof(PetscScalar));
  fmt->csr_col = (int32_t *)AllocArray((size_t)fmt->nnz_csr, sizeof(int32_t));
  fmt->csr_val = (PetscScalar *)AllocArray((size_t)fmt->nnz_csr, sizeof(PetscScalar));
  if (!fmt->ell_col || !fmt->ell_val || !fmt->csr_col || !fmt->csr_val) {
    CIHybridFormatFreeArrays(fmt);
    return CIHYBRID_ERR_MEMORY;
  }
  for (i = 0; i < fmt->nrows; i++) {
    const PetscInt *cols = colidx + rowptr[i];
    const PetscInt  len = rowptr[i + 1] - rowptr[i], s = fmt->ell_len[i];
    int32_t        *ecol = fmt->ell_col + (size_t)i * fmt->pitch;
    PetscInt        p;

    for (p = 0; p < s; p++) ecol[p] = (int32_t)cols[p];
    for (p = s; p < fmt->pitch; p++) ecol[p] = -1;
    for (p = s; p < len; p++) fmt->csr_col[fmt->csr_start[i] + p - s] = (int32_t)cols[p];
  }
  return CIHybridRefreshValues(rowptr, vals, fmt);
}

CIHybridStatus CIHybridBuildFromCSR(PetscInt nrows, PetscInt ncols, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, CIHybridSplit split, PetscInt boundary, CIHybridFormat *fmt)
{
  CIHybridStatus status = CIHybridLayoutFromCSR(nrows, ncols, rowptr, colidx, split, boundary, fmt);

  if (status == CIHYBRID_OK) status = CIHybridFillFromCSR(rowptr, colidx, vals, fmt);
  if (status != CIHYBRID_OK) FreeEveryArray(fmt);
  return status;
}

CIHybridStatus CIHybridRefreshValues(const PetscInt *rowptr, const PetscScalar *vals, CIHybridFormat *fmt)
{
  PetscInt i, p;

  for (i = 0; i < fmt->nrows; i++) {
    const PetscScalar *v    = vals + rowptr[i];
    PetscInt           len  = rowptr[i + 1] - rowptr[i], s = fmt->ell_len[i];
    PetscScalar       *eval = fmt->ell_val + (size_t)i * fmt->pitch;

    if (len - s != fmt->csr_start[i + 1] - fmt->csr_start[i]) return CIHYBRID_ERR_ARGUMENT; /* structure changed */
    for (p = 0; p < s; p++) eval[p] = v[p];
    for (p = s; p < fmt->pitch; p++) eval[p] = 0;
    for (p = s; p < len; p++) fmt->csr_val[fmt->csr_start[i] + p - s] = v[p];
  }
  return CIHYBRID_OK;
}

/* Bytes one SpMV moves from DRAM for a given split, counted in 32-byte sectors
   since that is the unit a warp's loads are served in:
     ELL part, every row: ceil(8*W/32) value sectors + ceil(4*W/32) column
       sectors, padding included (rows start sector-aligned);
     CSR part of a row with m > 0 remainder entries: 8m+4m bytes plus, on
       average, 24+28 bytes for the partial sectors at its unaligned ends, and
       the 8 bytes of its csr_start pair.
   x and y traffic does not depend on the split and is left out.  Padding
   costs 12 bytes a slot, misalignment ~60 bytes a row: the best W is where a
   longer ELL part stops paying for its padding. */
static double SplitBytes(const PetscInt64 *hist, PetscInt maxlen, PetscInt64 nrows, PetscInt w)
{
  double   bytes = (double)nrows * 32.0 * (double)((8 * (PetscInt64)w + 31) / 32 + (4 * (PetscInt64)w + 31) / 32);
  PetscInt len;

  for (len = w + 1; len <= maxlen; len++) {
    if (hist[len]) bytes += (double)hist[len] * (12.0 * (double)(len - w) + 52.0 + 8.0);
  }
  return bytes;
}

PetscInt CIHybridChooseBoundary(PetscInt nrows, const PetscInt *rowptr, double *bytes_model)
{
  PetscInt64 *hist;
  PetscInt    maxlen = 0, cap = 1024, i, best;

  /* the histogram of the row lengths in one pass, grown as longer rows come */
  hist = (PetscInt64 *)calloc((size_t)cap, sizeof(PetscInt64));
  for (i = 0; hist && i < nrows; i++) {
    const PetscInt len = rowptr[i + 1] - rowptr[i];

    if (len >= cap) {
      const PetscInt grown = PetscMax(2 * cap, len + 1);
      PetscInt64    *more  = (PetscInt64 *)realloc(hist, (size_t)grown * sizeof(PetscInt64));

      if (!more) free(hist);
      hist = more;
      if (!hist) break;
      memset(hist + cap, 0, (size_t)(grown - cap) * sizeof(PetscInt64));
      cap = grown;
    }
    if (len > maxlen) maxlen = len;
    if (len >= 0) hist[len]++;
  }
  if (!hist) {
    if (bytes_model) *bytes_model = -1;
    return 0;
  }
  best = CIHybridChooseBoundaryFromHistogram(hist, maxlen, nrows, bytes_model);
  free(hist);
  return best;
}

PetscInt CIHybridChooseBoundaryFromHistogram(const PetscInt64 *hist, PetscInt maxlen, PetscInt nrows, double *bytes_model)
{
  PetscInt w, best = 0, step;
  double   best_bytes = SplitBytes(hist, maxlen, nrows, 0);

  /* candidates: every width for short rows, else multiples of 8, at most ~512 of them */
  step = 1;
  if (maxlen > 512) step = CIHYBRID_PITCH_ALIGN_NARROW;
  while (maxlen / step > 512) step *= 2;
  for (w = step; w <= maxlen + step - 1; w += step) {
    double b = SplitBytes(hist, maxlen, nrows, w);
    if (b < best_bytes) {
      best_bytes = b;
      best       = w;
    }
  }
  if (best > maxlen) best = maxlen;
  if (bytes_model) *bytes_model = best_bytes;
  return best;
}

/* Bytes one SpMV moves with the built format, as the model above counts them,
   plus x and y. */
double CIHybridBytesPerMult(const CIHybridFormat *fmt)
{
  double bytes = (double)fmt->nrows * (double)fmt->width * (sizeof(PetscScalar) + sizeof(int32_t));

  bytes += (double)fmt->nnz_csr * (sizeof(PetscScalar) + sizeof(int32_t));
  bytes += (double)(fmt->nrows + 1) * sizeof(int32_t);
  bytes += (double)(fmt->ncols + fmt->nrows) * sizeof(PetscScalar);
  return bytes;
}
