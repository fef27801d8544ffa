#!/usr/bin/env bash
# The main job: set up, build, compare every LU variant on every backend for
# accuracy and reproducibility, and plot. Extra arguments go to the driver
# (e.g. --full for the paper-scale sizes, --out DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target flamex_lu_variants flamex_cli
out=results
for ((i = 1; i <= $#; i++)); do [ "${!i}" = "--out" ] && { j=$((i + 1)); out=${!j}; }; done
build/experiments/flamex_lu_variants --out "$out" "$@"
/usr/bin/python3 experiments/plot_lu.py "$out"
