"""gpumats from Python (Debian's python3-petsc4py and python3-slepc4py): each type built from
Python, a KSP solve and an EPS solve on it, compared with the same solves on MATAIJ.

    /usr/bin/python3 tests/test_python.py <path to libgpumats.so>

Exit status 0 when every comparison holds, 1 otherwise, 77 (skipped) when petsc4py or slepc4py
is not installed."""
import sys

try:
    import petsc4py
    import slepc4py
except ImportError as e:
    print(f"petsc4py/slepc4py not installed ({e}): skipped")
    sys.exit(77)

petsc4py.init(["-dll_append", sys.argv[1]])
slepc4py.init([])
from petsc4py import PETSc  # noqa: E402
from slepc4py import SLEPc  # noqa: E402

N = 30  # a 2-D Laplacian on an N x N grid: 5-point stencil, 900 rows


def laplacian(mat_type):
    """The 5-point Laplacian assembled row by row into a matrix of type mat_type."""
    n = N * N
    A = PETSc.Mat().create(comm=PETSc.COMM_SELF)
    A.setSizes([n, n])
    A.setType(mat_type)
    A.setPreallocationNNZ(5)
    for i in range(N):
        for j in range(N):
            row = i * N + j
            A.setValue(row, row, 4.0)
            for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= i + di < N and 0 <= j + dj < N:
                    A.setValue(row, (i + di) * N + j + dj, -1.0)
    A.assemble()
    return A


def ksp_solve(A):
    b = A.createVecLeft()
    b.set(1.0)
    x = A.createVecRight()
    ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.getPC().setType("jacobi")
    ksp.setTolerances(rtol=1e-12)
    ksp.solve(b, x)
    return ksp.getIterationNumber(), x


def eps_solve(A):
    eps = SLEPc.EPS().create(comm=PETSc.COMM_SELF)
    eps.setOperators(A)
    eps.setProblemType(SLEPc.EPS.ProblemType.HEP)
    eps.setWhichEigenpairs(SLEPc.EPS.Which.SMALLEST_REAL)
    eps.setDimensions(4)
    eps.setTolerances(1e-10)
    eps.solve()
    return sorted(eps.getEigenvalue(i).real for i in range(min(4, eps.getConverged())))


failures = 0
ref = laplacian("aij")
ref_its, ref_x = ksp_solve(ref)
ref_eigs = eps_solve(ref)
rnd = PETSc.Random().create(comm=PETSc.COMM_SELF)
rnd.setSeed(2018)
for mat_type in ("cihybrid", "pcsr", "diag"):
    A = laplacian(mat_type)
    v = A.createVecRight()
    v.setRandom(rnd)
    y, yref = A.createVecLeft(), ref.createVecLeft()
    A.mult(v, y)
    ref.mult(v, yref)
    mult_err = (y - yref).norm(PETSc.NormType.INFINITY) / yref.norm(PETSc.NormType.INFINITY)
    its, x = ksp_solve(A)
    ksp_err = (x - ref_x).norm(PETSc.NormType.INFINITY) / ref_x.norm(PETSc.NormType.INFINITY)
    eigs = eps_solve(A)
    eps_err = max((abs(a - b) for a, b in zip(eigs, ref_eigs)), default=float("inf"))
    ok = (A.getType() != "seqaij" and mult_err <= 1e-14 and its == ref_its and ksp_err <= 1e-10
          and len(eigs) == len(ref_eigs) == 4 and eps_err <= 1e-10)
    failures += not ok
    print(f"{mat_type:9s} type {A.getType():15s} MatMult {mult_err:.1e}, CG+Jacobi {its} its "
          f"(aij {ref_its}) x {ksp_err:.1e}, EPS {len(eigs)} eigenvalues {eps_err:.1e}: "
          f"{'ok' if ok else 'FAILED'}")
print(f"{3 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
