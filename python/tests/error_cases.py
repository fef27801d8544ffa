"""Every error path of the Python API, as (name, call, exception class, message
pattern): test_errors.py checks each one in-process, and once more all together in a
child interpreter, whose survival shows that none of them aborts the process."""
import os
import tempfile

import numpy as np

import flamex


_scratch = tempfile.TemporaryDirectory(prefix="flamex-errors-")  # removed at exit


def _file(text):
    fd, path = tempfile.mkstemp(suffix=".mtx", dir=_scratch.name)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def _fortran(m, n):
    return np.asfortranarray(np.arange(1.0, m * n + 1).reshape(m, n) + 10 * np.eye(m, n))


blis = flamex.backend("blis")
OpenCL = flamex.OpenCLError
Error = flamex.Error

CASES = [
    # layouts and dtypes (the bindings): ValueError
    ("c-ordered", lambda: blis.scal(2.0, np.ones(3)[None, :].repeat(2, 0)), ValueError, "asfortranarray"),
    ("dtype", lambda: blis.dot(np.ones(3, dtype=np.float32), np.ones(3)), ValueError, "float64"),
    ("pivot dtype", lambda: blis.apply_pivots(np.zeros(1), _fortran(2, 2)), ValueError, "int32"),
    ("read-only", lambda: blis.scal(1.0, np.frombuffer(b"\0" * 24)), ValueError, "read-only"),
    ("3-D", lambda: blis.sum(np.ones((2, 2, 2))), ValueError, "1-D or 2-D"),
    ("not an array", lambda: blis.sum("abc"), ValueError, "numpy array"),
    ("solve b 3-D", lambda: flamex.solve(_fortran(2, 2), np.ones((2, 2, 1))), ValueError, "1-D or 2-D"),
    ("lu of a vector", lambda: flamex.lu(np.ones(3)), ValueError, "2-D"),
    ("batched shape", lambda: flamex.batched.solve(np.ones((2, 3, 4)), np.ones((2, 3))), ValueError, r"\(k, n, n\)"),
    ("batched y shape", lambda: flamex.batched.solve(np.ones((2, 3, 3)), np.ones((2, 4))), ValueError, r"\(k, n\)"),
    ("batched dtype", lambda: flamex.batched.solve(np.ones((2, 3, 3), dtype=np.int64), np.ones((2, 3), dtype=np.int64)),
     ValueError, "float32 or float64"),
    ("batched mixed dtypes", lambda: flamex.batched.solve(np.ones((2, 3, 3)), np.ones((2, 3), dtype=np.float32)),
     ValueError, "same dtype"),
    ("batched method", lambda: flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), method="qr"), ValueError, "method"),
    ("batched precision", lambda: flamex.batched.generate_spd(4, 2, precision="half"), ValueError, "precision"),
    ("batched layout", lambda: flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), layout="packed"), ValueError,
     "layout"),
    ("interleaved y shape", lambda: flamex.batched.solve(np.ones((1, 3, 16)), np.ones((1, 2, 16)), layout="interleaved"),
     ValueError, r"\(blocks, n, B\), B = 8 for float64"),
    ("interleaved A shape", lambda: flamex.batched.solve(np.ones((1, 4, 8)), np.ones((1, 2, 8)), layout="interleaved"),
     ValueError, r"\(1, 3, 8\)"),
    ("interleaved lanes of float32", lambda: flamex.batched.solve(np.ones((1, 3, 8), dtype=np.float32),
                                                                  np.ones((1, 2, 8), dtype=np.float32), layout="interleaved"),
     ValueError, "B = 16 for float32"),
    ("interleaved dtype", lambda: flamex.batched.solve(np.ones((1, 3, 8), dtype=np.int64), np.ones((1, 2, 8), dtype=np.int64),
                                                       layout="interleaved"), ValueError, "float32 or float64"),
    ("interleaved non-contiguous", lambda: flamex.batched.solve(np.ones((1, 3, 16))[:, :, ::2], np.ones((1, 2, 8)),
                                                                layout="interleaved"), ValueError, "C-contiguous"),
    ("interleaved count", lambda: flamex.batched.solve(np.ones((2, 3, 8)), np.ones((2, 2, 8)), layout="interleaved",
                                                       count=8), ValueError, r"count = 8 .* \[9, 16\]"),
    ("count without interleaved", lambda: flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), count=1), ValueError,
     "interleaved"),
    ("deinterleave count", lambda: flamex.batched.deinterleave(np.ones((1, 3, 8)), np.ones((1, 2, 8)), count=9),
     ValueError, "count = 9"),
    ("interleave shape", lambda: flamex.batched.interleave(np.ones((2, 3, 4)), np.ones((2, 3))), ValueError, r"\(k, n, n\)"),
    ("generate layout", lambda: flamex.batched.generate_regression(4, 2, layout="rows"), ValueError, "layout"),
    # the library's checks: flamex.Error (a ValueError)
    ("unknown backend", lambda: flamex.backend("cuda"), Error, "blis"),
    ("unknown variant", lambda: flamex.lu(_fortran(2, 2), variant="lu_var9"), Error, "lu_piv_unb_var3"),
    ("block size", lambda: flamex.lu(_fortran(3, 3), variant="lu_piv_blk_var3", block=0), Error, "block size"),
    ("inner variant", lambda: flamex.lu(_fortran(3, 3), variant="lu_piv_blk_var3", inner="lu_nopiv_unb_var1"),
     Error, "inner"),
    ("dot lengths", lambda: blis.dot(np.ones(3), np.ones(4)), Error, "dot"),
    ("gemm shapes", lambda: blis.gemm(flamex.NO_TRANSPOSE, flamex.NO_TRANSPOSE, 1.0, _fortran(2, 3), _fortran(2, 3), 0.0,
                                      _fortran(2, 3)), Error, "gemm"),
    ("exact trsv shapes", lambda: flamex.backend("exact").trsv(flamex.LOWER, flamex.NO_TRANSPOSE, flamex.UNIT,
                                                              _fortran(3, 3), np.ones(2)), Error, "trsv"),
    ("pivot out of range", lambda: blis.apply_pivots(np.array([5], dtype=np.int32), _fortran(2, 2)), Error, "pivot"),
    ("element outside", lambda: blis.element(_fortran(2, 2), 2, 0), Error, "leaves"),
    ("partition", lambda: flamex.part_2x1(_fortran(2, 2), 3, flamex.TOP), Error, "part_2x1"),
    ("solve not square", lambda: flamex.solve(_fortran(2, 3), np.ones(2)), Error, "square"),
    ("solve b length", lambda: flamex.solve(_fortran(3, 3), np.ones(2)), Error, "b"),
    ("negative refine", lambda: flamex.solve(_fortran(2, 2), np.ones(2), refine=-1), Error, "refinement"),
    ("generator size", lambda: flamex.gen.lu(1, 1e3), Error, "at least 2"),
    ("mpfr singular", lambda: flamex.mpfr.solve(np.zeros((2, 2)), np.ones(2)), Error, "singular"),
    ("mpfr shapes", lambda: flamex.mpfr.dot(np.ones(2), np.ones(3)), Error, ""),
    ("missing file", lambda: flamex.read_matrix_market("/nonexistent/a.mtx"), Error, "cannot open"),
    ("complex file", lambda: flamex.read_matrix_market(_file("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n")),
     Error, r"\.mtx:1: .*complex"),
    ("bad value", lambda: flamex.read_matrix_market(_file("%%MatrixMarket matrix array real general\n1 1\nabc\n")),
     Error, r"\.mtx:3: "),
    ("bad pivots", lambda: flamex.write_pivots("/nonexistent/p.txt", [0]), Error, "pivot"),
    ("unwritable", lambda: flamex.write_matrix_market("/nonexistent/a.mtx", _fortran(1, 1)), Error, "cannot open"),
    ("batched order", lambda: flamex.batched.solve(np.ones((1, 65, 65)), np.ones((1, 65))), Error, "out of range"),
    ("batched threads", lambda: flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), threads=0), Error, "threads"),
    ("interleaved order", lambda: flamex.batched.solve(np.ones((1, 65 * 66 // 2, 8)), np.ones((1, 65, 8)),
                                                       layout="interleaved"), Error, "out of range"),
    ("chol not square", lambda: flamex.chol(_fortran(2, 3)), Error, "not square"),
    ("trsm shapes", lambda: flamex.trsm_lln(_fortran(3, 3), _fortran(2, 2)), Error, "L is 3x3 and B 2x2"),
    ("chol in place C-ordered", lambda: flamex.chol(np.eye(3)[:, ::-1].copy(), overwrite_a=True), ValueError, "asfortranarray"),
    ("inner of unblocked", lambda: flamex.trinv(_fortran(2, 2), inner="trinv_unb_var1"), Error, "unblocked"),
    ("unknown ldlt variant", lambda: flamex.ldlt(_fortran(2, 2), variant="ldlt_var7"), Error, "ldlt_blas_unb_var3"),
    ("unknown operation", lambda: flamex.variants("qr"), Error, "trsm_lln"),
    ("derive operation", lambda: flamex.derive("qr"), Error, "unknown operation"),
    ("derive cpp", lambda: flamex.derive("chol", emit="cpp"), Error, "needs variant"),
    # numerical failure where a solution was asked for
    ("singular", lambda: flamex.solve(np.zeros((3, 3)), np.ones(3)), flamex.SingularMatrixError, "column 1"),
    ("not positive definite", lambda: flamex.chol(-np.eye(2, order="F")), flamex.NotPositiveDefiniteError, "column 1"),
    ("ldlt zero pivot", lambda: flamex.ldlt(np.zeros((2, 2))), flamex.ZeroPivotError, "column 1"),
    ("trinv singular", lambda: flamex.trinv(np.zeros((2, 2))), flamex.SingularMatrixError, "column 1"),
    ("trsm singular", lambda: flamex.trsm_lln(np.zeros((2, 2)), np.ones(2)), flamex.SingularMatrixError, "column 1"),
    # OpenCL
    ("opencl device", lambda: flamex.backend("opencl", device="no-such-device"), OpenCL, "no-such-device"),
    ("opencl build", lambda: flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), device="opencl",
                                                  build_options="-DFLAMEX_BATCHED_TEST_BUILD_FAILURE"),
     OpenCL, "failed to build"),
    ("opencl options", lambda: flamex.batched.solve(np.ones((1, 8, 8)), np.ones((1, 8)), device="opencl",
                                                    organization="hybrid", cooperating=9), Error, "cooperating"),
]


def run_all():
    """Runs every case, printing one line each; returns the number that misbehaved."""
    import re
    bad = 0
    for name, call, cls, pattern in CASES:
        try:
            call()
            outcome = "no exception"
        except cls as e:
            outcome = "ok" if re.search(pattern, str(e)) else f"message {str(e)!r}"
        except Exception as e:  # noqa: BLE001 - reporting the wrong class is the point
            outcome = f"wrong class {type(e).__name__}: {e}"
        bad += outcome != "ok"
        print(f"{name}: {outcome}")
    return bad
