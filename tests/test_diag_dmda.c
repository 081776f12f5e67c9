static const char help[] = "DMCreateMatrix with -dm_mat_type diag against MATAIJ on the same DMDA.\n\
1-D, 2-D and 3-D DMDAs, star and box stencils, stencil widths 1 and 2, 1 and 3 dof, periodic and not:\n\
the matrix comes assembled with the stencil's zeros (MatAssembled, MatZeroEntries at once),\n\
MatSetValuesStencil fills it entry for entry as AIJ (MatConvert to AIJ, difference exactly zero,\n\
and the four multiplies on random vectors), MatZeroEntries then a refill with ADD_VALUES, MatSOR\n\
(local sweeps) against AIJ's and its device sweeps against its host ones to the last bit, MatScale,\n\
MatShift and MatAXPY after products (on a GPU: on the device values), an entry\n\
off every stored diagonal is a clear error, and a finite-difference Jacobian by colouring\n\
(MatFDColoringCreate/SetUp/Apply, both -mat_fd_type) gives AIJ's Jacobian bit for bit.  Without a\n\
DM: entries staged with ADD, ADD, flush, INSERT (off-process rows too), preallocated or not.\n\
The pattern of DMCreateMatrix's matrix is AIJ's, row by row, also with DMDASetBlockFills.\n\
  -seed <2024>   seed of the random vectors\n";

#include <petscdmda.h>
#include <gpumats.h>
#include "testmat.h"

typedef struct {
  PetscInt        dim, dof, sw;
  DMDAStencilType st;
  DMBoundaryType  bt;
  PetscBool       fills; /* DMDASetBlockFills (dof 3): only some components coupled */
} Case;

/* A value that depends on the natural indices of row and column only: the same in both matrices
   whatever the process layout, and a different one for each pass */
static PetscScalar EntryValue(PetscInt row, PetscInt col, PetscInt pass)
{
  return (PetscScalar)(1.0 + 0.001 * (PetscReal)((row * 7919 + col * 104729 + pass * 1299709) % 1000));
}

static PetscInt Wrap(PetscInt i, PetscInt n)
{
  return ((i % n) + n) % n;
}

/* Every entry of the stencil of each owned point, with MatSetValuesStencil, a row at a time */
static PetscErrorCode FillStencil(DM da, Mat J, PetscInt pass, InsertMode mode)
{
  PetscInt        dim, M, N, P, dof, sw, xs, ys, zs, xm, ym, zm, ncols, cap;
  DMDAStencilType st;
  DMBoundaryType  bx, by, bz;
  MatStencil      row, *cols;
  PetscScalar    *vals;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &sw, &bx, &by, &bz, &st));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  cap = dof * (2 * sw + 1) * (2 * sw + 1) * (2 * sw + 1);
  PetscCall(PetscMalloc2(cap, &cols, cap, &vals));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++)
        for (PetscInt c = 0; c < dof; c++) {
          const PetscInt nrow = c + dof * (i + M * (j + N * k));

          row.i = i, row.j = j, row.k = k, row.c = c;
          ncols = 0;
          for (PetscInt dk = (dim == 3 ? -sw : 0); dk <= (dim == 3 ? sw : 0); dk++)
            for (PetscInt dj = (dim >= 2 ? -sw : 0); dj <= (dim >= 2 ? sw : 0); dj++)
              for (PetscInt di = -sw; di <= sw; di++) {
                const PetscInt nonzero = (di != 0) + (dj != 0) + (dk != 0);

                if (st == DMDA_STENCIL_STAR && nonzero > 1) continue;
                if ((bx != DM_BOUNDARY_PERIODIC && (i + di < 0 || i + di >= M)) || (by != DM_BOUNDARY_PERIODIC && (j + dj < 0 || j + dj >= N)) || (bz != DM_BOUNDARY_PERIODIC && (k + dk < 0 || k + dk >= P))) continue;
                for (PetscInt cc = 0; cc < dof; cc++) {
                  const PetscInt ncol = cc + dof * (Wrap(i + di, M) + M * (Wrap(j + dj, N) + N * Wrap(k + dk, P)));

                  cols[ncols].i = i + di, cols[ncols].j = j + dj, cols[ncols].k = k + dk, cols[ncols].c = cc;
                  vals[ncols++] = EntryValue(nrow, ncol, pass);
                }
              }
          PetscCall(MatSetValuesStencil(J, 1, &row, ncols, cols, vals, mode));
        }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Jd, as an AIJ, minus Ja: every entry exactly zero; also the multiplies */
static PetscErrorCode CompareEntries(TestCtx *t, Mat Jd, Mat Ja, const char *desc)
{
  Mat       C;
  PetscReal diff, norm;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(Jd, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, Ja, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &diff));
  PetscCall(MatNorm(Ja, NORM_FROBENIUS, &norm));
  PetscCheck(diff == 0, t->comm, PETSC_ERR_PLIB, "MISMATCH %s: the diag matrix differs from AIJ's entry by entry (Frobenius norm of the difference %g, of AIJ %g)", desc, (double)diff, (double)norm);
  PetscCall(MatDestroy(&C));
  t->ncompared++;
  PetscCall(CheckProducts(t, Jd, Ja, desc));
  PetscFunctionReturn(0);
}

/* The entries DMCreateMatrix gives, zeros included: the same rows and columns as AIJ's (a zero
   slot of a stored diagonal that AIJ does not have, at a grid edge, must not be an entry) */
static PetscErrorCode ComparePattern(TestCtx *t, Mat Jd, Mat Ja, const char *desc)
{
  Mat      C;
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(Jd, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatGetOwnershipRange(Ja, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt *cd, *ca;
    PetscInt        nd, na;
    PetscBool       same;

    PetscCall(MatGetRow(C, i, &nd, &cd, NULL));
    PetscCall(MatGetRow(Ja, i, &na, &ca, NULL));
    same = (PetscBool)(nd == na);
    for (PetscInt k = 0; same && k < nd; k++) same = (PetscBool)(cd[k] == ca[k]);
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MISMATCH %s: row %" PetscInt_FMT " of DMCreateMatrix's diag matrix has %" PetscInt_FMT " entries, AIJ's %" PetscInt_FMT " (or other columns)", desc, i, nd, na);
    PetscCall(MatRestoreRow(Ja, i, &na, &ca, NULL));
    PetscCall(MatRestoreRow(C, i, &nd, &cd, NULL));
  }
  PetscCall(MatDestroy(&C));
  t->ncompared++;
  PetscFunctionReturn(0);
}

/* An entry of the first owned row off every diagonal the diag matrix stores (as HM offsets in the
   diagonal block and as compact offsets modulo its size): a clear error */
static PetscErrorCode CheckOffPattern(TestCtx *t, Mat Jd, const char *desc)
{
  PetscInt    rstart, rend, cstart, cend, n;
  PetscBool  *hm, *cdm;
  PetscScalar one = 1;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(Jd, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(Jd, &cstart, &cend));
  n = cend - cstart;
  if (rend == rstart || n < 2) PetscFunctionReturn(0);
  PetscCall(PetscCalloc2(2 * n, &hm, n, &cdm));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt        nz;
    const PetscInt *cols;

    PetscCall(MatGetRow(Jd, r, &nz, &cols, NULL));
    for (PetscInt q = 0; q < nz; q++)
      if (cols[q] >= cstart && cols[q] < cend) {
        const PetscInt d = (cols[q] - cstart) - (r - rstart);

        hm[d + n] = PETSC_TRUE, cdm[(d + n) % n] = PETSC_TRUE;
      }
    PetscCall(MatRestoreRow(Jd, r, &nz, &cols, NULL));
  }
  for (PetscInt d = 1; d < n; d++)
    if (!hm[d + n] && !cdm[d]) {
      const PetscInt col = cstart + d;
      PetscErrorCode ierr;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MatSetValues(Jd, 1, &rstart, 1, &col, &one, INSERT_VALUES);
      PetscCall(PetscPopErrorHandler());
      PetscCall(ExpectError(ierr, "does not store", desc));
      break;
    }
  PetscCall(PetscFree2(hm, cdm));
  PetscFunctionReturn(0);
}

/* F(u)_p,c = u_p,c^3 + sum over the stencil's neighbours q and components c' of w u_q,c'^2:
   nonlinear, coupling exactly the stencil's entries */
static PetscErrorCode FormFunction(void *ctx, Vec U, Vec F, void *unused)
{
  DM                 da = (DM)ctx;
  Vec                Ul;
  const PetscScalar *u;
  PetscScalar       *f;
  PetscInt           dim, M, N, P, dof, sw, xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm, out = 0;
  DMDAStencilType    st;
  DMBoundaryType     bx, by, bz;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &sw, &bx, &by, &bz, &st));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  PetscCall(DMGetLocalVector(da, &Ul));
  PetscCall(DMGlobalToLocal(da, U, INSERT_VALUES, Ul));
  PetscCall(VecGetArrayRead(Ul, &u));
  PetscCall(VecGetArray(F, &f));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++)
        for (PetscInt c = 0; c < dof; c++) {
          const PetscInt p = c + dof * ((i - gxs) + gxm * ((j - gys) + gym * (k - gzs)));
          PetscScalar    s = u[p] * u[p] * u[p];

          for (PetscInt dk = (dim == 3 ? -sw : 0); dk <= (dim == 3 ? sw : 0); dk++)
            for (PetscInt dj = (dim >= 2 ? -sw : 0); dj <= (dim >= 2 ? sw : 0); dj++)
              for (PetscInt di = -sw; di <= sw; di++) {
                if (st == DMDA_STENCIL_STAR && (di != 0) + (dj != 0) + (dk != 0) > 1) continue;
                if ((bx != DM_BOUNDARY_PERIODIC && (i + di < 0 || i + di >= M)) || (by != DM_BOUNDARY_PERIODIC && (j + dj < 0 || j + dj >= N)) || (bz != DM_BOUNDARY_PERIODIC && (k + dk < 0 || k + dk >= P))) continue;
                for (PetscInt cc = 0; cc < dof; cc++) {
                  const PetscInt q = cc + dof * ((i + di - gxs) + gxm * ((j + dj - gys) + gym * (k + dk - gzs)));

                  s += (0.5 + 0.1 * (PetscReal)(cc + 2 * c) + 0.01 * (PetscReal)(di + 3 * dj + 5 * dk)) * u[q] * u[q];
                }
              }
          f[out++] = s;
        }
  PetscCall(VecRestoreArray(F, &f));
  PetscCall(VecRestoreArrayRead(Ul, &u));
  PetscCall(DMRestoreLocalVector(da, &Ul));
  PetscFunctionReturn(0);
}

/* The FD Jacobian by the DMDA's colouring into Ja and Jd: the same, entry for entry */
static PetscErrorCode CheckFDColoring(TestCtx *t, DM da, Mat Jd, Mat Ja, const char *fdtype, const char *desc)
{
  ISColoring    iscoloring;
  MatFDColoring cd, ca;
  Vec           x;
  char          what[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecSetRandom(x, t->vrnd));
  PetscCall(DMCreateColoring(da, IS_COLORING_GLOBAL, &iscoloring));
  PetscCall(MatFDColoringCreate(Ja, iscoloring, &ca));
  PetscCall(MatFDColoringSetFunction(ca, (GpuMatsFDColoringFn)(void (*)(void))FormFunction, NULL));
  PetscCall(MatFDColoringSetType(ca, fdtype));
  PetscCall(MatFDColoringSetUp(Ja, iscoloring, ca));
  PetscCall(MatFDColoringCreate(Jd, iscoloring, &cd));
  PetscCall(MatFDColoringSetFunction(cd, (GpuMatsFDColoringFn)(void (*)(void))FormFunction, NULL));
  PetscCall(MatFDColoringSetType(cd, fdtype));
  PetscCall(MatFDColoringSetUp(Jd, iscoloring, cd));
  PetscCall(MatFDColoringApply(Jd, cd, x, da));
  PetscCall(MatFDColoringApply(Ja, ca, x, da));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, FD Jacobian by colouring (-mat_fd_type %s)", desc, fdtype));
  PetscCall(CompareEntries(t, Jd, Ja, what));
  /* again at another point: the colouring is reused, the values replaced */
  PetscCall(VecScale(x, -0.5));
  PetscCall(MatFDColoringApply(Jd, cd, x, da));
  PetscCall(MatFDColoringApply(Ja, ca, x, da));
  PetscCall(PetscStrlcat(what, ", second point", sizeof(what)));
  PetscCall(CompareEntries(t, Jd, Ja, what));
  PetscCall(MatFDColoringDestroy(&cd));
  PetscCall(MatFDColoringDestroy(&ca));
  PetscCall(ISColoringDestroy(&iscoloring));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

/* MatScale, MatShift and MatAXPY (same pattern) after products, so that on a GPU they run on the
   values current there, then every entry against AIJ's (exact: the factors are chosen so that no
   rounding depends on how the arithmetic is grouped) */
static PetscErrorCode CheckValueOps(TestCtx *t, Mat Jd, Mat Ja, const char *desc)
{
  Mat  Xd, Xa;
  Vec  x, y;
  char what[300];

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(Jd, MAT_COPY_VALUES, &Xd));
  PetscCall(MatDuplicate(Ja, MAT_COPY_VALUES, &Xa));
  PetscCall(MatCreateVecs(Jd, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(Xd, x, y));
  PetscCall(MatMult(Jd, x, y));
  PetscCall(MatScale(Jd, 1.5));
  PetscCall(MatScale(Ja, 1.5));
  PetscCall(MatShift(Jd, 0.25));
  PetscCall(MatShift(Ja, 0.25));
  PetscCall(MatAXPY(Jd, -0.5, Xd, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Ja, -0.5, Xa, SAME_NONZERO_PATTERN));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s, after MatScale, MatShift and MatAXPY", desc));
  PetscCall(CompareEntries(t, Jd, Ja, what));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&Xd));
  PetscCall(MatDestroy(&Xa));
  PetscFunctionReturn(0);
}

/* The entries of a vector in another of the same layout (perhaps another type) */
static PetscErrorCode CopyValues(Vec from, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArrayWrite(to, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(to, &b));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscFunctionReturn(0);
}

/* MatSOR of the filled diag matrix against AIJ's point SOR (tolerance) and, for each sweep, the
   device sweeps (-mat_diag_sor device, or auto for the large grid) against the host sweeps of the
   same matrix: equal to the last bit.  Local sweeps on several processes, as MPIAIJ. */
static PetscErrorCode CheckSOR(TestCtx *t, Mat Jd, Mat Ja, MatDiagSOR device, const char *desc)
{
  const MatSORType flags[] = {SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_FORWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_BACKWARD_SWEEP | SOR_ZERO_INITIAL_GUESS, SOR_LOCAL_SYMMETRIC_SWEEP, SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP};
  const PetscReal  omega[] = {1.0, 1.3, 0.7, 1.0, 1.1, 1.0}, fshift[] = {0.0, 0.0, 0.5, 0.0, 0.0, 0.2};
  Vec              b, x0, xh, xd, xa, ba;
  PetscReal        nrm;
  char             what[300];

  PetscFunctionBeginUser;
  PetscCall(MatNorm(Ja, NORM_INFINITY, &nrm)); /* a dominant diagonal: the sweeps stay bounded */
  PetscCall(MatShift(Jd, nrm));
  PetscCall(MatShift(Ja, nrm));
  PetscCall(MatCreateVecs(Jd, &x0, &b));
  PetscCall(MatCreateVecs(Ja, &xa, &ba));
  PetscCall(VecSetRandom(b, t->rnd));
  PetscCall(VecSetRandom(x0, t->rnd));
  PetscCall(VecDuplicate(x0, &xh));
  PetscCall(VecDuplicate(x0, &xd));
  for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
    const PetscInt its = 1 + (PetscInt)(f % 2), lits = 1 + (PetscInt)(f % 3 == 2);

    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: MatSOR flag %d, omega %g, fshift %g, its %" PetscInt_FMT ", lits %" PetscInt_FMT, desc, (int)flags[f], (double)omega[f], (double)fshift[f], its, lits));
    PetscCall(VecCopy(x0, xh));
    PetscCall(VecCopy(x0, xd));
    PetscCall(CopyValues(x0, xa));
    PetscCall(CopyValues(b, ba));
    PetscCall(MatDiagSetSOR(Jd, MAT_DIAG_SOR_HOST));
    PetscCall(MatSOR(Jd, b, omega[f], flags[f], fshift[f], its, lits, xh));
    PetscCall(MatDiagSetSOR(Jd, device));
    PetscCall(MatSOR(Jd, b, omega[f], flags[f], fshift[f], its, lits, xd));
    PetscCall(MatSOR(Ja, ba, omega[f], flags[f], fshift[f], its, lits, xa));
    PetscCall(CompareVecs(t, xh, xa, what, "the host sweep against AIJ's"));
    PetscCall(VecAXPY(xd, -1.0, xh));
    PetscCall(VecNorm(xd, NORM_INFINITY, &nrm));
    PetscCheck(nrm == 0.0, t->comm, PETSC_ERR_PLIB, "MISMATCH %s: the sweep with -mat_diag_sor %s differs from the host sweep by %g (they must agree to the last bit)", what, device == MAT_DIAG_SOR_AUTO ? "auto" : "device", (double)nrm);
    t->ncompared++;
  }
  PetscCall(MatDiagSetSOR(Jd, MAT_DIAG_SOR_AUTO));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ba));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCase(TestCtx *t, const Case *cs)
{
  DM        da;
  Mat       Jd, Ja;
  PetscBool assembled;
  char      desc[256];
  PetscInt       sizes[3] = {9, 7, 6};

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(desc, sizeof(desc), "%" PetscInt_FMT "-D %s stencil width %" PetscInt_FMT ", dof %" PetscInt_FMT "%s, %s", cs->dim, cs->st == DMDA_STENCIL_STAR ? "star" : "box", cs->sw, cs->dof, cs->fills ? " with block fills" : "", cs->bt == DM_BOUNDARY_PERIODIC ? "periodic" : "not periodic"));
  /* a periodic DMDA's colouring is valid only when the periodic sizes are multiples of its period
     (2 sw + 1, and 5 for the 2-D 5-point star): PETSc's AIJ colouring overruns otherwise */
  if (cs->dim == 1) sizes[0] = cs->bt == DM_BOUNDARY_PERIODIC ? 15 : 9;
  else if (cs->bt == DM_BOUNDARY_PERIODIC) {
    if (cs->dim == 2) sizes[0] = 15, sizes[1] = cs->sw == 1 ? 15 : 10;
    else sizes[0] = cs->sw == 1 ? 6 : 10, sizes[1] = sizes[2] = cs->sw == 1 ? 6 : 5;
  } else if (cs->dim == 3) sizes[0] = 7, sizes[1] = 6, sizes[2] = 6;
  if (cs->dim == 1) PetscCall(DMDACreate1d(t->comm, cs->bt, sizes[0], cs->dof, cs->sw, NULL, &da));
  else if (cs->dim == 2) PetscCall(DMDACreate2d(t->comm, cs->bt, cs->bt, cs->st, sizes[0], sizes[1], PETSC_DECIDE, PETSC_DECIDE, cs->dof, cs->sw, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(t->comm, cs->bt, cs->bt, cs->bt, cs->st, sizes[0], sizes[1], sizes[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, cs->dof, cs->sw, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  if (cs->fills) { /* component 0 drives 1, 2 drives itself and 1; neighbours couple like components */
    const PetscInt dfill[9] = {1, 1, 0, 0, 1, 0, 0, 1, 1}, ofill[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

    PetscCall(DMDASetBlockFills(da, dfill, ofill));
  }
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &Ja));
  PetscCall(MatSetOption(Ja, MAT_USE_INODES, PETSC_FALSE)); /* point SOR, as diag's (inodes relax blocks) */
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, &Jd));
  PetscCall(CheckTypeOneOf(Jd, MATSEQDIAG, MATMPIDIAG, desc));
  PetscCall(MatAssembled(Jd, &assembled));
  PetscCheck(assembled, t->comm, PETSC_ERR_PLIB, "%s: DMCreateMatrix gave a diag matrix that is not assembled (AIJ's comes assembled with the stencil's zeros)", desc);
  PetscCall(CompareEntries(t, Jd, Ja, desc)); /* all zeros, and MatMult works at once */
  PetscCall(ComparePattern(t, Jd, Ja, desc));
  if (!cs->fills) { /* FillStencil sets every coupling */
  PetscCall(MatZeroEntries(Jd));
  PetscCall(FillStencil(da, Jd, 0, INSERT_VALUES));
  PetscCall(FillStencil(da, Ja, 0, INSERT_VALUES));
  PetscCall(CompareEntries(t, Jd, Ja, desc));
  PetscCall(MatZeroEntries(Jd));
  PetscCall(MatZeroEntries(Ja));
  PetscCall(FillStencil(da, Jd, 1, ADD_VALUES));
  PetscCall(FillStencil(da, Ja, 1, ADD_VALUES));
  PetscCall(FillStencil(da, Jd, 2, ADD_VALUES));
  PetscCall(FillStencil(da, Ja, 2, ADD_VALUES));
  PetscCall(CompareEntries(t, Jd, Ja, desc));
  PetscCall(CheckValueOps(t, Jd, Ja, desc));
  PetscCall(CheckSOR(t, Jd, Ja, MAT_DIAG_SOR_DEVICE, desc));
  }
  PetscCall(CheckFDColoring(t, da, Jd, Ja, MATMFFD_WP, desc));
  PetscCall(CheckFDColoring(t, da, Jd, Ja, MATMFFD_DS, desc));
  PetscCall(CheckOffPattern(t, Jd, desc));
  PetscCall(MatDestroy(&Jd));
  PetscCall(MatDestroy(&Ja));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* A grid large enough for -mat_diag_sor auto to sweep on the device (with device vectors): 33^3
   rows in 97 levels of the 7-point star */
static PetscErrorCode LargeSORCheck(TestCtx *t)
{
  DM  da;
  Mat Jd, Ja;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(t->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 33, 33, 33, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &Ja));
  PetscCall(MatSetOption(Ja, MAT_USE_INODES, PETSC_FALSE));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, &Jd));
  PetscCall(FillStencil(da, Jd, 0, INSERT_VALUES));
  PetscCall(FillStencil(da, Ja, 0, INSERT_VALUES));
  PetscCall(CheckSOR(t, Jd, Ja, MAT_DIAG_SOR_AUTO, "3-D star 33^3"));
  PetscCall(MatDestroy(&Jd));
  PetscCall(MatDestroy(&Ja));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* Without a DM: entries set twice with ADD_VALUES, then (after a flush assembly) some again with
   INSERT_VALUES, rows of the next process included, before the first assembly; with no
   preallocation, with AIJ-style counts (MatXAIJSetPreallocation) and with counts too small.  The
   staging must keep the order of the modes and end with AIJ's entries. */
static PetscErrorCode StagingChecks(TestCtx *t)
{
  const PetscInt N = 200, offs[5] = {-7, -1, 0, 2, 11};

  PetscFunctionBeginUser;
  for (PetscInt prealloc = 0; prealloc < 3; prealloc++) {
    Mat      A[2];
    PetscInt rstart, rend, n, start;
    char     desc[128];

    PetscCall(DefaultLayout(t->comm, N, &n, &start));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(MatCreate(t->comm, &A[k]));
      PetscCall(MatSetSizes(A[k], n, n, N, N));
      PetscCall(MatSetType(A[k], k ? MATDIAG : MATAIJ));
      if (prealloc || !k) { /* AIJ preallocated always: PETSc 3.22's hash path for an unpreallocated
                               MPIAIJ refuses INSERT after ADD even across a flush */
        PetscInt *dnnz, *onnz;

        PetscCall(PetscMalloc2(n, &dnnz, n, &onnz));
        for (PetscInt i = 0; i < n; i++) dnnz[i] = prealloc == 2 ? 1 : 5, onnz[i] = prealloc == 2 ? 0 : 5;
        PetscCall(MatXAIJSetPreallocation(A[k], 1, dnnz, onnz, NULL, NULL));
        PetscCall(PetscFree2(dnnz, onnz));
      } else PetscCall(MatSetUp(A[k]));
      PetscCall(MatSetOption(A[k], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* AIJ's counts may be short */
      PetscCall(MatGetOwnershipRange(A[k], &rstart, &rend));
      for (PetscInt pass = 0; pass < 3; pass++) {
        if (pass == 2) { /* the insert mode may change after a flush */
          PetscCall(MatAssemblyBegin(A[k], MAT_FLUSH_ASSEMBLY));
          PetscCall(MatAssemblyEnd(A[k], MAT_FLUSH_ASSEMBLY));
        }
        for (PetscInt r = rstart; r < PetscMin(rend + 3, N); r++) /* 3 rows of the next process */
          for (PetscInt q = 0; q < 5; q++) {
            const PetscInt    j = ((r + offs[q]) % N + N) % N;
            const PetscScalar v = EntryValue(r, j, pass);

            if (pass == 2 && (r + q) % 2) continue;
            PetscCall(MatSetValues(A[k], 1, &r, 1, &j, &v, pass == 2 ? INSERT_VALUES : ADD_VALUES));
          }
      }
      PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
    }
    PetscCall(CheckTypeOneOf(A[1], MATSEQDIAG, MATMPIDIAG, "staging"));
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "staged ADD, ADD, flush, INSERT (%s)", prealloc == 0 ? "no preallocation" : prealloc == 1 ? "counts" : "counts too small"));
    PetscCall(CompareEntries(t, A[1], A[0], desc));
    PetscCall(MatDestroy(&A[0]));
    PetscCall(MatDestroy(&A[1]));
  }
  { /* MAT_ROW_ORIENTED false: 2 x 3 blocks given column by column, staged and after the assembly */
    Mat      A[2];
    PetscInt n, start;

    PetscCall(DefaultLayout(t->comm, N, &n, &start));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(MatCreate(t->comm, &A[k]));
      PetscCall(MatSetSizes(A[k], n, n, N, N));
      PetscCall(MatSetType(A[k], k ? MATDIAG : MATAIJ));
      PetscCall(MatSetUp(A[k]));
      PetscCall(MatSetOption(A[k], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetOption(A[k], MAT_ROW_ORIENTED, PETSC_FALSE));
      for (PetscInt pass = 0; pass < 2; pass++) {
        for (PetscInt r = start; r + 1 < start + n; r += 2) {
          const PetscInt rows[2] = {r, r + 1}, cols[3] = {(r + N - 1) % N, r, (r + 3) % N};
          PetscScalar    v[6];

          for (PetscInt q = 0; q < 6; q++) v[q] = EntryValue(rows[q % 2], cols[q / 2], pass); /* column-major */
          PetscCall(MatSetValues(A[k], 2, rows, 3, cols, v, ADD_VALUES));
        }
        PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
      }
    }
    PetscCall(CompareEntries(t, A[1], A[0], "MAT_ROW_ORIENTED false"));
    PetscCall(MatDestroy(&A[0]));
    PetscCall(MatDestroy(&A[1]));
  }
  if (t->size == 1) { /* MatSeqAIJSetPreallocationCSR: the whole matrix at once, assembled */
    PetscInt    ai[N + 1], aj[5 * N];
    PetscScalar aa[5 * N];
    Mat         A[2];

    ai[0] = 0;
    for (PetscInt r = 0; r < N; r++) {
      ai[r + 1] = ai[r];
      for (PetscInt q = 0; q < 5; q++)
        if (r + offs[q] >= 0 && r + offs[q] < N) aj[ai[r + 1]] = r + offs[q], aa[ai[r + 1]++] = EntryValue(r, r + offs[q], 3);
    }
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(MatCreate(t->comm, &A[k]));
      PetscCall(MatSetSizes(A[k], N, N, N, N));
      PetscCall(MatSetType(A[k], k ? MATDIAG : MATAIJ));
      PetscCall(MatSeqAIJSetPreallocationCSR(A[k], ai, aj, aa));
    }
    PetscCall(CompareEntries(t, A[1], A[0], "MatSeqAIJSetPreallocationCSR"));
    PetscCall(MatDestroy(&A[0]));
    PetscCall(MatDestroy(&A[1]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunTests(void)
{
  TestCtx  t;
  PetscInt seed = 2024, ncases = 0;

  PetscFunctionBeginUser;
  PetscCall(GpuMatsInitializePackage());
  PetscCall(TestCtxInit(&t, "test_diag_dmda", 60));
  PetscOptionsBegin(t.comm, NULL, "test_diag_dmda options", NULL);
  PetscCall(PetscOptionsInt("-seed", "seed of the random vectors", NULL, seed, &seed, NULL));
  PetscOptionsEnd();
  PetscCall(TestCtxSeed(&t, seed));
  PetscCall(StagingChecks(&t));
  for (PetscInt dim = 1; dim <= 3; dim++)
    for (PetscInt st = 0; st < (dim == 1 ? 1 : 2); st++) /* 1-D: star and box are the same */
      for (PetscInt sw = 1; sw <= 2; sw++)
        for (PetscInt dof = 1; dof <= 3; dof += 2)
          for (PetscInt periodic = 0; periodic < 2; periodic++) {
            for (PetscInt fills = 0; fills < (dof == 3 && (dim > 1 || sw == 1) ? 2 : 1); fills++) { /* PETSc has no 1-D fills of width 2 */
              Case cs = {dim, dof, sw, st ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE, (PetscBool)fills};

              PetscCall(RunCase(&t, &cs));
              ncases++;
            }
          }
  PetscCall(LargeSORCheck(&t));
  PetscCall(PetscPrintf(t.comm, "test_diag_dmda on %d rank(s): all passed, %" PetscInt_FMT " DMDAs, %" PetscInt_FMT " results compared with MATAIJ\n", t.size, ncases, t.ncompared));
  PetscCall(TestCtxDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  return TestMain(argc, argv, help, RunTests);
}
