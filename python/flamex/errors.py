"""The exceptions flamex raises (the extension module raises these classes).

Error              flamex::Error: bad input (shapes, names, files) or a failed
                   environment; a ValueError, so `except ValueError` catches every
                   input problem, the ones found by the bindings included.
OpenCLError        an OpenCL failure (no platform, device, kernel build); .build_log
                   holds the compiler's log when a kernel failed to build.
ColumnError        a factorization, inversion or solve that stopped at a column;
                   .column is the 1-based column (LAPACK's info). Also a
                   numpy.linalg.LinAlgError. Its kinds:
  SingularMatrixError      a zero pivot (solve) or a zero on a triangle's diagonal
                           (trinv, trsm_lln)
  NotPositiveDefiniteError chol: an updated diagonal element that is not positive
  ZeroPivotError           ldlt (no pivoting): a zero or non-finite pivot
"""
import numpy.linalg


class Error(ValueError):
    """An error reported by the flamex library."""


class OpenCLError(Error, RuntimeError):
    """An OpenCL failure; build_log is the kernel compiler's log ('' when none)."""

    def __init__(self, message: str, build_log: str = "") -> None:
        super().__init__(message)
        self.build_log = build_log


class ColumnError(Error, numpy.linalg.LinAlgError):
    """A numerical failure at a column: column is its 1-based index."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


class SingularMatrixError(ColumnError):
    """A zero pivot, or a zero on a triangle's diagonal."""


class NotPositiveDefiniteError(ColumnError):
    """Cholesky: the updated diagonal element of column `column` is not positive."""


class ZeroPivotError(ColumnError):
    """LDL^T without pivoting: the pivot of column `column` is zero or not finite."""
