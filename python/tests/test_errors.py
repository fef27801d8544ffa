"""Errors are Python exceptions, never an abort: every path in error_cases.py raises
the documented class with a message that says what is wrong; run all together in a
child interpreter they leave it alive and exiting normally."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import flamex
from error_cases import CASES


@pytest.mark.parametrize("name,call,cls,pattern", CASES, ids=[c[0] for c in CASES])
def test_error_path(name, call, cls, pattern):
    with pytest.raises(cls) as e:
        call()
    assert re.search(pattern, str(e.value)), str(e.value)


def test_exception_hierarchy():
    assert issubclass(flamex.Error, ValueError)
    assert issubclass(flamex.OpenCLError, flamex.Error) and issubclass(flamex.OpenCLError, RuntimeError)
    for cls in (flamex.SingularMatrixError, flamex.NotPositiveDefiniteError, flamex.ZeroPivotError):
        assert issubclass(cls, flamex.ColumnError) and issubclass(cls, flamex.Error)
        assert issubclass(cls, np.linalg.LinAlgError)


def test_singular_matrix_error_carries_the_column():
    A = np.asfortranarray([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(flamex.SingularMatrixError) as e:
        flamex.solve(A, np.ones(3), backend="exact")
    assert e.value.column == 2


def test_opencl_build_failure_carries_the_build_log():
    with pytest.raises(flamex.OpenCLError) as e:
        flamex.batched.solve(np.ones((1, 2, 2)), np.ones((1, 2)), device="opencl",
                             build_options="-DFLAMEX_BATCHED_TEST_BUILD_FAILURE")
    assert "FLAMEX_BATCHED_TEST_BUILD_FAILURE" in e.value.build_log
    assert e.value.build_log and "build log" not in e.value.build_log


def test_no_error_path_aborts_the_interpreter():
    here = os.path.dirname(os.path.abspath(__file__))
    child = subprocess.run(
        [sys.executable, "-c", "import sys, error_cases; bad = error_cases.run_all(); print('ALIVE'); sys.exit(bad)"],
        cwd=here, capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stdout + child.stderr
    assert child.stdout.rstrip().endswith("ALIVE")
    assert child.stdout.count(": ok") == len(CASES)
