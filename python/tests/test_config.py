"""flamex.__version__ and flamex.show_config(): the version is the CLI's (one source, CMake's
project(VERSION)); the configuration names what this build and CPU chose."""
import os
import re
import subprocess
import sys

import pytest

import flamex


def test_version_is_the_cli_version():
    cli = os.environ.get("FLAMEX_CLI")
    if not cli:
        pytest.skip("FLAMEX_CLI not set (ctest sets it)")
    out = subprocess.run([cli, "--version"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == f"flamex {flamex.__version__}"
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", flamex.__version__)
    assert flamex.show_config(mode="dicts")["version"] == flamex.__version__


def test_config_dict():
    c = flamex.show_config(mode="dicts")
    assert [b["name"] for b in c["backends"]] == [b["name"] for b in flamex.backends()]
    assert c["default_backend"] in [b["name"] for b in c["backends"]]
    assert c["exact"]["kernel_isa"] in ("avx512ifma", "avx512", "avx2", "generic")
    assert re.match(r"[0-9]+\.[0-9]+", c["blis"]["version"]) and c["blis"]["arch"]
    try:
        devices = flamex.devices()
    except flamex.OpenCLError as e:
        assert c["opencl"]["devices"] == [] and c["opencl"]["error"] == str(e)
    else:
        assert [d["description"] for d in c["opencl"]["devices"]] == [d["description"] for d in devices]
        assert c["opencl"]["error"] == ""


def run_config(env_extra, code):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", "import flamex; " + code], check=True, capture_output=True, text=True,
                          env=env).stdout


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), None)
    except OSError:
        return None


# What each kernel set needs of the CPU (exact/kernels.hpp), best first.
NEEDS = {"avx512ifma": {"avx512f", "avx512dq", "avx512ifma"}, "avx512": {"avx512f"}, "avx2": {"avx2", "fma"},
         "generic": set()}


@pytest.mark.parametrize("isa", [None] + list(NEEDS))
def test_kernel_isa_is_the_set_the_exact_kernels_use(isa):
    # FLAMEX_EXACT_ISA moves a set to the front when this CPU can run it; the configuration
    # reports the set the kernels dispatch to (the best one otherwise), not the variable.
    out = run_config({"FLAMEX_EXACT_ISA": isa} if isa else {},
                     "c = flamex.show_config('dicts'); print(c['exact']['kernel_isa'], c['exact']['FLAMEX_EXACT_ISA'])")
    chosen, forced = out.split()
    assert forced == (isa or "None")
    flags = cpu_flags()
    if isa == "generic":
        assert chosen == "generic"
    elif flags is not None and "FLAMEX_EXACT_ISA" not in os.environ:
        best = next(name for name, needs in NEEDS.items() if needs <= flags)
        assert chosen == (isa if isa and NEEDS[isa] <= flags else best)


def test_show_config_prints(capsys):
    assert flamex.show_config() is None
    out = capsys.readouterr().out
    c = flamex.show_config(mode="dicts")
    assert out.startswith(f"flamex {flamex.__version__}\n")
    for b in c["backends"]:
        assert f"  {b['name']}" in out
    assert f"exact kernels: {c['exact']['kernel_isa']}" in out
    assert f"BLIS: {c['blis']['version']}, architecture {c['blis']['arch']}" in out
    with pytest.raises(ValueError, match="mode"):
        flamex.show_config(mode="json")


def test_submodules_importable_by_name():
    import flamex.batched
    import flamex.gen
    import flamex.mpfr
    assert flamex.gen is sys.modules["flamex.gen"] and callable(flamex.mpfr.dot) and callable(flamex.batched.solve)
