#!/bin/sh
# randomkill.sh -- a process killed with SIGKILL at a random moment keeps
# every record whose cce_log had returned.
#
# randomkill.c runs 8 threads that log without end along the paths of
# crashlog.h (every 16th record more than 200 frames deep, with as deep a
# ccStack), each storing its count of records in a shared file after each
# cce_log returns.  The test starts it, waits a random time between 3 ms
# and 0.5 s, kills it with SIGKILL, and decodes the log; RANDOMKILL_RUNS
# times (default 200).  In each run, for each thread with count C:
#   - records 0 .. C-1 all decode (their cce_log returned before the
#     kill), each exactly once;
#   - at most one more, record C (logged, killed before the count was
#     stored), and nothing beyond;
#   - a thread's records in the order it made them;
#   - every record's path is the path gdb saw for its class (oracle.py on
#     an -O0 build without cce), never one cce-decode chose.
# A torn record (the kill in the middle of making it) is not a record: the
# decoder may say so on standard error; its exit status must be 0 or 2
# (cce-decode's "LOG cannot be used", with the records before printed) --
# the records above are what counts.  The totals (records returned,
# decoded, lost, wrong, duplicated, the decoder's messages) go to the
# test's log.  Runs in which the program had logged nothing yet prove
# nothing: fewer than a quarter of the runs with records fail the test.
#
# Knobs: RANDOMKILL_RUNS (default 200), RANDOMKILL_SEED (default: the
# time; printed, to replay a run), RANDOMKILL_OPT (the cce build's flags,
# default -O2), E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb randomkill
crash_need_sleep randomkill
e2e_tmpdir randomkill || exit 1

runs=${RANDOMKILL_RUNS:-200}
seed=${RANDOMKILL_SEED:-$(date +%s)}
opt=${RANDOMKILL_OPT:--O2}
nthreads=8
src=$here/randomkill.c
t_start=$(date +%s)
echo "randomkill: $runs runs, seed $seed (RANDOMKILL_SEED=$seed replays them)"

# The oracle: each thread logs two records of each class.
crash_oracle "$src" "$tmp/oracle/counts" $((2 * crash_nclass)) || exit 1

exe=$tmp/randomkill
if ! cce_cc $opt "$src" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: randomkill $opt: compilation failed"; exit 1
fi

# The delays, in seconds.
awk -v seed="$seed" -v n="$runs" \
  'BEGIN { srand (seed); for (i = 0; i < n; i++)
             printf "%.3f\n", (3 + rand () * 497) / 1000 }' >"$tmp/delays"

t_returned=0 t_decoded=0 t_lost=0 t_extra=0 t_dup=0 t_wrong=0 t_beyond=0
t_disorder=0 t_badthread=0 t_torn=0 with_records=0 bad_runs=0 decode_errors=0 run=0
: >"$tmp/messages"
d=$tmp/run
while read -r delay; do
  run=$((run + 1))
  rm -rf "$d" && mkdir "$d" || exit 1
  (cd "$d" && CCE_LOG=$d/log && export CCE_LOG &&
   exec "$exe" "$d/counts") >"$d/out" 2>"$d/err" &
  pid=$!
  sleep "$delay"
  kill -s KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null       # the shell's "Killed": expected, not news
  st=$?
  crash_counts "$d/counts" $nthreads >"$d/counts.txt"
  if [ -f "$d/log" ]; then
    "$CCE_DECODE" --format=records "$exe" "$d/log" >"$d/decoded" 2>"$d/decode.err"
    dst=$?
  else
    : >"$d/decoded"; : >"$d/decode.err"
    dst=0
  fi
  logged=0 decoded=0 lost=0 extra=0 dup=0 wrong=0 beyond=0 disorder=0 badthread=0
  crash_check extra1 "$d/counts.txt" "$d/decoded" || exit 1
  # What the decoder said, numbers left out, counted by kind; and the
  # torn records it reports.
  sed 's|'"$d"'/||g; s/[0-9][0-9]*/N/g' "$d/decode.err" >>"$tmp/messages"
  torn=$(awk '/torn/ { for (i = 1; i <= NF; i++)
                         if ($i ~ /^[0-9]+$/) { n += $i; break } }
              END { print n + 0 }' "$d/decode.err")
  [ "$dst" = 0 ] || decode_errors=$((decode_errors + 1))
  [ "$logged" -eq 0 ] || with_records=$((with_records + 1))
  t_returned=$((t_returned + logged)) t_decoded=$((t_decoded + decoded))
  t_lost=$((t_lost + lost)) t_extra=$((t_extra + extra)) t_dup=$((t_dup + dup))
  t_wrong=$((t_wrong + wrong)) t_beyond=$((t_beyond + beyond))
  t_disorder=$((t_disorder + disorder)) t_badthread=$((t_badthread + badthread)) t_torn=$((t_torn + torn))
  why=
  [ "$(crash_end $st)" = "signal KILL" ] \
    || why="ended with $(crash_end $st), not SIGKILL"
  case $dst in
    0|2) ;;
    *) why="${why:+$why; }cce-decode exit status $dst" ;;
  esac
  if [ "$lost" -ne 0 ] || [ "$dup" -ne 0 ] || [ "$wrong" -ne 0 ] ||
     [ "$beyond" -ne 0 ] || [ "$disorder" -ne 0 ] || [ "$badthread" -ne 0 ]; then
    why="${why:+$why; }lost $lost, duplicated $dup, wrong path $wrong, unaccounted $beyond, out of order $disorder, thread numbers $badthread"
  fi
  if [ -n "$why" ]; then
    bad_runs=$((bad_runs + 1))
    if [ "$bad_runs" -le 5 ]; then
      echo "FAIL: randomkill run $run (killed after ${delay}s): returned $logged, decoded $decoded: $why"
      sed 's/^/    /' "$tmp/details"
      head -n 3 "$d/decode.err" | sed 's/^/    cce-decode: /'
      head -n 3 "$d/err" | sed 's/^/    program: /'
    fi
  fi
done <"$tmp/delays"
[ "$bad_runs" -le 5 ] || echo "... and $((bad_runs - 5)) more failed runs"

echo "== randomkill $opt: $run runs killed with SIGKILL, $with_records with records ($(($(date +%s) - t_start))s)"
echo "   records returned (cce_log returned before the kill): $t_returned"
echo "   records decoded:                                       $t_decoded"
echo "   records returned but not decoded (lost):               $t_lost"
[ "$t_returned" -eq 0 ] ||
  echo "   lost / returned:                                       $(awk -v l="$t_lost" -v r="$t_returned" 'BEGIN { printf "%.1f%%", 100 * l / r }')"
echo "   records decoded beyond their count (at most 1/thread): $t_extra"
echo "   records decoded with a wrong path:                     $t_wrong"
echo "   records decoded twice:                                 $t_dup"
echo "   records no count accounts for:                         $t_beyond"
echo "   records out of their thread's order:                   $t_disorder"
echo "   records with another thread's number:                  $t_badthread"
echo "   torn records reported by cce-decode:                   $t_torn"
echo "   runs where cce-decode exited non-zero:                 $decode_errors"
if [ -s "$tmp/messages" ]; then
  echo "   cce-decode's messages (numbers as N), by count:"
  sort "$tmp/messages" | uniq -c | sort -rn | head -n 10 | sed 's/^/     /'
fi
status=0
if [ "$with_records" -lt $((run / 4)) ] || [ "$t_returned" -eq 0 ]; then
  echo "FAIL: randomkill: only $with_records of $run runs had logged anything"
  status=1
fi
if [ "$bad_runs" -ne 0 ]; then
  echo "FAIL: randomkill: $bad_runs of $run runs failed"
  status=1
fi
[ "$status" -ne 0 ] || echo "PASS: randomkill: $run runs, every returned record decoded with its path"
exit $status
