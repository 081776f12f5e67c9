/* DIAG product C = A B on the device, any schemes: the blocks kernel, A and B both staged in
   shared memory.

   The pairs and staged kernels read B (and the pairs kernel A) from L2 for every multiply-add.
   Here C is cut into blocks of DIAG_BLOCKS_ROWS rows by a window of its sums (entry diagonals,
   the offsets dc = da + db) lying within DIAG_BLOCKS_SPAN consecutive offsets.  On such a block
   the pair (da, db) needs A's diagonal da on the block's rows and B's diagonal db on the rows
   i + da; for all the window's sums together, B's diagonal db on DIAG_BLOCKS_ROWS +
   DIAG_BLOCKS_SPAN consecutive rows.  So the block stages a chunk of B's entry diagonals (by
   ascending offset) on those rows and the A diagonals that pair with them into the window,
   then every warp adds the pairs of its sums from shared memory.  A staged value of A serves
   about (B's density x span) sums, one of B about (A's density x span) rows of pairs: on a
   band (density 1) dozens of multiply-adds a value staged, on the DIAG paper's scattered
   offsets (density 0.04-0.12) only 2-8, too few to repay the staging: there it is slower
   than the pairs and staged kernels (Nsight Compute: 16 warps an SM, the registers' limit,
   a quarter of the SM's issue rate).  On bands of 51-401 diagonals it was faster than the
   staged kernel of then, and the staged kernel that reads its pairs 32 at a time is now faster
   than it there: DiagDeviceProductNumeric takes it for banded operands
   (DIAG_BLOCKS_MIN_DIAGONALS) only where the staged kernel is not taken: A's diagonals do not
   fit its shared memory, or fewer than DIAG_STAGED_MIN_PAIRS pairs meet on each diagonal of C
   on average (never on bands of 48 diagonals or more: 24 or more a diagonal of C on average).

   The host cuts the windows and the chunks once (DiagDeviceProductBlocksCreate, from the plan's
   entry diagonals and C's diagonals: O(sums + chunks log diagonals), no pair lists needed), so
   every chunk fits the shared memory.  A warp finds its pairs in a chunk by looking up da =
   dc - db in a map from A's offsets to their staged rows (stamped by the chunk, never
   cleared).  Each pair adds over the rows where A's and B's diagonals both hold values (no
   product with a padding zero).  Every slot of C on the block's rows and sums is written
   once, no atomics; CDM's padding halves are sums without pairs and get zeros.  The sums of a
   slot come in ascending db (the plan's order reversed: results agree with the host twin to
   rounding). */
#include <petscsys.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "../common/gpumats_cuda.h"
#include "diag_cudaimpl.h"
}

#define DIAG_BLOCKS_THREADS 512                                   /* 16 warps */
#define DIAG_BLOCKS_ROWS    128                                   /* 4 a lane */
#define DIAG_BLOCKS_SPAN    128                                   /* a window's sums: 8 a warp */
#define DIAG_BLOCKS_BROWS   (DIAG_BLOCKS_ROWS + DIAG_BLOCKS_SPAN) /* B's rows staged a diagonal */
#define DIAG_BLOCKS_POOL    24576                                 /* doubles of A and B staged: 192 KiB */
#define DIAG_BLOCKS_MAX_A   (DIAG_BLOCKS_POOL / DIAG_BLOCKS_ROWS)
#define DIAG_BLOCKS_MAX_B   (DIAG_BLOCKS_POOL / DIAG_BLOCKS_BROWS)
#define DIAG_BLOCKS_AMAP    4096 /* A's offsets in a chunk span fewer */
#define DIAG_BLOCKS_SUMS    (DIAG_BLOCKS_SPAN / (DIAG_BLOCKS_THREADS / 32))
#define DIAG_BLOCKS_LANE    (DIAG_BLOCKS_ROWS / 32)
#define DIAG_BLOCKS_SMEM    (DIAG_BLOCKS_POOL * sizeof(double) + DIAG_BLOCKS_AMAP * sizeof(int) + (2 * DIAG_BLOCKS_MAX_A + 3 * DIAG_BLOCKS_MAX_B) * sizeof(int))
#define DIAG_BLOCKS_GRID_Y  65535
#define DIAG_BLOCKS_NO_SUM  (-2147483647 - 1)
#define DIAG_BLOCKS_MAX_CHUNKS (1 << 23) /* a block's chunks are stamped in the map's upper 24 bits */

/* what the kernel reads of the schedule (one device allocation, DiagDeviceProductBlocksCreate) */
struct DiagBlocksArgs {
  int              m, k, n, c_hm, nwin;
  const int       *win_sum, *win_chunk; /* nwin + 1: each window's sums and chunks */
  const int       *sum_d, *sum_c;       /* C's sums by ascending offset, and their stored diagonal */
  const int4      *chunk;               /* B's entry diagonals [x, y) and A's [z, w), in ascending offset */
  const int       *ad, *bd;             /* the entry diagonals' offsets, ascending */
  const long long *abase, *bbase;       /* and their value index of row 0 */
};

__global__ void __launch_bounds__(DIAG_BLOCKS_THREADS, 1) DiagProductBlocksKernel(DiagBlocksArgs g, const long long *__restrict__ c_start, const double *__restrict__ a_val, const double *__restrict__ b_val, double *__restrict__ c_val)
{
  extern __shared__ double s_pool[];
  int      *s_amap = (int *)(s_pool + DIAG_BLOCKS_POOL); /* A's offset - the chunk's lowest: stamp << 8 | staged row */
  int      *s_alo = s_amap + DIAG_BLOCKS_AMAP, *s_ahi = s_alo + DIAG_BLOCKS_MAX_A; /* the block's rows holding values */
  int      *s_bd = s_ahi + DIAG_BLOCKS_MAX_A, *s_blo = s_bd + DIAG_BLOCKS_MAX_B, *s_bhi = s_blo + DIAG_BLOCKS_MAX_B;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, i0 = blockIdx.x * DIAG_BLOCKS_ROWS;
  int       stamp = 0;

  for (int u = threadIdx.x; u < DIAG_BLOCKS_AMAP; u += DIAG_BLOCKS_THREADS) s_amap[u] = -1;
  for (int w = blockIdx.y; w < g.nwin; w += gridDim.y) {
    const int s0 = g.win_sum[w], s1 = g.win_sum[w + 1], dc0 = g.sum_d[s0], dc1 = g.sum_d[s1 - 1];
    int       dcs[DIAG_BLOCKS_SUMS];
    double    acc[DIAG_BLOCKS_SUMS][DIAG_BLOCKS_LANE];

    if (max(0, -dc1) >= min(g.m, i0 + DIAG_BLOCKS_ROWS) || min((long long)g.m, (long long)g.n - dc0) <= i0) continue; /* no row of the window here (block-uniform) */
#pragma unroll
    for (int j = 0; j < DIAG_BLOCKS_SUMS; j++) {
      const int s = s0 + warp + j * (DIAG_BLOCKS_THREADS / 32);

      dcs[j] = s < s1 ? g.sum_d[s] : DIAG_BLOCKS_NO_SUM;
#pragma unroll
      for (int r = 0; r < DIAG_BLOCKS_LANE; r++) acc[j][r] = 0.0;
    }
    for (int ch = g.win_chunk[w]; ch < g.win_chunk[w + 1]; ch++, stamp++) {
      const int4 q  = g.chunk[ch];
      const int  nb = q.y - q.x, na = q.w - q.z, alo_d = g.ad[q.z];
      double    *s_a = s_pool, *s_b = s_pool + na * DIAG_BLOCKS_ROWS;

      __syncthreads(); /* the previous chunk is no longer read */
      for (int idx = threadIdx.x; idx < na * DIAG_BLOCKS_ROWS; idx += DIAG_BLOCKS_THREADS) {
        const int e = idx / DIAG_BLOCKS_ROWS, i = i0 + idx % DIAG_BLOCKS_ROWS, d = g.ad[q.z + e];

        s_a[idx] = i >= max(0, -d) && (long long)i < min((long long)g.m, (long long)g.k - d) ? a_val[g.abase[q.z + e] + i] : 0.0;
      }
      for (int idx = threadIdx.x; idx < nb * DIAG_BLOCKS_BROWS; idx += DIAG_BLOCKS_THREADS) {
        const int       e = idx / DIAG_BLOCKS_BROWS, d = g.bd[q.x + e];
        const long long r = (long long)i0 + dc0 - d + idx % DIAG_BLOCKS_BROWS; /* B's row of A's row i0 + x on the sum dc0 + (idx % BROWS - x) */

        s_b[idx] = r >= max(0, -d) && r < min((long long)g.k, (long long)g.n - d) ? b_val[g.bbase[q.x + e] + r] : 0.0;
      }
      for (int e = threadIdx.x; e < na; e += DIAG_BLOCKS_THREADS) {
        const int d = g.ad[q.z + e];

        s_amap[d - alo_d] = stamp << 8 | e;
        s_alo[e]          = max(0, -d) - i0;
        s_ahi[e]          = (int)(min((long long)g.m, (long long)g.k - d) - i0);
      }
      for (int e = threadIdx.x; e < nb; e += DIAG_BLOCKS_THREADS) {
        const int d = g.bd[q.x + e];

        s_bd[e]  = d;
        s_blo[e] = (int)(max(0LL, -(long long)d) - i0);
        s_bhi[e] = (int)(min((long long)g.k, (long long)g.n - d) - i0);
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < DIAG_BLOCKS_SUMS; j++) {
        const int dc = dcs[j];

        if (dc == DIAG_BLOCKS_NO_SUM) continue; /* warp-uniform */
        for (int bb = 0; bb < nb; bb += 32) {
          int      as = -1, da = 0;
          unsigned pairs;

          if (bb + lane < nb) { /* the pair of B's staged diagonal bb + lane on the sum dc, if A has its da */
            const long long u = (long long)dc - s_bd[bb + lane] - alo_d;

            da = (int)((long long)dc - s_bd[bb + lane]);
            if (u >= 0 && u < DIAG_BLOCKS_AMAP) {
              const int v = s_amap[u];

              if (v >> 8 == stamp) as = v & 255;
            }
          }
          pairs = __ballot_sync(0xffffffffu, as >= 0);
          while (pairs) {
            const int     t = __ffs(pairs) - 1, pa = __shfl_sync(0xffffffffu, as, t), pd = __shfl_sync(0xffffffffu, da, t), pb = bb + t;
            const int     lo = max(s_alo[pa], s_blo[pb] - pd), hi = min(s_ahi[pa], s_bhi[pb] - pd); /* rows of the block */
            const double *sa = s_a + pa * DIAG_BLOCKS_ROWS, *sb = s_b + pb * DIAG_BLOCKS_BROWS + (dc - dc0);

            pairs &= pairs - 1;
            if (lo <= 0 && hi >= DIAG_BLOCKS_ROWS) {
#pragma unroll
              for (int r = 0; r < DIAG_BLOCKS_LANE; r++) acc[j][r] = fma(sa[lane + 32 * r], sb[lane + 32 * r], acc[j][r]);
            } else {
#pragma unroll
              for (int r = 0; r < DIAG_BLOCKS_LANE; r++) {
                const int x = lane + 32 * r;

                if (x >= lo && x < hi) acc[j][r] = fma(sa[x], sb[x], acc[j][r]);
              }
            }
          }
        }
      }
    }
#pragma unroll
    for (int j = 0; j < DIAG_BLOCKS_SUMS; j++) {
      const int dc = dcs[j];

      if (dc == DIAG_BLOCKS_NO_SUM) continue;
      {
        const int       lo = max(0, -dc), hi = (int)min((long long)g.m, (long long)g.n - dc);
        const long long base = c_start[g.sum_c[s0 + warp + j * (DIAG_BLOCKS_THREADS / 32)]] - (g.c_hm && dc < 0 ? -dc : 0); /* C's value of row i: base + i */

#pragma unroll
        for (int r = 0; r < DIAG_BLOCKS_LANE; r++) {
          const int i = i0 + lane + 32 * r;

          if (i >= lo && i < hi) c_val[base + i] = acc[j][r];
        }
      }
    }
  }
}

/* The chunks of the window of sums [dc0, dc1]: runs of B's entry diagonals (ascending offset),
   each with the A diagonals that pair with one of them into the window, as many as fit the
   staging pool and the map.  Written to chunk when not NULL; returns how many. */
static int DiagBlocksChunks(int dc0, int dc1, int nea, const int *ad, int neb, const int *bd, int4 *chunk)
{
  int nch = 0, b, bend;

  if (!nea || !neb) return 0;
  b    = DiagLowerBound(bd, neb, (long long)dc0 - ad[nea - 1]);
  bend = DiagLowerBound(bd, neb, (long long)dc1 - ad[0] + 1);
  while (b < bend) {
    int       alo = DiagLowerBound(ad, nea, (long long)dc0 - bd[b]), e = b + 1;
    const int ahi = DiagLowerBound(ad, nea, (long long)dc1 - bd[b] + 1); /* A's offsets up to dc1 - db of the chunk's first */

    if (alo >= ahi) { /* no A diagonal brings this one into the window */
      b++;
      continue;
    }
    for (; e < bend; e++) { /* with B's next: A's offsets from dc0 - its offset */
      const int alo2 = DiagLowerBound(ad, nea, (long long)dc0 - bd[e]);

      if ((ahi - alo2) * DIAG_BLOCKS_ROWS + (e + 1 - b) * DIAG_BLOCKS_BROWS > DIAG_BLOCKS_POOL || (long long)ad[ahi - 1] - ad[alo2] >= DIAG_BLOCKS_AMAP) break;
      alo = alo2;
    }
    if (chunk) chunk[nch] = make_int4(b, e, alo, ahi);
    nch++;
    b = e;
  }
  return nch;
}

typedef struct {
  int d, c;
} DiagBlocksSum;

static int DiagBlocksSumCompare(const void *x, const void *y)
{
  const int dx = ((const DiagBlocksSum *)x)->d, dy = ((const DiagBlocksSum *)y)->d;

  return dx < dy ? -1 : dx > dy;
}

/* C's sums by ascending offset, each with its stored diagonal (CDM: both halves of each compact
   diagonal but the main one, the padding halves included: they get zeros); returns how many.  As
   C's diagonals come from the plan (HM: 0, 1, ..., then -1, -2, ...; CDM: compact k ascending,
   the lower halves k - n below the upper ones) no sort is needed; otherwise they are sorted. */
static int DiagBlocksSums(const DiagFormat *C, DiagBlocksSum *sum)
{
  const int cdm = C->scheme == DIAG_SCHEME_CDM;
  int       nsum = 0, total = 0;

  for (PetscInt c = 0; c < C->ndiag; c++) total += 1 + (cdm && C->offset[c] > 0);
  if (cdm) {
    for (PetscInt c = 0; c < C->ndiag; c++)
      if (C->offset[c] > 0) sum[nsum].d = (int)(C->offset[c] - C->ncols), sum[nsum++].c = (int)c;
    for (PetscInt c = 0; c < C->ndiag; c++) sum[nsum].d = (int)C->offset[c], sum[nsum++].c = (int)c;
  } else {
    for (PetscInt c = C->ndiag - 1; c >= 0 && C->offset[c] < 0; c--) sum[nsum].d = (int)C->offset[c], sum[nsum++].c = (int)c;
    for (PetscInt c = 0; c < C->ndiag && C->offset[c] >= 0; c++) sum[nsum].d = (int)C->offset[c], sum[nsum++].c = (int)c;
  }
  for (int s = 1; s < nsum && nsum == total; s++)
    if (sum[s].d <= sum[s - 1].d) nsum = 0;
  if (nsum == total) return nsum;
  for (PetscInt c = 0, q = 0; c < C->ndiag; c++) {
    sum[q].d = (int)C->offset[c], sum[q++].c = (int)c;
    if (cdm && C->offset[c] > 0) sum[q].d = (int)(C->offset[c] - C->ncols), sum[q++].c = (int)c;
  }
  qsort(sum, (size_t)total, sizeof(*sum), DiagBlocksSumCompare);
  return total;
}

PetscBool DiagBlocksPreferred(const DiagProductPlan *plan)
{
  const PetscInt nea = plan->nea, neb = plan->neb;

  /* banded operands with enough diagonals */
  return (PetscBool)(nea >= DIAG_BLOCKS_MIN_DIAGONALS && neb >= DIAG_BLOCKS_MIN_DIAGONALS && DiagPlanBanded(plan));
}

PetscErrorCode DiagDeviceProductBlocksCreate(DiagDeviceProduct p, const DiagProductPlan *plan, const DiagFormat *C)
{
  const int      nea = (int)plan->nea, neb = (int)plan->neb;
  int           *ad = NULL, *bd = NULL, *win_sum = NULL, *win_chunk = NULL, nsum = 0, nwin = 0, nch = 0;
  long long     *abase = NULL, *bbase = NULL;
  DiagBlocksSum *sum = NULL;
  int4          *chunk = NULL;
  PetscErrorCode ierr = 0;
  char           what[128];

  PetscFunctionBegin;
  if (p->blocks || !C->ndiag || (C->scheme == DIAG_SCHEME_CDM && C->nrows != C->ncols)) PetscFunctionReturn(0);
  /* the entry diagonals by ascending offset, and C's sums */
  PetscCall(PetscMalloc5(PetscMax(nea, 1), &ad, PetscMax(nea, 1), &abase, PetscMax(neb, 1), &bd, PetscMax(neb, 1), &bbase, 2 * C->ndiag, &sum));
  for (int e = 0; e < nea; e++) ad[e] = (int)plan->ea_d[plan->a_order[e]], abase[e] = plan->ea_base[plan->a_order[e]];
  for (int e = 0; e < neb; e++) bd[e] = (int)plan->eb_d[plan->b_order[e]], bbase[e] = plan->eb_base[plan->b_order[e]];
  nsum = DiagBlocksSums(C, sum);
  /* the windows (runs of sums within SPAN offsets) and their chunks: count, then fill */
  for (int pass = 0; pass < 2; pass++) {
    nwin = nch = 0;
    for (int s = 0, e; s < nsum; s = e) {
      for (e = s + 1; e < nsum && (long long)sum[e].d - sum[s].d < DIAG_BLOCKS_SPAN; e++) {}
      if (pass) win_sum[nwin] = s, win_chunk[nwin] = nch;
      nch += DiagBlocksChunks(sum[s].d, sum[e - 1].d, nea, ad, neb, bd, pass ? chunk + nch : NULL);
      nwin++;
    }
    if (!pass && nch >= DIAG_BLOCKS_MAX_CHUNKS) break; /* the map's stamps would wrap: no schedule, the other kernels run */
    if (!pass) PetscCall(PetscMalloc3(nwin + 1, &win_sum, nwin + 1, &win_chunk, PetscMax(nch, 1), &chunk));
  }
  if (!chunk) {
    PetscCall(PetscFree5(ad, abase, bd, bbase, sum));
    PetscFunctionReturn(0);
  }
  win_sum[nwin] = nsum, win_chunk[nwin] = nch;
  /* one allocation and one copy: chunks, offsets and bases, then the int arrays */
  snprintf(what, sizeof(what), "DIAG product, blocks kernel: %d windows of C's %d sums, %d chunks", nwin, nsum, nch);
  {
    const size_t n4 = (size_t)nch, n8 = (size_t)nea + neb, n4i = (size_t)nea + neb + 2 * (size_t)nsum + 2 * ((size_t)nwin + 1);
    const size_t bytes = n4 * sizeof(int4) + n8 * sizeof(long long) + n4i * sizeof(int);
    char        *h = NULL;

    ierr = PetscMalloc1(bytes, &h);
    if (!ierr) ierr = GpuMatsCUDAMalloc(&p->blocks, bytes, what);
    if (!ierr) {
      int4      *h4 = (int4 *)h;
      long long *h8 = (long long *)(h4 + n4);
      int       *hi = (int *)(h8 + n8);

      memcpy(h4, chunk, n4 * sizeof(int4));
      memcpy(h8, abase, (size_t)nea * sizeof(long long)), memcpy(h8 + nea, bbase, (size_t)neb * sizeof(long long));
      memcpy(hi, ad, (size_t)nea * sizeof(int)), memcpy(hi + nea, bd, (size_t)neb * sizeof(int));
      hi += nea + neb;
      for (int s = 0; s < nsum; s++) hi[s] = sum[s].d, hi[nsum + s] = sum[s].c;
      hi += 2 * nsum;
      memcpy(hi, win_sum, ((size_t)nwin + 1) * sizeof(int)), memcpy(hi + nwin + 1, win_chunk, ((size_t)nwin + 1) * sizeof(int));
      ierr = GpuMatsCUDACopyToDevice(p->blocks, h, bytes);
    }
    (void)PetscFree(h);
  }
  p->blocks_nwin = nwin, p->blocks_nsum = nsum, p->blocks_nchunk = nch;
  PetscCall(PetscFree5(ad, abase, bd, bbase, sum));
  PetscCall(PetscFree3(win_sum, win_chunk, chunk));
  if (ierr) {
    (void)GpuMatsCUDAFree(p->blocks);
    p->blocks = NULL;
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode DiagDeviceProductNumericBlocks(DiagDeviceProduct p, DiagDevice A, DiagDevice B, DiagDevice C)
{
  static int     optin = 0;
  DiagBlocksArgs g;
  void          *s;
  dim3           grid;

  PetscFunctionBegin;
  PetscCall(DiagDeviceProductCheckOperands(p, A, B, C, "blocks"));
  if (!p->ndiag_c || !p->nrows) PetscFunctionReturn(0);
  PetscCheck(p->blocks, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The DIAG blocks product has no schedule: DiagDeviceProductBlocksCreate makes it (none for a CDM C that is not square, here %d x %d)", p->nrows, p->ncols);
  if (!optin) {
    int dev;

    GpuMatsCallCUDA(cudaGetDevice(&dev));
    GpuMatsCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    PetscCheck((size_t)optin >= DIAG_BLOCKS_SMEM, PETSC_COMM_SELF, PETSC_ERR_SUP, "The DIAG blocks product stages %zu bytes of shared memory a block; this device gives %d", (size_t)DIAG_BLOCKS_SMEM, optin);
    GpuMatsCallCUDA(cudaFuncSetAttribute(DiagProductBlocksKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)DIAG_BLOCKS_SMEM));
  }
  g.m = p->nrows, g.k = p->inner, g.n = p->ncols, g.c_hm = p->scheme == DIAG_SCHEME_HM, g.nwin = p->blocks_nwin;
  g.chunk   = (const int4 *)p->blocks;
  g.abase   = (const long long *)(g.chunk + p->blocks_nchunk);
  g.bbase   = g.abase + p->nea;
  g.ad      = (const int *)(g.bbase + p->neb);
  g.bd      = g.ad + p->nea;
  g.sum_d   = g.bd + p->neb;
  g.sum_c   = g.sum_d + p->blocks_nsum;
  g.win_sum = g.sum_c + p->blocks_nsum;
  g.win_chunk = g.win_sum + p->blocks_nwin + 1;
  PetscCall(GpuMatsCUDAGetStream(&s));
  grid = dim3((unsigned)((p->nrows + DIAG_BLOCKS_ROWS - 1) / DIAG_BLOCKS_ROWS), (unsigned)PetscMin(p->blocks_nwin, DIAG_BLOCKS_GRID_Y));
  DiagProductBlocksKernel<<<grid, DIAG_BLOCKS_THREADS, DIAG_BLOCKS_SMEM, (cudaStream_t)s>>>(g, C->start, A->val, B->val, C->val);
  GpuMatsCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}
