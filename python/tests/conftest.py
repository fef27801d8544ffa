import os
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))  # lu_piv_unb_var3.py


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


def fortran(rng, m, n):
    return np.asfortranarray(rng.uniform(-1.0, 1.0, (m, n)))


def bits(a):
    """The array's bit patterns: equality of these is bit identity (signed zeros, NaN payloads)."""
    return np.ascontiguousarray(a).view(np.uint64)
