#!/bin/sh
# ratio.sh PLAIN INSTRUMENTED N [PAIRS] -- run the two builds of the example
# workload in PAIRS alternated pairs (default 7: plain then instrumented in
# odd pairs, instrumented then plain in even ones) and print the median
# ratio instrumented/plain.  Uses user-mode cycles from perf stat when the
# machine has them (stable to ~0.2% here), else wall-clock seconds.
set -e
plain=$1 inst=$2 n=$3 pairs=${4:-7}
CCE_LOG=/dev/null; export CCE_LOG
# median, ratio, run_pairs.
. "$(cd "$(dirname "$0")" && pwd)/../testsuite/lib/measure.sh"

measure () {
  if test "$use_perf" = yes; then
    perf stat -x, -e cycles:u "$@" 2>&1 >/dev/null | awk -F, '/cycles/ {print $1}'
  else
    s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
  fi
}

use_perf=no
if command -v perf >/dev/null 2>&1 \
   && perf stat -x, -e cycles:u true 2>&1 | grep -q '^[0-9]'; then
  use_perf=yes
fi
unit=seconds; test $use_perf = yes && unit=cycles:u

# one V I: measure build V (plain or cce) once, for pair I.
one () {
  if test "$1" = plain; then a=$(measure "$plain" "$n"); else b=$(measure "$inst" "$n"); fi
}
# done_pair I: the ratio of pair I.
done_pair () {
  r=$(ratio "$b" "$a" '%.17g')
  printf 'pair %d: plain %s, cce %s %s, ratio %.4f\n' "$1" "$a" "$b" "$unit" "$r"
  ratios="$ratios $r"
}
ratios=
run_pairs 1 "$pairs" one done_pair
median=$(printf '%s\n' $ratios | median)
printf 'median ratio instrumented/plain over %d pairs (%s): %.4f\n' "$pairs" "$unit" "$median"
