#!/bin/sh
# libblas.so.3's exported symbols are exactly those of Debian's reference
# libblas.so.3; it needs no libflame; and in a program running on it, its own
# routines bind to nothing in BLIS but BLIS's typed API (bli_*), while BLIS binds
# into it at most the error reports and the forwarded routines' entry points.
# Usage: check_symbols.sh OURS REFERENCE PROGRAM
set -eu
ours=$1 reference=$2 program=$3
names() { nm -D --defined-only "$1" | awk '{print $3}' | sort; }
if ! diff -u "$(names "$reference" > /tmp/blas_abi_ref.$$; echo /tmp/blas_abi_ref.$$)" \
             "$(names "$ours" > /tmp/blas_abi_ours.$$; echo /tmp/blas_abi_ours.$$)"; then
    echo "FAILED: the exported symbol sets differ (- reference, + flamex)"
    rm -f /tmp/blas_abi_ref.$$ /tmp/blas_abi_ours.$$
    exit 1
fi
echo "same $(wc -l < /tmp/blas_abi_ours.$$) symbols as $reference"
rm -f /tmp/blas_abi_ref.$$ /tmp/blas_abi_ours.$$
if ldd "$ours" | grep -q libflame; then
    echo "FAILED: $ours links libflame"
    exit 1
fi
# (test_blas_abi checks the same with BLIS ahead of the library in every lookup.)
log=$(LD_DEBUG=bindings "$program" 2>&1 >/dev/null)
# (Bindings of this library alone: the reference BLAS, opened for the few routines
# BLIS lacks, is another libblas.so.3.)
self="binding file $(cd "$(dirname "$ours")" && pwd)/libblas.so.3 "
bad=$(printf '%s\n' "$log" | grep -F "$self" | grep " to [^ ]*libblis" | grep -v "symbol \`bli_" || true)
if [ -n "$bad" ]; then
    echo "FAILED: libblas.so.3 binds to BLIS beyond its typed API:"
    printf '%s\n' "$bad"
    exit 1
fi
# No BLAS name that libblas.so.3 uses binds anywhere else, but for the error
# reports (the program's own xerbla_ / cblas_xerbla may take them). BLIS's
# compatibility layer references libblas.so.3's names (its cblas_dgemm calls
# dgemm_, say), but that layer runs only for the routines forwarded to it.
ref_names=$(names "$reference" | tr '\n' ' ')
bad=$(printf '%s\n' "$log" | grep -F "$self" | grep -vF " to $(cd "$(dirname "$ours")" && pwd)/" | sed -n "s/.*symbol \`\([^']*\)'.*/\1/p" \
      | while read -r sym; do
            case " $ref_names " in *" $sym "*) [ "$sym" = xerbla_ ] || [ "$sym" = cblas_xerbla ] || echo "$sym";; esac
        done)
if [ -n "$bad" ]; then
    echo "FAILED: libblas.so.3's calls to these BLAS names bind outside it: $bad"
    exit 1
fi
echo "bindings: libblas.so.3 -> BLIS only bli_*; its BLAS names bind inside it (xerbla_ aside)"
