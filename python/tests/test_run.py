"""flamex.run, the generic path: every registered operation and variant by name,
with the bits of the operation's own driver on `exact`, the operands never written,
only the structure's part read, and failures and bad arguments as exceptions."""
import numpy as np
import pytest

import flamex
from conftest import bits

OPERATIONS = {op["name"]: op for op in flamex.operations()}


def definite(n, seed):
    """Symmetric, diagonally dominant, positive diagonal: every operation takes it."""
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1, 1, (n, n))
    A = np.tril(A) + np.tril(A, -1).T
    A[np.diag_indices(n)] = n + np.abs(np.diag(A))
    return np.asfortranarray(A)


def own_driver(op, variant, A, B):
    """The same variant through the operation's own flamex function."""
    if op == "lu_piv" or op == "lu_nopiv":
        LU, ipiv, info = flamex.lu(A, variant=variant, backend="exact", block=4)
        assert info == 0
        return (LU, ipiv) if op == "lu_piv" else LU
    if op == "trsm_lln":
        return flamex.trsm_lln(A, B, variant=variant, backend="exact", block=4)
    if op == "ldlt":
        return flamex.ldlt(A, variant=variant, backend="exact")
    return getattr(flamex, op)(A, variant=variant, backend="exact", block=4)


# The operations with a flamex function of their own, whose bits run must give.
DRIVEN = ["chol", "ldlt", "lu_nopiv", "lu_piv", "trinv", "trsm_lln"]


def test_operations_list_every_variant_of_the_registries():
    listed = {v["name"] for op in OPERATIONS.values() for v in op["variants"]}
    registered = {v["name"] for kind in ("lu", "chol", "ldlt", "trinv", "trsm_lln") for v in flamex.variants(kind)}
    assert registered <= listed
    for name, op in OPERATIONS.items():  # flamex.variants lists every operation from the same registry
        assert [v["name"] for v in flamex.variants(name)] == [v["name"] for v in op["variants"]], name
    for op in ("trmm_lln", "trmm_lun", "trsm_lun", "chol_u", "ttmm_l", "syrk_ln", "trinv_un"):
        assert len(OPERATIONS[op]["variants"]) == (12 if op == "syrk_ln" else 6 if op in ("chol_u", "ttmm_l") else 8), op


# The derived operations that have no function of their own: held to numpy on blis
# (1e-13 relative) and to the same bits on exact with 1 and 2 threads.
DERIVED = {
    "trmm_lln": lambda T, B: np.tril(T) @ B,
    "trmm_lun": lambda T, B: np.triu(T) @ B,
    "trsm_lun": lambda T, B: np.linalg.solve(np.triu(T), B),
    "syrk_ln": lambda A, C: np.tril(C + A @ A.T),
    "chol_u": lambda A: np.linalg.cholesky(A).T,
    "ttmm_l": lambda A: np.tril(np.tril(A).T @ np.tril(A)),
    "trinv_un": lambda A: np.triu(np.linalg.inv(np.triu(A))),
}


@pytest.mark.parametrize("op", sorted(DERIVED))
@pytest.mark.parametrize("shape", [(13, 3), (1, 1), (0, 2)])
def test_derived_operations_against_numpy_and_across_threads(op, shape):
    n, k = shape
    A = definite(n, 5)
    B = np.asfortranarray(np.random.default_rng(6).uniform(-1, 1, (n, k)))
    operands = (A,) if op in ("chol_u", "ttmm_l", "trinv_un") else (A, B) if op != "syrk_ln" else (B, A)
    expected = DERIVED[op](*operands)
    for v in OPERATIONS[op]["variants"]:
        got = flamex.run(op, *operands, variant=v["name"], backend="blis", block=4)
        scale = max(1.0, np.abs(expected).max()) if expected.size else 1.0
        assert got.shape == expected.shape
        assert np.abs(got - expected).max(initial=0.0) <= 1e-13 * scale * max(n, 1), v["name"]
        one = flamex.run(op, *operands, variant=v["name"], backend="exact", block=4)
        two = flamex.run(op, *operands, variant=v["name"], backend="exact", block=4, threads=2)
        assert np.array_equal(bits(one), bits(two)), v["name"]


@pytest.mark.parametrize("op", DRIVEN)
def test_run_gives_the_drivers_bits_on_exact(op):
    A, B = definite(13, 1), np.asfortranarray(np.random.default_rng(2).uniform(-1, 1, (13, 3)))
    for v in OPERATIONS[op]["variants"]:
        operands = (A, B) if op == "trsm_lln" else (A,)
        before = [x.copy() for x in operands]
        generic = flamex.run(op, *operands, variant=v["name"], backend="exact", block=4)
        own = own_driver(op, v["name"], A.copy(), B.copy())
        for x, y in zip(operands, before):
            assert np.array_equal(bits(x), bits(y)), "run wrote its operand"
        if isinstance(own, tuple):
            assert np.array_equal(bits(generic[0]), bits(own[0])), v["name"]
            assert list(generic[1]) == list(own[1]), v["name"]
        else:
            assert np.array_equal(bits(generic), bits(own)), v["name"]


def test_run_reads_only_the_lower_triangle():
    L = definite(6, 3)
    noisy = L.copy()
    noisy[np.triu_indices(6, 1)] = np.nan
    for op in ("chol", "trinv", "ldlt"):
        assert np.array_equal(bits(flamex.run(op, L, backend="exact")), bits(flamex.run(op, noisy, backend="exact")))
        assert not np.triu(flamex.run(op, L), 1).any(), "zeros above the diagonal"


def test_failures_are_exceptions_naming_the_column():
    Z = np.array([[0.0, 1.0], [1.0, 0.0]], order="F")
    with pytest.raises(flamex.SingularMatrixError) as e:
        flamex.run("lu_nopiv", Z)
    assert e.value.column == 1
    with pytest.raises(flamex.NotPositiveDefiniteError) as e:
        flamex.run("chol", Z)
    assert e.value.column == 1
    with pytest.raises(flamex.ZeroPivotError):
        flamex.run("ldlt", Z)


def test_bad_arguments_are_errors():
    A = definite(3, 4)
    with pytest.raises(flamex.Error, match="unknown operation 'lu'"):
        flamex.run("lu", A)
    with pytest.raises(flamex.Error, match=r"takes 2 operands \(L, B\)"):
        flamex.run("trsm_lln", A)
    with pytest.raises(flamex.Error, match="unknown chol variant"):
        flamex.run("chol", A, variant="lu_piv_unb_var3")
    with pytest.raises(flamex.Error, match="only to blocked"):
        flamex.run("chol", A, variant="chol_unb_var1", inner="chol_unb_var2")


def test_check_finite_reads_the_structures_part_only():
    A = definite(4, 5)
    A[2, 1] = np.nan
    with pytest.raises(flamex.Error, match=r"run chol: A\[2, 1\] is nan"):
        flamex.run("chol", A)
    A[2, 1] = 0.5
    A[1, 2] = np.inf  # above the diagonal: chol never reads it
    flamex.run("chol", A)
    with pytest.raises(flamex.Error, match=r"run lu_piv: A\[1, 2\] is inf"):
        flamex.run("lu_piv", A)
    A[1, 2] = np.nan
    LU, ipiv = flamex.run("lu_piv", A, check_finite=False)
    assert np.isnan(LU).any()
