"""What users already have: scipy.io reads flamex's Matrix Market files and flamex
(library, module and CLI) reads scipy's, dense and sparse, every qualifier; flamex's
blis LU is scipy.linalg.lu_factor's (same pivots, same factors to 1e-12)."""
import os
import subprocess

import numpy as np
import pytest
import scipy.io
import scipy.linalg
import scipy.sparse

import flamex
from conftest import bits, fortran


def test_scipy_reads_flamex_files_bit_exactly(tmp, rng):
    A = fortran(rng, 7, 4) * np.logspace(-300, 300, 4)  # 17 digits over the whole exponent range
    A[0, 0] = -0.0
    path = str(tmp / "A.mtx")
    flamex.write_matrix_market(path, A, comment="from flamex")
    B = scipy.io.mmread(path)
    np.testing.assert_array_equal(bits(np.asfortranarray(B)), bits(A))


def test_flamex_reads_scipy_dense_files(tmp, rng):
    A = rng.uniform(-1, 1, (5, 6))
    path = str(tmp / "dense.mtx")
    scipy.io.mmwrite(path, A, precision=17)
    np.testing.assert_array_equal(flamex.read_matrix_market(path), A)


@pytest.mark.parametrize("kind", ["general", "symmetric", "skew-symmetric", "integer", "pattern"])
def test_flamex_reads_scipy_coordinate_files(kind, tmp, rng):
    dense = rng.uniform(-1, 1, (6, 6)) * (rng.uniform(0, 1, (6, 6)) < 0.4)
    field = None
    if kind == "symmetric":
        dense = dense + dense.T
    elif kind == "skew-symmetric":
        dense = dense - dense.T
    elif kind == "integer":
        dense = np.round(10 * dense).astype(np.int64)
    elif kind == "pattern":
        field = "pattern"
    path = str(tmp / f"{kind}.mtx")
    scipy.io.mmwrite(path, scipy.sparse.coo_matrix(dense), field=field, precision=17)
    with open(path) as f:
        banner = f.readline()
    assert "coordinate" in banner and (kind in banner or kind == "general")
    expected = (dense != 0).astype(float) if kind == "pattern" else dense.astype(float)
    np.testing.assert_array_equal(flamex.read_matrix_market(path), expected)
    np.testing.assert_array_equal(flamex.read_matrix_market(path), scipy.io.mmread(path).toarray().astype(float))


def test_the_cli_reads_a_scipy_coordinate_file(tmp, rng):
    cli = os.environ.get("FLAMEX_CLI")
    if not cli:
        pytest.skip("FLAMEX_CLI not set (ctest sets it)")
    dense = rng.uniform(-1, 1, (5, 5)) + 5 * np.eye(5)
    dense[dense < 0] = 0.0
    path = str(tmp / "A.mtx")
    scipy.io.mmwrite(path, scipy.sparse.coo_matrix(dense), precision=17)
    out = str(tmp / "LU.mtx")
    subprocess.run([cli, "lu", path, "--backend", "exact", "-o", out], check=True, capture_output=True)
    LU, _, _ = flamex.lu(np.asfortranarray(dense), backend="exact")
    np.testing.assert_array_equal(bits(flamex.read_matrix_market(out)), bits(LU))


def test_complex_files_are_rejected_naming_file_and_line(tmp):
    path = str(tmp / "c.mtx")
    scipy.io.mmwrite(path, scipy.sparse.coo_matrix(np.array([[1 + 2j, 0], [0, 1]])))
    with pytest.raises(flamex.Error, match=f"{path}:1: .*complex"):
        flamex.read_matrix_market(path)


@pytest.mark.parametrize("n", [1, 5, 64, 200])
@pytest.mark.parametrize("variant", ["lu_piv_unb_var3", "lu_piv_blk_var5"])
def test_blis_lu_agrees_with_scipy_lu_factor(n, variant, rng):
    A = fortran(rng, n, n)
    LU, ipiv, info = flamex.lu(A, variant=variant, backend="blis", block=32)
    lu, piv = scipy.linalg.lu_factor(A)
    assert info == 0
    np.testing.assert_array_equal(ipiv, piv + 1)  # LAPACK's 1-based ipiv; scipy gives it 0-based
    assert np.abs(LU - lu).max() <= 1e-12 * np.abs(lu).max()
    x = scipy.linalg.lu_solve((LU, ipiv - 1), np.ones(n))  # flamex's factors in scipy's solver
    np.testing.assert_allclose(A @ x, np.ones(n), atol=1e-8)
