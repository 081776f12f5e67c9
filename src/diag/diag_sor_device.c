/* MatSOR of a MATSEQDIAG matrix on the device: the sweeps of diag_sor.c a level of rows at a
   time (cuda/diag/diag_sor.cu), the levels made on the host once per pattern
   (diag_sor_schedule.c).  Taken when -mat_diag_sor says device, or (auto) when the vectors
   are on the device and the matrix is large and parallel enough that a few hundred launches
   a sweep beat copying the vectors to the host and sweeping there: PCMG's default smoother
   (Chebyshev with SOR) then stays on the device, which aijcusparse's does not. */
#include "diag/diag_solverops.h"

#if GPUMATS_HAVE_CUDA
  #define DIAG_SOR_DEVICE_MIN_ROWS           32768
  #define DIAG_SOR_DEVICE_MIN_ROWS_PER_LEVEL 256

static PetscErrorCode DiagVecOnDevice(Vec v, PetscBool *on)
{
  PetscBool bound;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, on, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(VecBoundToCPU(v, &bound));
  if (bound) *on = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagSORDeviceReset(DiagSORDevice *s)
{
  PetscFunctionBegin;
  PetscCall(DiagDeviceSORDestroy(&s->dev));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The levels for A's pattern, made again when the pattern changed or when values set since
   couple rows of one level (the device check); on the device. */
static PetscErrorCode DiagSORDeviceLevels(Mat A)
{
  Mat_SeqDiag     *d = (Mat_SeqDiag *)A->spptr;
  DiagSORDevice   *s = &d->sor;
  PetscObjectState state;
  PetscBool        valid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (s->dev && s->nonzerostate == A->nonzerostate) {
    if (s->state == state) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(DiagDeviceSORCheck(s->dev, d->dev, &valid));
    if (!valid) PetscCall(PetscInfo(A, "DIAG SOR: values set since the levels were made couple rows of one level: made again\n"));
  }
  if (!valid) {
    PetscInt   *level_start, *rows, *level;
    DiagRowPlan p;

    PetscCall(DiagSORDeviceReset(s));
    PetscCall(MatDiagSyncHost_SeqDiag(A)); /* the nonzero values couple too */
    PetscCall(DiagSORScheduleCreate(A, &s->nlevels, &level_start, &rows, &level));
    PetscCall(DiagRowPlanCreate(&d->fmt, &p));
    PetscCall(DiagDeviceSORCreate(&d->fmt, p.nlo, p.lo, p.nup, p.up, s->nlevels, level_start, rows, level, &s->dev));
    PetscCall(DiagRowPlanDestroy(&p));
    PetscCall(PetscFree(level_start));
    PetscCall(PetscFree(rows));
    PetscCall(PetscFree(level));
    s->nonzerostate = A->nonzerostate;
    PetscCall(PetscInfo(A, "DIAG SOR levels: %" PetscInt_FMT " rows in %" PetscInt_FMT " levels (%.0f rows a level)\n", A->rmap->n, s->nlevels, s->nlevels ? (double)A->rmap->n / s->nlevels : 0.0));
  }
  s->state = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the sweeps multiply by, for these omega and fshift and the current values; MatSOR's
   refusal of a zero diagonal (omega 1, fshift 0) and its record of one (fshift < 0), as on the
   host */
static PetscErrorCode DiagSORDeviceDiagonal(Mat A, PetscReal omega, PetscReal fshift)
{
  Mat_SeqDiag     *d = (Mat_SeqDiag *)A->spptr;
  DiagSORDevice   *s = &d->sor;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!s->diag_valid || s->diag_state != state || s->omega != omega || s->fshift != fshift) {
    const PetscInt t = DiagFind(&d->fmt, 0);

    PetscCall(DiagDeviceSORSetDiagonal(s->dev, d->dev, t >= 0 ? d->fmt.start[t] : -1, omega, fshift, &s->zero_row));
    PetscCall(PetscLogGpuFlops(A->rmap->n));
    s->diag_valid = PETSC_TRUE;
    s->diag_state = state;
    s->omega      = omega;
    s->fshift     = fshift;
  }
  if (s->zero_row < 0 || omega != 1.0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(PetscRealPart(fshift) != 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "diag MatSOR: zero diagonal in row %" PetscInt_FMT " (SOR divides by it): give the matrix a nonzero diagonal, or a negative fshift to record a zero pivot instead", s->zero_row);
  if (PetscRealPart(fshift) < 0.0) {
    PetscCall(PetscInfo(A, "Zero diagonal on row %" PetscInt_FMT "\n", s->zero_row));
    A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    A->factorerror_zeropivot_value = 0.0;
    A->factorerror_zeropivot_row   = s->zero_row;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSOR_SeqDiag_Device(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx, PetscBool *done)
{
  Mat_SeqDiag     *d    = (Mat_SeqDiag *)A->spptr;
  const MatDiagSOR where = d->settings.sor;
  const PetscInt   n    = A->rmap->n;
  const PetscBool  fwd = (PetscBool)((flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) != 0), bwd = (PetscBool)((flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) != 0);
  PetscBool        on_device, b_dev = PETSC_TRUE, x_dev = PETSC_TRUE;
  GpuMatsDeviceVec b, x;
  PetscLogDouble   nz, flops = 0;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (where == MAT_DIAG_SOR_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  if ((flag & SOR_EISENSTAT) || flag == SOR_APPLY_UPPER || flag == SOR_APPLY_LOWER) {
    if (where == MAT_DIAG_SOR_DEVICE) PetscCall(PetscInfo(A, "DIAG SOR: Eisenstat and SOR_APPLY_UPPER/LOWER run on the host\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DiagSORCheckShape(A));
  PetscCall(GpuMatsBackendUsesDevice(A, d->base.backend, &on_device));
  if (!on_device) PetscFunctionReturn(PETSC_SUCCESS);
  if (where == MAT_DIAG_SOR_AUTO) {
    PetscCall(DiagVecOnDevice(bb, &b_dev));
    PetscCall(DiagVecOnDevice(xx, &x_dev));
    if (!b_dev || !x_dev || n < DIAG_SOR_DEVICE_MIN_ROWS) PetscFunctionReturn(PETSC_SUCCESS);
    /* this pattern's levels were already too narrow: the host, without first bringing new values
       to the device only to check them (the decision is kept for the pattern) */
    if (d->sor.dev && d->sor.nonzerostate == A->nonzerostate && n < DIAG_SOR_DEVICE_MIN_ROWS_PER_LEVEL * d->sor.nlevels) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatDiagSyncDevice_SeqDiag(A));
  PetscCall(DiagSORDeviceLevels(A));
  if (where == MAT_DIAG_SOR_AUTO && n < DIAG_SOR_DEVICE_MIN_ROWS_PER_LEVEL * d->sor.nlevels) {
    if (!d->sor.told_host) PetscCall(PetscInfo(A, "DIAG SOR on the host: %" PetscInt_FMT " rows in %" PetscInt_FMT " levels, fewer than %d a level (-mat_diag_sor device forces the device)\n", n, d->sor.nlevels, DIAG_SOR_DEVICE_MIN_ROWS_PER_LEVEL));
    d->sor.told_host = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DiagSORDeviceDiagonal(A, omega, fshift));
  PetscCall(GpuMatsVecGetDeviceArray(bb, GPUMATS_READ, &d->base.stage_x, &b));
  PetscCall(GpuMatsVecGetDeviceArray(xx, GPUMATS_READ_WRITE, &d->base.stage_y, &x));
  nz  = (PetscLogDouble)d->fmt.start[d->fmt.ndiag];
  its = its * lits;
  PetscCall(PetscLogGpuTimeBegin());
  if (flag & SOR_ZERO_INITIAL_GUESS) {
    if (fwd) PetscCall(DiagDeviceSORSweep(d->sor.dev, d->dev, DIAG_SOR_FORWARD_ZERO, omega, b.device, x.device));
    if (bwd) PetscCall(DiagDeviceSORSweep(d->sor.dev, d->dev, fwd ? DIAG_SOR_BACKWARD_AFTER_FORWARD : DIAG_SOR_BACKWARD_ZERO, omega, b.device, x.device));
    flops += (fwd ? nz : 0) + (bwd ? nz : 0);
    its--;
  }
  for (; its > 0; its--) {
    if (fwd) PetscCall(DiagDeviceSORSweep(d->sor.dev, d->dev, DIAG_SOR_FORWARD, omega, b.device, x.device));
    if (bwd) PetscCall(DiagDeviceSORSweep(d->sor.dev, d->dev, fwd ? DIAG_SOR_BACKWARD_AFTER_FORWARD : DIAG_SOR_BACKWARD, omega, b.device, x.device));
    flops += (fwd ? 2 * nz : 0) + (bwd ? (fwd ? nz : 2 * nz) : 0);
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscCall(GpuMatsVecRestoreDeviceArray(&x));
  PetscCall(GpuMatsVecRestoreDeviceArray(&b));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
