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


@pytest.mark.parametrize("isa", ["generic", "avx2"])
def test_kernel_isa_is_the_one_the_exact_kernels_use(isa):
    # FLAMEX_EXACT_ISA moves a set to the front when this CPU can run it; the config reports
    # the set the kernels dispatch to, not the variable.
    out = run_config({"FLAMEX_EXACT_ISA": isa}, "c = flamex.show_config('dicts'); print(c['exact']['kernel_isa'], "
                     "c['exact']['FLAMEX_EXACT_ISA'])")
    chosen, forced = out.split()
    assert forced == isa
    if isa == "generic":
        assert chosen == "generic"


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
