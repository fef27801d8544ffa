"""A PEP 517 build backend for `pip install .` that needs nothing from PyPI.

scikit-build-core and friends would have to be downloaded; this builds the wheel with
the project's own CMake (target flamex_python, as a plain build does) and zips the
package directory it produces (<build>/python/flamex) with the metadata pip needs.

Build directory: $FLAMEX_PIP_BUILD_DIR when set (an existing configured build tree is
only built, never reconfigured), else build-pip/ in the source tree, configured for
the interpreter running pip without tests or benchmarks. numpy is a requirement that
pip does not download here: use a virtual environment created with
--system-site-packages so that Debian's python3-numpy satisfies it.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "flamex"


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(flamex VERSION ([0-9.]+)", f.read()).group(1)


def _tag():
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{interpreter}-{platform}"


def _build():
    build = os.environ.get("FLAMEX_PIP_BUILD_DIR") or os.path.join(ROOT, "build-pip")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DFLAMEX_BUILD_TESTS=OFF",
                        "-DFLAMEX_BUILD_BENCHMARKS=OFF", f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    subprocess.run(["cmake", "--build", build, "--target", "flamex_python", "-j", jobs], check=True)
    return os.path.join(build, "python", NAME)


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            "Summary: FLAME-style dense linear algebra with exact and reproducible backends\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = f"{NAME}-{_version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build()
    version, tag = _version(), _tag()
    info = f"{NAME}-{version}.dist-info"
    wheel = f"{NAME}-{version}-{tag}.whl"
    files = {}
    for entry in sorted(os.listdir(package)):
        if entry.endswith((".py", ".so", ".pyi")) or entry == "py.typed":  # the stubs too (PEP 561)
            with open(os.path.join(package, entry), "rb") as f:
                files[f"{NAME}/{entry}"] = f.read()
    # The PME descriptions `flamex.derive` reads: the installed module must not need the
    # source tree it was built from (flamex/__init__.py points FLAMEX_PME_DIR at them).
    pme = os.path.join(ROOT, "derive", "pme")
    for entry in sorted(os.listdir(pme)):
        if entry.endswith(".pme"):
            with open(os.path.join(pme, entry), "rb") as f:
                files[f"{NAME}/pme/{entry}"] = f.read()
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: flamex_build\nRoot-Is-Purelib: false\nTag: {tag}\n").encode()
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel
