"""The interleaved layout of the batched solvers (batched/batched.hpp, InterleavedBatch)
from Python: interleave / deinterleave, the regression generator writing it directly,
and solve(layout="interleaved") giving the system-major solve's bits."""
import numpy as np
import pytest

import flamex

LANES = {np.float32: 16, np.float64: 8}
PRECISION = {np.float32: "single", np.float64: "double"}
RESULT_FIELDS = ("status", "solved_by", "column", "discarded", "residual", "first_residual")


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def packed(n, i, j):
    return j * n - j * (j - 1) // 2 + i - j


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count", [1, 15, 16, 17, 40])
def test_interleave_places_every_entry_where_the_layout_says(dtype, count):
    n = 5
    A, y, _ = flamex.batched.generate_spd(n, count, cond_max=1e3, seed=3, precision=PRECISION[dtype])
    Ai, yi = flamex.batched.interleave(A, y)
    B = LANES[dtype]
    blocks = -(-count // B)
    assert Ai.shape == (blocks, n * (n + 1) // 2, B) and yi.shape == (blocks, n, B)
    assert Ai.dtype == dtype and Ai.flags["C_CONTIGUOUS"] and yi.flags["C_CONTIGUOUS"]
    for k in range(count):
        for j in range(n):
            assert yi[k // B, j, k % B] == y[k, j]
            for i in range(j, n):
                assert Ai[k // B, packed(n, i, j), k % B] == A[k, i, j]
    # the padding lanes are zeros
    pad = blocks * B - count
    if pad:
        assert not Ai[-1, :, B - pad:].any() and not yi[-1, :, B - pad:].any()
    A2, y2 = flamex.batched.deinterleave(Ai, yi, count=count)
    lower = np.tril(np.ones((n, n), dtype=bool))
    assert same_bits(A2[:, lower], A[:, lower]) and same_bits(y2, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["ldlt", "householder-pcr", "auto", "dc"])
@pytest.mark.parametrize("count", [1, 15, 16, 17, 100])
def test_interleaved_solve_is_bit_identical_to_the_system_major_one(dtype, method, count):
    n = 9
    A, y = flamex.batched.generate_regression(n=n, count=count, paths=40, seed=5, precision=PRECISION[dtype])
    A, y = A.copy(), y.copy()
    # trouble in the middle of a block: a NaN, and (for ldlt) a zero leading pivot
    if count > 3:
        A[2, 4, 1] = np.nan
        A[3, 0, 0] = 0
    Ai, yi = flamex.batched.interleave(A, y)
    ref = flamex.batched.solve(A, y, method=method, threads=2)
    got = flamex.batched.solve(Ai, yi, method=method, threads=2, layout="interleaved", count=count)
    assert same_bits(got["x"], ref["x"])
    for field in RESULT_FIELDS:
        assert same_bits(got[field], ref[field]), field
    if count > 3:
        assert flamex.batched.STATUS_NAMES[got["status"][2]] == "invalid"
        if method == "ldlt":
            assert flamex.batched.STATUS_NAMES[got["status"][3]] == "breakdown" and got["column"][3] == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_upper_triangle_is_never_read_in_either_layout(dtype):
    n, count = 12, 33
    A, y, _ = flamex.batched.generate_spd(n, count, cond_max=1e3, seed=8, precision=PRECISION[dtype])
    garbage = A.copy()
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    garbage[:, upper] = np.nan
    for method in ("ldlt", "householder-pcr"):
        ref = flamex.batched.solve(A, y, method=method)
        got = flamex.batched.solve(garbage, y, method=method)
        gi = flamex.batched.solve(*flamex.batched.interleave(garbage, y), method=method, layout="interleaved", count=count)
        assert same_bits(got["x"], ref["x"]) and same_bits(gi["x"], ref["x"])
        assert not np.isnan(ref["x"]).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_generator_writes_the_interleaved_layout_directly(dtype):
    spec = dict(n=7, count=21, paths=30, seed=11, precision=PRECISION[dtype])
    A, y = flamex.batched.generate_regression(**spec)
    Ai, yi = flamex.batched.generate_regression(**spec, layout="interleaved")
    Ei, ei = flamex.batched.interleave(A, y)
    assert same_bits(Ai, Ei) and same_bits(yi, ei)
    ref = flamex.batched.solve(A, y, method="auto")
    got = flamex.batched.solve(Ai, yi, method="auto", layout="interleaved", count=21)
    assert same_bits(got["x"], ref["x"]) and same_bits(got["status"], ref["status"])


def test_the_default_count_is_every_lane():
    A, y, _ = flamex.batched.generate_spd(4, 32, cond_max=10, seed=2, precision="single")
    Ai, yi = flamex.batched.interleave(A, y)
    r = flamex.batched.solve(Ai, yi, method="ldlt", layout="interleaved")
    assert r["x"].shape == (32, 4)
    assert same_bits(r["x"], flamex.batched.solve(A, y, method="ldlt")["x"])
