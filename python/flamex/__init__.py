"""flamex from Python: FLAME views on numpy arrays, the abstract BLAS of every
backend, the LU, Cholesky, LDL^T, triangular inverse and solve variants and
drivers, the derivation of variants, generators, MPFR references, Matrix Market
I/O and the batched symmetric solvers. See the README's "Python" section.

Zero copy: a Fortran-ordered float64 array (or a slice of one with unit row
stride) is a FLAME view as it is; part_* / repart_* / cont_with_* return
flamex.Obj windows of the same memory, and operations write into the caller's
array. C-ordered arrays are rejected with a ValueError (numpy.asfortranarray).
"""
import os as _os

# A pip-installed module carries the PME descriptions beside it (the wheel's flamex/pme);
# a module in a build tree has none there and derive reads the source tree's. An explicit
# FLAMEX_PME_DIR wins either way.
_packaged_pme = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "pme")
if _os.path.isdir(_packaged_pme):
    _os.environ.setdefault("FLAMEX_PME_DIR", _packaged_pme)

from .errors import (ColumnError, Error, NotPositiveDefiniteError, OpenCLError, SingularMatrixError,
                     ZeroPivotError)
from ._flamex import *  # noqa: F401,F403  (the compiled module's whole API)
from ._flamex import gen, mpfr, batched  # noqa: F401
from . import _flamex

__all__ = [name for name in dir(_flamex) if not name.startswith("_")] + [
    "Error", "OpenCLError", "ColumnError", "SingularMatrixError", "NotPositiveDefiniteError", "ZeroPivotError"]
