"""Calls the stubs must reject (python/tests/test_docs_stubs.py counts mypy's errors by
line: each line marked `# error` must be reported, and no other)."""
import numpy as np

import flamex

A = np.eye(3, order="F")
flamex.lu(A, check_finit=False)  # error
flamex.lu(A, block="32")  # error
x: str = flamex.solve(A, np.ones(3))  # error
flamex.trsv_solve(A, np.ones(3), uplo="lower")  # error
flamex.derive("chol", emit="html")  # error
flamex.show_config(mode="json")  # error
flamex.gen.spd(4)  # error
y: int = flamex.mpfr.dot(np.ones(3), np.ones(3))  # error
flamex.backend("exact").gemm(flamex.NO_TRANSPOSE, flamex.NO_TRANSPOSE, 1.0, A, A, 0.0)  # error
flamex.part_2x2(A, 1, 1, flamex.TOP)  # error
