static char help[] = "Mutation fuzzer of the FCIDUMP reader (FCIDumpReadBytes): every input must either parse into\n"
                     "consistent integrals or give a clean file error that names it; a crash, a hang or anything else fails.\n"
                     "  fuzz_fcidump [<data folder>] [-fuzz_cases <n>] [-fuzz_seed <s>] [-fuzz_regressions <folder>] [-fuzz_keep <folder>]\n"
                     "  Seeds: small built-in files, and the FCIDUMP files of the data folder when given.\n"
                     "  -fuzz_regressions: every *.fcidump file of the folder is read first and must be refused (inputs once accepted wrongly).\n"
                     "  -fuzz_keep: writes each failing input there, to be added to the regression folder.\n"
                     "Prints the counts and ends with 'N passed, M failed'; exit status 1 on any failure.\n\n";

#define _POSIX_C_SOURCE 200809L /* scandir, alphasort */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fcidump.h"
#include "fuzz_check.h"

#define FUZZ_MAX_SEEDS 16

typedef struct {
  char  *bytes;
  size_t len;
  char   name[64];
} FuzzInput;

typedef struct {
  PetscInt cases, parsed, errors, failed;
  PetscInt by_kind[8]; /* errors by mutation kind */
  char     keep[PETSC_MAX_PATH_LEN];
} FuzzCounts;

/* xorshift64*: the same cases on every machine for a given seed */
static uint64_t FuzzNext(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * UINT64_C(2685821657736338717);
}

static size_t FuzzBelow(uint64_t *state, size_t n)
{
  return n ? (size_t)(FuzzNext(state) % n) : 0;
}

static const char *const FuzzBuiltinSeeds[] = {
  " &FCI NORB=  2,NELEC= 2,MS2= 0,\n  ORBSYM=1,2,\n  ISYM=2,\n /\n"
  "  0.70D+00   1   1   1   1\n  0.1E0 2 1 1 1\n  0.05 2 1 2 1\n  0.6 2 2 1 1\n  0.02 2 2 2 1\n  0.65 2 2 2 2\n"
  "  -1.25 1 1 0 0\n  -0.3D-01 2 1 0 0\n  -0.5 2 2 0 0\n  -0.6 1 0 0 0\n  -0.1 2 0 0 0\n  0.7 0 0 0 0\n",
  "&FCI\nNORB=3,\nNELEC=2,\nMS2=0,\nUHF=.FALSE.,\nORBSYM=1,\n1,1,\nISYM=1,\n&END\n"
  "0.5 1 1 1 1\n0.4 2 2 2 2\n0.3 3 3 3 3\n0.1 2 1 1 1\n0.05 3 2 1 1\n-1.0 1 1 0 0\n-0.5 2 2 0 0\n-0.25 3 3 0 0\n0.1 3 1 0 0\n1.5 0 0 0 0\n",
  " &FCI NORB=2,NELEC=2,MS2=0,\n ORBSYM=1,2,\n ISYM=2,\n UHF=.FALSE.,\n TREL=.FALSE.,\n SYML=0,1,\n SYMLZ=0,0,\n NPROP=1,1,1,\n FROZEN=0,-1\n /\n"
  "  0.7 1 1 1 1\n  0.65 2 2 2 2\n  -1.25 1 1 0 0\n  0.7 0 0 0 0\n",
  "$FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2,ISYM=2 $END\n0.7 1 1 1 1\n-1 1 1 0 0\n",
};

/* Replacements for a token: boundaries of every integer and real type the reader sees. */
static const char *const FuzzTokens[] = {"0", "-1", "1", "2", "8", "9", "63", "64", "65", "128", "129", "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                         "99999999999999999999", "NaN", "nan", "inf", "-Infinity", "1e999", "1D+308", "-1d-400", "0x1p3", "1e", ".", "-", "+", "=", ",", "/", "&END", "&FCI", "$FCI", ".TRUE.", ".FALSE.", "T", "NORB=", "NELEC=", "MS2=", "ISYM=", "ORBSYM=", "SYMLZ=1,-1,", "UHF=", "IUHF=1", "TREL=T", "NPROP=2", "FROZEN=3", "BOGUS=1", "", "\n", "\t", "\r\n", " ", "\x01", "\xff\xfe"};

/* One mutation of 'in' into a new buffer; *kind: which one (0..7). */
static PetscErrorCode FuzzMutate(uint64_t *rng, const FuzzInput *in, FuzzInput *out, int *kind)
{
  const size_t len = in->len, extra = 256;
  size_t       n   = 0;
  char        *b;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * len + 2 * extra + 1, &b));
  *kind = (int)FuzzBelow(rng, 8);
  switch (*kind) {
  case 0: /* truncation */
    n = FuzzBelow(rng, len + 1);
    PetscCall(PetscMemcpy(b, in->bytes, n));
    break;
  case 1: /* bit flips */
    PetscCall(PetscMemcpy(b, in->bytes, len));
    n = len;
    for (size_t k = 0, nf = 1 + FuzzBelow(rng, 8); k < nf && n; k++) b[FuzzBelow(rng, n)] ^= (char)(1u << FuzzBelow(rng, 8));
    break;
  case 2: /* random bytes inserted, binary garbage and NULs included */
  {
    const size_t at = FuzzBelow(rng, len + 1), cnt = 1 + FuzzBelow(rng, 16);
    PetscCall(PetscMemcpy(b, in->bytes, at));
    for (size_t k = 0; k < cnt; k++) b[at + k] = (char)FuzzBelow(rng, 256);
    PetscCall(PetscMemcpy(b + at + cnt, in->bytes + at, len - at));
    n = len + cnt;
  } break;
  case 3:   /* a whitespace-delimited token replaced by a boundary value */
  case 4: { /* the same, twice: header and body values interact */
    PetscCall(PetscMemcpy(b, in->bytes, len));
    n = len;
    for (int r = 0; r < (*kind == 3 ? 1 : 2); r++) {
      size_t      s = FuzzBelow(rng, n + 1), e;
      const char *t = FuzzTokens[FuzzBelow(rng, sizeof(FuzzTokens) / sizeof(FuzzTokens[0]))];
      size_t      tl = strlen(t);
      char       *nb;
      while (s > 0 && b[s - 1] != ' ' && b[s - 1] != '\n' && b[s - 1] != ',' && b[s - 1] != '=') s--;
      for (e = s; e < n && b[e] != ' ' && b[e] != '\n' && b[e] != ','; e++) { }
      PetscCall(PetscMalloc1(n - (e - s) + tl + 2 * extra + 1, &nb));
      PetscCall(PetscMemcpy(nb, b, s));
      PetscCall(PetscMemcpy(nb + s, t, tl));
      PetscCall(PetscMemcpy(nb + s + tl, b + e, n - e));
      n = n - (e - s) + tl;
      PetscCall(PetscFree(b));
      b = nb;
    }
  } break;
  case 5: /* the namelist terminator removed or doubled */
  {
    const char *t = NULL;
    for (size_t k = 0; k < len && !t; k++)
      if (in->bytes[k] == '/' || (in->bytes[k] == '&' && k + 3 < len && (in->bytes[k + 1] == 'E' || in->bytes[k + 1] == 'e'))) t = in->bytes + k;
    if (t && FuzzBelow(rng, 2)) {
      const size_t at = (size_t)(t - in->bytes), tl = (*t == '/') ? 1 : 4;
      PetscCall(PetscMemcpy(b, in->bytes, at));
      PetscCall(PetscMemcpy(b + at, in->bytes + at + tl, len - at - tl));
      n = len - tl;
    } else {
      const size_t at = FuzzBelow(rng, len + 1);
      PetscCall(PetscMemcpy(b, in->bytes, at));
      b[at] = '/';
      PetscCall(PetscMemcpy(b + at + 1, in->bytes + at, len - at));
      n = len + 1;
    }
  } break;
  case 6: /* a line removed, or a line duplicated */
  {
    size_t s = FuzzBelow(rng, len + 1), e;
    while (s > 0 && in->bytes[s - 1] != '\n') s--;
    for (e = s; e < len && in->bytes[e] != '\n'; e++) { }
    if (e < len) e++;
    PetscCall(PetscMemcpy(b, in->bytes, s));
    if (FuzzBelow(rng, 2)) {
      PetscCall(PetscMemcpy(b + s, in->bytes + e, len - e));
      n = len - (e - s);
    } else {
      PetscCall(PetscMemcpy(b + s, in->bytes + s, e - s));
      PetscCall(PetscMemcpy(b + e, in->bytes + s, len - s));
      n = len + (e - s);
    }
  } break;
  default: /* garbage: random printable and binary bytes, sometimes after a valid header start */
    if (FuzzBelow(rng, 2)) {
      PetscCall(PetscMemcpy(b, "&FCI NORB=2,NELEC=2 /\n", 22));
      n = 22;
    }
    for (size_t k = 0, cnt = FuzzBelow(rng, extra); k < cnt; k++) b[n++] = (char)(FuzzBelow(rng, 2) ? " 0123456789.-+eED\n"[FuzzBelow(rng, 18)] : (char)FuzzBelow(rng, 256));
    break;
  }
  out->bytes = b;
  out->len   = n;
  PetscFunctionReturn(0);
}

static PetscErrorCode FuzzKeep(FuzzCounts *c, const FuzzInput *in)
{
  char  path[PETSC_MAX_PATH_LEN];
  FILE *f;

  PetscFunctionBeginUser;
  if (!c->keep[0]) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.fcidump", c->keep, in->name));
  f = fopen(path, "wb");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
  if (in->len) (void)fwrite(in->bytes, 1, in->len, f);
  fclose(f);
  PetscFunctionReturn(0);
}

/* Reads one input; a failure is counted and reported, never fatal, so that the run goes on. */
static PetscErrorCode FuzzOne(FuzzCounts *c, const FuzzInput *in, int kind)
{
  FCIIntegrals  *ints = NULL;
  PetscErrorCode ierr;
  char           why[256] = "";

  PetscFunctionBeginUser;
  c->cases++;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FCIDumpReadBytes(PETSC_COMM_SELF, in->name, in->bytes, in->len, &ints);
  PetscCall(PetscPopErrorHandler());
  if (FCIDumpFuzzAcceptable(ierr, ints, in->name, why, sizeof(why))) {
    if (!ierr) c->parsed++;
    else {
      c->errors++;
      if (kind >= 0) c->by_kind[kind]++;
    }
  }
  if (why[0]) {
    c->failed++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED %s (%zu bytes): %s\n", in->name, in->len, why));
    PetscCall(FuzzKeep(c, in));
  }
  PetscCall(FCIIntegralsDestroy(&ints));
  PetscFunctionReturn(0);
}

static PetscErrorCode FuzzReadFile(const char path[], const char name[], FuzzInput *in)
{
  FILE *f = fopen(path, "rb");
  long  n;

  PetscFunctionBeginUser;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s", path);
  PetscCheck(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot size %s", path);
  PetscCall(PetscMalloc1((size_t)n + 1, &in->bytes));
  in->len = fread(in->bytes, 1, (size_t)n, f);
  fclose(f);
  PetscCall(PetscStrncpy(in->name, name, sizeof(in->name)));
  PetscFunctionReturn(0);
}

/* Every *.fcidump file of 'dir', in name order, must give a clean error (those named ok-*: parse
   into consistent integrals or give a clean error). */
static PetscErrorCode FuzzRegressions(FuzzCounts *c, const char dir[])
{
  struct dirent **list;
  int             n;
  const PetscInt  before = c->cases;
  PetscInt        parsed = c->parsed;

  PetscFunctionBeginUser;
  n = scandir(dir, &list, NULL, alphasort);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot list the regression folder %s", dir);
  for (int k = 0; k < n; k++) {
    char      path[PETSC_MAX_PATH_LEN];
    FuzzInput in;
    const size_t len = strlen(list[k]->d_name);
    if (len > 8 && !strcmp(list[k]->d_name + len - 8, ".fcidump")) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, list[k]->d_name));
      PetscCall(FuzzReadFile(path, list[k]->d_name, &in));
      PetscCall(FuzzOne(c, &in, -1));
      if (c->parsed > parsed && strncmp(in.name, "ok-", 3)) { /* each of these was once wrongly accepted */
        c->failed++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED regression %s was read without an error\n", in.name));
      }
      parsed = c->parsed;
      PetscCall(PetscFree(in.bytes));
    }
    free(list[k]);
  }
  free(list);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "regressions: %" PetscInt_FMT " inputs read from %s\n", c->cases - before, dir));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  FuzzCounts  c;
  FuzzInput   seeds[FUZZ_MAX_SEEDS];
  PetscInt    nseeds = 0, ncases = 2000, seed = 20261124;
  char        datadir[PETSC_MAX_PATH_LEN] = "", regdir[PETSC_MAX_PATH_LEN] = "";
  const char *datafiles[] = {"H2O.STO2G.INTDUMP", "N2.STO3G.FCIDUMP"};
  uint64_t    rng;
  PetscBool   has_reg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&c, sizeof(c)));
  if (argc > 1 && argv[1][0] != '-') PetscCall(PetscStrncpy(datadir, argv[1], sizeof(datadir)));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fuzz_cases", &ncases, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fuzz_seed", &seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_regressions", regdir, sizeof(regdir), &has_reg));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_keep", c.keep, sizeof(c.keep), NULL));
  PetscCheck(ncases >= 0 && seed > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-fuzz_cases %" PetscInt_FMT " must be >= 0 and -fuzz_seed %" PetscInt_FMT " > 0", ncases, seed);
  rng = (uint64_t)seed;

  for (size_t k = 0; k < sizeof(FuzzBuiltinSeeds) / sizeof(FuzzBuiltinSeeds[0]); k++, nseeds++) {
    seeds[nseeds].len = strlen(FuzzBuiltinSeeds[k]);
    PetscCall(PetscStrallocpy(FuzzBuiltinSeeds[k], &seeds[nseeds].bytes));
    PetscCall(PetscSNPrintf(seeds[nseeds].name, sizeof(seeds[nseeds].name), "builtin%d", (int)k));
  }
  if (datadir[0])
    for (size_t k = 0; k < sizeof(datafiles) / sizeof(datafiles[0]); k++) {
      char      path[PETSC_MAX_PATH_LEN];
      PetscBool exists;
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", datadir, datafiles[k]));
      PetscCall(PetscTestFile(path, 'r', &exists));
      if (exists) PetscCall(FuzzReadFile(path, datafiles[k], &seeds[nseeds++]));
    }
  /* the seeds themselves must parse */
  for (PetscInt s = 0; s < nseeds; s++) {
    const PetscInt before = c.parsed;
    PetscCall(FuzzOne(&c, &seeds[s], -1));
    if (c.parsed == before && !c.failed) {
      c.failed++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED seed %s does not parse\n", seeds[s].name));
    }
  }
  if (has_reg) PetscCall(FuzzRegressions(&c, regdir));
  for (PetscInt k = 0; k < ncases; k++) {
    FuzzInput m;
    int       kind = 0;
    PetscCall(FuzzMutate(&rng, &seeds[FuzzBelow(&rng, (size_t)nseeds)], &m, &kind));
    PetscCall(PetscSNPrintf(m.name, sizeof(m.name), "case%" PetscInt_FMT "-seed%" PetscInt_FMT, k, seed));
    PetscCall(FuzzOne(&c, &m, kind));
    PetscCall(PetscFree(m.bytes));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "fuzz_fcidump: %" PetscInt_FMT " seeds, %" PetscInt_FMT " inputs: %" PetscInt_FMT " parsed into consistent integrals, %" PetscInt_FMT " clean file errors, %" PetscInt_FMT " failures\n", nseeds, c.cases, c.parsed, c.errors, c.failed));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  clean errors by mutation: truncation %" PetscInt_FMT ", bit flips %" PetscInt_FMT ", inserted bytes %" PetscInt_FMT ", one token %" PetscInt_FMT ", two tokens %" PetscInt_FMT ", terminator %" PetscInt_FMT ", lines %" PetscInt_FMT ", garbage %" PetscInt_FMT "\n",
                        c.by_kind[0], c.by_kind[1], c.by_kind[2], c.by_kind[3], c.by_kind[4], c.by_kind[5], c.by_kind[6], c.by_kind[7]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " passed, %" PetscInt_FMT " failed\n", c.cases - c.failed, c.failed));
  for (PetscInt s = 0; s < nseeds; s++) PetscCall(PetscFree(seeds[s].bytes));
  PetscCall(PetscFinalize());
  return c.failed ? 1 : 0;
}
