# measure.sh -- sourced (POSIX sh) by the scripts that measure what cce
# costs: bench/run-bench.sh, examples/ratio.sh and
# testsuite/corpus/run-corpus.sh.  Statistics of a list of numbers, ratio
# formatting, the CPU time of commands, and the order of alternated
# plain/cce pairs.  testsuite/lib/test-measure.sh checks it.
#
# The variables the functions use for their own work start with "ms_".

# median [FMT [EMPTY]]: the median of the numbers on stdin, one a line:
# the middle one of an odd count, the mean of the two middle ones of an
# even count.  Printed with printf FMT when FMT is given, else as awk
# prints it (an odd count's middle number as it was written); EMPTY
# (default "nan") when there is no number.
median () {
  sort -g | awk -v fmt="${1-}" -v empty="${2-nan}" '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print empty; exit }
      if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
      if (fmt == "") print m; else printf fmt "\n", m
    }'
}

# minmax [FMT]: "MIN-MAX" of the numbers on stdin, each printed with FMT
# (default %.3f).
minmax () {
  sort -g | awk -v fmt="${1-%.3f}" '
    NR == 1 { lo = $1 } { hi = $1 }
    END { printf fmt "-" fmt, lo, hi }'
}

# geomean [FMT [EMPTY]]: the geometric mean of the (positive) numbers on
# stdin, with printf FMT (default %.3f); EMPTY (default "-") when there
# is none.
geomean () {
  awk -v fmt="${1-%.3f}" -v empty="${2--}" '
    NF { s += log($1); n++ }
    END { if (n) printf fmt "\n", exp(s / n); else print empty }'
}

# ratio NUM DEN [FMT]: NUM / DEN with printf FMT (default %.3f); "-" when
# DEN is not a positive number.
ratio () {
  echo "$1 $2" | awk -v fmt="${3-%.3f}" '
    $2 > 0 { printf fmt, $1 / $2; exit } { printf "-" }'
}

# cpu_now VAR: set VAR to the user+sys CPU seconds (2 decimals) of this
# shell's finished children (and theirs) so far, from `times`.  `times`
# must run in this shell, not in a $(...) subshell, whose children are not
# this shell's: so the output goes through the file $measure_times
# (default ${TMPDIR:-/tmp}/measure-times.PID).
cpu_now () {
  ms_file=${measure_times:-${TMPDIR:-/tmp}/measure-times.$$}
  times > "$ms_file"
  # The second line: the children's "0m1.230000s 0m0.400000s".
  ms_cpu=$(awk 'NR == 2 { t = 0
      for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
      printf "%.2f", t }' "$ms_file")
  rm -f "$ms_file"
  eval "$1=\$ms_cpu"
}

# fsub A B: A - B with 2 decimals.
fsub () { echo "$1 $2" | awk '{ printf "%.2f", $1 - $2 }'; }

# cpu_of VAR CMD...: run CMD in this shell and set VAR to the user+sys
# CPU seconds of the processes it ran (cpu_now before and after); returns
# CMD's exit status.
cpu_of () {
  ms_var=$1; shift
  cpu_now ms_c0
  "$@"
  ms_rc=$?
  cpu_now ms_c1
  eval "$ms_var=\$(fsub \"\$ms_c1\" \"\$ms_c0\")"
  return $ms_rc
}

# pair_order I: the order of the two builds in alternated pair I
# (counted from 1): "plain cce" for odd I, "cce plain" for even I.
pair_order () {
  if test $(($1 % 2)) = 1; then echo "plain cce"; else echo "cce plain"; fi
}

# run_pairs FIRST LAST STEP [AFTER]: alternated pairs FIRST to LAST
# (counted from 1).  For pair I, STEP VARIANT I runs for each variant in
# the order of pair_order I, then AFTER I.  A STEP or AFTER that fails
# ends the loop, and run_pairs returns its status.  STEP and AFTER see
# pair_i, the number of the pair.
run_pairs () {
  pair_i=$1
  while test "$pair_i" -le "$2"; do
    for pair_v in $(pair_order "$pair_i"); do
      "$3" "$pair_v" "$pair_i" || return
    done
    if test -n "${4-}"; then "$4" "$pair_i" || return; fi
    pair_i=$((pair_i + 1))
  done
  return 0
}
