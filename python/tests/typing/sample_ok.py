"""A typed program using flamex as its documentation shows: mypy --strict must accept it
against the installed stubs (python/tests/test_docs_stubs.py). Never run, only checked."""
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import flamex
import flamex.batched
import flamex.gen
import flamex.mpfr


def factor_and_solve(n: int) -> Tuple[float, int]:
    A: npt.NDArray[np.float64] = flamex.gen.lu(n, 1e6, seed=1)
    LU, ipiv, info = flamex.lu(A, variant="lu_piv_blk_var5", backend="exact", block=32, check_finite=False)
    residual: float = flamex.mpfr.lu_residual(A, LU, ipiv.tolist())
    b = np.ones(n)
    x: npt.NDArray[np.float64] = flamex.solve(A, b, refine=2)
    x2, report = flamex.solve(A, b, report=True)
    steps: float = report["refinement_steps"]
    err: float = flamex.mpfr.solve_error(x, A, b) + steps + float(x2[0])
    return residual + err, info


def factorizations(S: npt.NDArray[np.float64]) -> List[npt.NDArray[np.float64]]:
    L = flamex.chol(S, variant="chol_blk_var2", inner="chol_unb_var1", block=16)
    LD = flamex.ldlt(S, backend=flamex.backend("exact", threads=2))
    Linv = flamex.trinv(L, overwrite_a=False)
    X = flamex.trsm_lln(L, np.eye(S.shape[0]), check_finite=True)
    t = flamex.trsv_solve(L, np.ones(S.shape[0]), uplo=flamex.LOWER, trans=flamex.Trans.TRANSPOSE)
    return [L, LD, Linv, X, t]


def a_variant_in_python(blas: flamex.Backend, A: npt.NDArray[np.float64]) -> flamex.LuInfo:
    info = flamex.LuInfo()
    ATL, ATR, ABL, ABR = flamex.part_2x2(A, 0, 0, flamex.TL)
    while ATL.length < A.shape[0]:
        (A00, a01, A02, a10t, alpha11, a12t, A20, a21, A22) = flamex.repart_2x2_to_3x3(ATL, ATR, ABL, ABR, 1, 1, flamex.BR)
        if not flamex.record_zero_pivot(blas, alpha11, ATL.length, info):
            blas.invscal(blas.element(alpha11, 0, 0), a21)
            blas.ger(-1.0, a21, a12t, A22)
        ATL, ATR, ABL, ABR = flamex.cont_with_3x3_to_2x2(A00, a01, A02, a10t, alpha11, a12t, A20, a21, A22, flamex.TL)
    return info


def introspection() -> Tuple[str, Optional[Dict[str, Any]], List[str]]:
    config = flamex.show_config(mode="dicts")
    names = [b["name"] for b in flamex.backends()] + flamex.derive_operations()
    text: str = flamex.derive("chol", variant=2, emit="cpp")
    invariants, infeasible = flamex.derive_invariants("chol")
    names += [str(inv["number"]) for inv in invariants + infeasible]
    return flamex.__version__ + text, config, names


def batched(n: int) -> Dict[str, Any]:
    A, y, kappa = flamex.batched.generate_spd(n, 64, cond_max=1e4, precision="single")
    Ai, yi = flamex.batched.interleave(A, y)
    out = flamex.batched.solve(Ai, yi, method="ldlt", layout="interleaved", count=64)
    out["kappa"] = kappa
    return out


def errors(A: npt.NDArray[np.float64]) -> int:
    try:
        flamex.chol(A)
    except flamex.NotPositiveDefiniteError as e:
        column: int = e.column
        return column
    except flamex.Error:
        return -1
    return 0
