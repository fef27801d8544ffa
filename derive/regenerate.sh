#!/bin/sh
# Writes the variant files the derivation emits from the PME descriptions, checked in so
# that a reader can open them. The LU ones go to derive/generated/ (tests/test_derive.cpp
# runs them against the hand-written variants/lu_*); the Cholesky, triangular inverse,
# triangular solve and LDL^T ones are the library's own variant files in variants/.
# The ctest derive_regenerate runs this into a scratch tree and fails on any difference.
# Usage: derive/regenerate.sh [path/to/flamex] [output root, default the source tree]
set -eu
cd "$(dirname "$0")/.."
flamex=${1:-build/flamex}
root=${2:-.}
mkdir -p "$root/derive/generated" "$root/variants"
emit() { # operation, variant, form (unb|blk), directory
    blocked=
    [ "$3" = blk ] && blocked=--blocked
    "$flamex" derive "$1" --variant "$2" $blocked --emit cpp -o "$root/$4/$5_$3_var$2.cpp"
}
for v in 1 2 3 4 5; do
    emit lu_nopiv $v unb derive/generated lu_nopiv
    emit lu_nopiv $v blk derive/generated lu_nopiv
done
for v in 3 4 5; do
    emit lu_piv $v unb derive/generated lu_piv
    emit lu_piv $v blk derive/generated lu_piv
done
for v in 1 2 3; do
    emit chol $v unb variants chol
    emit chol $v blk variants chol
done
for v in 1 2 3 4; do
    emit trinv $v unb variants trinv
    emit trinv $v blk variants trinv
done
# Variants 3 and 4 partition B by columns (trsm_lln.pme's `pme n` equations).
for v in 1 2 3 4; do
    emit trsm_lln $v unb variants trsm_lln
    emit trsm_lln $v blk variants trsm_lln
done
for v in 1 2 3; do
    emit ldlt $v unb variants ldlt_blas
done
# New operations, derived from their PME alone (issue 27).
for op in trmm_lln trmm_lun trsm_lun trinv_un; do
    for v in 1 2 3 4; do
        emit $op $v unb variants $op
        emit $op $v blk variants $op
    done
done
for v in 1 2 3; do
    emit chol_u $v unb variants chol_u
    emit chol_u $v blk variants chol_u
    emit ttmm_l $v unb variants ttmm_l
    emit ttmm_l $v blk variants ttmm_l
done
for v in 1 2 3 4 5 6; do
    emit syrk_ln $v unb variants syrk_ln
    emit syrk_ln $v blk variants syrk_ln
done
