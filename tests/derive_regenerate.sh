#!/bin/sh
# The ctest derive_regenerate: runs derive/regenerate.sh into a scratch tree and fails,
# showing the diff, when any generated file differs from the checked-in one (a PME
# description or the emitter changed without regenerating).
# Usage: tests/derive_regenerate.sh path/to/flamex source-dir scratch-dir
set -eu
flamex=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
sh "$source/derive/regenerate.sh" "$flamex" "$scratch"
status=0
count=0
for file in "$scratch"/derive/generated/*.cpp "$scratch"/variants/*.cpp; do
    relative=${file#"$scratch"/}
    count=$((count + 1))
    if ! diff -u "$source/$relative" "$file"; then
        echo "derive_regenerate: $relative is not what derive/pme/ emits (run derive/regenerate.sh)"
        status=1
    fi
done
# Every generated file the source tree claims is one the script writes.
for file in $(grep -l "^// Generated from derive/pme/" "$source"/derive/generated/*.cpp "$source"/variants/*.cpp); do
    relative=${file#"$source"/}
    if [ ! -f "$scratch/$relative" ]; then
        echo "derive_regenerate: $relative says it is generated, but derive/regenerate.sh does not write it"
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "derive_regenerate: all $count generated files are what derive/pme/ emits"
exit "$status"
