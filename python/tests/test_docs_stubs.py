"""Docstrings and type stubs (issue 31, item 4).

- Every public name of flamex (flamex.__all__, and flamex.gen, .mpfr, .batched) is in the
  stubs, and every name in the stubs exists: the stubs cannot drift from the module.
- Each stub function has the bindings' parameters, in order, with their defaults, and
  returns None exactly when the binding does (pybind11's signature line says).
- Every public function, method, class and property has a docstring; a function's is
  numpy-style: a "Parameters" section naming each of its parameters (the stub's) when it
  has some, and a "Returns" section when it returns something.
- mypy (Debian's) accepts a typed sample program against the stubs the build installs, and
  reports exactly the marked lines of a program of wrong calls; the sample also runs.
"""
import ast
import inspect
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import flamex

PACKAGE = os.path.dirname(flamex.__file__)
HERE = os.path.dirname(os.path.abspath(__file__))
TYPING = os.path.join(HERE, "typing")
MODULES = {"flamex": flamex, "gen": flamex.gen, "mpfr": flamex.mpfr, "batched": flamex.batched}


def stub_tree(module):
    name = "__init__" if module == "flamex" else module
    with open(os.path.join(PACKAGE, name + ".pyi")) as f:
        return ast.parse(f.read())


def is_public(name):
    return not name.startswith("_")


def signature(fn):
    """(parameter names as a docstring names them, returns something) of a stub function."""
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args if p.arg != "self"]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    returns = not (isinstance(fn.returns, ast.Constant) and fn.returns.value is None)
    return names, returns


def stub_names(tree):
    """Public top-level names the stub defines: functions, classes, annotated and enum-like
    variables, re-exported imports (``import x as x``)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            names.update(a.asname for a in node.names if a.asname == a.name)
    return {n for n in names if is_public(n)}


def functions(tree):
    """(qualified name, stub FunctionDef) of every public function and method, properties
    apart; overloads give one entry (their parameters are the same here)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and is_public(node.name):
            out.setdefault(node.name, node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and is_public(item.name) and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    out.setdefault(node.name + "." + item.name, item)
    return out


def runtime(module, qualified):
    obj = MODULES[module]
    for part in qualified.split("."):
        obj = getattr(obj, part)
    return obj


def runtime_names(module):
    if module == "flamex":
        return set(flamex.__all__) | {"gen", "mpfr", "batched"}
    return {n for n in dir(MODULES[module]) if is_public(n)}


@pytest.mark.parametrize("module", MODULES)
def test_the_stubs_name_exactly_the_public_api(module):
    assert stub_names(stub_tree(module)) == runtime_names(module)


@pytest.mark.parametrize("module", MODULES)
def test_every_public_class_and_property_has_a_docstring(module):
    tree = stub_tree(module)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and is_public(node.name):
            cls = runtime(module, node.name)
            assert cls.__doc__ and len(cls.__doc__.strip()) > 20, node.name
            if hasattr(cls, "__members__"):
                continue  # a pybind11 enum: name, value, __int__ are pybind11's, undocumented
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and is_public(item.name):
                    assert (getattr(cls, item.name).__doc__ or "").strip(), f"{node.name}.{item.name}"


def sections(doc):
    """numpy-style sections: {title: body}."""
    parts = re.split(r"\n(\w+)\n-{3,}\n", doc)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


CASES = [(m, q) for m in MODULES for q in functions(stub_tree(m))]


@pytest.mark.parametrize("module,qualified", CASES, ids=[f"{m}.{q}" for m, q in CASES])
def test_numpy_style_docstring(module, qualified):
    fn = functions(stub_tree(module))[qualified]
    names, returns = signature(fn)
    doc = inspect.cleandoc(runtime(module, qualified).__doc__ or "")
    s = sections(doc)
    summary = doc.split("\n\n")[1] if doc.startswith(qualified.split(".")[-1] + "(") else doc  # after pybind11's signature
    assert summary.strip() and not summary.startswith("Parameters"), f"{qualified}: no summary"
    if names:
        assert "Parameters" in s, f"{qualified}: no Parameters section"
        documented = re.findall(r"^(\*?\w+(?:, \w+)*) :", s["Parameters"], re.M)
        documented = [n for entry in documented for n in entry.split(", ")]
        assert documented == names, f"{qualified}: Parameters {documented}, signature {names}"
    else:
        assert "Parameters" not in s, f"{qualified}: Parameters without parameters"
    if returns:
        assert s.get("Returns", "").strip(), f"{qualified}: no Returns section"


def split_top_level(text):
    """Split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([{<"
        depth -= c in ")]}>"
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def normalized(default):
    """A default as comparable text: enum members as Class.MEMBER, literals by value."""
    m = re.fullmatch(r"<(\w+)\.(\w+): -?\d+>", default)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    try:
        return repr(ast.literal_eval(default))
    except (ValueError, SyntaxError):
        return default


def runtime_signature(obj):
    """[(name, default or None)] and whether it returns None, from pybind11's signature line
    (the docstring's first line) or, for a Python function, inspect."""
    if inspect.isfunction(obj):
        sig = inspect.signature(obj)
        params = [(n, None if p.default is p.empty else normalized(repr(p.default))) for n, p in sig.parameters.items()]
        return params, None
    m = re.match(r"\w+\((.*)\) -> (.+)$", obj.__doc__.splitlines()[0])
    assert m, obj.__doc__.splitlines()[0]
    params = []
    for part in split_top_level(m.group(1)):
        if part.startswith("*"):
            params.append(("*", None))
            continue
        name, _, rest = part.partition(":")
        default = rest.partition(" = ")[2] if " = " in rest else None
        if name != "self":
            params.append((name, None if default is None else normalized(default)))
    return params, m.group(2) == "None"


def stub_signature(fn):
    a = fn.args
    positional = [p for p in a.posonlyargs + a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + [normalized(ast.unparse(d)) for d in a.defaults]
    params = [(p.arg, d) for p, d in zip(positional, defaults) if p.arg != "self"]
    if a.vararg:
        params.append(("*", None))
    params += [(p.arg, None if d is None else normalized(ast.unparse(d))) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    returns_none = isinstance(fn.returns, ast.Constant) and fn.returns.value is None
    return params, returns_none


@pytest.mark.parametrize("module,qualified", CASES, ids=[f"{m}.{q}" for m, q in CASES])
def test_stub_signatures_are_the_bindings(module, qualified):
    """Names, order and defaults of the parameters, and whether something is returned: a
    keyword renamed or a default changed in the bindings fails here until the stub follows."""
    stub_params, stub_none = stub_signature(functions(stub_tree(module))[qualified])
    params, returns_none = runtime_signature(runtime(module, qualified))
    assert stub_params == params
    if returns_none is not None:
        assert stub_none == returns_none


def test_help_shows_the_sections():
    import pydoc
    text = pydoc.render_doc(flamex.solve, renderer=pydoc.plaintext)
    for word in ("Parameters", "check_finite : bool", "Returns", "Raises", "SingularMatrixError"):
        assert word in text


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    """One cache for this file's mypy runs: numpy's stubs are read once, not three times."""
    return str(tmp_path_factory.mktemp("mypy-cache"))


def mypy(program, cache, package=PACKAGE, verbose=False):
    exe = shutil.which("mypy")
    if not exe:
        pytest.fail("mypy not found: tools/setup.sh installs Debian's mypy")
    env = dict(os.environ, MYPYPATH=os.path.dirname(package))
    return subprocess.run([exe, "--strict", "--cache-dir", cache, "--no-error-summary", "--hide-error-context"]
                          + (["--verbose"] if verbose else []) + [program],
                          capture_output=True, text=True, env=env, cwd=TYPING)


def test_mypy_accepts_the_typed_sample(mypy_cache):
    r = mypy("sample_ok.py", mypy_cache)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_rejects_each_wrong_call(mypy_cache):
    r = mypy("sample_bad.py", mypy_cache)
    with open(os.path.join(TYPING, "sample_bad.py")) as f:
        marked = {i + 1 for i, line in enumerate(f) if line.rstrip().endswith("# error")}
    reported = {int(m) for m in re.findall(r"^sample_bad\.py:(\d+): error:", r.stdout, re.M)}
    assert r.returncode == 1 and reported == marked, r.stdout + r.stderr


def test_the_typed_sample_runs():
    sys.path.insert(0, TYPING)
    try:
        import sample_ok
    finally:
        sys.path.remove(TYPING)
    residual, info = sample_ok.factor_and_solve(12)
    assert info == 0 and np.isfinite(residual)
    S = flamex.gen.spd(20, 100.0, seed=2)
    assert len(sample_ok.factorizations(S)) == 5
    A = flamex.gen.diagonally_dominant(6, seed=1)
    LU = A.copy(order="F")
    assert sample_ok.a_variant_in_python(flamex.backend("exact"), LU).ok()
    np.testing.assert_array_equal(LU, flamex.lu(A, variant="lu_nopiv_unb_var5", backend="exact")[0])
    version, config, names = sample_ok.introspection()
    assert version.startswith(flamex.__version__) and config is not None and "chol" in names
    assert sample_ok.batched(4)["x"].shape == (64, 4)
    assert sample_ok.errors(-np.eye(3, order="F")) == 1


def test_stubs_are_installed_with_the_module(tmp, mypy_cache):
    """`cmake --install --component python` puts the stubs and py.typed beside the module,
    and mypy finds them there."""
    build = os.environ.get("FLAMEX_BUILD_DIR")
    if not build:
        pytest.skip("FLAMEX_BUILD_DIR not set (ctest sets it)")
    subprocess.run([shutil.which("cmake") or "cmake", "--install", build, "--component", "python", "--prefix", str(tmp)],
                   check=True, capture_output=True)
    packages = [os.path.dirname(os.path.join(root, "__init__.py")) for root, _, files in os.walk(tmp)
                if "__init__.py" in files and os.path.basename(root) == "flamex"]
    assert len(packages) == 1, packages
    installed = sorted(os.listdir(packages[0]))
    for name in ("__init__.pyi", "gen.pyi", "mpfr.pyi", "batched.pyi", "py.typed"):
        assert name in installed, installed
    r = mypy("sample_ok.py", mypy_cache, package=packages[0], verbose=True)
    assert r.returncode == 0, r.stdout
    assert os.path.join(packages[0], "__init__.pyi") in r.stderr  # the installed stubs, not the build tree's
