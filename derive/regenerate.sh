#!/bin/sh
# Writes derive/generated/ from the PME descriptions: the variant files the derivation
# emits, checked in so that a reader can open them (tests/test_derive.cpp holds them
# equal to a fresh emission and runs them against the hand-written variants).
# Usage: derive/regenerate.sh [path/to/flamex]
set -eu
cd "$(dirname "$0")/.."
flamex=${1:-build/flamex}
for v in 1 2 3 4 5; do
    "$flamex" derive lu_nopiv --variant $v --emit cpp -o derive/generated/lu_nopiv_unb_var$v.cpp
    "$flamex" derive lu_nopiv --variant $v --blocked --emit cpp -o derive/generated/lu_nopiv_blk_var$v.cpp
done
for v in 3 4 5; do
    "$flamex" derive lu_piv --variant $v --emit cpp -o derive/generated/lu_piv_unb_var$v.cpp
    "$flamex" derive lu_piv --variant $v --blocked --emit cpp -o derive/generated/lu_piv_blk_var$v.cpp
done
