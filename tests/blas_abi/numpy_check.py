"""Debian's numpy and scipy on flamex's libblas.so.3 (run with LD_LIBRARY_PATH at
its directory): numpy loads it, a cancelling np.dot, A @ B and A @ A.T are
correctly rounded, and scipy.linalg.lu_factor gives the same bits with FLAMEX_THREADS 1
and 2. Usage: numpy_check.py LIBDIR"""
import hashlib
import os
import subprocess
import sys
from fractions import Fraction

LIBDIR = os.path.realpath(sys.argv[1])

LU_SCRIPT = r"""
import hashlib, sys
import numpy as np, scipy.linalg
rng = np.random.default_rng(28)
n = 260
# wide exponents: the rounding of every update matters
A = rng.standard_normal((n, n)) * np.exp2(rng.integers(-20, 21, (n, n)))
lu, piv = scipy.linalg.lu_factor(A)
print(hashlib.sha256(lu.tobytes() + piv.tobytes()).hexdigest())
"""


def loaded_blas():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1] for line in maps if "libblas.so" in line}


def exact_dot(xs, ys):
    return float(sum((Fraction(x) * Fraction(y) for x, y in zip(xs, ys)), Fraction(0)))


def main():
    import numpy as np

    failures = []
    np.ones((2, 2)) @ np.ones((2, 2))  # numpy's BLAS is loaded with its module
    libs = loaded_blas()
    if not any(os.path.realpath(p).startswith(LIBDIR) for p in libs):
        failures.append(f"numpy did not load {LIBDIR}/libblas.so.3 (loaded: {libs})")

    if np.dot([1e16, 1, -1e16, 0], [1, 1, 1, 1]) != 1.0:
        failures.append("np.dot([1e16, 1, -1e16, 0], [1, 1, 1, 1]) != 1.0")

    rng = np.random.default_rng(1)
    A = rng.standard_normal((40, 30)) * np.exp2(rng.integers(-30, 31, (40, 30)))
    B = rng.standard_normal((30, 20)) * np.exp2(rng.integers(-30, 31, (30, 20)))
    C = A @ B
    wrong = sum(C[i, j] != exact_dot(A[i, :], B[:, j]) for i in range(40) for j in range(20))
    if wrong:
        failures.append(f"A @ B: {wrong} of 800 elements not correctly rounded")
    G = A[:20] @ A[:20].T  # numpy's syrk path (cblas_dsyrk), both triangles filled from one
    wrong = sum(G[i, j] != exact_dot(A[i], A[j]) for i in range(20) for j in range(20))
    if wrong:
        failures.append(f"A @ A.T: {wrong} of 400 elements not correctly rounded")
    v = A[:, 0]
    if A.T @ v is None or (A.T @ v)[3] != exact_dot(A[:, 3], v):
        failures.append("A.T @ v (gemv) not correctly rounded")

    digests = []
    for threads in ("1", "2"):
        env = dict(os.environ, FLAMEX_THREADS=threads)
        out = subprocess.run([sys.executable, "-c", LU_SCRIPT], env=env, check=True, capture_output=True, text=True)
        digests.append(out.stdout.strip())
    if digests[0] != digests[1]:
        failures.append(f"lu_factor bits differ between FLAMEX_THREADS 1 and 2: {digests}")

    for f in failures:
        print("FAILED:", f)
    if not failures:
        print("numpy_check: all checks hold; lu_factor digest", digests[0][:16])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
