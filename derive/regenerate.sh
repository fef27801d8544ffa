#!/bin/sh
# Writes derive/generated/ from the PME descriptions: every variant file the
# derivation emits, checked in so that a reader can open them. tests/test_derive.cpp
# holds each equal to a fresh emission, and compiles the LU ones and runs them against
# the hand-written variants (the others call drivers and BLAS operations that
# variants/ and blas/ gain separately: their `cpp` lines in derive/pme/ name them).
# Usage: derive/regenerate.sh [path/to/flamex]
set -eu
cd "$(dirname "$0")/.."
flamex=${1:-build/flamex}
emit() { # OP FORM N
    if [ "$2" = blk ]; then blocked=--blocked; else blocked=; fi
    "$flamex" derive "$1" --variant "$3" $blocked --emit cpp -o "derive/generated/$1_$2_var$3.cpp"
}
for v in 1 2 3 4 5; do emit lu_nopiv unb $v; emit lu_nopiv blk $v; done
for v in 3 4 5; do emit lu_piv unb $v; emit lu_piv blk $v; done
for v in 1 2 3; do emit chol unb $v; emit chol blk $v; done
for v in 1 2 3 4; do emit trinv unb $v; emit trinv blk $v; done
for v in 1 2; do emit trsm_lln unb $v; emit trsm_lln blk $v; done
emit ldlt unb 3
