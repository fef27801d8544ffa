"""The FLAME API in Python: lu_piv_unb_var3 written in Python (lu_piv_unb_var3.py,
in the shape of variants/lu_piv_unb_var3.cpp) gives the C++ variant's factors and
pivots bit for bit, on exact (correctly rounded: both sides make the same roundings
by contract) and on blis (the same BLIS calls on the same views in the same order)."""
import numpy as np
import pytest

import flamex
from conftest import bits, fortran
from lu_piv_unb_var3 import lu_piv_unb_var3


@pytest.mark.parametrize("backend", ["exact", "blis"])
@pytest.mark.parametrize("shape", [(24, 24), (30, 17), (13, 29), (1, 1)])
def test_python_var3_is_bit_identical_to_cpp(backend, shape, rng):
    blas = flamex.backend(backend, threads=2)
    A = fortran(rng, *shape)
    # An ill-conditioned matrix makes rounding differences visible if there are any.
    if shape[0] == shape[1] and shape[0] > 1:
        A = np.asfortranarray(flamex.gen.lu(shape[0], 1e12, seed=7))
    LU_cpp, ipiv_cpp, info_cpp = flamex.lu(A, variant="lu_piv_unb_var3", backend=blas)

    LU_py = A.copy(order="F")
    p = np.zeros(min(shape), dtype=np.int32)
    info_py = lu_piv_unb_var3(blas, LU_py, p)

    np.testing.assert_array_equal(bits(LU_py), bits(LU_cpp))
    np.testing.assert_array_equal(p + np.arange(len(p)) + 1, ipiv_cpp)  # FLAME offsets -> LAPACK
    assert info_py.zero_pivot == info_cpp == 0


def test_python_var3_reports_the_first_zero_pivot_as_cpp_does():
    A = np.asfortranarray([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
    A[:, 1] = 2 * A[:, 0]  # column 2 depends on column 1: U(2, 2) = 0
    LU_cpp, ipiv_cpp, info_cpp = flamex.lu(A, variant="lu_piv_unb_var3", backend="exact")
    LU_py = A.copy(order="F")
    p = np.zeros(3, dtype=np.int32)
    info = lu_piv_unb_var3(flamex.backend("exact"), LU_py, p)
    assert info_cpp == 2 and info.zero_pivot == 2
    np.testing.assert_array_equal(bits(LU_py), bits(LU_cpp))
    np.testing.assert_array_equal(p + np.arange(3) + 1, ipiv_cpp)


def test_python_var3_factors_in_place_through_views(rng):
    """The variant only ever had views: the caller's array holds L and U afterwards."""
    A = fortran(rng, 8, 8)
    original = A.copy()
    p = np.zeros(8, dtype=np.int32)
    lu_piv_unb_var3(flamex.backend("exact"), A, p)
    ipiv = p + np.arange(8) + 1
    assert flamex.mpfr.lu_residual(original, A, ipiv) <= 1e-14 * np.abs(original).sum(axis=1).max()
