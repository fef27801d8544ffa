"""flamex.mpi under mpirun (1-4 ranks; python/CMakeLists.txt): exact sum, dot and
nrm2 of a vector split over the ranks equal math.fsum / the one-process exact dot
on every rank; the distributed LU gives flamex.lu's bits on exact; an error on one
rank raises flamex.Error on every rank. Exits non-zero on any rank's failure."""
import math
import sys

import numpy
from mpi4py import MPI

import flamex
import flamex.mpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"rank {rank}: FAILED: {what}", file=sys.stderr)


def same(a, b):
    return numpy.array(a, dtype=numpy.float64).tobytes() == numpy.array(b, dtype=numpy.float64).tobytes()


rng = numpy.random.default_rng(29)
n = 1001
x = rng.uniform(-1, 1, n) * numpy.exp2(rng.integers(-200, 200, n))
y = rng.uniform(-1, 1, n) * numpy.exp2(rng.integers(-200, 200, n))
want_sum = math.fsum(x)  # correctly rounded
want_dot = flamex.mpi.dot(MPI.COMM_SELF, x, y)  # one process's exact dot
want_nrm2 = flamex.mpi.nrm2(MPI.COMM_SELF, x)
for name, share in [("block", slice(rank * n // size, (rank + 1) * n // size)),
                    ("cyclic", slice(rank, None, size)),
                    ("all on rank 0", slice(0, n if rank == 0 else 0))]:
    check(same(flamex.mpi.sum(comm, x[share]), want_sum), f"sum, {name}")
    check(same(flamex.mpi.dot(comm, x[share], y[share]), want_dot), f"dot, {name}")
    check(same(flamex.mpi.nrm2(comm, x[share]), want_nrm2), f"nrm2, {name}")

A = numpy.asfortranarray(rng.uniform(-1, 1, (23, 23)))
grid = {1: (1, 1), 2: (2, 1), 3: (1, 3), 4: (2, 2)}[size]
for variant, single in [("var5", "lu_piv_unb_var5"), ("var3", "lu_piv_unb_var3")]:
    LU, ipiv, info = flamex.mpi.lu(comm, A if rank == 0 else None, grid=grid, block=4, variant=variant)
    LU1, ipiv1, info1 = flamex.lu(A, variant=single, backend="exact")
    check(list(ipiv) == list(ipiv1) and info == info1, f"lu {variant}: pivots and info")
    if rank == 0:
        check(same(LU, LU1), f"lu {variant}: L\\U bits")
    b = rng.uniform(-1, 1, 23)
    x1 = flamex.solve(A, b, variant=single, backend="exact")
    xd = flamex.mpi.solve(comm, A if rank == 0 else None, b, grid=grid, block=4, variant=variant)
    check(same(xd, x1[0] if isinstance(x1, tuple) else x1), f"solve {variant}: x bits")

try:
    flamex.mpi.lu(comm, None, grid=grid)
    check(False, "A = None on rank 0 raises")
except flamex.Error as e:
    check(str(e).startswith("rank 0: A is None"), f"the error names rank 0: {e}")

total = comm.allreduce(len(failures))
if rank == 0:
    print(f"mpi_check.py on {size} ranks: {'FAILED' if total else 'ok'} ({total} failures)")
sys.exit(1 if total else 0)
