#!/usr/bin/python3
"""What flamex's libblas.so.3 gives numpy and scipy (docs/blas-abi.md, issue 28 item 4).

One numpy/scipy computation, run unchanged under each libblas.so.3 picked by
LD_LIBRARY_PATH (never by switching the system's alternatives): BLIS with 1 and
2 threads, Debian's reference BLAS, OpenBLAS and flamex's library (1 and 2
threads). On the paper's ill-conditioned problems (flamex.gen, the seeded
generators of reference/):
  np.dot        x^T y with cond_dot ~ 1e24 (n = 1000)
  A @ B         A 64 x 256 with every row ill-conditioned (cond ~ 1e16) against
                B, the generator's x in 4 columns scaled by powers of two
  lu_factor     scipy.linalg.lu_factor of A with kappa ~ 1e12 (n = 200)
  solve         np.linalg.solve(A, b)
Reports, per library: the forward errors against MPFR (flamex.mpfr), how many
elements of A @ B are not correctly rounded, how many entries of lu_factor's
result differ from flamex's (1 thread), and whether 1 and 2 threads agree.

Usage: blas_abi_libraries.py BUILD_DIR [--markdown]
  BUILD_DIR: flamex's build folder (python/ holds the module, lib/flamex/ the
  library). Runs in a few seconds.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ARCH = "/usr/lib/x86_64-linux-gnu"


def libraries(build):
    flamex_dir = os.path.join(build, "lib", "flamex")
    libs = [
        ("BLIS, 1 thread", f"{ARCH}/blis-openmp", {"OMP_NUM_THREADS": "1", "BLIS_NUM_THREADS": "1"}),
        ("BLIS, 2 threads", f"{ARCH}/blis-openmp", {"OMP_NUM_THREADS": "2", "BLIS_NUM_THREADS": "2"}),
        ("reference BLAS", f"{ARCH}/blas", {}),
        ("OpenBLAS, 1 thread", f"{ARCH}/openblas-pthread", {"OPENBLAS_NUM_THREADS": "1"}),
        ("OpenBLAS, 2 threads", f"{ARCH}/openblas-pthread", {"OPENBLAS_NUM_THREADS": "2"}),
        ("flamex, 1 thread", flamex_dir, {"FLAMEX_THREADS": "1"}),
        ("flamex, 2 threads", flamex_dir, {"FLAMEX_THREADS": "2"}),
    ]
    return [lib for lib in libs if os.path.exists(os.path.join(lib[1], "libblas.so.3"))]


def run(data_path, out_path):
    """The computation, under whichever libblas.so.3 this process loaded."""
    import scipy.linalg

    d = np.load(data_path)
    lu, piv = scipy.linalg.lu_factor(d["A_lu"])
    out = {
        "dot": np.dot(d["x"], d["y"]),
        "AB": d["A"] @ d["B"],
        "lu": lu,
        "piv": piv,
        "solve": np.linalg.solve(d["A_lu"], d["b"]),
    }
    with open("/proc/self/maps") as maps:
        blas = sorted({line.split()[-1] for line in maps if "libblas.so" in line or "libopenblas" in line})
    np.savez(out_path, blas=np.array(json.dumps(blas)), **out)


def forward_error(x, ref):
    x, ref = np.asarray(x, float), np.asarray(ref, float)
    return float(np.max(np.abs(x - ref)) / np.max(np.abs(ref)))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--run":
        run(sys.argv[2], sys.argv[3])
        return 0
    build = os.path.abspath(sys.argv[1])
    markdown = "--markdown" in sys.argv
    sys.path.insert(0, os.path.join(build, "python"))
    import flamex

    gen, mp = flamex.gen, flamex.mpfr
    x, y = gen.dot(1000, 1e24, seed=28)
    A, v = gen.gemv(64, 256, 1e16, seed=28, all_rows=True)
    B = np.column_stack([v, 2 * v, 0.5 * v, -4 * v])
    A_lu = gen.lu(200, 1e12, seed=28)
    x_true = np.ones(200)
    b = mp.gemv(A_lu, x_true)
    ref = {
        "dot": mp.dot(x, y),
        "AB": np.column_stack([mp.gemv(A, B[:, j]) for j in range(B.shape[1])]),
        "solve": mp.solve(A_lu, b),
    }
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.npz")
        np.savez(data, x=x, y=y, A=A, B=B, A_lu=A_lu, b=b)
        for label, folder, env_extra in libraries(build):
            out = os.path.join(tmp, hashlib.sha1(label.encode()).hexdigest() + ".npz")
            env = dict(os.environ, LD_LIBRARY_PATH=folder, **env_extra)
            env.pop("PYTHONPATH", None)
            subprocess.run([sys.executable, __file__, "--run", data, out], env=env, check=True)
            r = np.load(out)
            results[label] = {k: r[k] for k in r.files}
    base = results.get("flamex, 1 thread")
    rows = []
    for label, r in results.items():
        loaded = json.loads(str(r["blas"]))
        ab_wrong = int(np.sum(r["AB"] != ref["AB"]))
        lu_diff = int(np.sum(r["lu"] != base["lu"]) + np.sum(r["piv"] != base["piv"])) if base is not None else -1
        rows.append((label, forward_error(r["dot"], ref["dot"]), ab_wrong, r["AB"].size, forward_error(r["AB"], ref["AB"]),
                     lu_diff, forward_error(r["solve"], ref["solve"]), ", ".join(os.path.dirname(p) for p in loaded)))

    def same(a, b):
        ra, rb = results.get(a), results.get(b)
        if ra is None or rb is None:
            return "n/a"
        keys = ["dot", "AB", "lu", "piv", "solve"]
        return "identical" if all(np.array_equal(ra[k], rb[k]) for k in keys) else "differ"

    if markdown:
        print("| library | np.dot forward error | A @ B not correctly rounded | A @ B max error | lu_factor entries differing from flamex | solve forward error | libblas loaded from |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for lab, fdot, wrong, size, fab, lud, fsol, where in rows:
            print(f"| {lab} | {fdot:.3g} | {wrong} of {size} | {fab:.3g} | {lud} | {fsol:.3g} | {where} |")
        print()
        for a, b2 in [("BLIS, 1 thread", "BLIS, 2 threads"), ("OpenBLAS, 1 thread", "OpenBLAS, 2 threads"),
                      ("flamex, 1 thread", "flamex, 2 threads")]:
            print(f"- {a} vs {b2.split(', ')[1]}: {same(a, b2)}")
    else:
        for row in rows:
            print(row)
        print("threads:", same("BLIS, 1 thread", "BLIS, 2 threads"), same("flamex, 1 thread", "flamex, 2 threads"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
