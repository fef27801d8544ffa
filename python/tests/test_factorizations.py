"""The Cholesky, LDL^T, triangular inverse and triangular solve drivers from Python:
every registered variant on every backend against residual bounds, against scipy /
numpy within a bound, bit-identical on `exact` for 1 and 2 threads (and on the OpenCL
backends, which run the exact kernels), the registries the CLI lists, and every
numerical failure and bad argument as an exception naming what is wrong."""
import os
import subprocess

import numpy as np
import pytest
import scipy.linalg

import flamex
from conftest import bits, fortran

BACKENDS = ["blis", "exact", "opencl", "opencl-plain"]
U = np.finfo(np.float64).eps / 2


def names(operation):
    return [v["name"] for v in flamex.variants(operation)]


def norm_inf(A):
    """||A||_inf, NaN when an entry is NaN (np.max propagates it)."""
    return np.max(np.sum(np.abs(A), axis=1)) if A.size else 0.0


def exact_product(A, B):
    """A B in long double: the residuals below are not swamped by their own rounding."""
    return np.asarray(A, dtype=np.longdouble) @ np.asarray(B, dtype=np.longdouble)


def lower_test_matrix(rng, n):
    """A well-conditioned lower triangle (diagonal +-[1, 2)), random above it: the
    drivers must neither read nor (in place) write the strict upper triangle."""
    A = fortran(rng, n, n)
    A[np.diag_indices(n)] = rng.choice([-1.0, 1.0], n) * rng.uniform(1.0, 2.0, n)
    A[np.tril_indices(n, -1)] /= n
    return A


@pytest.mark.parametrize("operation,cli", [("chol", "chol"), ("ldlt", "ldlt"), ("trinv", "trinv")])
def test_registries_are_the_clis(operation, cli):
    exe = os.environ.get("FLAMEX_CLI")
    if not exe:
        pytest.skip("FLAMEX_CLI not set (ctest sets it)")
    listed = subprocess.run([exe, cli, "--list"], check=True, capture_output=True, text=True).stdout
    assert names(operation) == [line.split()[0] for line in listed.splitlines()]
    assert all(v["summary"] for v in flamex.variants(operation))


def test_registries_cover_both_forms():
    for operation in ["chol", "trinv", "trsm_lln"]:
        variants = flamex.variants(operation)
        assert {v["blocked"] for v in variants} == {False, True}
        assert all(v["name"] == f"{operation}_{'blk' if v['blocked'] else 'unb'}_var{v['number']}" for v in variants)
    assert any(v["on_backend"] for v in flamex.variants("ldlt"))
    with pytest.raises(flamex.Error, match="chol"):
        flamex.variants("qr")


# --- Cholesky ------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", names("chol"))
def test_chol_backward_error(variant, backend):
    n = 23
    A = flamex.gen.spd(n, 1e6, seed=3)
    A_before = A.copy(order="F")
    L = flamex.chol(A, variant=variant, backend=backend, block=5)
    np.testing.assert_array_equal(bits(A), bits(A_before))              # the input untouched
    assert np.all(np.triu(L, 1) == 0) and np.all(np.diag(L) > 0)
    residual = norm_inf(A - exact_product(L, L.T))
    assert residual <= 4 * n * U * norm_inf(A), residual / (n * U * norm_inf(A))


@pytest.mark.parametrize("variant", names("chol"))
def test_chol_agrees_with_scipy(variant):
    n, kappa = 40, 1e4
    A = flamex.gen.spd(n, kappa, seed=8)
    L = flamex.chol(A, variant=variant, backend="blis", block=7)
    reference = scipy.linalg.cholesky(A, lower=True)
    # The factor's forward error is at most about kappa_2(A)^(1/2) n u relative.
    assert norm_inf(L - reference) <= 10 * np.sqrt(kappa) * n * U * norm_inf(reference)


@pytest.mark.parametrize("variant", names("chol"))
def test_exact_chol_is_bit_identical_across_threads_and_opencl(variant):
    A = flamex.gen.spd(60, 1e8, seed=5)
    one = flamex.chol(A, variant=variant, backend=flamex.backend("exact", threads=1), block=16)
    two = flamex.chol(A, variant=variant, backend="exact", threads=2, block=16)
    np.testing.assert_array_equal(bits(one), bits(two))
    np.testing.assert_array_equal(bits(one), bits(flamex.chol(A, variant=variant, backend="opencl", block=16)))


def test_chol_in_place_and_blocked_inner():
    A = flamex.gen.spd(12, 1e3, seed=2)
    A[np.triu_indices(12, 1)] = 7.0                                       # never read, never written
    expected = flamex.chol(A, variant="chol_blk_var2", inner="chol_unb_var1", block=5, backend="exact")
    work = A.copy(order="F")
    out = flamex.chol(work, variant="chol_blk_var2", inner="chol_unb_var1", block=5, backend="exact", overwrite_a=True)
    assert out is work
    np.testing.assert_array_equal(bits(np.tril(work)), bits(expected))
    assert np.all(work[np.triu_indices(12, 1)] == 7.0)


@pytest.mark.parametrize("variant", names("chol"))
def test_chol_not_positive_definite_names_the_column(variant):
    A = np.asfortranarray(np.diag([4.0, 1.0, 2.0, -1.0, 3.0]))
    A[3, 0] = 0.5
    with pytest.raises(flamex.NotPositiveDefiniteError, match=f"not positive definite: column 4 \\({variant}\\)") as e:
        flamex.chol(A, variant=variant, block=2)
    assert e.value.column == 4 and isinstance(e.value, np.linalg.LinAlgError)
    nan = np.eye(3, order="F")
    nan[1, 1] = np.nan                                                   # NaN is not positive
    with pytest.raises(flamex.NotPositiveDefiniteError) as e:           # past the input check
        flamex.chol(nan, variant=variant, block=2, backend="exact", check_finite=False)
    assert e.value.column == 2


# --- LDL^T ---------------------------------------------------------------------------

def ldlt_factors(LD):
    L = np.tril(LD, -1) + np.eye(LD.shape[0])
    return L, np.diag(np.diag(LD))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", names("ldlt"))
def test_ldlt_backward_error(variant, backend):
    n = 21
    S = flamex.gen.spd(n, 1e3, seed=4)
    A = np.asfortranarray(S - 0.5 * np.trace(S) / n * np.eye(n))       # symmetric indefinite
    LD = flamex.ldlt(A, variant=variant, backend=backend)
    assert np.all(np.triu(LD, 1) == 0)
    L, D = ldlt_factors(LD)
    residual = norm_inf(A - exact_product(exact_product(L, D), L.T))
    growth = norm_inf(np.abs(L) @ np.abs(D) @ np.abs(L.T))              # no pivoting: bound by |L||D||L^T|
    assert residual <= 4 * n * U * growth, residual / (n * U * growth)


def test_ldlt_derived_variant_on_exact_is_reproducible_and_agrees_with_the_host_loops():
    derived = [v["name"] for v in flamex.variants("ldlt") if v["on_backend"]]
    A = flamex.gen.spd(50, 1e6, seed=6)
    host = flamex.ldlt(A, variant="ldlt_unb_var3")
    for variant in derived:
        one = flamex.ldlt(A, variant=variant, backend="exact", threads=1)
        two = flamex.ldlt(A, variant=variant, backend="exact", threads=2)
        np.testing.assert_array_equal(bits(one), bits(two))
        assert norm_inf(one - host) <= 1e6 * 50 * U * norm_inf(host)


def test_ldlt_zero_pivot_names_the_column():
    A = np.asfortranarray([[2.0, 1.0, 0.0], [1.0, 0.5, 0.0], [0.0, 0.0, 1.0]])  # the second pivot is 0
    for variant in names("ldlt"):
        with pytest.raises(flamex.ZeroPivotError, match=f"pivot in column 2 \\({variant}\\)") as e:
            flamex.ldlt(A, variant=variant, backend="exact")
        assert e.value.column == 2


# --- triangular inverse --------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", names("trinv"))
def test_trinv_agrees_with_numpy_inv(variant, backend, rng):
    n = 25
    A = lower_test_matrix(rng, n)
    X = flamex.trinv(A, variant=variant, backend=backend, block=6)
    L = np.tril(A)
    reference = np.linalg.inv(L)
    kappa = norm_inf(L) * norm_inf(reference)
    assert np.all(np.triu(X, 1) == 0)
    assert norm_inf(X - reference) <= 4 * kappa * n * U * norm_inf(reference)
    assert norm_inf(exact_product(L, X) - np.eye(n)) <= 4 * n * U * norm_inf(np.abs(L) @ np.abs(X))


@pytest.mark.parametrize("variant", names("trinv"))
def test_exact_trinv_is_bit_identical_across_threads(variant, rng):
    A = lower_test_matrix(rng, 70)
    one = flamex.trinv(A, variant=variant, backend="exact", threads=1, block=16)
    two = flamex.trinv(A, variant=variant, backend="exact", threads=2, block=16)
    np.testing.assert_array_equal(bits(one), bits(two))


def test_trinv_in_place_and_singular(rng):
    A = lower_test_matrix(rng, 6)
    work = A.copy(order="F")
    flamex.trinv(work, backend="exact", overwrite_a=True)
    np.testing.assert_array_equal(bits(np.tril(work)), bits(flamex.trinv(A, backend="exact")))
    np.testing.assert_array_equal(np.triu(work, 1), np.triu(A, 1))
    A[4, 4] = 0.0
    work = A.copy(order="F")
    with pytest.raises(flamex.SingularMatrixError, match="zero on the diagonal in column 5") as e:
        flamex.trinv(work, variant="trinv_blk_var2", block=2, overwrite_a=True)
    assert e.value.column == 5
    np.testing.assert_array_equal(bits(work), bits(A))                   # nothing computed


# --- triangular solve with many right-hand sides -------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", names("trsm_lln"))
def test_trsm_lln_agrees_with_scipy_solve_triangular(variant, backend, rng):
    n, k = 24, 7
    L = lower_test_matrix(rng, n)
    B = fortran(rng, n, k)
    X = flamex.trsm_lln(L, B, variant=variant, backend=backend, block=5)
    reference = scipy.linalg.solve_triangular(L, B, lower=True)
    Lt = np.tril(L)
    for j in range(k):                                                   # componentwise backward error per column
        residual = np.abs(exact_product(Lt, X[:, j]) - B[:, j]).max()
        assert residual <= 4 * n * U * (np.abs(Lt) @ np.abs(X[:, j])).max()
    kappa = norm_inf(Lt) * norm_inf(np.linalg.inv(Lt))
    assert norm_inf(X - reference) <= 4 * kappa * n * U * norm_inf(reference)


@pytest.mark.parametrize("variant", names("trsm_lln"))
def test_exact_trsm_lln_is_bit_identical_across_threads(variant, rng):
    L, B = lower_test_matrix(rng, 64), fortran(rng, 64, 20)
    one = flamex.trsm_lln(L, B, variant=variant, backend="exact", threads=1, block=16)
    two = flamex.trsm_lln(L, B, variant=variant, backend="exact", threads=2, block=16)
    np.testing.assert_array_equal(bits(one), bits(two))


def test_trsm_lln_vector_in_place_and_singular(rng):
    L = lower_test_matrix(rng, 9)
    b = rng.uniform(-1, 1, 9)
    x = flamex.trsm_lln(L, b, backend="exact")
    assert x.shape == (9,)
    np.testing.assert_array_equal(bits(x), bits(flamex.trsm_lln(L, b.reshape(9, 1), backend="exact")[:, 0]))
    B = fortran(rng, 9, 3)
    expected = flamex.trsm_lln(L, B, backend="exact")
    out = flamex.trsm_lln(L, B, backend="exact", overwrite_b=True)
    assert out is B
    np.testing.assert_array_equal(bits(B), bits(expected))
    M = fortran(rng, 3, 9)
    row = M[1].copy()
    flamex.trsm_lln(L, M[1], backend="exact", overwrite_b=True)          # a row of M, a strided vector: solved in M
    np.testing.assert_array_equal(bits(M[1]), bits(flamex.trsm_lln(L, row, backend="exact")))
    L[2, 2] = 0.0
    with pytest.raises(flamex.SingularMatrixError, match="column 3") as e:
        flamex.trsm_lln(L, B)
    assert e.value.column == 3


# --- solve with many right-hand sides ------------------------------------------------

@pytest.mark.parametrize("backend", ["blis", "exact"])
def test_solve_many_right_hand_sides_column_by_column(backend, rng):
    A = flamex.gen.lu(30, 1e6, seed=3)
    B = fortran(rng, 30, 4)
    X, report = flamex.solve(A, B, backend=backend, refine=2, report=True)
    assert X.shape == (30, 4)
    steps, residual = 0, 0.0
    for j in range(4):
        x, r = flamex.solve(A, B[:, j], backend=backend, refine=2, report=True)
        np.testing.assert_array_equal(bits(X[:, j]), bits(x))           # each column as if alone
        steps, residual = max(steps, r["refinement_steps"]), max(residual, r["residual_norm"])
    assert report == {"refinement_steps": steps, "residual_norm": residual}
    assert norm_inf(A @ X - B) <= 1e-12 * norm_inf(A) * norm_inf(X)
    # The same right-hand sides as a FLAME view, and one as a strided 1-D array (a row).
    np.testing.assert_array_equal(bits(flamex.solve(A, flamex.view(B), backend=backend, refine=2)), bits(X))
    rows = np.asfortranarray(B.T)
    x = flamex.solve(A, rows[2], backend=backend, refine=2)
    assert x.shape == (30,)
    np.testing.assert_array_equal(bits(x), bits(X[:, 2]))


# --- bad arguments -------------------------------------------------------------------

def test_bad_arguments():
    spd = flamex.gen.spd(4, 10.0, seed=1)
    with pytest.raises(flamex.Error, match="3x4, not square"):
        flamex.chol(np.ones((3, 4)))
    with pytest.raises(flamex.Error, match="not square"):
        flamex.ldlt(np.ones((3, 4)), variant="ldlt_blas_unb_var3")
    with pytest.raises(flamex.Error, match="not square"):
        flamex.ldlt(np.ones((3, 4)))
    with pytest.raises(flamex.Error, match="not square"):
        flamex.trinv(np.ones((2, 3)))
    with pytest.raises(flamex.Error, match=r"L is 4x4 and B 3x2"):
        flamex.trsm_lln(spd, np.ones((3, 2)))
    with pytest.raises(ValueError, match="asfortranarray"):
        flamex.chol(np.ascontiguousarray(spd + 0 * np.ones((4, 1))), overwrite_a=True)
    with pytest.raises(ValueError, match="asfortranarray"):
        flamex.trsm_lln(spd, np.ones((4, 2)), overwrite_b=True)
    with pytest.raises(ValueError, match="2-D"):
        flamex.chol(np.ones(4))
    with pytest.raises(flamex.Error, match="chol_unb_var3"):
        flamex.chol(spd, variant="chol_var9")
    with pytest.raises(flamex.Error, match="ldlt_blas_unb_var3"):
        flamex.ldlt(spd, variant="ldlt_var9")
    with pytest.raises(flamex.Error, match="unblocked"):
        flamex.chol(spd, variant="chol_unb_var1", inner="chol_unb_var2")
    with pytest.raises(flamex.Error, match="must be unblocked"):
        flamex.trinv(spd, variant="trinv_blk_var1", inner="trinv_blk_var2")
    with pytest.raises(flamex.Error, match="block size"):
        flamex.trsm_lln(spd, np.ones((4, 1)), variant="trsm_lln_blk_var3", block=0)
    with pytest.raises(flamex.Error, match="cuda"):
        flamex.chol(spd, backend="cuda")
