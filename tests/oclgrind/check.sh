#!/usr/bin/env bash
# Runs the OpenCL kernels on Oclgrind, a simulated OpenCL device that checks every
# memory access: data races between work-items, out-of-bounds accesses, barrier
# divergence, uses of uninitialized values, API misuse. No GPU is needed, and a
# kernel that passes here has no race a GPU could expose. One computation per
# process: the BLAS kernels through `flamex` (both OpenCL backends: dot, gemv, trsv,
# LU, Cholesky, LDL^T and triangular inverse variants, solve with refinement), the batched solvers through
# oclgrind_batch_case (every method and organization, local and global workspace).
#
# usage: check.sh FLAMEX_CLI BATCH_CASE WORK_DIR
# First it proves that Oclgrind is really there: under it the only OpenCL device is
# its simulator (and every run selects that device by name), and a planted
# out-of-bounds write shows in its log.
# Exit status 0 when every run is clean, 1 otherwise (with the findings), 77 when
# oclgrind is not installed (ctest: skipped).
set -uo pipefail
cli=$1 batch_case=$2 work=$3
if ! command -v oclgrind >/dev/null; then
  echo "oclgrind not found (Debian package oclgrind; tools/setup.sh installs it): skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
export FLAMEX_OPENCL_CACHE=off
# Every run must be on Oclgrind's device: selected by name, so that a run Oclgrind
# does not interpose (another ICD answering) fails its device selection.
export FLAMEX_OPENCL_DEVICE="Oclgrind Simulator"
# -cl-opt-disable: Oclgrind's interpreter lacks some intrinsics LLVM's optimizer
# introduces (llvm.bitreverse in the exact kernels).
grind=(oclgrind --data-races --uninitialized --check-api --build-options -cl-opt-disable)
runs=0 failures=0

# grind NAME COMMAND...: the command must exit 0 and Oclgrind must report nothing.
grind() {
  local name=$1 log="$work/$1.log" out="$work/$1.out"
  shift
  runs=$((runs + 1))
  "${grind[@]}" --log "$log" "$@" >"$out" 2>&1
  local status=$?
  if [ $status -ne 0 ] || [ -s "$log" ]; then
    failures=$((failures + 1))
    echo "FAIL $name (exit $status): $*"
    head -c 3000 "$log" "$out"
    echo
  fi
}

# Oclgrind is interposed: the only device a program sees is its simulator.
devices=$(oclgrind "$cli" devices 2>&1)
if [ "$(printf '%s\n' "$devices" | grep -c .)" -ne 1 ] ||
   ! printf '%s\n' "$devices" | grep -q '^0: Oclgrind Simulator'; then
  echo "FAIL: under oclgrind, flamex devices lists something other than Oclgrind's simulator alone:"
  printf '%s\n' "$devices"
  exit 1
fi
# Its verdict reaches the log this script reads: a planted write past a buffer must
# be reported there (else a silent Oclgrind would pass every run below).
"${grind[@]}" --log "$work/planted.log" "$batch_case" planted-out-of-bounds >"$work/planted.out" 2>&1
if ! grep -qs "Invalid write" "$work/planted.log"; then
  echo "FAIL: Oclgrind did not report the planted out-of-bounds write; its log:"
  cat "$work/planted.log" "$work/planted.out" 2>/dev/null
  exit 1
fi

# The BLAS kernels, on problems small enough for an interpreter.
"$cli" gen dot --n 40 --cond 1e20 --no-measure -o "$work/dot" >/dev/null
"$cli" gen gemv --n 12 --cond 1e20 --no-measure -o "$work/gemv" >/dev/null
"$cli" gen trsv --n 12 --cond 1e10 --no-measure -o "$work/trsv" >/dev/null
"$cli" gen lu --n 12 --cond 1e6 --no-measure -o "$work/lu" >/dev/null
# Symmetric positive definite (1 / (i + j + 1) + 7 on the diagonal) for chol, and
# its lower triangle for trinv.
awk 'BEGIN { n = 7; print "%%MatrixMarket matrix array real general"; print n, n;
             for (j = 0; j < n; ++j) for (i = 0; i < n; ++i) print 1 / (i + j + 1) + (i == j ? n : 0) }' >"$work/spd.mtx"
for backend in opencl opencl-plain; do
  for wg in default 7; do
    if [ $wg = default ]; then unset FLAMEX_OPENCL_WG; else export FLAMEX_OPENCL_WG=$wg; fi
    grind "$backend-wg$wg-dot" "$cli" dot "$work/dot_x.mtx" "$work/dot_y.mtx" --backend $backend
    grind "$backend-wg$wg-gemv" "$cli" gemv "$work/gemv_A.mtx" "$work/gemv_x.mtx" --backend $backend
    grind "$backend-wg$wg-gemv-t" "$cli" gemv "$work/gemv_A.mtx" "$work/gemv_x.mtx" --trans --backend $backend
  done
  unset FLAMEX_OPENCL_WG
  grind "$backend-trsv" "$cli" trsv "$work/trsv_T.mtx" "$work/trsv_b.mtx" --backend $backend
  grind "$backend-trsv-refined" "$cli" trsv "$work/trsv_T.mtx" "$work/trsv_b.mtx" --refine 2 --backend $backend
  for variant in lu_nopiv_unb_var1 lu_nopiv_unb_var2 lu_nopiv_unb_var4 lu_piv_unb_var3 lu_piv_unb_var4 lu_piv_unb_var5; do
    grind "$backend-$variant" "$cli" lu "$work/lu_A.mtx" --variant $variant --backend $backend
  done
  for variant in lu_nopiv_blk_var3 lu_piv_blk_var5; do
    grind "$backend-$variant" "$cli" lu "$work/lu_A.mtx" --variant $variant --block 5 --backend $backend
  done
  # syrk and syr, sqrt (chol); trmv, trmm, reciprocal (trinv)
  for variant in chol_unb_var1 chol_unb_var2 chol_unb_var3 chol_blk_var2; do
    grind "$backend-$variant" "$cli" chol "$work/spd.mtx" --variant $variant --block 3 --backend $backend
  done
  for variant in trinv_unb_var1 trinv_unb_var4 trinv_blk_var1; do
    grind "$backend-$variant" "$cli" trinv "$work/spd.mtx" --variant $variant --block 3 --backend $backend
  done
  # diag_invscal, diag_dots (ldlt var1); diag_dots, diag_gemv (var2)
  for variant in ldlt_blas_unb_var1 ldlt_blas_unb_var2; do
    grind "$backend-$variant" "$cli" ldlt "$work/spd.mtx" --variant $variant --backend $backend
  done
  grind "$backend-solve" "$cli" solve "$work/lu_A.mtx" "$work/lu_b.mtx" --refine 2 -o "$work/x-$backend.mtx" --backend $backend
done

# The batched solvers: every method and organization, both workspaces.
for precision in single double; do
  for n_count in 1:5 2:5 5:6 17:4 33:3; do
    n=${n_count%:*} count=${n_count#*:}
    for method in ldlt householder-pcr dc auto; do
      for organization in simd collaborative hybrid; do
        grind "batch-$precision-$n-$method-$organization" \
          "$batch_case" $precision $n $count $method $organization local
        if [ $organization != simd ]; then
          grind "batch-$precision-$n-$method-$organization-global" \
            "$batch_case" $precision $n $count $method $organization global
        fi
      done
    done
  done
done

echo "oclgrind: $runs runs, $failures with findings"
[ $failures -eq 0 ]
