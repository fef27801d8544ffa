#!/usr/bin/env bash
# Runs the benchmark programs (experiments/bench_*.cpp) with --markdown and rewrites
# their tables in docs/benchmarks.md, between <!-- BEGIN name --> and <!-- END name -->
# (tools/bench_markdown.py); blas_abi's table goes to docs/blas-abi.md, mpi's to docs/mpi.md. The tables are written by the programs, never by hand:
# each names the machine, clock, date, commit and exact kernel set it was measured with.
#
# usage: tools/benchmarks.sh [--quick] [PROGRAM...]
#   --quick   every program's small sizes and one run (minutes, not hours: the
#             numbers then only show the format and that everything runs)
#   PROGRAM   some of lu_blis exact opencl batch batch_opencl blas_abi mpi (default: all), each
#             with its own arguments in the same word if wanted: 'exact --only level3'
#             rewrites only the tables that run writes
#             mpi: flamex_bench_mpi under mpirun with 2 ranks (oversubscribed where the
#             cores are fewer), its table spliced into docs/mpi.md; skipped where
#             mpirun or the target is missing
# FLAMEX_BUILD_DIR picks the build folder (default build/, the release preset).
# The full runs take hours on 2 cores: run them on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
programs=()
for arg in "$@"; do
  case "${arg%% *}" in
    --quick) quick=(--quick) ;;
    lu_blis | exact | opencl | batch | batch_opencl | blas_abi | mpi) programs+=("$arg") ;;
    *) echo "usage: tools/benchmarks.sh [--quick] ['lu_blis|exact|opencl|batch|batch_opencl|blas_abi|mpi [ARGS]' ...]" >&2; exit 2 ;;
  esac
done
[ ${#programs[@]} -gt 0 ] || programs=(lu_blis exact opencl batch batch_opencl blas_abi mpi)

build=${FLAMEX_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake --preset release >/dev/null
# mpi only where mpi/ is built and mpirun is there.
if [[ " ${programs[*]} " == *" mpi"* ]] && { ! command -v mpirun >/dev/null ||
     ! grep -q '^FLAMEX_MPI:BOOL=ON' "$build/CMakeCache.txt"; }; then
  echo "tools/benchmarks.sh: mpi skipped (no mpirun, or mpi/ not built)" >&2
  programs=("${programs[@]/mpi*/}")
  read -r -a programs <<<"${programs[*]}"
fi
targets=()
for p in "${programs[@]}"; do targets+=("flamex_bench_${p%% *}"); done
cmake --build "$build" -j2 --target "${targets[@]}"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
runs=0
run() { # NAME ARGS...: one run, its tables into $out
  local name=$1
  shift
  echo "== flamex_bench_$name $* ${quick[*]:-}" >&2
  runs=$((runs + 1))
  "$build/experiments/flamex_bench_$name" "$@" "${quick[@]}" --markdown >"$out/$runs-$name.md"
}
for p in "${programs[@]}"; do
  read -r -a args <<<"$p"
  case "$p" in
    batch) run batch --table all ;;
    batch_opencl) run batch_opencl && run batch_opencl --sweep ;;
    blas_abi) run blas_abi --reps 3 ;;
    mpi*) # 2 ranks; --quick: n = 512 and one run. Its own page, docs/mpi.md.
      echo "== mpirun -np 2 flamex_bench_mpi ${args[*]:1} ${quick[*]:-}" >&2
      mpiq=(); [ ${#quick[@]} -eq 0 ] || mpiq=(--n 512 --reps 1 --dot 1000000)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 \
        mpirun --oversubscribe -np 2 "$build/experiments/flamex_bench_mpi" "${args[@]:1}" "${mpiq[@]}" --markdown \
        >"$out/mpi.md"
      /usr/bin/python3 tools/bench_markdown.py splice docs/mpi.md "$out/mpi.md"
      rm "$out/mpi.md" ;;
    *) run "${args[@]}" ;;
  esac
done
shopt -s nullglob
general=()
for f in "$out"/*.md; do [[ $f == *-blas_abi.md ]] || general+=("$f"); done
[ ${#general[@]} -eq 0 ] || /usr/bin/python3 tools/bench_markdown.py splice docs/benchmarks.md "${general[@]}"
abi=("$out"/*-blas_abi.md)
[ ${#abi[@]} -eq 0 ] || /usr/bin/python3 tools/bench_markdown.py splice docs/blas-abi.md "${abi[@]}"
