#!/usr/bin/env bash
# Installs the Debian packages flamex needs, when missing. Works as root (no sudo
# needed) or as a user with sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libflame-dev libblis-dev libmpfr-dev
  googletest libgtest-dev libbenchmark-dev
  ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd clinfo
  python3-matplotlib
  pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest
  python3-nbclient python3-nbformat python3-ipykernel python3-venv python3-pip
  mypy
  clang libclang-rt-14-dev
  oclgrind
  texlive-latex-base
  chromium python3-pil
  libblas3 liblapack3 gfortran libopenblas0-pthread
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then as_root=(); else as_root=(sudo); fi
# libopenblas0-pthread (docs/blas-abi.md's experiment compares it, by LD_LIBRARY_PATH)
# takes the system's libblas.so.3 and liblapack.so.3 alternatives when installed;
# the tests assume numpy on BLIS and reference LAPACK: the choices are put back as
# they were, or on BLIS and reference LAPACK where there were none.
alternative() { update-alternatives --query "$1" 2>/dev/null | awk '/^Value:/ {print $2}'; }
blas_alt=libblas.so.3-x86_64-linux-gnu lapack_alt=liblapack.so.3-x86_64-linux-gnu
blas_was=$(alternative $blas_alt || true) lapack_was=$(alternative $lapack_alt || true)
echo "setup: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
blas_to=${blas_was:-/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3}
lapack_to=${lapack_was:-/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3}
[ -e "$blas_to" ] && "${as_root[@]}" update-alternatives --set $blas_alt "$blas_to" >/dev/null
[ -e "$lapack_to" ] && "${as_root[@]}" update-alternatives --set $lapack_alt "$lapack_to" >/dev/null
echo "setup: done"
