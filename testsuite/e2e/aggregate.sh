#!/bin/sh
# aggregate.sh -- CCE_MODE=aggregate counts what CCE_MODE=log records.
#
# aggregate.c (T threads of N events each, from many contexts, with
# cce_log and cce_count, the same in every run) is built with cce and:
#   (a) run in log mode and in aggregate mode: the folded outputs must be
#       identical, paths and counts; and per (tag, path) the counts and
#       the sums of the values (records format, count= and value=
#       columns) must be the same; the aggregate log must be far smaller;
#   (b) run in aggregate mode with CCE_MAX_CONTEXTS=8 (a thread has some
#       30 contexts): Space-Saving.  cce-decode must say the bound E on
#       standard error; every count must be at least the exact one (log
#       mode) and at most E and the thread's events / 8 over it, and
#       every context of more than events / 8 must be there;
#   (c) killed: main makes K events after the threads ended and raises
#       SIGKILL: the table of every thread must be in the log, and the
#       folded output that of a log-mode run killed the same way;
#   (d) killed from outside (kill -9) while its threads aggregate: the log
#       must decode (exit status 0), every path one of the program's;
#   (e) with CCE_SAMPLE, the samples of a CPU-bound loop aggregate: one
#       entry holds several ticks;
#   (f) a bad CCE_MODE or CCE_MAX_CONTEXTS: one line on standard error,
#       and the default (log mode; 65536 counters).
#
# Knobs: AGG_THREADS (default 4), AGG_N (events per thread, default
# 20000), E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir aggregate || exit 1
ulimit -c 0 2>/dev/null

t=${AGG_THREADS:-4}
n=${AGG_N:-20000}
exe=$tmp/aggregate
fail=0

if ! cce_cc -O2 "$here/aggregate.c" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: aggregate: compilation failed"; exit 1
fi

bad () {
  echo "FAIL: aggregate: $*"
  fail=1
}

# run NAME MODE ARGS...: run the program with CCE_MODE=MODE and the log
# $tmp/NAME.log; decode it as $tmp/NAME.folded and $tmp/NAME.records
# (cce-decode's standard error in $tmp/NAME.derr).  Sets st.
run () {
  name=$1 mode=$2; shift 2
  rm -f "$tmp/$name.log"
  CCE_MODE=$mode CCE_LOG=$tmp/$name.log "$exe" "$@" 2>"$tmp/$name.err"
  st=$?
  "$CCE_DECODE" --format=folded "$exe" "$tmp/$name.log" \
    >"$tmp/$name.folded" 2>"$tmp/$name.derr" ||
    bad "$name: cce-decode --format=folded failed: $(cat "$tmp/$name.derr")"
  "$CCE_DECODE" --format=records "$exe" "$tmp/$name.log" \
    >"$tmp/$name.records" 2>>"$tmp/$name.derr" ||
    bad "$name: cce-decode --format=records failed"
}

# sums FILE: "TAG PATH COUNT VALUE" per (tag, path) of a records output,
# sorted (a record without count= is one event).
sums () {
  awk -F'\t' '{
      c = 1; v = 0
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^count=/) c = substr($i, 7)
        if ($i ~ /^value=/) v = substr($i, 7)
      }
      k = $2 " " $3; cnt[k] += c; val[k] += v
    } END { for (k in cnt) print k, cnt[k], val[k] }' "$1" | LC_ALL=C sort
}

# (a) log and aggregate.
run log log "$t" "$n"
[ "$st" -eq 0 ] || bad "log mode: exit status $st"
run agg aggregate "$t" "$n"
[ "$st" -eq 0 ] || bad "aggregate mode: exit status $st"
[ -s "$tmp/agg.err" ] && bad "aggregate mode: standard error: $(cat "$tmp/agg.err")"
[ -s "$tmp/agg.derr" ] && bad "aggregate mode: cce-decode said: $(cat "$tmp/agg.derr")"
events=$(awk '{ s += $NF } END { print s }' "$tmp/log.folded")
[ "$events" -eq $((t * n)) ] || bad "log mode: $events events, not $((t * n))"
if cmp -s "$tmp/log.folded" "$tmp/agg.folded"; then
  echo "folded: identical, $(wc -l <"$tmp/agg.folded") paths, $events events"
else
  diff "$tmp/log.folded" "$tmp/agg.folded" | head -20
  bad "the folded outputs of log and aggregate modes differ"
fi
sums "$tmp/log.records" >"$tmp/log.sums"
sums "$tmp/agg.records" >"$tmp/agg.sums"
if cmp -s "$tmp/log.sums" "$tmp/agg.sums"; then
  echo "records: identical counts and value sums of $(wc -l <"$tmp/agg.sums") (tag, path)"
else
  diff "$tmp/log.sums" "$tmp/agg.sums" | head -20
  bad "the counts or value sums of log and aggregate modes differ"
fi
grep -q 'value=' "$tmp/agg.records" || bad "no value column in the aggregate records"
lsize=$(wc -c <"$tmp/log.log") asize=$(wc -c <"$tmp/agg.log")
echo "log sizes: log mode $lsize bytes, aggregate mode $asize bytes"
[ "$asize" -lt $((lsize / 10)) ] || bad "the aggregate log is not much smaller"

# (b) Space-Saving with 8 counters.
CCE_MAX_CONTEXTS=8 run ss aggregate "$t" "$n"
e=$(sed -n 's/.*space-saving: 8 counters per thread, counts may be over by at most \([0-9]*\)$/\1/p' "$tmp/ss.derr" | head -n 1)
if [ -z "$e" ]; then
  bad "CCE_MAX_CONTEXTS=8: no bound from cce-decode: $(cat "$tmp/ss.derr")"
else
  # Per thread (its tags), exact counts from the log-mode run.
  sums "$tmp/ss.records" >"$tmp/ss.sums"
  awk -v e="$e" -v n="$n" -v cap=8 '
    FNR == NR { exact[$1 " " $2] = $3; next }
    { got[$1 " " $2] = $3 }
    END {
      bound = n / cap; errs = 0; kept = 0; hot = 0
      for (k in got) {
        x = (k in exact) ? exact[k] : 0
        if (got[k] < x || got[k] - x > e || got[k] - x > bound) {
          print "count " got[k] " of " k ", exact " x; errs++
        }
        kept++
      }
      for (k in exact)
        if (exact[k] > bound) {
          hot++
          if (!(k in got)) { print "hot context lost: " k " " exact[k]; errs++ }
        }
      printf "space-saving: %d counters per thread kept %d contexts of %d, all %d hot ones, counts over by at most %d (bound %d)\n", cap, kept, length(exact), hot, e, bound
      exit errs != 0
    }' "$tmp/log.sums" "$tmp/ss.sums" || bad "CCE_MAX_CONTEXTS=8: the Space-Saving guarantees do not hold"
fi

# (c) SIGKILL after known counts.
k=7777
run klog log "$t" "$n" kill $k
[ "$st" -eq 137 ] || bad "log mode, kill: exit status $st"
run kagg aggregate "$t" "$n" kill $k
[ "$st" -eq 137 ] || bad "aggregate mode, kill: exit status $st"
if cmp -s "$tmp/klog.folded" "$tmp/kagg.folded" &&
   [ "$(awk '{ s += $NF } END { print s }' "$tmp/kagg.folded")" -eq $((t * n + k)) ]; then
  echo "SIGKILL: the tables hold the $((t * n + k)) events"
else
  diff "$tmp/klog.folded" "$tmp/kagg.folded" | head
  bad "SIGKILL: the tables of the killed process differ from its log"
fi

# (d) kill -9 from outside, with 65536 and with 4 counters (entries
# replaced all the time).
for cap in 65536 4; do
  rm -f "$tmp/ext.log"
  CCE_MAX_CONTEXTS=$cap CCE_MODE=aggregate CCE_LOG=$tmp/ext.log \
    "$exe" "$t" 0 forever &
  pid=$!
  sleep 1
  kill -9 $pid
  wait $pid 2>/dev/null
  "$CCE_DECODE" --format=folded "$exe" "$tmp/ext.log" >"$tmp/ext.folded" 2>"$tmp/ext.derr" ||
    bad "kill -9, $cap counters: cce-decode failed: $(cat "$tmp/ext.derr")"
  awk 'FNR == NR { p[$1] = 1; next } !($1 in p) { print "unknown path " $1; e = 1 }
       END { exit e }' "$tmp/log.folded" "$tmp/ext.folded" ||
    bad "kill -9, $cap counters: paths the program has not"
  echo "kill -9, $cap counters: $(awk '{ s += $NF } END { print s }' "$tmp/ext.folded") events in $(wc -l <"$tmp/ext.folded") paths"
done

# (e) samples.
rm -f "$tmp/spin.log"
CCE_SAMPLE=1000 CCE_MODE=aggregate CCE_LOG=$tmp/spin.log "$exe" 0 0 spin
"$CCE_DECODE" --format=records "$exe" "$tmp/spin.log" >"$tmp/spin.records" 2>&1 ||
  bad "samples: cce-decode failed"
if awk -F'\t' '$2 == "sample" && $4 ~ /^count=/ && substr($4, 7) > 1 { f = 1 }
     END { exit !f }' "$tmp/spin.records"; then
  echo "samples: $(awk -F'\t' '$2 == "sample"' "$tmp/spin.records" | wc -l) entries"
else
  head "$tmp/spin.records"
  bad "samples: no entry of several ticks"
fi

# (f) bad values.
rm -f "$tmp/bad.log"
CCE_MODE=sometimes CCE_LOG=$tmp/bad.log "$exe" 1 10 2>"$tmp/bad.err"
if [ "$(wc -l <"$tmp/bad.err")" -ne 1 ] || ! grep -q 'CCE_MODE=sometimes' "$tmp/bad.err"; then
  bad "CCE_MODE=sometimes: standard error: $(cat "$tmp/bad.err")"
fi
"$CCE_DECODE" --format=records "$exe" "$tmp/bad.log" | grep -q 'count=' &&
  bad "CCE_MODE=sometimes: not log mode"
for v in 0 x12 99999999999; do
  rm -f "$tmp/bad.log"
  CCE_MAX_CONTEXTS=$v CCE_MODE=aggregate CCE_LOG=$tmp/bad.log "$exe" 1 10 2>"$tmp/bad.err"
  if [ "$(wc -l <"$tmp/bad.err")" -ne 1 ] || ! grep -q "CCE_MAX_CONTEXTS=$v" "$tmp/bad.err"; then
    bad "CCE_MAX_CONTEXTS=$v: standard error: $(cat "$tmp/bad.err")"
  fi
  "$CCE_DECODE" --format=records "$exe" "$tmp/bad.log" >/dev/null 2>&1 ||
    bad "CCE_MAX_CONTEXTS=$v: the log does not decode"
done

[ $fail -eq 0 ] && echo "PASS: aggregate"
exit $fail
