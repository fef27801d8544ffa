"""flamex from Python: FLAME views on numpy arrays, the abstract BLAS of every
backend, the LU, Cholesky, LDL^T, triangular inverse and solve variants and
drivers, the derivation of variants, generators, MPFR references, Matrix Market
I/O and the batched symmetric solvers. See the README's "Python" section.

Zero copy: a Fortran-ordered float64 array (or a slice of one with unit row
stride) is a FLAME view as it is; part_* / repart_* / cont_with_* return
flamex.Obj windows of the same memory, and operations write into the caller's
array. C-ordered arrays are rejected with a ValueError (numpy.asfortranarray).

Conventions (docs/python-conventions.md): flamex.__version__ is `flamex --version`'s;
flamex.show_config() tells the backends, OpenCL devices, exact kernels and BLIS; every
function has a numpy-style docstring (help(flamex.lu)) and type stubs ship with the
module; lu, solve, chol, ldlt, trinv and trsm_lln reject NaN and infinity in their
inputs unless check_finite=False, as scipy.linalg does.
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

#: The project's version (CMake's project(VERSION)), the one ``flamex --version`` prints.
__version__: str = _flamex.__version__

__all__ = [name for name in dir(_flamex) if not name.startswith("_")] + [
    "Error", "OpenCLError", "ColumnError", "SingularMatrixError", "NotPositiveDefiniteError", "ZeroPivotError",
    "show_config"]

# The submodules of the extension importable by name too (``import flamex.gen``), as
# their stubs (gen.pyi, mpfr.pyi, batched.pyi) present them.
import sys as _sys
for _name in ("gen", "mpfr", "batched"):
    _sys.modules[__name__ + "." + _name] = getattr(_flamex, _name)
del _name


def show_config(mode="stdout"):
    """Show the configuration this flamex module was built with and runs on.

    The version, the registered backends and the default one, the OpenCL devices, the
    instruction set the exact kernels chose for this CPU (``avx512ifma``, ``avx512``,
    ``avx2`` or ``generic``; ``FLAMEX_EXACT_ISA`` can force one), and the version and
    architecture (the sub-configuration chosen at run time) of the BLIS library that
    the ``blis`` backend calls. As ``numpy.show_config``.

    Parameters
    ----------
    mode : {"stdout", "dicts"}, optional
        ``"stdout"`` (the default) prints the configuration; ``"dicts"`` returns it.

    Returns
    -------
    dict or None
        With ``mode="dicts"``: a dict with keys ``version`` (str), ``backends`` (a
        list of dicts with ``name`` and ``description``), ``default_backend`` (str),
        ``opencl`` (``devices``: a list of dicts with ``index``, ``name``,
        ``platform``, ``type``, ``version``, ``fp64`` and ``description``; ``error``:
        why there are none, or ""), ``exact`` (``kernel_isa``, ``FLAMEX_EXACT_ISA``),
        ``blis`` (``version``, ``arch``) and ``environment`` (``FLAMEX_BACKEND``).
        With ``mode="stdout"``: None.

    Raises
    ------
    ValueError
        When `mode` is neither "stdout" nor "dicts".

    Examples
    --------
    >>> flamex.show_config(mode="dicts")["exact"]["kernel_isa"] in ("avx512ifma", "avx512", "avx2", "generic")
    True
    """
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"show_config: mode is 'stdout' or 'dicts', not {mode!r}")
    config = _flamex._config()
    if mode == "dicts":
        return config
    lines = [f"flamex {config['version']}", "backends:"]
    for b in config["backends"]:
        default = " (default)" if b["name"] == config["default_backend"] else ""
        lines.append(f"  {b['name']}{default}: {b['description']}")
    lines.append("OpenCL devices:")
    lines += [f"  {d['description']}" for d in config["opencl"]["devices"]]
    if not config["opencl"]["devices"]:
        lines.append(f"  none ({config['opencl']['error'] or 'no device'})")
    forced = config["exact"]["FLAMEX_EXACT_ISA"]
    lines.append(f"exact kernels: {config['exact']['kernel_isa']}"
                 + (f" (FLAMEX_EXACT_ISA={forced})" if forced else ""))
    lines.append(f"BLIS: {config['blis']['version']}, architecture {config['blis']['arch']}")
    print("\n".join(lines))
    return None
