#!/bin/bash
# Packs a release build for a check on another machine with a GPU (no compiler, no
# Debian packages there): the gtest programs, the CLI and the OpenCL benchmarks,
# stripped, with the shared libraries they load beyond glibc and libstdc++.
#   tools/gpu-check/pack.sh BUILD_DIR OUT.tar.xz
# The programs keep this build's absolute source and build paths (the tests read
# docs/*.md and run build/flamex): run.sh links those paths to the checkout there.
set -eu
build=$(cd "$1" && pwd); out=$2
work=$(mktemp -d); mkdir -p "$work/bin" "$work/lib"
for t in "$build"/tests/test_*; do
    [ -x "$t" ] && [ -f "$t" ] && case "$t" in *.cmake) ;; *) strip -o "$work/bin/$(basename "$t")" "$t" ;; esac
done
strip -o "$work/bin/flamex" "$build/flamex"
for b in flamex_bench_opencl flamex_bench_batch_opencl flamex_experiments; do
    strip -o "$work/bin/$b" "$build/experiments/$b"
done
for lib in libOpenCL.so.1 libblis.so.4 libflame.so.1 libgmp.so.10 libmpfr.so.6 libgomp.so.1; do
    cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')" "$work/lib/"
done
echo "$build" > "$work/build_dir"
tar -cJf "$out" -C "$work" bin lib build_dir
rm -rf "$work"
