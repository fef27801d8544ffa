#!/bin/bash
# Runs a pack.sh bundle on a machine with a GPU, from the root of a checkout of the
# same commit: every gtest program (in parallel), flamex_bench_opencl,
# flamex_bench_batch_opencl and the LU variants on each backend at n = 512.
#   tools/gpu-check/run.sh BUNDLE.tar.xz OUT_DIR
# The OpenCL platform is the machine's ICD; without /etc/OpenCL/vendors, the NVIDIA
# driver's libnvidia-opencl.so.1 is registered through OCL_ICD_VENDORS.
set -u
bundle=$1; out=$2; root=$PWD; d=$(mktemp -d)
mkdir -p "$out/logs"; tar -xJf "$bundle" -C "$d"
export LD_LIBRARY_PATH=$d/lib
build=$(cat "$d/build_dir"); source_dir=$(dirname "$build")
if [ "$source_dir" != "$root" ]; then mkdir -p "$(dirname "$source_dir")"; rm -rf "$source_dir"; ln -s "$root" "$source_dir"; fi
mkdir -p "$build/experiments" && cp "$d/bin/flamex" "$build/" && cp "$d/bin/flamex_experiments" "$build/experiments/"
if [ -z "${OCL_ICD_VENDORS:-}" ] && ! ls /etc/OpenCL/vendors/*.icd 2>/dev/null | grep -qv pocl; then
    lib=$(ldconfig -p | grep -o '/[^ ]*libnvidia-opencl.so[.0-9]*' | head -1)
    [ -z "$lib" ] && lib=$(find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
    mkdir -p "$d/icd"; echo "$lib" > "$d/icd/nvidia.icd"; export OCL_ICD_VENDORS=$d/icd
fi
{ date -u; nvidia-smi 2>&1 | head -12; lscpu | grep -E 'Model name|^CPU\(s\)'; "$d/bin/flamex" devices; } > "$out/env.txt" 2>&1
cd "$source_dir"
ls "$d/bin" | grep '^test_' | xargs -P "${JOBS:-8}" -I{} sh -c \
    "timeout ${TEST_S:-300} '$d/bin/{}' --gtest_brief=1 > '$out/logs/{}.log' 2>&1; echo \"{} rc=\$?\" >> '$out/summary.txt'"
sort "$out/summary.txt"; grep -h '^\[  FAILED  \]' "$out"/logs/*.log | sort -u
{ "$d/bin/flamex_bench_opencl" --reps 5; "$d/bin/flamex_bench_batch_opencl" --reps 3 --sizes 8,32,64; } > "$out/bench.txt" 2>&1
f=$build/flamex; "$f" gen lu --n 512 --no-measure -o "$d/g" > /dev/null
for v in lu_piv_unb_var3 lu_piv_blk_var3 lu_piv_blk_var5; do for be in blis exact opencl-plain opencl; do
    timeout 60 "$f" lu "$d/g_A.mtx" --variant $v --backend $be --block 64 > /dev/null 2>&1 # builds the programs
    timeout 60 "$f" lu "$d/g_A.mtx" --variant $v --backend $be --block 64 2>&1 | tail -1
done; done > "$out/lu.txt"
cat "$out/bench.txt" "$out/lu.txt"
