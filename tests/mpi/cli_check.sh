#!/bin/sh
# `flamex lu|solve|dot --grid` under mpirun with NP ranks: the same files (cmp) as
# the one-process command on the exact backend; bad input (a grid that does not
# match the ranks, a missing file, non-conforming sizes, another backend) is one
# message naming the rank, and every rank exits with the same status.
# usage: cli_check.sh FLAMEX MPIRUN NP WORKDIR
set -u
F=$1 MPIRUN=$2 NP=$3 W=$4
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
case $NP in 1) G=1x1 ;; 2) G=2x1 ;; 3) G=1x3 ;; *) G=2x2 ;; esac
# (timeout: a guard only. An error that does not reach every rank fails in about 10 s,
# the error path's deadline in flamex; this would end a hang of another kind.)
run() { timeout 120 "$MPIRUN" --oversubscribe --bind-to none -np "$NP" "$@"; }
# Every rank's exit status, one line each: "status S".
statuses() { run sh -c '"$0" "$@"; echo "status $?"' "$@" 2>err.txt | grep '^status' | sort | uniq -c; }

"$F" gen lu --n 30 --seed 3 -o g --no-measure >/dev/null || bad "gen lu"
"$F" gen dot --n 500 -o d --no-measure >/dev/null || bad "gen dot"
for v in lu_piv_unb_var5 lu_piv_blk_var5_fma lu_piv_unb_var3; do
  for nb in 1 7; do
    "$F" lu g_A.mtx --variant $v --backend exact -o one.mtx --pivots one.piv >/dev/null
    run "$F" lu g_A.mtx --grid $G --block $nb --variant $v --backend exact -o many.mtx --pivots many.piv >/dev/null
    sed 's/lu_piv_blk_var5_fma/X/' one.mtx > a.mtx; sed 's/lu_piv_blk_var5_fma/X/' many.mtx > b.mtx
    cmp -s a.mtx b.mtx || bad "lu $v block $nb: factors differ"
    cmp -s one.piv many.piv || bad "lu $v block $nb: pivots differ"
  done
  "$F" solve g_A.mtx g_b.mtx --variant $v --backend exact -o x1.mtx >/dev/null
  run "$F" solve g_A.mtx g_b.mtx --grid $G --block 4 --variant $v --backend exact -o x2.mtx >/dev/null
  cmp -s x1.mtx x2.mtx || bad "solve $v: x differs"
done
[ "$("$F" dot d_x.mtx d_y.mtx --backend exact)" = "$(run "$F" dot d_x.mtx d_y.mtx --grid $G --block 3)" ] || bad "dot differs"

expect_error() { # expected-message-fragment command...
  frag=$1; shift
  s=$(statuses "$@")
  [ "$(echo "$s" | wc -l)" = 1 ] && echo "$s" | grep -q "$NP status 2" || bad "$*: statuses $s"
  grep -q "$frag" err.txt || { bad "$*: message"; cat err.txt; }
  [ "$(grep -c 'flamex' err.txt)" = 1 ] || bad "$*: the message should be printed once"
}
expect_error "rank 0: a 3x3 grid needs 9 ranks" "$F" lu g_A.mtx --grid 3x3
expect_error "rank 0: missing.mtx: cannot open" "$F" lu missing.mtx --grid $G
expect_error "rank 0: dimensions do not conform" "$F" solve g_A.mtx d_x.mtx --grid $G
expect_error "rank 0: dimensions do not conform" "$F" dot g_b.mtx d_x.mtx --grid $G
expect_error "not 'blis'" "$F" lu g_A.mtx --grid $G --backend blis
# Without a launcher, a grid of more than one rank is a clear error (status 2).
if [ "$NP" = 2 ]; then
  timeout 60 "$F" lu g_A.mtx --grid 2x1 >/dev/null 2>err.txt; s=$?
  [ $s = 2 ] || bad "no launcher: status $s"
  grep -q "started without an MPI launcher (1 rank): run it as \`mpirun -np 2 flamex" err.txt || { bad "no launcher: message"; cat err.txt; }
fi
# A zero pivot: status 1 on every rank, the column named.
printf '%%%%MatrixMarket matrix array real general\n2 2\n0\n0\n1\n2\n' > z.mtx
s=$(statuses "$F" lu z.mtx --grid $G --variant lu_piv_unb_var5)
echo "$s" | grep -q "$NP status 1" || bad "zero pivot: statuses $s"
grep -q "zero pivot in column 1" err.txt || bad "zero pivot: message"
[ $fail = 0 ] && echo "cli_check on $NP ranks: ok"
exit $fail
