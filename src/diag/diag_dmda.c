/* MATSEQDIAG from a DMDA's stencil.  DMCreateMatrix on one process finds no AIJ preallocation
   function on a diag matrix and takes PETSc's generic path, which calls MatSetUp with the DM
   attached: the diagonals of the stencil are built here, their values zero, and the structure
   bits mark exactly the entries AIJ's DMCreateMatrix inserts (the stencil clipped at the edges
   of a non-periodic grid, wrapped at periodic ones, with DMDASetBlockFills' couplings).  The
   matrix comes assembled as AIJ's does, in one pass over those entries: no counting pass, no
   staging, no MatSetValues. */
#include "diag/diag_impl.h"
#include <petscdmda.h>
#include <petsc/private/dmdaimpl.h> /* the block fills of DMDASetBlockFills: PETSc has no getter */

typedef struct {
  PetscInt        dim, L[3]; /* grid points per axis (1 beyond dim) */
  DMBoundaryType  b[3];
  PetscBool       wrap[3];   /* periodic axis */
  DMDAStencilType st;
  PetscInt        dof, s;
  PetscInt        ndisp, (*disp)[3]; /* the stencil's displacements, centre first (DiagGridStencil) */
  PetscInt       *row, *col;         /* dof x dof: the entries of a point through one displacement */
  const PetscInt *dfill, *ofill;     /* DMDASetBlockFills (compressed rows), NULL: every component */
} DiagGrid;

static PetscErrorCode DiagGridOf(DM da, DiagGrid *g)
{
  DM_DA *dd = (DM_DA *)da->data;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &g->dim, &g->L[0], &g->L[1], &g->L[2], NULL, NULL, NULL, &g->dof, &g->s, &g->b[0], &g->b[1], &g->b[2], &g->st));
  for (PetscInt a = 0; a < 3; a++) {
    if (a >= g->dim) g->L[a] = 1;
    g->wrap[a] = a < g->dim && g->b[a] == DM_BOUNDARY_PERIODIC ? PETSC_TRUE : PETSC_FALSE;
  }
  /* DMCreateMatrix uses the fills only when the off-point one is set (its _Fill variants) */
  g->ofill = dd->ofill;
  g->dfill = dd->ofill ? dd->dfill : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stencil's displacements, centre first, and the scratch of a point's entries */
static PetscErrorCode DiagGridStencil(DiagGrid *g)
{
  PetscInt r[3];

  PetscFunctionBegin;
  for (PetscInt a = 0; a < 3; a++) r[a] = a < g->dim ? g->s : 0;
  PetscCall(PetscMalloc3((2 * r[0] + 1) * (2 * r[1] + 1) * (2 * r[2] + 1), &g->disp, g->dof * g->dof, &g->row, g->dof * g->dof, &g->col));
  g->ndisp      = 1;
  g->disp[0][0] = g->disp[0][1] = g->disp[0][2] = 0;
  for (PetscInt dk = -r[2]; dk <= r[2]; dk++)
    for (PetscInt dj = -r[1]; dj <= r[1]; dj++)
      for (PetscInt di = -r[0]; di <= r[0]; di++) {
        const PetscInt moved = (di != 0) + (dj != 0) + (dk != 0);

        if (!moved || (g->st == DMDA_STENCIL_STAR && moved > 1)) continue;
        g->disp[g->ndisp][0]   = di;
        g->disp[g->ndisp][1]   = dj;
        g->disp[g->ndisp++][2] = dk;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The components coupled to component c of a point through displacement q: [*first, *last) of
   *list, or all of them (list NULL) */
static inline void DiagGridCouplings(const DiagGrid *g, PetscInt q, PetscInt c, const PetscInt **list, PetscInt *first, PetscInt *last)
{
  const PetscInt *fill = q ? g->ofill : g->dfill;

  *list = fill;
  if (fill) *first = fill[c], *last = fill[c + 1];
  else *first = 0, *last = g->dof;
}

/* The point reached from p by displacement q, or -1 off a non-periodic edge */
static inline PetscInt DiagGridNeighbour(const DiagGrid *g, const PetscInt p[3], PetscInt q)
{
  PetscInt at[3];

  for (PetscInt a = 0; a < 3; a++) {
    at[a] = p[a] + g->disp[q][a];
    if (at[a] < 0 || at[a] >= g->L[a]) {
      if (!g->wrap[a]) return -1;
      at[a] = (at[a] % g->L[a] + g->L[a]) % g->L[a];
    }
  }
  return at[0] + g->L[0] * (at[1] + g->L[1] * at[2]);
}

/* The entries of point p's rows through displacement q, into g->row and g->col: their count, 0
   when the neighbour is off a non-periodic edge */
static PetscInt DiagGridEntries(const DiagGrid *g, const PetscInt p[3], PetscInt q)
{
  const PetscInt here = p[0] + g->L[0] * (p[1] + g->L[1] * p[2]), there = DiagGridNeighbour(g, p, q);
  PetscInt       n    = 0;

  if (there < 0) return 0;
  for (PetscInt c = 0; c < g->dof; c++) {
    const PetscInt *list;
    PetscInt        first, last;

    DiagGridCouplings(g, q, c, &list, &first, &last);
    for (PetscInt e = first; e < last; e++, n++) g->row[n] = g->dof * here + c, g->col[n] = g->dof * there + (list ? list[e] : e);
  }
  return n;
}

/* The points of an axis whose neighbours differ from the next point's: those within s + 1 of
   an edge; every interior point has the same offsets as the first interior one */
static PetscInt DiagGridRepresentatives(PetscInt L, PetscInt reach, PetscInt rep[])
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < L; i++) {
    if (i > reach + 1 && i < L - 1 - reach) i = L - 1 - reach;
    rep[n++] = i;
  }
  return n;
}

/* The HM offsets the stencil's entries lie on, marked in present[] (m + n - 1 marks), and the
   count of those entries (per axis: points whose neighbour at distance d exists) */
static PetscErrorCode DiagGridOffsets(const DiagGrid *g, PetscInt m, unsigned char *present, PetscInt64 *entries)
{
  PetscInt *rep[3], nrep[3], p[3];

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(2 * g->s + 3, &rep[0], 2 * g->s + 3, &rep[1], 2 * g->s + 3, &rep[2]));
  for (PetscInt a = 0; a < 3; a++) nrep[a] = DiagGridRepresentatives(g->L[a], g->s, rep[a]);
  for (PetscInt k = 0; k < nrep[2]; k++)
    for (PetscInt j = 0; j < nrep[1]; j++)
      for (PetscInt i = 0; i < nrep[0]; i++) {
        p[0] = rep[0][i];
        p[1] = rep[1][j];
        p[2] = rep[2][k];
        for (PetscInt q = 0; q < g->ndisp; q++) {
          const PetscInt n = DiagGridEntries(g, p, q);

          for (PetscInt k = 0; k < n; k++) present[g->col[k] - g->row[k] + m - 1] = 1;
        }
      }
  PetscCall(PetscFree3(rep[0], rep[1], rep[2]));
  *entries = 0;
  for (PetscInt q = 0; q < g->ndisp; q++) {
    PetscInt64 points = 1, couplings = 0;

    for (PetscInt a = 0; a < 3; a++) points *= g->wrap[a] ? g->L[a] : PetscMax(g->L[a] - PetscAbsInt(g->disp[q][a]), 0);
    for (PetscInt c = 0; c < g->dof; c++) {
      const PetscInt *list;
      PetscInt        first, last;

      DiagGridCouplings(g, q, c, &list, &first, &last);
      couplings += last - first;
    }
    *entries += points * couplings;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt DiagBitsSet(unsigned char b)
{
  b = (unsigned char)(b - ((b >> 1) & 0x55));
  b = (unsigned char)((b & 0x33) + ((b >> 2) & 0x33));
  return (b + (b >> 4)) & 0x0f;
}

/* Bits [from, from + count) set, whole bytes at once inside */
static void DiagStructureSetRun(unsigned char *bits, PetscInt64 from, PetscInt64 count)
{
  PetscInt64 p = from, end = from + count;

  for (; p < end && (p & 7); p++) DiagStructureSet(bits, p);
  if (end - p >= 8) {
    memset(bits + (p >> 3), 0xff, (size_t)((end - p) >> 3));
    p += (end - p) & ~(PetscInt64)7;
  }
  for (; p < end; p++) DiagStructureSet(bits, p);
}

/* The structure bits of the entries of point p through displacement q, one at a time (the
   general lookup: across a periodic seam) */
static void DiagGridMarkPoint(Mat A, const DiagGrid *g, const PetscInt p[3], PetscInt q)
{
  Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
  const PetscInt n = DiagGridEntries(g, p, q);

  for (PetscInt k = 0; k < n; k++) DiagStructureSet(d->structure, MatDiagSlot_SeqDiag(A, g->row[k], g->col[k]) - d->fmt.val);
}

/* The structure bit of every entry of the stencil.  Along a grid line, the points whose
   neighbour through displacement q lies inside the grid (no seam crossed) make a run of rows
   whose entries (c, e) lie on one stored diagonal, found once, at consecutive slots (HM:
   min(row, column), CDM: the row): a run of bits.  Entries across a periodic seam take the
   general lookup. */
static PetscErrorCode DiagGridMark(Mat A, const DiagGrid *g)
{
  Mat_SeqDiag      *d   = (Mat_SeqDiag *)A->spptr;
  const DiagFormat *f   = &d->fmt;
  const PetscInt    dof = g->dof, L0 = g->L[0];
  const PetscBool   hm  = f->scheme == DIAG_SCHEME_HM ? PETSC_TRUE : PETSC_FALSE;
  PetscInt         *diag, *shift, p[3];

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(g->ndisp * dof * dof, &diag, g->ndisp * dof * dof, &shift));
  for (PetscInt q = 0; q < g->ndisp; q++)
    for (PetscInt c = 0; c < dof; c++)
      for (PetscInt e = 0; e < dof; e++) {
        const PetscInt at = (q * dof + c) * dof + e;

        shift[at] = e - c + dof * (g->disp[q][0] + L0 * (g->disp[q][1] + g->L[1] * g->disp[q][2])); /* column - row */
        diag[at]  = PetscAbsInt(shift[at]) < A->rmap->n ? DiagFind(f, hm ? shift[at] : (shift[at] + A->rmap->n) % A->rmap->n) : -1;
      }
  for (p[2] = 0; p[2] < g->L[2]; p[2]++)
    for (p[1] = 0; p[1] < g->L[1]; p[1]++)
      for (PetscInt q = 0; q < g->ndisp; q++) {
        const PetscInt lo = PetscMax(0, -g->disp[q][0]), hi = PetscMin(L0, L0 - g->disp[q][0]); /* x-neighbour inside */
        PetscBool      seam = PETSC_FALSE, off = PETSC_FALSE;

        for (PetscInt a = 1; a < 3; a++) {
          const PetscInt at = p[a] + g->disp[q][a];

          if (at < 0 || at >= g->L[a]) {
            if (g->wrap[a]) seam = PETSC_TRUE;
            else off = PETSC_TRUE;
          }
        }
        if (off) continue;
        if (seam || g->wrap[0]) /* the points of this line one by one */
          for (p[0] = 0; p[0] < L0; p[0]++) {
            if (!seam && p[0] >= lo && p[0] < hi) continue; /* below, as a run */
            DiagGridMarkPoint(A, g, p, q);
          }
        if (seam || lo >= hi) continue;
        for (PetscInt c = 0; c < dof; c++) {
          const PetscInt *list;
          PetscInt        first, last;

          DiagGridCouplings(g, q, c, &list, &first, &last);
          for (PetscInt k = first; k < last; k++) {
            const PetscInt   at   = (q * dof + c) * dof + (list ? list[k] : k);
            const PetscInt64 row  = (PetscInt64)dof * (lo + L0 * (p[1] + g->L[1] * p[2])) + c;
            const PetscInt64 slot = f->start[diag[at]] + row + (hm ? PetscMin(0, shift[at]) : 0);

            if (dof == 1) DiagStructureSetRun(d->structure, slot, hi - lo);
            else
              for (PetscInt i = 0; i < hi - lo; i++) DiagStructureSet(d->structure, slot + (PetscInt64)dof * i);
          }
        }
      }
  PetscCall(PetscFree2(diag, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagFromDMDA_SeqDiag(Mat A, DM da, PetscBool *built)
{
  Mat_SeqDiag   *d = (Mat_SeqDiag *)A->spptr;
  PetscBool      isda;
  PetscMPIInt    size;
  DiagGrid       g;
  unsigned char *present;
  DiagScheme     automatic, scheme;
  PetscInt64     hm, cdm, stored, entries = 0, marked = 0;
  DiagFormat     fmt;
  DiagStatus     st;

  PetscFunctionBegin;
  *built = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
  if (!isda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)da), &size));
  if (size > 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DiagGridOf(da, &g));
  if (g.dof * g.L[0] * g.L[1] * g.L[2] != A->rmap->n || A->rmap->n != A->cmap->n) PetscFunctionReturn(PETSC_SUCCESS); /* not this DMDA's operator */
  PetscCall(DiagGridStencil(&g));
  PetscCall(PetscLogEventBegin(GPUMATS_FormatBuild, A, 0, 0, 0));
  PetscCall(PetscCalloc1(PetscMax(2 * A->rmap->n - 1, 1), &present));
  PetscCall(DiagGridOffsets(&g, A->rmap->n, present, &entries));
  st = DiagChooseSchemeFromOffsets(A->rmap->n, A->cmap->n, present, &automatic, &hm, &cdm);
  if (st != DIAG_OK) PetscCall(PetscFree(present));
  if (st != DIAG_OK) PetscCall(PetscFree3(g.disp, g.row, g.col));
  PetscCall(DiagCheckStatus(st, A, "Choosing the scheme"));
  PetscCall(MatDiagPickScheme_SeqDiag(A, automatic, hm, cdm, &scheme));
  st = DiagFromOffsets(scheme, A->rmap->n, A->cmap->n, present, entries, d->settings.max_fill, &stored, &fmt);
  PetscCall(PetscFree(present));
  if (st != DIAG_OK) PetscCall(PetscFree3(g.disp, g.row, g.col));
  PetscCall(MatDiagCheckBuilt_SeqDiag(A, st, &fmt, scheme, stored));
  PetscCall(MatDiagSetFormat_SeqDiag(A, &fmt));
  PetscCall(PetscCalloc1(d->fmt.start[d->fmt.ndiag] / 8 + 1, &d->structure));
  d->structure_for = d->fmt.offset;
  PetscCall(DiagGridMark(A, &g));
  for (PetscInt64 b = 0; b < d->fmt.start[d->fmt.ndiag] / 8 + 1; b++) marked += DiagBitsSet(d->structure[b]);
  d->fmt.nnz = marked; /* a skinny periodic grid reaches some neighbours twice */
  PetscCall(PetscFree3(g.disp, g.row, g.col));
  PetscCall(PetscLogEventEnd(GPUMATS_FormatBuild, A, 0, 0, 0));
  PetscCall(PetscInfo(A, "diag: the %" PetscInt_FMT " diagonals of the DMDA's stencil (%" PetscInt64_FMT " entries, %d displacements, %" PetscInt_FMT " dof), %s, built from the grid\n", d->fmt.ndiag, marked, (int)g.ndisp, g.dof, scheme == DIAG_SCHEME_HM ? "HM" : "CDM"));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  *built = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
