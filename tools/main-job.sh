#!/usr/bin/env bash
# The main job: set up, build, and run the experiment suite (experiments/): every LU
# variant on every backend compared for accuracy and reproducibility, then LU times
# and the paper's gemv and trsv experiments; plot everything into results/ and print
# the summary table. Arguments go to the driver: --full (paper-scale sizes), --tiny
# (a smoke run), --out DIR, --sections LIST, --backends LIST, ... (--help lists them).
# FLAMEX_BUILD_DIR picks the build folder (default build/, the release preset).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
if [ -n "${FLAMEX_BUILD_DIR:-}" ]; then
  build=$FLAMEX_BUILD_DIR
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target flamex_experiments flamex_cli
else
  build=build
  cmake --preset release >/dev/null
  cmake --build --preset release --target flamex_experiments flamex_cli
fi
driver=$build/experiments/flamex_experiments
out=results
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --help | -h) exec "$driver" --help ;;
    --out) j=$((i + 1)); out=${!j:-results} ;;
  esac
done

start=$SECONDS
status=0
# The progress bar and notes go to stderr; the summary is printed after the figures.
"$driver" --out "$out" "$@" >/dev/null || status=$?
if [ "$status" -ge 2 ]; then exit "$status"; fi
/usr/bin/python3 experiments/plot_results.py "$out"
echo
cat "$out/summary.txt"
echo "main job: $((SECONDS - start)) s (suite and figures; the build not counted)"
exit "$status"
