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


def test_operations_list_every_variant_of_the_registries():
    listed = {v["name"] for op in OPERATIONS.values() for v in op["variants"]}
    registered = {v["name"] for kind in ("lu", "chol", "ldlt", "trinv", "trsm_lln") for v in flamex.variants(kind)}
    assert listed == registered


@pytest.mark.parametrize("op", sorted(OPERATIONS))
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
