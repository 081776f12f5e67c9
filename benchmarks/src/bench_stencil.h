/* The 3-D stencils of the DMDA benchmarks (bench_dmda.c, bench_refresh.c): the 6 neighbours of a
   grid point (7-point star) or its 26 (27-point box), and whether a point lies inside the grid. */
#pragma once
#include <petscdmda.h>

typedef struct {
  PetscInt nnb;       /* the neighbours of a point: 6 or 26 */
  PetscInt nb[26][3]; /* their displacements (i, j, k) */
} BenchStencil;

static inline void BenchStencilSet(BenchStencil *s, PetscBool box)
{
  s->nnb = 0;
  for (PetscInt dk = -1; dk <= 1; dk++)
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        const PetscInt far = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);

        if (far == 0 || (!box && far > 1)) continue;
        s->nb[s->nnb][0]   = di;
        s->nb[s->nnb][1]   = dj;
        s->nb[s->nnb++][2] = dk;
      }
}

static inline PetscBool BenchInside(const DMDALocalInfo *info, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= 0 && i < info->mx && j >= 0 && j < info->my && k >= 0 && k < info->mz);
}
