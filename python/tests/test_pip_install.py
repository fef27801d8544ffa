"""`pip install .` works in a virtual environment (offline: the in-tree build backend
needs nothing from PyPI; Debian's numpy comes through --system-site-packages). The
wheel is built from the ctest build tree (FLAMEX_PIP_BUILD_DIR), which is already
built, so this checks the packaging, not a second compilation."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_pip_install_into_a_venv(tmp):
    build = os.environ.get("FLAMEX_BUILD_DIR")
    if not build:
        pytest.skip("FLAMEX_BUILD_DIR not set (ctest sets it)")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    # nothing from the build or source tree: the installed module derives from its own PME files
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FLAMEX_PME_DIR")}
    env["FLAMEX_PIP_BUILD_DIR"] = build
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--no-index", "--quiet", ROOT], check=True, env=env,
                   capture_output=True, timeout=600)
    out = subprocess.run([python, "-c", "import flamex, numpy; print(flamex.__file__); "
                          "print(flamex.lu(numpy.eye(2), backend='exact')[1]); "
                          "print(flamex.chol(4 * numpy.eye(2))[1, 1], 'chol_unb_var3' in flamex.derive('chol')); "
                          "import os; print('pme:', os.environ['FLAMEX_PME_DIR'])"],
                         check=True, env=env, capture_output=True, text=True, cwd=str(tmp))
    assert str(venv) in out.stdout and "[1 2]" in out.stdout and "2.0 True" in out.stdout
    pme = out.stdout.split("pme: ")[1].strip()
    assert pme.startswith(str(venv)) and os.path.isfile(os.path.join(pme, "chol.pme")), out.stdout
    # the type stubs and the PEP 561 marker travel with the module
    package = os.path.dirname(out.stdout.splitlines()[0])
    for stub in ("__init__.pyi", "gen.pyi", "mpfr.pyi", "batched.pyi", "py.typed"):
        assert os.path.isfile(os.path.join(package, stub)), stub
