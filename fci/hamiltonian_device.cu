/* The FCI Hamiltonian generated on the GPU, straight into the device arrays of a cihybrid matrix
   (a MatCIHybridDeviceRows generator, see hamiltonian_device.h).

   The same rows as hamiltonian.c, entry for entry: the per-string tables of the host generator
   (FCIStringTable) go to the device once, with two more per string:
     - its merged excitation list: the string itself, its singles and its nonzero same-spin
       doubles, sorted by target string (the order hamiltonian.c merges them in);
     - for that list read as the alpha side of a row, the number of entries each item's block
       adds to the row (the row of determinant (Ia, Ib) is, alpha target by alpha target: for
       Ia itself the whole merged list of Ib (diagonal, beta singles, beta doubles); for an
       alpha single with some nonzero (ia|jb) the alpha single and the alpha-beta doubles, i.e.
       Ib and its singles in target order; for any other alpha single or an alpha double one
       entry), kept as prefix counts so that a candidate's block is found by binary search.
   One warp makes one row: its 32 lanes take 32 consecutive candidates of the row (in column
   order), compute each candidate's element exactly as the host does (same operations in the
   same order, so the same bits), and keep those in the symmetry sector whose element is above
   the drop tolerance (the diagonal always); a ballot gives each kept entry its position, so
   the columns come out ascending with no sort.  The count pass runs the same code without
   writing.  The lexical ordering only. */
#include <petscmat.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <gpumats_cihybrid_device.h>
extern "C" {
#include "hamiltonian_impl.h"
#include "hamiltonian_device.h"
}

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "The FCI device rows are written for real double-precision PetscScalar"
#endif

#define FCI_FULL_WARP  0xffffffffu
#define FCI_ROW_BLOCK  128
/* device allocations: 5 shared tables (FCIDeviceRowsUpload) and 14 per spin (FCIDeviceUploadSpin) */
#define FCI_DEVICE_TABLES (5 + 2 * 14)

/* kinds of a merged-list item (low 2 bits; the index into the singles or doubles table above) */
enum {
  FCI_ITEM_SELF       = 0,
  FCI_ITEM_SINGLE_AB  = 1, /* a single i->a with some nonzero (ia|jb): alpha-beta doubles follow it */
  FCI_ITEM_SINGLE     = 2, /* a single i->a whose (ia|jb) are all zero */
  FCI_ITEM_DOUBLE     = 3
};

/* one spin's tables on the device */
struct FCIDeviceSpin {
  int             nsgl;
  const uint64_t *str;
  const int      *sym;
  const int      *sgl_target;
  const uint8_t  *sgl_i, *sgl_a;
  const double   *sgl_sign, *sgl_val;
  const int      *dbl_target;
  const double   *dbl_val, *energy;
  const int      *m_start; /* nstr + 1 */
  const int      *m_item;  /* kind | index << 2 */
  const int2     *m_pre;   /* before item k of its string: x = self + 2 * (singles with (ia|jb) != 0), y = one-entry items */
  const int      *selfpos; /* singles of the string with a smaller target */
};

struct FCIDeviceTables {
  int           norb, nstr_a, sector;
  double        ecore, droptol;
  const double *eri, *J;
  const int    *aoffset, *bgroup, *bpos;
  int           bgroup_start[9];
  FCIDeviceSpin a, b;
};

struct _n_FCIDeviceRows {
  FCIRowGenerator gen;
  PetscInt        ndet;
  PetscInt        rstart, nrows; /* the rows made: rstart..rstart+nrows-1, local row 0 first */
  PetscBool       uploaded;
  FCIDeviceTables T;
  void           *mem[FCI_DEVICE_TABLES]; /* every device allocation, freed by FCIDeviceRowsDestroy */
  int             nmem;
  size_t          bytes;
};

#define FCICallCUDA(call) \
  do { \
    cudaError_t fci_err_ = (call); \
    PetscCheck(fci_err_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s failed: %s (%s)", #call, cudaGetErrorName(fci_err_), cudaGetErrorString(fci_err_)); \
  } while (0)

/* A host array to the device: allocation errors name the table and the sizes. */
static PetscErrorCode FCIDeviceUpload(FCIDeviceRows r, const void *host, size_t bytes, const char *what, const void **dev)
{
  void       *d = NULL;
  cudaError_t err;

  PetscFunctionBeginUser;
  PetscCheck(r->nmem < (int)(sizeof(r->mem) / sizeof(r->mem[0])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "FCI device rows: more tables than expected");
  err = cudaMalloc(&d, bytes ? bytes : 1);
  if (err != cudaSuccess) {
    size_t free_bytes = 0, total = 0;
    (void)cudaGetLastError();
    (void)cudaMemGetInfo(&free_bytes, &total);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "FCI device rows: cannot allocate %s on the GPU: %zu bytes requested, %.1f MiB free of %.1f MiB (%s)", what, bytes, free_bytes / 1048576.0, total / 1048576.0, cudaGetErrorString(err));
  }
  r->mem[r->nmem++] = d;
  r->bytes += bytes;
  if (bytes) FCICallCUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  *dev = d;
  PetscFunctionReturn(0);
}

static PetscErrorCode FCIDeviceUploadInts(FCIDeviceRows r, const PetscInt *host, PetscInt n, const char *what, const int **dev)
{
  int *tmp;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &tmp));
  for (PetscInt i = 0; i < n; i++) tmp[i] = (int)host[i];
  PetscCall(FCIDeviceUpload(r, tmp, (size_t)n * sizeof(int), what, (const void **)dev));
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(0);
}

/* The merged list of every string of table t (see the top of the file) and its prefix counts. */
static PetscErrorCode FCIDeviceUploadSpin(FCIDeviceRows r, const FCIStringTable *t, const uint64_t *str, const int *sym, FCIDeviceSpin *s)
{
  const FCIRowGenerator g = r->gen;
  const PetscInt        n = g->ints->norb, nstr = t->nstr, nsgl = t->nsgl;
  const PetscInt        nitems = nstr * (1 + nsgl) + t->dbl_start[nstr];
  int                  *m_start, *m_item, *selfpos;
  int2                 *m_pre;
  PetscInt              k = 0;

  PetscFunctionBeginUser;
  PetscCheck(nitems < INT32_MAX / 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "FCI device rows: %" PetscInt_FMT " excitation-list items do not fit the 32-bit device tables", nitems);
  PetscCall(PetscMalloc4(nstr + 1, &m_start, nitems, &m_item, nitems, &m_pre, nstr, &selfpos));
  for (PetscInt x = 0; x < nstr; x++) {
    PetscInt ps = x * nsgl, pse = ps + nsgl, pd = t->dbl_start[x], pde = t->dbl_start[x + 1];
    int      self_done = 0, nab = 0, n1 = 0, sp = 0;

    m_start[x] = (int)k;
    for (PetscInt q = ps; q < pse; q++)
      if (t->sgl_target[q] < x) sp++;
    selfpos[x] = sp;
    for (;;) { /* the three sorted lists merged by target, as FCIRowLexical does */
      int      kind = -1;
      PetscInt best = PETSC_MAX_INT, idx = 0;

      if (!self_done) kind = FCI_ITEM_SELF, best = x;
      if (ps < pse && t->sgl_target[ps] < best) {
        best = t->sgl_target[ps];
        kind = g->pair_nz[t->sgl_i[ps] * n + t->sgl_a[ps]] ? FCI_ITEM_SINGLE_AB : FCI_ITEM_SINGLE;
        idx  = ps;
      }
      if (pd < pde && t->dbl_target[pd] < best) {
        best = t->dbl_target[pd];
        kind = FCI_ITEM_DOUBLE;
        idx  = pd;
      }
      if (kind < 0) break;
      m_item[k]  = kind | (int)(idx << 2);
      m_pre[k].x = self_done + 2 * nab;
      m_pre[k].y = n1;
      k++;
      if (kind == FCI_ITEM_SELF) self_done = 1;
      else if (kind == FCI_ITEM_SINGLE_AB) nab++, ps++;
      else if (kind == FCI_ITEM_SINGLE) n1++, ps++;
      else n1++, pd++;
    }
  }
  m_start[nstr] = (int)k;
  s->nsgl       = (int)nsgl;
  PetscCall(FCIDeviceUpload(r, str, (size_t)nstr * sizeof(uint64_t), "the strings", (const void **)&s->str));
  PetscCall(FCIDeviceUpload(r, sym, (size_t)nstr * sizeof(int), "the string irreps", (const void **)&s->sym));
  PetscCall(FCIDeviceUploadInts(r, t->sgl_target, nstr * nsgl, "the single-excitation targets", &s->sgl_target));
  PetscCall(FCIDeviceUpload(r, t->sgl_i, (size_t)nstr * nsgl, "the single-excitation orbitals i", (const void **)&s->sgl_i));
  PetscCall(FCIDeviceUpload(r, t->sgl_a, (size_t)nstr * nsgl, "the single-excitation orbitals a", (const void **)&s->sgl_a));
  PetscCall(FCIDeviceUpload(r, t->sgl_sign, (size_t)nstr * nsgl * sizeof(double), "the single-excitation phases", (const void **)&s->sgl_sign));
  PetscCall(FCIDeviceUpload(r, t->sgl_val, (size_t)nstr * nsgl * sizeof(double), "the single-excitation elements", (const void **)&s->sgl_val));
  PetscCall(FCIDeviceUploadInts(r, t->dbl_target, t->dbl_start[nstr], "the double-excitation targets", &s->dbl_target));
  PetscCall(FCIDeviceUpload(r, t->dbl_val, (size_t)t->dbl_start[nstr] * sizeof(double), "the double-excitation elements", (const void **)&s->dbl_val));
  PetscCall(FCIDeviceUpload(r, t->energy, (size_t)nstr * sizeof(double), "the string energies", (const void **)&s->energy));
  PetscCall(FCIDeviceUpload(r, m_start, (size_t)(nstr + 1) * sizeof(int), "the merged-list starts", (const void **)&s->m_start));
  PetscCall(FCIDeviceUpload(r, m_item, (size_t)k * sizeof(int), "the merged lists", (const void **)&s->m_item));
  PetscCall(FCIDeviceUpload(r, m_pre, (size_t)k * sizeof(int2), "the merged-list prefix counts", (const void **)&s->m_pre));
  PetscCall(FCIDeviceUpload(r, selfpos, (size_t)nstr * sizeof(int), "the self positions", (const void **)&s->selfpos));
  PetscCall(PetscFree4(m_start, m_item, m_pre, selfpos));
  PetscFunctionReturn(0);
}

/* Everything the kernels read, uploaded on the first call (when gpumats has chosen the device). */
static PetscErrorCode FCIDeviceRowsUpload(FCIDeviceRows r)
{
  const FCIRowGenerator g  = r->gen;
  const FCIDetSpace    *sp = g->sp;
  const FCIIntegrals   *ig = g->ints;
  const PetscInt        n  = ig->norb;
  FCIDeviceTables      *T  = &r->T;

  PetscFunctionBeginUser;
  if (r->uploaded) PetscFunctionReturn(0);
  T->norb    = (int)n;
  T->nstr_a  = (int)sp->nstr_a;
  T->sector  = (int)sp->sector;
  T->ecore   = ig->ecore;
  T->droptol = g->droptol;
  for (int i = 0; i < 9; i++) T->bgroup_start[i] = (int)sp->bgroup_start[i];
  PetscCall(FCIDeviceUpload(r, ig->eri, (size_t)n * n * n * n * sizeof(double), "the two-electron integrals", (const void **)&T->eri));
  PetscCall(FCIDeviceUpload(r, g->J, (size_t)n * n * sizeof(double), "the Coulomb integrals (ii|jj)", (const void **)&T->J));
  PetscCall(FCIDeviceUploadInts(r, sp->aoffset, sp->nstr_a + 1, "the alpha-string offsets", &T->aoffset));
  PetscCall(FCIDeviceUploadInts(r, sp->bgroup, sp->nstr_b, "the beta strings by irrep", &T->bgroup));
  PetscCall(FCIDeviceUploadInts(r, sp->bpos, sp->nstr_b, "the beta positions", &T->bpos));
  PetscCall(FCIDeviceUploadSpin(r, g->pa, sp->str_a, sp->sym_a, &T->a));
  if (g->pb == g->pa && sp->str_b == sp->str_a) T->b = T->a;
  else PetscCall(FCIDeviceUploadSpin(r, g->pb, sp->str_b, sp->sym_b, &T->b));
  FCICallCUDA(cudaDeviceSynchronize()); /* a pageable upload may still be in flight: the kernels run on another stream */
  r->uploaded = PETSC_TRUE;
  PetscCall(PetscInfo(NULL, "FCI device rows: %.1f MB of tables on the device\n", r->bytes / 1e6));
  PetscFunctionReturn(0);
}

/* <..|H|..> pieces, as FCIRowLexical computes them */
static __device__ __forceinline__ double FCIOccupiedSum(const double *ia, uint64_t occ, int n) /* sum over occupied k of ia[k*(n+1)] */
{
  double w = 0;
  for (; occ; occ &= occ - 1) w += ia[(__ffsll((long long)occ) - 1) * (n + 1)];
  return w;
}

static __device__ __forceinline__ bool FCIInSector(const FCIDeviceTables &T, int Ia, int Ib)
{
  return (T.a.sym[Ia] ^ T.b.sym[Ib]) == T.sector;
}

/* Candidate j of row (Ia, Ib): kept? then its lexical column and element. */
static __device__ bool FCICandidate(const FCIDeviceTables &T, int L, int Ia, int Ib, uint64_t stra, uint64_t strb, int item, int j, int *col, double *val)
{
  const int n = T.norb, kind = item & 3, idx = item >> 2;

  if (kind == FCI_ITEM_SELF) { /* Ia2 = Ia: item j of Ib's merged list */
    const int bitem = T.b.m_item[T.b.m_start[Ib] + j], bkind = bitem & 3, e = bitem >> 2;
    if (bkind == FCI_ITEM_SELF) {
      double d = T.ecore + T.a.energy[Ia] + T.b.energy[Ib];
      for (uint64_t oa = stra; oa; oa &= oa - 1) {
        const double *Jrow = T.J + (__ffsll((long long)oa) - 1) * n;
        for (uint64_t ob = strb; ob; ob &= ob - 1) d += Jrow[__ffsll((long long)ob) - 1];
      }
      *col = L;
      *val = d;
      return true;
    }
    if (bkind == FCI_ITEM_DOUBLE) {
      const int Ib2 = T.b.dbl_target[e];
      *val          = T.b.dbl_val[e];
      *col          = T.aoffset[Ia] + T.bpos[Ib2];
      return FCIInSector(T, Ia, Ib2) && fabs(*val) > T.droptol;
    }
    { /* beta single */
      const int     Ib2 = T.b.sgl_target[e];
      const double *ia  = T.eri + (size_t)(T.b.sgl_i[e] * n + T.b.sgl_a[e]) * n * n;
      if (!FCIInSector(T, Ia, Ib2)) return false;
      *val = T.b.sgl_val[e] + T.b.sgl_sign[e] * FCIOccupiedSum(ia, stra, n);
      *col = T.aoffset[Ia] + T.bpos[Ib2];
      return fabs(*val) > T.droptol;
    }
  }
  if (kind == FCI_ITEM_DOUBLE) { /* alpha-alpha double */
    const int Ia2 = T.a.dbl_target[idx];
    *val          = T.a.dbl_val[idx];
    *col          = T.aoffset[Ia2] + T.bpos[Ib];
    return FCIInSector(T, Ia2, Ib) && fabs(*val) > T.droptol;
  }
  { /* alpha single i->a: itself (with Ib), or with one of Ib's singles (an alpha-beta double) */
    const int     Ia2 = T.a.sgl_target[idx];
    const double  sa  = T.a.sgl_sign[idx];
    const double *ia  = T.eri + (size_t)(T.a.sgl_i[idx] * n + T.a.sgl_a[idx]) * n * n;
    const int     sp  = kind == FCI_ITEM_SINGLE_AB ? T.b.selfpos[Ib] : 0;
    if (j == sp) {
      if (!FCIInSector(T, Ia2, Ib)) return false;
      *val = T.a.sgl_val[idx] + sa * FCIOccupiedSum(ia, strb, n);
      *col = T.aoffset[Ia2] + T.bpos[Ib];
      return fabs(*val) > T.droptol;
    } else {
      const int    f   = Ib * T.b.nsgl + (j < sp ? j : j - 1);
      const int    Ib2 = T.b.sgl_target[f];
      const double v   = ia[T.b.sgl_i[f] * n + T.b.sgl_a[f]];
      if (!(fabs(v) > T.droptol) || !FCIInSector(T, Ia2, Ib2)) return false;
      *val = sa * T.b.sgl_sign[f] * v;
      *col = T.aoffset[Ia2] + T.bpos[Ib2];
      return true;
    }
  }
}

/* One warp per row: count (len) or write (A) rows rstart..rstart+nrows-1, as local rows from 0. */
template <bool WRITE>
__global__ void FCIRowsKernel(FCIDeviceTables T, int rstart, int nrows, int *len, MatCIHybridDeviceArrays A)
{
  const long long row  = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int       lane = threadIdx.x % 32;

  if (row >= nrows) return;
  const int L = rstart + (int)row;
  int       lo = 0, hi = T.nstr_a; /* Ia: the last alpha string with aoffset[Ia] <= L */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (T.aoffset[mid] > L) hi = mid;
    else lo = mid;
  }
  const int      Ia = lo, Ib = T.bgroup[T.bgroup_start[T.sector ^ T.a.sym[Ia]] + (L - T.aoffset[Ia])];
  const uint64_t stra = T.a.str[Ia], strb = T.b.str[Ib];
  const int      a0 = T.a.m_start[Ia], na = T.a.m_start[Ia + 1] - a0;
  const int      Lf = T.b.m_start[Ib + 1] - T.b.m_start[Ib], Ls = 1 + T.b.nsgl;
  /* where the block of alpha item k starts among the row's candidates, and how long it is */
#define FCI_START(k) ((T.a.m_pre[a0 + (k)].x & 1) * Lf + (T.a.m_pre[a0 + (k)].x >> 1) * Ls + T.a.m_pre[a0 + (k)].y)
  const int last = T.a.m_item[a0 + na - 1] & 3;
  const int ncand = FCI_START(na - 1) + (last == FCI_ITEM_SELF ? Lf : last == FCI_ITEM_SINGLE_AB ? Ls : 1);
  int       count = 0;

  for (int t0 = 0; t0 < ncand; t0 += 32) {
    const int t    = t0 + lane;
    bool      keep = false;
    int       col  = 0;
    double    val  = 0;

    if (t < ncand) {
      int klo = 0, khi = na; /* the last item whose block starts at or before t */
      while (khi - klo > 1) {
        const int mid = (klo + khi) / 2;
        if (FCI_START(mid) > t) khi = mid;
        else klo = mid;
      }
      keep = FCICandidate(T, L, Ia, Ib, stra, strb, T.a.m_item[a0 + klo], t - FCI_START(klo), &col, &val);
    }
    const unsigned mask = __ballot_sync(FCI_FULL_WARP, keep);
    if (WRITE && keep) MatCIHybridDeviceSetEntry(A, row, count + __popc(mask & ((1u << lane) - 1)), col, val);
    count += __popc(mask);
  }
#undef FCI_START
  if (!WRITE && lane == 0) len[row] = count;
}

static unsigned FCIRowsGrid(PetscInt nrows)
{
  return (unsigned)(((size_t)nrows * 32 + FCI_ROW_BLOCK - 1) / FCI_ROW_BLOCK);
}

static PetscErrorCode FCIDeviceRowsCount(void *ctx, void *stream, int *len)
{
  FCIDeviceRows           r = (FCIDeviceRows)ctx;
  MatCIHybridDeviceArrays none;

  PetscFunctionBeginUser;
  PetscCall(FCIDeviceRowsUpload(r));
  PetscCall(PetscMemzero(&none, sizeof(none)));
  if (r->nrows) FCIRowsKernel<false><<<FCIRowsGrid(r->nrows), FCI_ROW_BLOCK, 0, (cudaStream_t)stream>>>(r->T, (int)r->rstart, (int)r->nrows, len, none);
  FCICallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

static PetscErrorCode FCIDeviceRowsFill(void *ctx, void *stream, const MatCIHybridDeviceArrays *A)
{
  FCIDeviceRows r = (FCIDeviceRows)ctx;

  PetscFunctionBeginUser;
  PetscCall(FCIDeviceRowsUpload(r));
  if (r->nrows) FCIRowsKernel<true><<<FCIRowsGrid(r->nrows), FCI_ROW_BLOCK, 0, (cudaStream_t)stream>>>(r->T, (int)r->rstart, (int)r->nrows, NULL, *A);
  FCICallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDeviceRowsCreate(const FCIIntegrals *ints, const FCIDetSpace *space, PetscReal droptol, PetscInt rstart, PetscInt rend, FCIDeviceRows *rows, MatCIHybridDeviceRows *generator)
{
  FCIDeviceRows r;

  PetscFunctionBeginUser;
  PetscCheck(!space->perm, PETSC_COMM_SELF, PETSC_ERR_SUP, "The FCI rows are made on the device in the lexical ordering only: use -fci_ordering lexical, or the host assembly");
  PetscCheck(space->ndet < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " determinants do not fit the 32-bit device indices", space->ndet);
  PetscCheck(0 <= rstart && rstart <= rend && rend <= space->ndet, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rows %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, rstart, rend - 1, space->ndet - 1);
  PetscCall(PetscNew(&r));
  r->ndet   = space->ndet;
  r->rstart = rstart;
  r->nrows  = rend - rstart;
  PetscCall(FCIRowGeneratorCreate(ints, space, droptol, &r->gen));
  generator->count = FCIDeviceRowsCount;
  generator->fill  = FCIDeviceRowsFill;
  generator->ctx   = r;
  *rows            = r;
  PetscFunctionReturn(0);
}

PetscErrorCode FCIDeviceRowsDestroy(FCIDeviceRows *rows)
{
  FCIDeviceRows r = *rows;

  PetscFunctionBeginUser;
  if (!r) PetscFunctionReturn(0);
  for (int i = 0; i < r->nmem; i++) FCICallCUDA(cudaFree(r->mem[i]));
  PetscCall(FCIRowGeneratorDestroy(&r->gen));
  PetscCall(PetscFree(*rows));
  PetscFunctionReturn(0);
}
