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
# The distributed section (docs/mpi.md), when mpi/ is built and mpirun is found: the
# entries of L\U differing from the 1x1 grid's (pdgetrf and flamex's two LUs, 1-4
# ranks, oversubscribed) with their times, and the distributed speed table (2 ranks).
targets=$(cmake --build "$build" --target help)
if [[ $targets == *flamex_mpi_heatmap* ]] && command -v mpirun >/dev/null; then
  cmake --build "$build" -j2 --target flamex_mpi_heatmap flamex_bench_mpi >/dev/null
  mpi=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 mpirun --oversubscribe)
  "${mpi[@]}" --bind-to none -np 4 "$build/experiments/flamex_mpi_heatmap" > "$out/mpi_heatmap.md"
  "${mpi[@]}" -np 2 "$build/experiments/flamex_bench_mpi" --markdown > "$out/mpi_bench.md"
  echo
  cat "$out/mpi_heatmap.md" "$out/mpi_bench.md"
fi
echo "main job: $((SECONDS - start)) s (suite and figures; the build not counted)"
exit "$status"
