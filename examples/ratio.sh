#!/bin/sh
# ratio.sh PLAIN INSTRUMENTED N [PAIRS] -- run the two builds of the example
# workload alternately PAIRS times (default 7) and print the median ratio
# instrumented/plain.  Uses user-mode cycles from perf stat when the machine
# has them (stable to ~0.2% here), else wall-clock seconds.
set -e
plain=$1 inst=$2 n=$3 pairs=${4:-7}
CCE_LOG=/dev/null; export CCE_LOG

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

ratios=
i=0
while test $i -lt "$pairs"; do
  a=$(measure "$plain" "$n")
  b=$(measure "$inst" "$n")
  r=$(echo "$b / $a" | bc -l)
  printf 'pair %d: plain %s, cce %s %s, ratio %.4f\n' $((i + 1)) "$a" "$b" "$unit" "$r"
  ratios="$ratios $r"
  i=$((i + 1))
done
median=$(printf '%s\n' $ratios | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
printf 'median ratio instrumented/plain over %d pairs (%s): %.4f\n' "$pairs" "$unit" "$median"
