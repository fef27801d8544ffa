"""The exceptions flamex raises (the extension module raises these classes).

Error              flamex::Error: bad input (shapes, names, files) or a failed
                   environment; a ValueError, so `except ValueError` catches every
                   input problem, the ones found by the bindings included.
OpenCLError        an OpenCL failure (no platform, device, kernel build); .build_log
                   holds the compiler's log when a kernel failed to build.
SingularMatrixError a zero pivot where a solution was asked for; .column is the
                   1-based column (LAPACK's info). Also a numpy.linalg.LinAlgError.
"""
import numpy.linalg


class Error(ValueError):
    """An error reported by the flamex library."""


class OpenCLError(Error, RuntimeError):
    """An OpenCL failure; build_log is the kernel compiler's log ('' when none)."""

    def __init__(self, message, build_log=""):
        super().__init__(message)
        self.build_log = build_log


class SingularMatrixError(Error, numpy.linalg.LinAlgError):
    """A zero pivot: column is the 1-based column of the first one."""

    def __init__(self, message, column):
        super().__init__(message)
        self.column = column
