#!/bin/sh
# test-measure.sh -- checks testsuite/lib/measure.sh on known inputs: the
# median of odd and even counts, min-max, the geometric mean, ratios, the
# CPU time of a command and the order of alternated pairs.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
. "$here/measure.sh"
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-measure.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
measure_times=$tmp/times

. "$here/check.sh"

nums () { printf '%s\n' "$@"; }

# median: unsorted input, odd and even counts, formats, no input.
check "median odd" "$(nums 3 1.25 2 | median)" 2
check "median odd, the number as written" "$(nums 1.2500 0.5 9 | median)" 1.2500
check "median even" "$(nums 4 1 3 2 | median)" 2.5
check "median even, %.3f" "$(nums 1.0046 1.0012 | median %.3f)" 1.003
check "median one" "$(nums 7 | median)" 7
check "median none" "$(: | median)" nan
check "median none, EMPTY" "$(: | median %.3f -)" -
check "median %.3f odd" "$(nums 1.1 1.3 1.2 | median %.3f)" 1.200
check "median numeric order" "$(nums 10 9 100 | median)" 10
check "median exponents" "$(nums 2e-3 1e-3 3e-3 | median)" 2e-3

# minmax
check "minmax" "$(nums 1.5 0.9 1.25 | minmax)" 0.900-1.500
check "minmax %.1f" "$(nums 2 1 | minmax %.1f)" 1.0-2.0

# geomean
check "geomean" "$(nums 1 4 | geomean)" 2.000
check "geomean three" "$(nums 2 4 8 | geomean %.4f)" 4.0000
check "geomean one" "$(nums 1.5 | geomean)" 1.500
check "geomean none" "$(: | geomean)" -

# ratio
check "ratio" "$(ratio 3 2)" 1.500
check "ratio %.4f" "$(ratio 1 3 %.4f)" 0.3333
check "ratio zero denominator" "$(ratio 3 0)" -
check "ratio empty denominator" "$(ratio 3 '')" -
check "fsub" "$(fsub 2.5 1.25)" 1.25

# cpu_of: a command that burns CPU takes some; one that sleeps takes next
# to none; the command's status comes back.
burn () { awk 'BEGIN { for (i = 0; i < 3000000; i++) s += i; print s > "/dev/null" }'; }
cpu_of t burn
check "cpu_of burn status" $? 0
check "cpu_of burn > 0" "$(echo "$t" | awk '{ print ($1 > 0) }')" 1
cpu_of t sleep 0.2
check "cpu_of sleep < 0.1" "$(echo "$t" | awk '{ print ($1 < 0.1) }')" 1
cpu_of t sh -c 'exit 3'
check "cpu_of status" $? 3
check "cpu_of format" "$(echo "$t" | grep -c '^[0-9][0-9]*\.[0-9][0-9]$')" 1
cpu_now a
case $a in [0-9]*.[0-9][0-9]) r=ok ;; *) r=$a ;; esac
check "cpu_now" "$r" ok

# pair_order and run_pairs
check "pair 1" "$(pair_order 1)" "plain cce"
check "pair 2" "$(pair_order 2)" "cce plain"
check "pair 3" "$(pair_order 3)" "plain cce"
seq_=
step () { seq_="$seq_ $2$1"; }
after () { seq_="$seq_ |"; }
run_pairs 1 3 step after
check "run_pairs 1-3" "$seq_" " 1plain 1cce | 2cce 2plain | 3plain 3cce |"
seq_=
run_pairs 2 3 step
check "run_pairs 2-3" "$seq_" " 2cce 2plain 3plain 3cce"
seq_=
run_pairs 1 0 step after
check "run_pairs none" "$seq_" ""
seq_=
stop2 () { seq_="$seq_ |"; test "$1" -lt 2; }
run_pairs 1 5 step stop2
check "run_pairs stopped by AFTER" "$?:$seq_" "1: 1plain 1cce | 2cce 2plain |"
seq_=
failcce () { seq_="$seq_ $2$1"; test "$1" != cce; }
run_pairs 1 2 failcce after
check "run_pairs stopped by STEP" "$?:$seq_" "1: 1plain 1cce"

check_summary
