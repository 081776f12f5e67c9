/* The compressed cihybrid form's device product (cuda/cihybrid/cihybrid_compress.cu) against
   its host product (CIHybridCompressedMultHost) and the plain format's (CIHybridMultHost):
   max |y_dev - y_host| <= 1e-12 (max |y_host| + 1) for each, the device summing in another
   order.  Random matrices (rows of 0 to hundreds of entries, some empty; few distinct values
   with some unique ones, +-0.0, no NaN or Inf; column gaps above 65533 that force escapes,
   first columns past 65533 too; more distinct values than the dictionary; more rows than one
   pass of the grid), 0 x 0, 0 x 5, 3 x 0, 1 x 1 (an entry or none); both splits with BOUNDARY
   0, the automatic one and one past every row; dictionaries of 1, 16 and the default 4096
   entries (and 32768 where more than 4096 are used: the global-memory dictionary); the
   dictionary in shared and in global memory; y0 NULL, distinct from y, and y itself, y
   poisoned with NaN first.  That a damaged dictionary is caught by the comparison, and that a
   dictionary too large for shared memory is refused there.
   Exit 77 (skipped) without a usable device; 1 when a check fails, each failure printed with
   its case. */
#include <gpumats_cihybrid_compress.h>
#include <petscsys.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testexit.h"
extern "C" {
#include "cuda/common/gpumats_cuda.h"
#include <gpumats_cihybrid_compress.h>
}

static const char help[] = "Tests the compressed cihybrid device product against the host products.\n";

static int failures = 0, checks = 0;

static unsigned long long rng_state = 4949;
static double             Uniform(void) /* [0, 1) */
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void *Alloc(size_t count, size_t size)
{
  void *p = malloc(count ? count * size : 1);

  if (!p) {
    fprintf(stderr, "test_cihybrid_compress_device: out of host memory\n");
    exit(1);
  }
  return p;
}

typedef struct {
  PetscInt     m, n, *rowptr, *col;
  PetscScalar *val;
} CSR;

static void CSRFree(CSR *a)
{
  free(a->rowptr);
  free(a->col);
  free(a->val);
  memset(a, 0, sizeof(*a));
}

/* How a random matrix is drawn */
typedef struct {
  PetscInt maxlen;  /* row lengths 0..maxlen (fewer where the columns run out) */
  double   empty;   /* share of rows left empty */
  PetscInt palette; /* distinct magnitudes of most values, the small ones the most frequent */
  double   fresh;   /* share of values drawn fresh (nearly all distinct) */
  double   far;     /* probability of a gap (or a first column) past 65533: an escape */
} Shape;

static double Value(const Shape *s)
{
  const double u = Uniform(), sign = Uniform() < 0.5 ? -1.0 : 1.0;

  if (u < 0.01) return sign * 0.0; /* +0.0 and -0.0 */
  if (u < 0.01 + s->fresh || s->palette < 1) return sign * Uniform();
  return sign * (1.0 + (double)(PetscInt)(pow(Uniform(), 3) * s->palette)) / (double)(s->palette + 1);
}

/* a gap of 1..8, or with probability far one around the escape: 65533 is the largest stored */
static PetscInt Gap(const Shape *s)
{
  static const PetscInt edge[] = {65533, 65534, 65535, 65536};

  if (Uniform() >= s->far) return 1 + (PetscInt)(Uniform() * 8);
  return Uniform() < 0.5 ? edge[(size_t)(Uniform() * 4)] : 65533 + (PetscInt)(Uniform() * 20000);
}

static void RandomCSR(PetscInt m, PetscInt n, const Shape *s, CSR *a)
{
  const size_t cap = (size_t)m * (size_t)s->maxlen;
  PetscInt     nnz = 0;

  a->m      = m;
  a->n      = n;
  a->rowptr = (PetscInt *)Alloc((size_t)m + 1, sizeof(PetscInt));
  a->col    = (PetscInt *)Alloc(cap, sizeof(PetscInt));
  a->val    = (PetscScalar *)Alloc(cap, sizeof(PetscScalar));
  a->rowptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt len = Uniform() < s->empty ? 0 : (PetscInt)(Uniform() * (s->maxlen + 1));
    PetscInt       c   = Uniform() < s->far ? Gap(s) : (PetscInt)(Uniform() * PetscMin(n, 64));

    for (PetscInt k = 0; k < len && c < n; k++, c += Gap(s)) {
      a->col[nnz]   = c;
      a->val[nnz++] = Value(s);
    }
    a->rowptr[i + 1] = nnz;
  }
}

static PetscInt MaxRowLength(const CSR *a)
{
  PetscInt len = 0;

  for (PetscInt i = 0; i < a->m; i++) len = PetscMax(len, a->rowptr[i + 1] - a->rowptr[i]);
  return len;
}

/* ---------------------------------------------------------------------------------------- */

/* max |yd - yh| <= 1e-12 (max |yh| + 1); a NaN in yd (a row not written) fails */
static void Compare(const PetscScalar *yd, const PetscScalar *yh, PetscInt n, const char *against, const char *what, int report)
{
  double   diff = 0, ref = 0;
  PetscInt worst = -1;

  for (PetscInt i = 0; i < n; i++) {
    const double d = fabs(yd[i] - yh[i]);

    ref = PetscMax(ref, fabs(yh[i]));
    if (!(d <= diff)) { /* NaN too */
      diff  = isnan(d) ? INFINITY : d;
      worst = i;
    }
  }
  checks++;
  if (!(diff <= 1e-12 * (ref + 1))) {
    failures++;
    if (report) fprintf(stderr, "FAIL %s: max |y_dev - y_%s| = %g > 1e-12 (max |y_host| + 1) = %g (row %d: device %.17g, host %.17g)\n", what, against, diff, 1e-12 * (ref + 1), (int)worst, yd[worst], yh[worst]);
  }
}

typedef struct {
  PetscInt     m, n;
  PetscScalar *x, *y0;         /* host */
  PetscScalar *dx, *dy0, *dy;  /* device */
  PetscScalar *yd;             /* the device result, downloaded */
} Vectors;

static const char *mode_name[] = {"y0 NULL", "y0 distinct", "y0 = y"};
static const char *place_name[] = {"dictionary auto", "dictionary in shared memory", "dictionary in global memory"};

/* y = A x (+ y0) on the device in 'mode' with the dictionary at 'place' */
static PetscErrorCode DeviceMult(CIHybridCompressedDevice dev, CIHybridCompressedDictPlace place, int mode, Vectors *v)
{
  const size_t bytes = (size_t)v->m * sizeof(PetscScalar);

  PetscFunctionBeginUser;
  if (mode == 2) PetscCall(GpuMatsCUDACopyToDevice(v->dy, v->y0, bytes));
  else PetscCall(GpuMatsCUDAMemset(v->dy, 0xff, bytes)); /* NaN: every row must be written */
  PetscCall(CIHybridCompressedDeviceMultDict(dev, place, v->dx, mode == 0 ? NULL : (mode == 1 ? v->dy0 : v->dy), v->dy));
  PetscCall(GpuMatsCUDASynchronize());
  PetscCall(GpuMatsCUDACopyToHost(v->yd, v->dy, bytes));
  PetscFunctionReturn(0);
}

/* one plain build: compressed with a dictionary of dict_size, uploaded, multiplied at every
   place in every mode, against both host products */
static PetscErrorCode CheckCompressed(const CIHybridFormat *f, PetscInt dict_size, Vectors *v, const char *what)
{
  CIHybridCompressOptions  opts = {dict_size};
  CIHybridCompressed       c;
  CIHybridCompressStatus   st;
  CIHybridCompressedDevice dev;
  PetscScalar             *yc[3], *yp[3];
  char                     name[512];

  PetscFunctionBeginUser;
  st = CIHybridCompress(f, &opts, &c);
  if (st != CIHYBRID_COMPRESS_OK) {
    failures++;
    fprintf(stderr, "FAIL %s: CIHybridCompress: %s\n", what, CIHybridCompressStatusString(st));
    PetscFunctionReturn(0);
  }
  for (int mode = 0; mode < 3; mode++) {
    yc[mode] = (PetscScalar *)Alloc((size_t)v->m, sizeof(PetscScalar));
    yp[mode] = (PetscScalar *)Alloc((size_t)v->m, sizeof(PetscScalar));
    if (mode == 2 && v->m) {
      memcpy(yc[mode], v->y0, (size_t)v->m * sizeof(PetscScalar));
      memcpy(yp[mode], v->y0, (size_t)v->m * sizeof(PetscScalar));
    }
    CIHybridCompressedMultHost(&c, v->x, mode == 0 ? NULL : (mode == 1 ? v->y0 : yc[mode]), yc[mode]);
    CIHybridMultHost(f, v->x, mode == 0 ? NULL : (mode == 1 ? v->y0 : yp[mode]), yp[mode]);
  }
  PetscCall(CIHybridCompressedDeviceCreate(&c, &dev));
  for (int place = 0; place < 3; place++) {
    if (place == CIHYBRID_COMPRESSED_DICT_SHARED && c.dict_count > CIHYBRID_COMPRESSED_SHARED_DICT_MAX) continue;
    for (int mode = 0; mode < 3; mode++) {
      snprintf(name, sizeof(name), "%s, dictionary %d (%d used, %lld explicit values, %lld escapes), %s, %s", what, (int)dict_size, (int)c.dict_count, (long long)c.nnz_explicit, (long long)c.escapes, place_name[place], mode_name[mode]);
      PetscCall(DeviceMult(dev, (CIHybridCompressedDictPlace)place, mode, v));
      Compare(v->yd, yc[mode], v->m, "compressed_host", name, 1);
      Compare(v->yd, yp[mode], v->m, "plain_host", name, 1);
    }
  }
  PetscCall(CIHybridCompressedDeviceDestroy(&dev));
  for (int mode = 0; mode < 3; mode++) free(yc[mode]), free(yp[mode]);
  CIHybridCompressedFree(&c);
  PetscFunctionReturn(0);
}

/* both splits, BOUNDARY 0, automatic and past every row, each dictionary size */
static PetscErrorCode CheckMatrix(const CSR *a, const PetscInt *dict_sizes, int ndict, const char *what)
{
  const PetscInt maxlen = MaxRowLength(a);
  Vectors        v;

  PetscFunctionBeginUser;
  v.m  = a->m;
  v.n  = a->n;
  v.x  = (PetscScalar *)Alloc((size_t)a->n, sizeof(PetscScalar));
  v.y0 = (PetscScalar *)Alloc((size_t)a->m, sizeof(PetscScalar));
  v.yd = (PetscScalar *)Alloc((size_t)a->m, sizeof(PetscScalar));
  for (PetscInt j = 0; j < a->n; j++) v.x[j] = 2 * Uniform() - 1;
  for (PetscInt i = 0; i < a->m; i++) v.y0[i] = 2 * Uniform() - 1;
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dx, (size_t)a->n * sizeof(PetscScalar), "test x"));
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dy0, (size_t)a->m * sizeof(PetscScalar), "test y0"));
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dy, (size_t)a->m * sizeof(PetscScalar), "test y"));
  PetscCall(GpuMatsCUDACopyToDevice(v.dx, v.x, (size_t)a->n * sizeof(PetscScalar)));
  PetscCall(GpuMatsCUDACopyToDevice(v.dy0, v.y0, (size_t)a->m * sizeof(PetscScalar)));
  for (int split = 0; split < 2; split++) {
    const PetscInt b[3] = {0, split ? a->n / 10 : (a->m ? CIHybridChooseBoundary(a->m, a->rowptr, NULL) : 0), split ? a->n + 1 : maxlen + 1};
    const char    *bname[3] = {"boundary 0", "automatic boundary", "boundary past every row"};

    for (int k = 0; k < 3; k++) {
      CIHybridFormat f;
      char           name[256];

      snprintf(name, sizeof(name), "%s (%s split, %s %d)", what, split ? "columns" : "entries", bname[k], (int)b[k]);
      if (CIHybridBuildFromCSR(a->m, a->n, a->rowptr, a->col, a->val, split ? CIHYBRID_SPLIT_COLUMNS : CIHYBRID_SPLIT_ENTRIES, b[k], &f) != CIHYBRID_OK) {
        failures++;
        fprintf(stderr, "FAIL %s: plain build\n", name);
        continue;
      }
      for (int d = 0; d < ndict; d++) PetscCall(CheckCompressed(&f, dict_sizes[d], &v, name));
      CIHybridFormatFree(&f);
    }
  }
  PetscCall(GpuMatsCUDAFree(v.dx));
  PetscCall(GpuMatsCUDAFree(v.dy0));
  PetscCall(GpuMatsCUDAFree(v.dy));
  free(v.x), free(v.y0), free(v.yd);
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------- */

static PetscErrorCode TestSmall(void)
{
  const PetscInt    dicts[] = {1, 16, CIHYBRID_DICT_DEFAULT};
  const PetscInt    rp0[] = {0}, rp1[] = {0, 1}, rp10[] = {0, 0}, rp3[] = {0, 0, 0, 0}, c0[] = {0};
  const PetscScalar v1[] = {2.5};
  CSR               a;

  PetscFunctionBeginUser;
  a = {0, 0, (PetscInt *)rp0, NULL, NULL};
  PetscCall(CheckMatrix(&a, dicts, 3, "0 x 0"));
  a = {0, 5, (PetscInt *)rp0, NULL, NULL};
  PetscCall(CheckMatrix(&a, dicts, 3, "0 x 5"));
  a = {3, 0, (PetscInt *)rp3, NULL, NULL};
  PetscCall(CheckMatrix(&a, dicts, 3, "3 x 0"));
  a = {1, 1, (PetscInt *)rp1, (PetscInt *)c0, (PetscScalar *)v1};
  PetscCall(CheckMatrix(&a, dicts, 3, "1 x 1"));
  a = {1, 1, (PetscInt *)rp10, NULL, NULL};
  PetscCall(CheckMatrix(&a, dicts, 3, "1 x 1 empty"));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRandom(void)
{
  const PetscInt dicts[] = {1, 16, CIHYBRID_DICT_DEFAULT}, big_dicts[] = {1, CIHYBRID_DICT_DEFAULT, CIHYBRID_DICT_MAX_SIZE};
  static const struct {
    const char *name;
    PetscInt    m, n;
    Shape       shape;
    int         big; /* more distinct values than the default dictionary */
  } cases[] = {
    {"one row with escapes", 1, 4000000, {150, 0.0, 8, 0.1, 0.3}, 0},
    {"random 400 x 500", 400, 500, {300, 0.1, 8, 0.1, 0.0}, 0},
    {"wide 700 x 1000000, escapes", 700, 1000000, {200, 0.15, 30, 0.2, 0.05}, 0},
    {"escapes everywhere 300 x 5000000", 300, 5000000, {100, 0.1, 4, 0.05, 0.9}, 0},
    {"distinct values 300 x 3000", 300, 3000, {400, 0.05, 50, 0.9, 0.0}, 1},
    {"tall 20000 x 20000 (rows past one pass of the grid)", 20000, 20000, {60, 0.05, 16, 0.02, 0.0}, 0},
  };

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    CSR  a;
    char what[160];

    RandomCSR(cases[k].m, cases[k].n, &cases[k].shape, &a);
    snprintf(what, sizeof(what), "%s, %d nonzeros", cases[k].name, (int)a.rowptr[a.m]);
    PetscCall(CheckMatrix(&a, cases[k].big ? big_dicts : dicts, 3, what));
    CSRFree(&a);
  }
  PetscFunctionReturn(0);
}

/* The comparison can fail: a dictionary entry changed after the host product is caught.  A
   dictionary of more than CIHYBRID_COMPRESSED_SHARED_DICT_MAX entries is refused in shared
   memory. */
static PetscErrorCode TestChecksCanFail(void)
{
  const Shape              s    = {40, 0.0, 4, 0.0, 0.0};
  CIHybridCompressOptions  opts = {CIHYBRID_DICT_MAX_SIZE};
  CSR                      a;
  CIHybridFormat           f;
  CIHybridCompressed       c;
  CIHybridCompressedDevice dev;
  Vectors                  v;
  PetscScalar             *yh;
  PetscErrorCode           ierr;
  int                      before;

  PetscFunctionBeginUser;
  RandomCSR(100, 200, &s, &a); /* the size of the second matrix: the vectors serve both */
  PetscCheck(CIHybridBuildFromCSR(a.m, a.n, a.rowptr, a.col, a.val, CIHYBRID_SPLIT_ENTRIES, 3, &f) == CIHYBRID_OK && CIHybridCompress(&f, NULL, &c) == CIHYBRID_COMPRESS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "damage: build failed");
  v.m = a.m, v.n = a.n;
  v.x  = (PetscScalar *)Alloc((size_t)a.n, sizeof(PetscScalar));
  v.y0 = (PetscScalar *)Alloc((size_t)a.m, sizeof(PetscScalar));
  v.yd = (PetscScalar *)Alloc((size_t)a.m, sizeof(PetscScalar));
  yh   = (PetscScalar *)Alloc((size_t)a.m, sizeof(PetscScalar));
  for (PetscInt j = 0; j < a.n; j++) v.x[j] = 1 + Uniform();
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dx, (size_t)a.n * sizeof(PetscScalar), "test x"));
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dy0, (size_t)a.m * sizeof(PetscScalar), "test y0"));
  PetscCall(GpuMatsCUDAMalloc((void **)&v.dy, (size_t)a.m * sizeof(PetscScalar), "test y"));
  PetscCall(GpuMatsCUDACopyToDevice(v.dx, v.x, (size_t)a.n * sizeof(PetscScalar)));
  CIHybridCompressedMultHost(&c, v.x, NULL, yh);
  c.dict[0] *= 1 + 1e-6; /* the most frequent magnitude */
  PetscCall(CIHybridCompressedDeviceCreate(&c, &dev));
  for (int place = 0; place < 3; place++) {
    before = failures;
    PetscCall(DeviceMult(dev, (CIHybridCompressedDictPlace)place, 0, &v));
    Compare(v.yd, yh, v.m, "host", "damage", 0);
    if (failures == before) {
      failures++;
      fprintf(stderr, "FAIL damage, %s: a dictionary entry changed by 1e-6 is not caught by the comparison\n", place_name[place]);
    } else {
      failures = before;
      printf("damage, %s: a changed dictionary entry is caught, as it should\n", place_name[place]);
    }
  }
  PetscCall(CIHybridCompressedDeviceDestroy(&dev));
  CIHybridCompressedFree(&c);
  CIHybridFormatFree(&f);
  CSRFree(&a);

  /* more magnitudes than shared memory takes: every entry of the 100 x 200 block, each a value
     drawn fresh (20000 entries, nearly all distinct) */
  {
    a.m      = 100;
    a.n      = 200;
    a.rowptr = (PetscInt *)Alloc((size_t)a.m + 1, sizeof(PetscInt));
    a.col    = (PetscInt *)Alloc((size_t)a.m * a.n, sizeof(PetscInt));
    a.val    = (PetscScalar *)Alloc((size_t)a.m * a.n, sizeof(PetscScalar));
    for (PetscInt i = 0; i <= a.m; i++) a.rowptr[i] = i * a.n;
    for (PetscInt k = 0; k < a.m * a.n; k++) {
      a.col[k] = k % a.n;
      a.val[k] = Uniform() - 0.5;
    }
    PetscCheck(CIHybridBuildFromCSR(a.m, a.n, a.rowptr, a.col, a.val, CIHYBRID_SPLIT_ENTRIES, 50, &f) == CIHYBRID_OK && CIHybridCompress(&f, &opts, &c) == CIHYBRID_COMPRESS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "large dictionary: build failed");
    PetscCheck(c.dict_count > CIHYBRID_COMPRESSED_SHARED_DICT_MAX, PETSC_COMM_SELF, PETSC_ERR_LIB, "large dictionary: only %d entries", (int)c.dict_count);
    PetscCall(CIHybridCompressedDeviceCreate(&c, &dev));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = CIHybridCompressedDeviceMultDict(dev, CIHYBRID_COMPRESSED_DICT_SHARED, v.dx, NULL, v.dy);
    PetscCall(PetscPopErrorHandler());
    checks++;
    if (ierr != PETSC_ERR_ARG_OUTOFRANGE) {
      failures++;
      fprintf(stderr, "FAIL large dictionary (%d entries) in shared memory: error %d, expected PETSC_ERR_ARG_OUTOFRANGE\n", (int)c.dict_count, (int)ierr);
    }
    CIHybridCompressedMultHost(&c, v.x, NULL, yh);
    for (int place = 0; place < 3; place += 2) { /* auto takes global memory for it */
      PetscCall(DeviceMult(dev, (CIHybridCompressedDictPlace)place, 0, &v));
      Compare(v.yd, yh, v.m, "host", place_name[place], 1);
    }
    PetscCall(CIHybridCompressedDeviceDestroy(&dev));
    PetscCall(CIHybridCompressedDeviceDestroy(&dev)); /* NULL: nothing */
    CIHybridCompressedFree(&c);
    CIHybridFormatFree(&f);
    CSRFree(&a);
  }
  PetscCall(GpuMatsCUDAFree(v.dx));
  PetscCall(GpuMatsCUDAFree(v.dy0));
  PetscCall(GpuMatsCUDAFree(v.dy));
  free(v.x), free(v.y0), free(v.yd), free(yh);
  PetscFunctionReturn(0);
}

static PetscErrorCode Main(int argc, char **argv)
{
  PetscBool   avail;
  const char *why;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(GpuMatsCUDAInitialize(&avail, &why));
  if (!avail) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "cihybrid_compress_device: skipped (no CUDA device: %s)\n", why));
    PetscCall(PetscFinalize());
    PetscFunctionReturn(TEST_EXIT_SKIP);
  }
  PetscCall(TestSmall());
  PetscCall(TestRandom());
  PetscCall(TestChecksCanFail());
  printf("cihybrid_compress_device: %s, %d comparisons, %d failure(s)\n", failures ? "FAILED" : "passed", checks, failures);
  PetscCall(PetscFinalize());
  PetscFunctionReturn(failures ? PETSC_ERR_LIB : 0);
}

int main(int argc, char **argv)
{
  return TestExitStatus(Main(argc, argv));
}
