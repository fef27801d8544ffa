"""Zero-copy views: Fortran-ordered float64 arrays and their slices are FLAME views
of the caller's memory; every layout that is not one is rejected with a ValueError
that says how to pass it; partitioning moves window boundaries and never copies."""
import gc

import numpy as np
import pytest

import flamex
from conftest import fortran


def test_write_through_a_view_is_seen_by_numpy(rng):
    A = fortran(rng, 6, 5)
    ATL, ATR, ABL, ABR = flamex.part_2x2(A, 2, 3, flamex.TL)
    ABR[1, 0] = 42.0                      # element (3, 3) of A
    ATR.array[:] = -1.0                   # the window as an ndarray, same memory
    assert A[3, 3] == 42.0
    assert (A[:2, 3:] == -1.0).all()
    assert np.shares_memory(ABR.array, A) and ABR.base is A
    assert ABR.shape == (4, 2) and ABR.offset == (2, 3)


def test_backend_operations_write_into_the_callers_array(rng):
    A = fortran(rng, 5, 4)
    expected = A.copy()
    blas = flamex.backend("exact")
    blas.copy(np.full((5, 2), 7.0, order="F"), A[:, 1:3])   # a column slice: a view, not a copy
    expected[:, 1:3] = 7.0
    np.testing.assert_array_equal(A, expected)
    blas.invscal(4.0, A[1:4, 0])          # a piece of a column
    expected[1:4, 0] /= 4.0
    np.testing.assert_array_equal(A, expected)
    blas.scal(3.0, A[2, :])               # a row: a 1 x n view with stride lda
    expected[2, :] *= 3.0
    np.testing.assert_array_equal(A, expected)


def test_lu_in_place_with_overwrite(rng):
    A = fortran(rng, 6, 6)
    LU, ipiv, info = flamex.lu(A, backend="blis", overwrite_a=True)
    assert LU is A and info == 0


def test_view_of_a_sub_block_keeps_its_owner_alive(rng):
    A = fortran(rng, 4, 4)
    _, _, _, ABR = flamex.part_2x2(A, 1, 1, flamex.TL)
    expected = A[1:, 1:].copy()
    del A
    gc.collect()
    np.testing.assert_array_equal(ABR.array, expected)


def test_partitioning_moves_boundaries_without_copying(rng):
    A = fortran(rng, 5, 5)
    ATL, ATR, ABL, ABR = flamex.part_2x2(A, 0, 0, flamex.TL)
    for k in range(5):
        (A00, a01, A02,
         a10t, alpha11, a12t,
         A20, a21, A22) = flamex.repart_2x2_to_3x3(ATL, ATR, ABL, ABR, 1, 1, flamex.BR)
        assert alpha11.offset == (k, k) and A22.shape == (4 - k, 4 - k)
        assert alpha11[0, 0] == A[k, k]
        ATL, ATR, ABL, ABR = flamex.cont_with_3x3_to_2x2(A00, a01, A02, a10t, alpha11, a12t, A20, a21, A22, flamex.TL)
        assert ATL.shape == (k + 1, k + 1) and ATL.base is A
        assert np.shares_memory(ATL.array, A)
    # The 2x1 and 1x2 forms, from the other sides.
    AT, AB = flamex.part_2x1(A, 2, flamex.BOTTOM)
    assert AT.shape == (3, 5) and AB.offset == (3, 0)
    A0, a1, A2 = flamex.repart_2x1_to_3x1(AT, AB, 1, flamex.TOP)
    assert a1.offset == (2, 0) and A2.shape == (2, 5)
    AT, AB = flamex.cont_with_3x1_to_2x1(A0, a1, A2, flamex.BOTTOM)
    assert AT.shape == (2, 5)
    AL, AR = flamex.part_1x2(A, 1, flamex.LEFT)
    A0, a1, A2 = flamex.repart_1x2_to_1x3(AL, AR, 2, flamex.RIGHT)
    assert a1.offset == (0, 1) and a1.shape == (5, 2)
    AL, AR = flamex.cont_with_1x3_to_1x2(A0, a1, A2, flamex.LEFT)
    assert AL.shape == (5, 3)
    np.testing.assert_array_equal(np.asarray(AR), A[:, 3:])


def test_pivot_vectors_partition_as_int32_views():
    p = np.zeros(4, dtype=np.int32)
    pT, pB = flamex.part_2x1(p, 0, flamex.TOP)
    p0, pi1, p2 = flamex.repart_2x1_to_3x1(pT, pB, 1, flamex.BOTTOM)
    pi1[0, 0] = 3
    assert isinstance(pi1, flamex.PivObj) and p[0] == 3


def test_a_partition_that_leaves_the_matrix_is_an_error(rng):
    A = fortran(rng, 3, 3)
    with pytest.raises(flamex.Error, match="part_2x2"):
        flamex.part_2x2(A, 4, 0, flamex.TL)
    ATL, ATR, ABL, ABR = flamex.part_2x2(A, 3, 3, flamex.TL)
    with pytest.raises(ValueError, match="repart_2x2_to_3x3"):
        flamex.repart_2x2_to_3x3(ATL, ATR, ABL, ABR, 1, 1, flamex.BR)
    with pytest.raises(ValueError, match="leaves"):
        ATL[3, 0]
    with pytest.raises(ValueError, match="not vertically adjacent"):
        flamex.merge_2x1(ATL, ATL)


# --- every rejection path -------------------------------------------------------------

def rejected(array, match):
    blas = flamex.backend("blis")
    with pytest.raises(ValueError, match=match) as e:
        blas.scal(2.0, array)
    return str(e.value)


def test_c_ordered_arrays_are_rejected_with_the_fix(rng):
    message = rejected(np.ones((3, 4)), "C-ordered")
    assert "numpy.asfortranarray" in message and ".T" in message


def test_non_unit_row_stride_is_rejected(rng):
    assert "numpy.asfortranarray" in rejected(fortran(rng, 6, 4)[::2, :], "row stride of 2")


def test_reversed_or_overlapping_columns_are_rejected(rng):
    rejected(fortran(rng, 4, 4)[:, ::-1], "column stride")
    rejected(np.lib.stride_tricks.as_strided(np.zeros(8), shape=(4, 3), strides=(8, 8)), "column stride")


def test_vectors_with_negative_stride_are_rejected():
    rejected(np.arange(5.0)[::-1], "negative or zero stride")


def test_wrong_dtypes_are_rejected():
    assert "float64" in rejected(np.ones((3, 3), dtype=np.float32, order="F"), "dtype")
    rejected(np.ones((3, 3), dtype=np.int64, order="F"), "dtype")
    with pytest.raises(ValueError, match="int32"):
        flamex.backend("blis").apply_pivots(np.zeros(2, dtype=np.int64), np.ones((3, 3), order="F"))


def test_strides_that_are_not_whole_elements_are_rejected():
    packed = np.ndarray(shape=(3, 1), dtype=np.float64, buffer=np.zeros(8 * 5), strides=(12, 40))
    rejected(packed, "multiple of the element size")


def test_more_than_two_dimensions_and_non_arrays_are_rejected():
    rejected(np.ones((2, 2, 2), order="F"), "1-D or 2-D")
    rejected([1.0, 2.0], "numpy array")


def test_read_only_arrays_are_rejected_where_written():
    A = np.ones((3, 3), order="F")
    A.flags.writeable = False
    rejected(A, "read-only")
    assert flamex.backend("blis").sum(A[:, 0]) == 3.0  # reading it is fine


def test_drivers_convert_inputs_they_only_read(rng):
    """solve and the references only read A and b: any array-like goes (one conversion);
    only in-place arguments must be views."""
    A = rng.uniform(-1, 1, (5, 5)) + 5 * np.eye(5)   # C-ordered
    b = list(range(5))
    x = flamex.solve(A, b, backend="exact")
    np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="C-ordered"):
        flamex.lu(A, overwrite_a=True)
