"""The Python API over the library: backends and every abstract BLAS operation with
numpy arguments, the LU and solve drivers for every variant, the generators and MPFR
references, and the batched solvers in both precisions."""
import numpy as np
import pytest

import flamex
from conftest import bits, fortran

BACKENDS = ["blis", "exact", "opencl", "opencl-plain"]


def test_registries():
    assert {b["name"] for b in flamex.backends()} >= {"blis", "exact", "opencl", "opencl-plain"}
    variants = flamex.variants()
    names = [v["name"] for v in variants]
    unblocked = {f"lu_nopiv_unb_var{k}" for k in range(1, 6)} | {f"lu_piv_unb_var{k}" for k in range(3, 6)}
    blocked = {name.replace("unb", "blk") for name in unblocked}
    ordered = {"lu_piv_blk_var5_fma", "lu_nopiv_blk_var5_fma"}
    assert sorted(names) == sorted(unblocked | blocked | ordered)
    assert all(v["summary"] for v in variants)
    devices = flamex.devices()  # pocl-opencl-icd (tools/setup.sh) gives at least the CPU
    assert devices and all("description" in d and d["index"] == k for k, d in enumerate(devices))
    blas = flamex.backend("exact", threads=2)
    assert blas.name == "exact" and blas.reproducible
    assert not flamex.backend("blis").reproducible


@pytest.mark.parametrize("name", BACKENDS)
def test_every_blas_operation_agrees_with_numpy(name, rng):
    blas = flamex.backend(name, threads=2)
    tol = dict(rtol=1e-12, atol=1e-14)
    x, y = rng.uniform(-1, 1, 7), rng.uniform(-1, 1, 7)
    A, B = fortran(rng, 7, 5), fortran(rng, 5, 6)
    C = fortran(rng, 7, 6)
    L = np.asfortranarray(np.tril(rng.uniform(-1, 1, (7, 7))) + 4 * np.eye(7))

    assert blas.sum(x) == pytest.approx(x.sum(), rel=1e-14)
    assert blas.dot(x, y) == pytest.approx(x @ y, rel=1e-13)
    rho = np.array([[0.5]], order="F")
    blas.dots(2.0, x, y, 3.0, rho)
    assert rho[0, 0] == pytest.approx(2 * (x @ y) + 1.5, rel=1e-13)
    z = x.copy(); blas.scal(3.0, z); np.testing.assert_allclose(z, 3 * x, **tol)
    z = x.copy(); blas.invscal(3.0, z); np.testing.assert_allclose(z, x / 3, **tol)
    z = y.copy(); blas.axpy(2.0, x, z); np.testing.assert_allclose(z, 2 * x + y, **tol)
    z = np.zeros(7); blas.copy(x, z); np.testing.assert_array_equal(z, x)
    v = np.zeros(7); blas.gemv(flamex.NO_TRANSPOSE, 1.0, A, x[:5], 0.0, v); np.testing.assert_allclose(v, A @ x[:5], **tol)
    w = np.ones(5); blas.gemv(flamex.TRANSPOSE, 2.0, A, x, -1.0, w); np.testing.assert_allclose(w, 2 * A.T @ x - 1, **tol)
    z = x.copy(); blas.trsv(flamex.LOWER, flamex.NO_TRANSPOSE, flamex.NONUNIT, L, z)
    np.testing.assert_allclose(L @ z, x, **tol)
    G = A.copy(order="F"); blas.ger(2.0, x, y[:5], G); np.testing.assert_allclose(G, A + 2 * np.outer(x, y[:5]), **tol)
    D = C.copy(order="F"); blas.gemm(flamex.NO_TRANSPOSE, flamex.NO_TRANSPOSE, 1.0, A, B, 2.0, D)
    np.testing.assert_allclose(D, A @ B + 2 * C, **tol)
    D = C.copy(order="F"); blas.trsm(flamex.LEFT, flamex.LOWER, flamex.NO_TRANSPOSE, flamex.NONUNIT, 1.0, L, D)
    np.testing.assert_allclose(L @ D, C, **tol)
    E = np.asfortranarray(C.T.copy()); blas.trsm(flamex.RIGHT, flamex.LOWER, flamex.TRANSPOSE, flamex.NONUNIT, 1.0, L, E)
    np.testing.assert_allclose(E @ L.T, C.T, **tol)
    S = C[:, :6].copy(order="F")[:6]; S0 = S.copy()                  # syrk: only the lower triangle
    blas.syrk(flamex.LOWER, flamex.NO_TRANSPOSE, 2.0, A[:6], -1.0, S)
    np.testing.assert_allclose(np.tril(S), np.tril(2 * A[:6] @ A[:6].T - S0), **tol)
    np.testing.assert_array_equal(np.triu(S, 1), np.triu(S0, 1))
    z = x.copy(); blas.trmv(flamex.LOWER, flamex.TRANSPOSE, flamex.UNIT, L, z)
    np.testing.assert_allclose(z, (np.tril(L, -1) + np.eye(7)).T @ x, **tol)
    D = C.copy(order="F"); blas.trmm(flamex.LEFT, flamex.LOWER, flamex.NO_TRANSPOSE, flamex.NONUNIT, -2.0, L, D)
    np.testing.assert_allclose(D, -2 * L @ C, **tol)
    Dg = np.asfortranarray(L[:5, :5]); d = np.diag(Dg)                # diag_*: the diagonal of a square view
    z = x[:5].copy(); blas.diag_invscal(Dg, z); np.testing.assert_array_equal(z, x[:5] / d)
    rho = np.array([[0.5]], order="F"); blas.diag_dots(-1.0, x[:5], Dg, y[:5], 2.0, rho)
    assert rho[0, 0] == pytest.approx(1.0 - x[:5] @ (d * y[:5]), rel=1e-13)
    v = np.ones(7); blas.diag_gemv(1.0, A, Dg, x[:5], -1.0, v); np.testing.assert_allclose(v, A @ (d * x[:5]) - 1, **tol)
    s = np.array([[2.0]], order="F"); blas.sqrt(s); assert s[0, 0] == np.sqrt(2.0)
    blas.reciprocal(s); assert s[0, 0] == 1 / np.sqrt(2.0)
    assert blas.iamax(np.array([1.0, -3.0, 3.0, 2.0])) == 1           # first of the ties
    P = A.copy(order="F"); blas.apply_pivots(np.array([2, 0], dtype=np.int32), P)
    np.testing.assert_array_equal(P[[2, 1, 0]], A[:3])
    assert blas.element(A, 3, 2) == A[3, 2]


def test_exact_dot_is_the_correctly_rounded_mpfr_dot():
    x, y = flamex.gen.dot(200, 1e30, seed=3)
    assert 1e29 < flamex.mpfr.cond_dot(x, y) < 1e31
    exact = flamex.backend("exact", threads=2).dot(x, y)
    assert bits(np.array([exact])) == bits(np.array([flamex.mpfr.dot(x, y)]))
    assert flamex.mpfr.dot_error(exact, x, y) <= 2.0 ** -53


@pytest.mark.parametrize("variant", [v["name"] for v in flamex.variants()])
def test_lu_every_variant(variant, rng):
    A = np.asfortranarray(rng.uniform(-1, 1, (12, 12)) + 12 * np.eye(12))  # no zero pivot without pivoting
    LU, ipiv, info = flamex.lu(A, variant=variant, backend="exact", block=4)
    assert info == 0 and ipiv.dtype == np.int32 and ipiv.min() >= 1
    assert np.all(ipiv >= np.arange(1, 13))                             # LAPACK: ipiv[i] >= i + 1
    assert flamex.mpfr.lu_residual(A, LU, ipiv) <= 1e-13 * np.abs(A).sum(axis=1).max()
    np.testing.assert_array_equal(A, np.asfortranarray(A))            # input untouched


def test_lu_info_and_blocked_inner_variant(rng):
    A = np.zeros((4, 4), order="F")
    _, _, info = flamex.lu(A, variant="lu_piv_blk_var5", block=2, inner="lu_piv_unb_var4")
    assert info == 1


def test_lu_default_block_is_the_backends_choice(rng):
    # block None: the backend's block for A's size (exact: 256 from min(m, n) = 512);
    # a named block is always the one taken, in flamex.lu, flamex.solve and flamex.run.
    A = np.asfortranarray(rng.uniform(-1, 1, (520, 520)))
    default = flamex.lu(A, variant="lu_piv_blk_var5", backend="exact")
    named = flamex.lu(A, variant="lu_piv_blk_var5", backend="exact", block=256)
    other = flamex.lu(A, variant="lu_piv_blk_var5", backend="exact", block=128)
    np.testing.assert_array_equal(bits(default[0]), bits(named[0]))
    assert not np.array_equal(bits(default[0]), bits(other[0]))
    run = flamex.run("lu_piv", A, variant="lu_piv_blk_var5", backend="exact")
    np.testing.assert_array_equal(bits(run[0]), bits(named[0]))
    b = np.ones(520)
    np.testing.assert_array_equal(bits(flamex.solve(A, b, variant="lu_piv_blk_var5", backend="exact")),
                                  bits(flamex.solve(A, b, variant="lu_piv_blk_var5", backend="exact", block=256)))
    for call in (lambda: flamex.lu(A, variant="lu_piv_blk_var5", block=0),
                 lambda: flamex.run("lu_piv", A, variant="lu_piv_blk_var5", block=-2)):
        with pytest.raises(flamex.Error, match="block size"):
            call()


def test_exact_lu_is_reproducible_across_threads(rng):
    A = flamex.gen.lu(40, 1e8, seed=5)
    r1 = flamex.lu(A, variant="lu_piv_blk_var3", backend=flamex.backend("exact", threads=1), block=8)
    r2 = flamex.lu(A, variant="lu_piv_blk_var3", backend=flamex.backend("exact", threads=2), block=8)
    np.testing.assert_array_equal(bits(r1[0]), bits(r2[0]))
    np.testing.assert_array_equal(r1[1], r2[1])


def test_solve_and_refinement(rng):
    A = flamex.gen.lu(30, 1e10, seed=1)
    b = A @ np.ones(30)
    x, report = flamex.solve(A, b, backend="exact", refine=3, report=True)
    assert x.shape == (30,) and report["refinement_steps"] <= 3
    assert flamex.mpfr.solve_error(x, A, b) < 1e-4
    x2 = flamex.solve(A, b.reshape(30, 1), backend="blis")
    assert x2.shape == (30, 1)


def test_trsv_solve_and_generators():
    T, b = flamex.gen.trsv(20, 1e12, seed=2)
    assert 1e11 < flamex.mpfr.cond_trsv(T, b) < 1e13
    x = flamex.trsv_solve(T, b, backend="exact", refine=2)
    assert flamex.mpfr.trsv_error(x, T, b) < 1e-6
    A, x = flamex.gen.gemv(10, 30, 1e9, seed=4)
    assert 1e8 < flamex.mpfr.cond_gemv(A, x) < 1e10
    np.testing.assert_array_equal(flamex.mpfr.gemv(A, x).shape, (10,))
    A = flamex.gen.lu(16, 1e20, seed=9)
    assert A.flags.f_contiguous and 1e19 < flamex.mpfr.kappa_inf(A) < 1e21
    assert flamex.mpfr.norm_inf(A) == pytest.approx(np.abs(A).sum(axis=1).max(), rel=1e-15)
    np.testing.assert_array_equal(flamex.gen.uniform_matrix(3, 4, seed=1), flamex.gen.uniform_matrix(3, 4, seed=1))
    assert flamex.gen.diagonally_dominant(5).shape == (5, 5)
    assert np.allclose(np.triu(flamex.gen.well_conditioned_lower(5), 1), 0)


@pytest.mark.parametrize("precision,dtype", [("single", np.float32), ("double", np.float64)])
@pytest.mark.parametrize("method", ["ldlt", "householder-pcr", "dc", "auto"])
def test_batched_solvers(precision, dtype, method):
    A, y, kappa = flamex.batched.generate_spd(8, 50, cond_max=1e3, seed=1, precision=precision)
    assert A.shape == (50, 8, 8) and y.shape == (50, 8) and A.dtype == dtype and kappa.shape == (50,)
    np.testing.assert_array_equal(A, A.transpose(0, 2, 1))
    r = flamex.batched.solve(A, y, method=method, threads=2)
    assert r["x"].shape == (50, 8) and r["x"].dtype == dtype
    assert all(flamex.batched.STATUS_NAMES[s] in ("ok", "repaired", "flagged") for s in r["status"])
    residual = np.abs(np.einsum("kij,kj->ki", A.astype(np.float64), r["x"].astype(np.float64)) - y).max()
    assert residual < (1e-2 if dtype == np.float32 else 1e-10)
    np.testing.assert_allclose(flamex.batched.condition_numbers(A), kappa, rtol=1e-2 if dtype == np.float32 else 1e-6)


def test_batched_opencl_matches_the_shapes_of_cpu():
    A, y = flamex.batched.generate_regression(n=6, count=20, paths=50, precision="double")
    cpu = flamex.batched.solve(A, y, method="ldlt")
    dev = flamex.batched.solve(A, y, method="ldlt", device="opencl")
    np.testing.assert_allclose(dev["x"], cpu["x"], rtol=1e-8)
    np.testing.assert_array_equal(dev["status"], cpu["status"])
