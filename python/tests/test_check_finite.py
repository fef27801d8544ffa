"""check_finite=True (the default) on lu, solve, chol, ldlt, trinv and trsm_lln, as
scipy.linalg does: a NaN or an infinity anywhere in an input is a ValueError (flamex.Error)
naming the argument and its first such entry in column-major order, raised before anything
is computed or written; check_finite=False hands the data to the library as it is."""
import re

import numpy as np
import pytest

import flamex

N = 5


def spd():
    return np.asfortranarray(flamex.gen.spd(N, 10.0, seed=3))


def lower():
    return np.asfortranarray(flamex.gen.well_conditioned_lower(N, seed=5))


def rhs(k=2):
    return np.asfortranarray(np.arange(1.0, N * k + 1).reshape(N, k, order="F"))


# name -> (the call, given its matrix inputs by name, and those inputs' clean values)
CASES = {
    "lu": (lambda a: flamex.lu(a["A"], backend="exact", **a["kw"]), {"A": spd}),
    "solve": (lambda a: flamex.solve(a["A"], a["b"], backend="exact", **a["kw"]), {"A": spd, "b": rhs}),
    "chol": (lambda a: flamex.chol(a["A"], backend="exact", **a["kw"]), {"A": spd}),
    "ldlt": (lambda a: flamex.ldlt(a["A"], variant="ldlt_blas_unb_var3", backend="exact", **a["kw"]), {"A": spd}),
    "trinv": (lambda a: flamex.trinv(a["A"], backend="exact", **a["kw"]), {"A": lower}),
    "trsm_lln": (lambda a: flamex.trsm_lln(a["L"], a["B"], backend="exact", **a["kw"]), {"L": lower, "B": rhs}),
}
ARGS = [(op, arg) for op, (_, inputs) in CASES.items() for arg in inputs]
SPECIALS = [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")]


def inputs(op):
    return {name: make() for name, make in CASES[op][1].items()}


def message(op, arg, index, word):
    return re.escape(f"{op}: {arg}[{index}] is {word}: the input must not contain infinities or NaNs "
                     "(check_finite=False skips this check)")


@pytest.mark.parametrize("op,arg", ARGS)
@pytest.mark.parametrize("value,word", SPECIALS)
def test_a_special_is_a_value_error_naming_the_argument_and_entry(op, arg, value, word):
    call, _ = CASES[op]
    a = inputs(op)
    a[arg][3, 1] = value
    a[arg][1, 1 if a[arg].shape[1] > 1 else 0] = 7.0                # finite: not reported
    with pytest.raises(flamex.Error, match=message(op, arg, "3, 1", word)) as e:
        call(dict(a, kw={}))
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("op,arg", ARGS)
def test_the_first_entry_in_column_major_order_is_named(op, arg):
    call, _ = CASES[op]
    a = inputs(op)
    a[arg][0, 1] = np.inf                                           # later in column-major order
    a[arg][4, 0] = np.nan
    with pytest.raises(ValueError, match=message(op, arg, "4, 0", "nan")):
        call(dict(a, kw={}))


@pytest.mark.parametrize("op", ["lu", "chol", "ldlt", "trinv", "trsm_lln"])
def test_nothing_is_written_on_the_error_in_place(op):
    a = inputs(op)
    target = "B" if op == "trsm_lln" else "A"
    a[target][2, 0] = np.nan
    before = {k: v.copy(order="F") for k, v in a.items()}
    kw = {"overwrite_b" if op == "trsm_lln" else "overwrite_a": True}
    with pytest.raises(ValueError, match=rf"{op}: {target}\[2, 0\] is nan"):
        CASES[op][0](dict(a, kw=kw))
    for k in a:
        np.testing.assert_array_equal(a[k], before[k])


def test_vectors_and_views_are_indexed_as_given():
    A, b = spd(), rhs(1).reshape(-1)
    b[3] = np.inf
    with pytest.raises(ValueError, match=re.escape("solve: b[3] is inf")):
        flamex.solve(A, b)
    with pytest.raises(ValueError, match=re.escape("trsm_lln: B[3] is inf")):
        flamex.trsm_lln(lower(), b)
    big = np.zeros((N + 3, N + 3), order="F")
    big[2:2 + N, 1:1 + N] = spd()
    big[0, 0] = np.nan                                               # outside the view: not checked
    big[2 + 4, 1 + 2] = -np.inf
    ATL, ATR, ABL, ABR = flamex.part_2x2(big, 2, 1, flamex.TL)
    window = flamex.part_2x2(ABR, N, N, flamex.TL)[0]
    with pytest.raises(ValueError, match=re.escape("lu: A[4, 2] is -inf")):
        flamex.lu(window, backend="exact")
    with pytest.raises(ValueError, match=re.escape("chol: A[4, 2] is -inf")):
        flamex.chol(window, overwrite_a=True)


def test_check_finite_false_hands_the_data_to_the_library():
    A = spd()
    A[0, 0] = np.nan
    LU, ipiv, info = flamex.lu(A, backend="exact", check_finite=False)
    assert np.isnan(LU).any()
    with pytest.raises(flamex.NotPositiveDefiniteError) as e:        # the library's own verdict
        flamex.chol(A, backend="exact", check_finite=False)
    assert e.value.column == 1
    with pytest.raises(flamex.ZeroPivotError) as e:
        flamex.ldlt(A, variant="ldlt_blas_unb_var3", backend="exact", check_finite=False)
    assert e.value.column == 1
    L = lower()
    L[3, 1] = np.inf
    assert not np.isfinite(flamex.trinv(L, backend="exact", check_finite=False)).all()
    b = rhs()
    b[2, 1] = np.nan
    x = flamex.solve(spd(), b, backend="exact", check_finite=False)
    assert np.isnan(x[:, 1]).any() and np.isfinite(x[:, 0]).all()   # each column solved alone
    X = flamex.trsm_lln(lower(), b, backend="exact", check_finite=False)
    assert np.isnan(X[2:, 1]).all() and np.isfinite(X[:, 0]).all() and np.isfinite(X[:2, 1]).all()


@pytest.mark.parametrize("op", list(CASES))
def test_finite_inputs_pass_and_the_check_changes_no_bit(op):
    call, _ = CASES[op]
    checked = call(dict(inputs(op), kw={}))
    unchecked = call(dict(inputs(op), kw={"check_finite": False}))
    for c, u in zip(checked if isinstance(checked, tuple) else (checked,),
                    unchecked if isinstance(unchecked, tuple) else (unchecked,)):
        np.testing.assert_array_equal(np.asarray(c).view(np.uint64) if np.asarray(c).dtype == np.float64 else c,
                                      np.asarray(u).view(np.uint64) if np.asarray(u).dtype == np.float64 else u)
