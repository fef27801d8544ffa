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
  clang libclang-rt-14-dev
  oclgrind
  texlive-latex-base
  openmpi-bin libopenmpi-dev libscalapack-openmpi-dev python3-mpi4py
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
echo "setup: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
