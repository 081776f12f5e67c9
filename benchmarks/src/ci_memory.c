static char help[] = "Memory of CSR, ELLPACK, sliced ELLPACK and CIHYBRID for CI matrices (the analog of\n"
                     "Table 5 of Mahmoud, Hoffmann, Reza, Computation 6(3) 45, 2018).\n\n"
                     "Every matrix is generated row by row into host CSR (no Mat); the sizes are then counted\n"
                     "from the actual arrays, 8-byte values and 4-byte indices:\n"
                     "  CSR      nnz*(8+4) + (n+1)*4\n"
                     "  ELL      n*maxlen*(8+4)                         (maxlen: longest row)\n"
                     "  SELL-32  sum over slices of 32 rows of 32*maxlen_slice*(8+4) + (nslices+1)*4\n"
                     "  CIHYBRID the arrays of CIHybridBuildFromCSR (src/cihybrid/cihybrid_builder.c) with the\n"
                     "           automatic BOUNDARY (CIHybridChooseBoundary), entries split:\n"
                     "             ELL part  n*pitch*(8+4) + n*4 (ell_col, ell_val, ell_len)\n"
                     "             CSR part  nnz_csr*(8+4) + (n+1)*4 (csr_col, csr_val, csr_start)\n"
                     "           and the paper's formula n*W*(8+4) + nnz_csr*(8+4) + (n+1)*4 (W = ELL width,\n"
                     "           no pitch alignment, no ell_len).\n"
                     "  compressed  that format compressed (gpumats_cihybrid_compress.h, -mat_cihybrid_compress full):\n"
                     "           n*pitch*(2+2) + nnz_csr*(2+2) + 3*(n+1)*4 + explicit values*8 + escapes*4\n"
                     "           + dictionary*8, what its device copy allocates (one dictionary a block\n"
                     "           with -block_rows)\n\n"
                     "Options:\n"
                     "  -matrices <list>   comma-separated, from: syn32k, syn128k, syn1m, n2_sto3g, h2o_sto2g,\n"
                     "                     hubbard34, h2o_631g (default: all of them, in that order)\n"
                     "  -data_dir <dir>    folder of the FCIDUMP files (default: the project's ../shared/data/fcidump)\n"
                     "  -csv <file>        also write the results as CSV (one line a matrix)\n"
                     "  -block_rows <m>    build the hybrid format in blocks of m rows (default: as many rows as\n"
                     "                     keep one block's ELL arrays under 4 GB; the totals are those of one build)\n"
                     "  -seed <2018>       seed of the synthetic matrices (as bench_cihybrid)\n"
                     "  -fci_ordering lexical|excitation, -fci_reference lowest|aufbau   (determinants.h)\n\n";

#include <petscsys.h>
#include <petsctime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <gpumats_cihybrid_format.h>
#include <gpumats_cihybrid_compress.h>
#include "ci_synthetic.h"
#include "fci.h"

#if !defined(CI_MEMORY_DATA_DIR)
  #define CI_MEMORY_DATA_DIR "../shared/data/fcidump"
#endif

#define SELL_SLICE 32
#define VAL_BYTES  ((PetscInt64)sizeof(PetscScalar))
#define IDX_BYTES  ((PetscInt64)sizeof(int32_t))

/* A row source: synthetic generator or FCI row generator. */
typedef struct {
  PetscInt        n, maxlen;
  PetscInt64      nnz_hint; /* expected nonzeros (0: unknown) */
  CISyntheticSpec syn;
  FCIRowGenerator gen; /* NULL for synthetic */
} RowSource;

static PetscErrorCode RowSourceGetRow(RowSource *src, PetscInt i, PetscInt *nz, PetscInt *cols, PetscScalar *vals)
{
  PetscFunctionBeginUser;
  if (src->gen) PetscCall(FCIRowGeneratorGetRow(src->gen, i, nz, cols, vals));
  else CISyntheticRow(&src->syn, i, nz, cols, vals);
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt     n;
  PetscInt    *rowptr; /* n+1 */
  PetscInt    *cols;
  PetscScalar *vals;
  PetscInt64   cap;
} HostCSR;

static void HostCSRFree(HostCSR *A)
{
  free(A->rowptr);
  free(A->cols);
  free(A->vals);
  memset(A, 0, sizeof(*A));
}

static PetscErrorCode HostCSRReserve(HostCSR *A, PetscInt64 need)
{
  PetscInt64   cap;
  PetscInt    *c;
  PetscScalar *v;

  PetscFunctionBeginUser;
  if (need <= A->cap) PetscFunctionReturn(0);
  cap = A->cap ? A->cap + A->cap / 2 : 1 << 20;
  if (cap < need) cap = need;
  if (cap > PETSC_MAX_INT) cap = PETSC_MAX_INT;
  PetscCheck(need <= cap, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d nonzeros: needs 64-bit PetscInt", (int)PETSC_MAX_INT);
  c = (PetscInt *)realloc(A->cols, (size_t)cap * sizeof(PetscInt));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot grow the CSR arrays to %" PetscInt64_FMT " nonzeros", cap);
  A->cols = c;
  v       = (PetscScalar *)realloc(A->vals, (size_t)cap * sizeof(PetscScalar));
  PetscCheck(v, PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot grow the CSR arrays to %" PetscInt64_FMT " nonzeros", cap);
  A->vals = v;
  A->cap  = cap;
  PetscFunctionReturn(0);
}

/* All rows of src into A (columns ascending, as the generators give them). */
static PetscErrorCode HostCSRGenerate(RowSource *src, HostCSR *A)
{
  PetscInt64   nnz = 0;
  PetscInt     i, nz;
  PetscInt    *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  memset(A, 0, sizeof(*A));
  A->n      = src->n;
  A->rowptr = (PetscInt *)malloc(((size_t)src->n + 1) * sizeof(PetscInt));
  PetscCheck(A->rowptr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory");
  PetscCall(PetscMalloc2(src->maxlen, &cols, src->maxlen, &vals));
  if (src->nnz_hint > 0) PetscCall(HostCSRReserve(A, src->nnz_hint));
  A->rowptr[0] = 0;
  for (i = 0; i < src->n; i++) {
    PetscCall(RowSourceGetRow(src, i, &nz, cols, vals));
    PetscCall(HostCSRReserve(A, nnz + nz));
    memcpy(A->cols + nnz, cols, (size_t)nz * sizeof(PetscInt));
    memcpy(A->vals + nnz, vals, (size_t)nz * sizeof(PetscScalar));
    nnz += nz;
    A->rowptr[i + 1] = (PetscInt)nnz;
  }
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(0);
}

typedef struct {
  char       name[64];
  PetscInt64 n, nnz, maxlen;
  double     gen_s, build_s;
  /* CSR, ELL, SELL-32 */
  PetscInt64 csr_bytes, ell_bytes, sell_bytes, ell_slots, sell_slots;
  /* CIHYBRID */
  PetscInt   boundary, width, pitch, nblocks;
  PetscInt64 nnz_ell, nnz_csr, hyb_slots, hyb_pad_counted, rows_with_csr;
  PetscInt64 hyb_ell_bytes, hyb_csr_bytes, paper_bytes;
  /* CIHYBRID compressed */
  PetscInt64 cmp_bytes, cmp_dict_nnz;
  double     compress_s;
} MemResult;

static PetscInt PitchOf(PetscInt width)
{
  const PetscInt a = width >= CIHYBRID_PITCH_ALIGN ? CIHYBRID_PITCH_ALIGN : CIHYBRID_PITCH_ALIGN_NARROW;
  return ((width + a - 1) / a) * a;
}

static PetscErrorCode MeasureFormats(const HostCSR *A, PetscInt block_rows, MemResult *r)
{
  const PetscInt  n = A->n;
  const PetscInt *rp = A->rowptr;
  PetscInt        i, s, r0;
  PetscInt64      maxlen = 0, nslices = (n + SELL_SLICE - 1) / SELL_SLICE;
  PetscLogDouble  t0, t1;

  PetscFunctionBeginUser;
  r->n   = n;
  r->nnz = rp[n];
  for (i = 0; i < n; i++)
    if (rp[i + 1] - rp[i] > maxlen) maxlen = rp[i + 1] - rp[i];
  r->maxlen    = maxlen;
  r->csr_bytes = r->nnz * (VAL_BYTES + IDX_BYTES) + ((PetscInt64)n + 1) * IDX_BYTES;
  r->ell_slots = (PetscInt64)n * maxlen;
  r->ell_bytes = r->ell_slots * (VAL_BYTES + IDX_BYTES);
  r->sell_slots = 0;
  for (s = 0; s < nslices; s++) {
    PetscInt64 m = 0;
    for (i = s * SELL_SLICE; i < n && i < (s + 1) * SELL_SLICE; i++)
      if (rp[i + 1] - rp[i] > m) m = rp[i + 1] - rp[i];
    r->sell_slots += SELL_SLICE * m; /* the last slice is padded to 32 rows too */
  }
  r->sell_bytes = r->sell_slots * (VAL_BYTES + IDX_BYTES) + (nslices + 1) * IDX_BYTES;

  /* CIHYBRID with the library's automatic boundary, built by the library's builder */
  PetscCall(PetscTime(&t0));
  r->boundary = CIHybridChooseBoundary(n, rp, NULL);
  if (block_rows <= 0) {
    /* ELL arrays of one block under 4 GB: the width is at most min(boundary, maxlen) */
    PetscInt64 w = PitchOf((PetscInt)(r->boundary < maxlen ? r->boundary : maxlen));
    PetscInt64 m = w > 0 ? (PetscInt64)4000000000LL / (w * (VAL_BYTES + IDX_BYTES)) : n;
    block_rows   = (PetscInt)(m >= n ? n : (m < 1024 ? 1024 : m));
  }
  if (block_rows > n) block_rows = n;
  if (block_rows < 1) block_rows = 1;
  r->width = 0;
  r->nnz_ell = r->nnz_csr = r->hyb_pad_counted = r->rows_with_csr = 0;
  r->nblocks = 0;
  r->cmp_bytes = r->cmp_dict_nnz = 0;
  r->compress_s = 0;
  for (r0 = 0; r0 < n; r0 += block_rows) {
    const PetscInt  m = n - r0 < block_rows ? n - r0 : block_rows;
    CIHybridFormat         fmt;
    CIHybridStatus         st;
    CIHybridCompressed     cmp;
    CIHybridCompressStatus cst;
    PetscLogDouble         c0, c1;
    PetscInt64             k, pad = 0;

    st = CIHybridBuildFromCSR(m, n, rp + r0, A->cols, A->vals, CIHYBRID_SPLIT_ENTRIES, r->boundary, &fmt);
    PetscCheck(st == CIHYBRID_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "CIHybridBuildFromCSR (rows %" PetscInt_FMT "..%" PetscInt_FMT "): %s", r0, r0 + m, CIHybridStatusString(st));
    /* counted from the arrays themselves: padding slots hold column -1, csr_start ends at nnz_csr */
    for (k = 0; k < (PetscInt64)fmt.nrows * fmt.pitch; k++) pad += fmt.ell_col[k] < 0;
    PetscCheck(pad == (PetscInt64)fmt.nrows * fmt.pitch - fmt.nnz_ell, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELL padding %" PetscInt64_FMT " != %" PetscInt64_FMT, pad, (PetscInt64)fmt.nrows * fmt.pitch - fmt.nnz_ell);
    PetscCheck(fmt.csr_start[fmt.nrows] == fmt.nnz_csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "csr_start ends at %d, nnz_csr %" PetscInt64_FMT, (int)fmt.csr_start[fmt.nrows], fmt.nnz_csr);
    if (fmt.width > r->width) r->width = fmt.width;
    r->nnz_ell += fmt.nnz_ell;
    r->nnz_csr += fmt.nnz_csr;
    r->rows_with_csr += fmt.rows_with_csr;
    r->hyb_pad_counted += pad;
    r->nblocks++;
    PetscCall(PetscTime(&c0));
    cst = CIHybridCompress(&fmt, NULL, &cmp);
    PetscCall(PetscTime(&c1));
    PetscCheck(cst == CIHYBRID_COMPRESS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "CIHybridCompress (rows %" PetscInt_FMT "..%" PetscInt_FMT "): %s", r0, r0 + m, CIHybridCompressStatusString(cst));
    r->compress_s += c1 - c0;
    r->cmp_bytes += (PetscInt64)cmp.nrows * cmp.pitch * 4 + cmp.nnz_csr * 4 + 3 * ((PetscInt64)cmp.nrows + 1) * IDX_BYTES + cmp.nnz_explicit * VAL_BYTES + cmp.escapes * IDX_BYTES + (PetscInt64)cmp.dict_count * VAL_BYTES;
    r->cmp_dict_nnz += cmp.nnz_dict;
    CIHybridCompressedFree(&cmp);
    CIHybridFormatFree(&fmt);
  }
  PetscCall(PetscTime(&t1));
  r->build_s = t1 - t0 - r->compress_s;
  PetscCheck(r->nnz_ell + r->nnz_csr == r->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Hybrid holds %" PetscInt64_FMT " nonzeros, CSR %" PetscInt64_FMT, r->nnz_ell + r->nnz_csr, r->nnz);
  /* one build of the whole matrix allocates n rows of the widest block's pitch */
  r->pitch         = PitchOf(r->width);
  r->hyb_slots     = (PetscInt64)n * r->pitch;
  r->hyb_ell_bytes = r->hyb_slots * (VAL_BYTES + IDX_BYTES) + (PetscInt64)n * IDX_BYTES;
  r->hyb_csr_bytes = r->nnz_csr * (VAL_BYTES + IDX_BYTES) + ((PetscInt64)n + 1) * IDX_BYTES;
  r->paper_bytes   = (PetscInt64)n * r->width * (VAL_BYTES + IDX_BYTES) + r->nnz_csr * (VAL_BYTES + IDX_BYTES) + ((PetscInt64)n + 1) * IDX_BYTES;
  PetscFunctionReturn(0);
}

static double MB(PetscInt64 b)
{
  return (double)b / 1e6;
}

static double Pct(PetscInt64 part, PetscInt64 whole)
{
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- the matrices ---- */

typedef enum {
  SRC_SYNTHETIC,
  SRC_FCIDUMP,
  SRC_HUBBARD
} SourceKind;

typedef struct {
  const char *key;
  const char *label;
  SourceKind  kind;
  PetscInt    n;                        /* synthetic */
  double      ref_density, density;     /* synthetic (ref_fraction 0.1, non-symmetric) */
  const char *file;                     /* FCIDUMP */
  PetscInt    sector;                   /* FCIDUMP */
} MatrixCase;

static const MatrixCase cases[] = {
  {"syn32k", "synthetic 32768", SRC_SYNTHETIC, 32768, 0.2, 0.01, NULL, 0},
  {"syn128k", "synthetic 131072", SRC_SYNTHETIC, 131072, 0.05, 0.0025, NULL, 0},
  {"syn1m", "synthetic 1048576", SRC_SYNTHETIC, 1048576, 0.00625, 0.0003125, NULL, 0},
  {"n2_sto3g", "N2 STO-3G (full)", SRC_FCIDUMP, 0, 0, 0, "N2.STO3G.FCIDUMP", FCI_SECTOR_NONE},
  {"h2o_sto2g", "H2O STO-2G (full)", SRC_FCIDUMP, 0, 0, 0, "H2O.STO2G.INTDUMP", FCI_SECTOR_NONE},
  {"hubbard34", "Hubbard 3x4 U=8 (full)", SRC_HUBBARD, 0, 0, 0, NULL, 0},
  {"h2o_631g", "H2O 6-31G (ISYM sector)", SRC_FCIDUMP, 0, 0, 0, "H2O.631G.FCIDUMP", FCI_SECTOR_ISYM},
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* Builds the CSR of case c; *skip set (and a reason printed) when its data file is missing. */
static PetscErrorCode BuildCase(const MatrixCase *c, const char *data_dir, unsigned long seed, HostCSR *A, PetscBool *skip)
{
  RowSource          src;
  FCIIntegrals      *ints  = NULL;
  FCIDetSpace       *space = NULL;
  FCIDetSpaceOptions opts;

  PetscFunctionBeginUser;
  *skip = PETSC_FALSE;
  memset(&src, 0, sizeof(src));
  if (c->kind == SRC_SYNTHETIC) {
    const double R = floor(0.1 * (double)c->n + 0.5);
    src.syn.n            = c->n;
    src.syn.ref_fraction = 0.1;
    src.syn.ref_density  = c->ref_density;
    src.syn.density      = c->density;
    src.syn.symmetric    = PETSC_FALSE;
    src.syn.seed         = seed;
    src.n                = c->n;
    src.maxlen           = CISyntheticMaxRowLength(&src.syn);
    src.nnz_hint         = (PetscInt64)((double)c->n * (1.0 + R * c->ref_density + ((double)c->n - R) * c->density) * 1.002);
  } else {
    if (c->kind == SRC_FCIDUMP) {
      char path[PETSC_MAX_PATH_LEN];
      FILE *f;
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", data_dir, c->file));
      f = fopen(path, "r");
      if (!f) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: %s not found, skipped\n", c->label, path));
        *skip = PETSC_TRUE;
        PetscFunctionReturn(0);
      }
      fclose(f);
      PetscCall(FCIDumpRead(PETSC_COMM_SELF, path, &ints));
    } else {
      const FCIHubbardSpec hs = {3, 4, PETSC_FALSE, PETSC_FALSE, 1.0, 8.0, 6, 6, FCI_HUBBARD_WRAP_BOND};
      PetscCall(FCIHubbardCreate(&hs, &ints));
    }
    PetscCall(FCIDetSpaceOptionsDefault(&opts));
    PetscCall(FCIDetSpaceOptionsSetFromOptions(PETSC_COMM_SELF, NULL, &opts));
    opts.sector = c->sector;
    PetscCall(FCIDetSpaceCreate(ints, &opts, &space));
    PetscCall(FCIRowGeneratorCreate(ints, space, 0.0, &src.gen));
    PetscCall(FCIDetSpaceGetSize(space, &src.n));
    PetscCall(FCIRowGeneratorGetMaxRowLength(src.gen, &src.maxlen));
  }
  PetscCall(HostCSRGenerate(&src, A));
  if (src.gen) PetscCall(FCIRowGeneratorDestroy(&src.gen));
  if (space) PetscCall(FCIDetSpaceDestroy(&space));
  if (ints) PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

static PetscErrorCode PrintTables(const MemResult *res, int nres)
{
  int k;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nMemory in MB (10^6 bytes), 8-byte values, 4-byte indices; padding = padded slots / stored slots.\n\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix | n | nnz | avg / max row | BOUNDARY (pitch) | CSR | ELL | SELL-32 | hybrid: ELL part + CSR part = total | paper's formula | compressed | padding %% ELL / SELL-32 / hybrid |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---|---|---|---|---|---|---|---|---|---|---|\n"));
  for (k = 0; k < nres; k++) {
    const MemResult *r = &res[k];
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %" PetscInt64_FMT " | %" PetscInt64_FMT " | %.1f / %" PetscInt64_FMT " | %" PetscInt_FMT " (%" PetscInt_FMT ") | %.2f | %.2f | %.2f | %.2f + %.2f = %.2f | %.2f | %.2f | %.1f / %.1f / %.1f |\n", r->name, r->n, r->nnz,
                          r->n ? (double)r->nnz / (double)r->n : 0.0, r->maxlen, r->boundary, r->pitch, MB(r->csr_bytes), MB(r->ell_bytes), MB(r->sell_bytes), MB(r->hyb_ell_bytes), MB(r->hyb_csr_bytes),
                          MB(r->hyb_ell_bytes + r->hyb_csr_bytes), MB(r->paper_bytes), MB(r->cmp_bytes), Pct(r->ell_slots - r->nnz, r->ell_slots), Pct(r->sell_slots - r->nnz, r->sell_slots), Pct(r->hyb_slots - r->nnz_ell, r->hyb_slots)));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nRelative to CSR (= 1.00), and where the nonzeros go:\n\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix | ELL | SELL-32 | hybrid | paper's formula | compressed (dictionary coverage) | nnz in ELL part | rows with a CSR part | generate s | hybrid build s | compress s |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---|---|---|---|---|---|---|---|---|---|\n"));
  for (k = 0; k < nres; k++) {
    const MemResult *r   = &res[k];
    const double     csr = (double)r->csr_bytes;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.2f | %.2f | %.3f | %.3f | %.3f (%.1f%%) | %.1f%% | %.1f%% | %.1f | %.1f%s | %.1f |\n", r->name, (double)r->ell_bytes / csr, (double)r->sell_bytes / csr, (double)(r->hyb_ell_bytes + r->hyb_csr_bytes) / csr, (double)r->paper_bytes / csr,
                          (double)r->cmp_bytes / csr, Pct(r->cmp_dict_nnz, r->nnz), Pct(r->nnz_ell, r->nnz), Pct(r->rows_with_csr, r->n), r->gen_s, r->build_s, r->nblocks > 1 ? " (blocks)" : "", r->compress_s));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteCSV(const char *file, const MemResult *res, int nres)
{
  FILE *f;
  int   k;

  PetscFunctionBeginUser;
  f = fopen(file, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", file);
  fprintf(f, "matrix,n,nnz,avg_row,max_row,boundary,width,pitch,nnz_ell,nnz_csr,csr_bytes,ell_bytes,sell32_bytes,hyb_ell_bytes,hyb_csr_bytes,hyb_bytes,paper_formula_bytes,pad_ell_pct,pad_sell32_pct,pad_hyb_pct,gen_s,build_s,compressed_bytes,dict_coverage_pct,compress_s\n");
  for (k = 0; k < nres; k++) {
    const MemResult *r = &res[k];
    fprintf(f, "\"%s\",%lld,%lld,%.2f,%lld,%d,%d,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.2f,%.2f,%.2f,%.2f,%.2f,%lld,%.2f,%.2f\n", r->name, (long long)r->n, (long long)r->nnz, r->n ? (double)r->nnz / (double)r->n : 0.0, (long long)r->maxlen, (int)r->boundary, (int)r->width, (int)r->pitch, (long long)r->nnz_ell,
            (long long)r->nnz_csr, (long long)r->csr_bytes, (long long)r->ell_bytes, (long long)r->sell_bytes, (long long)r->hyb_ell_bytes, (long long)r->hyb_csr_bytes, (long long)(r->hyb_ell_bytes + r->hyb_csr_bytes), (long long)r->paper_bytes, Pct(r->ell_slots - r->nnz, r->ell_slots),
            Pct(r->sell_slots - r->nnz, r->sell_slots), Pct(r->hyb_slots - r->nnz_ell, r->hyb_slots), r->gen_s, r->build_s, (long long)r->cmp_bytes, Pct(r->cmp_dict_nnz, r->nnz), r->compress_s);
  }
  PetscCheck(fclose(f) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", file);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char           data_dir[PETSC_MAX_PATH_LEN] = CI_MEMORY_DATA_DIR, csv[PETSC_MAX_PATH_LEN] = "";
  char          *names[NCASES];
  PetscInt       nnames = NCASES, block_rows = 0, seed = 2018, k;
  PetscBool      has_csv, has_list;
  MemResult      res[NCASES];
  int            nres = 0, c;
  PetscLogDouble t_start, t_end;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscTime(&t_start));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-data_dir", data_dir, sizeof(data_dir), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), &has_csv));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-block_rows", &block_rows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", names, &nnames, &has_list));
  if (!has_list) nnames = 0;

  for (c = 0; c < NCASES; c++) {
    PetscBool want = has_list ? PETSC_FALSE : PETSC_TRUE, skip;
    HostCSR   A;
    MemResult *r = &res[nres];
    PetscLogDouble t0, t1;

    for (k = 0; k < nnames; k++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(names[k], cases[c].key, &eq));
      if (eq) want = PETSC_TRUE;
    }
    if (!want) continue;
    memset(r, 0, sizeof(*r));
    PetscCall(PetscStrncpy(r->name, cases[c].label, sizeof(r->name)));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: generating rows...\n", cases[c].label));
    PetscCall(PetscTime(&t0));
    PetscCall(BuildCase(&cases[c], data_dir, (unsigned long)seed, &A, &skip));
    if (skip) continue;
    PetscCall(PetscTime(&t1));
    r->gen_s = t1 - t0;
    PetscCall(MeasureFormats(&A, block_rows, r));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  n %" PetscInt64_FMT ", nnz %" PetscInt64_FMT " (%.1f a row, longest %" PetscInt64_FMT "), generated in %.1f s; BOUNDARY %" PetscInt_FMT ", width %" PetscInt_FMT ", pitch %" PetscInt_FMT ", built in %.1f s (%" PetscInt_FMT " block%s)\n", r->n, r->nnz,
                          r->n ? (double)r->nnz / (double)r->n : 0.0, r->maxlen, r->gen_s, r->boundary, r->width, r->pitch, r->build_s, r->nblocks, r->nblocks > 1 ? "s" : ""));
    HostCSRFree(&A);
    nres++;
  }
  for (k = 0; k < nnames; k++) {
    PetscBool found = PETSC_FALSE, eq;
    for (c = 0; c < NCASES; c++) {
      PetscCall(PetscStrcmp(names[k], cases[c].key, &eq));
      if (eq) found = PETSC_TRUE;
    }
    if (!found) PetscCall(PetscPrintf(PETSC_COMM_SELF, "Warning: -matrices %s: no such matrix\n", names[k]));
    PetscCall(PetscFree(names[k]));
  }
  PetscCall(PrintTables(res, nres));
  if (has_csv && csv[0]) PetscCall(WriteCSV(csv, res, nres));
  PetscCall(PetscTime(&t_end));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nTotal run time %.1f s\n", t_end - t_start));
  PetscCall(PetscFinalize());
  return 0;
}
