"""flamex.mpi: exact reductions and the distributed LU on mpi4py communicators
(docs/mpi.md). Needs a build with FLAMEX_MPI (mpi/) and Debian's python3-mpi4py.

    from mpi4py import MPI
    import flamex.mpi
    s = flamex.mpi.dot(MPI.COMM_WORLD, x_share, y_share)   # the same bits on every rank
    LU, ipiv, info = flamex.mpi.lu(MPI.COMM_WORLD, A if rank == 0 else None, grid=(2, 2))
"""
from mpi4py import MPI as _MPI  # noqa: F401  (MPI initialized before the extension uses it)

from ._flamex_mpi import dot, dot_allreduce, lu, nrm2, solve, sum, sum_allreduce  # noqa: A004

__all__ = ["sum", "dot", "nrm2", "sum_allreduce", "dot_allreduce", "lu", "solve"]
