"""The heavy calls release the GIL: while one thread is inside a long exact
factorization, solve, BLAS call or batched solve, another Python thread keeps
running. Were the GIL held, the counting thread could not execute a single bytecode
between the call's start and its end; the test asks for many counts in the middle
half of the call, which such a binding cannot give (checked by removing a release)."""
import threading
import time

import numpy as np
import pytest

import flamex

MIN_SECONDS = 0.15  # a call long enough that its middle half is many switch intervals


def spd(n):
    """Symmetric and diagonally dominant, so positive definite; cheap to make."""
    M = flamex.gen.uniform_matrix(n, n, seed=n)
    return np.asfortranarray(M + M.T + 2 * n * np.eye(n))


# Each: a call whose cost grows with `size`, and the sizes to try until one takes
# MIN_SECONDS (machines differ; the first long enough is used).
CALLS = {
    "chol exact": (lambda A: flamex.chol(A, backend="exact"), spd, [200, 300, 450, 700]),
    "lu exact": (lambda A: flamex.lu(A, backend="exact", variant="lu_piv_unb_var3"), spd, [500, 700, 1000]),
    "solve exact": (lambda A: flamex.solve(A, np.ones((A.shape[0], 4)), backend="exact"), spd, [500, 700, 1000]),
    "gemm exact": (lambda A: flamex.backend("exact").gemm(flamex.NO_TRANSPOSE, flamex.NO_TRANSPOSE, 1.0, A, A, 0.0,
                                                          np.zeros(A.shape, order="F")), spd, [500, 700, 1000]),
    "batched dc": (lambda p: flamex.batched.solve(p[0], p[1], method="dc"),
                   lambda k: flamex.batched.generate_spd(16, k, cond_max=1e3, seed=1)[:2], [4000, 10000, 25000]),
}


def counts_during(call, argument):
    """Runs call(argument) in a thread while this one counts; returns (counts in the
    middle half of the call, the call's duration)."""
    span = {}

    def work():
        span["start"] = time.perf_counter()
        call(argument)
        span["end"] = time.perf_counter()

    stamps = []
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    start, end = span["start"], span["end"]
    quarter = (end - start) / 4
    stamps = np.array(stamps)
    return int(np.count_nonzero((stamps > start + quarter) & (stamps < end - quarter))), end - start


@pytest.mark.parametrize("name", list(CALLS))
def test_the_call_releases_the_gil(name):
    call, make, sizes = CALLS[name]
    for size in sizes:
        argument = make(size)
        start = time.perf_counter()
        call(argument)
        if time.perf_counter() - start >= MIN_SECONDS:
            break
    counted, seconds = counts_during(call, argument)
    # A held GIL gives 0; a released one gives thousands (a loop of perf_counter
    # calls), so 50 leaves room for a loaded machine.
    assert counted >= 50, f"{name}: {counted} counts during a {seconds:.3f} s call"
