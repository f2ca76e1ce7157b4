#!/bin/sh
# death.sh -- every record a process made is in its log, however the
# process ends.
#
# death.c starts T threads (T = 1, 4, 16) that log N records each along
# the paths of crashlog.h, and then dies in way W while its other threads
# are alive: a null write (SIGSEGV), a write beyond a truncated file
# mapping (SIGBUS), an integer division by zero (SIGFPE), __builtin_trap
# (SIGILL), abort, a failed assert, _exit, SIGKILL sent to itself,
# SIGKILL, SIGTERM and SIGINT from this script, SIGTERM and SIGINT
# raised (their default action), execv of /bin/true, and a return from
# main (the control).  In mode "idle" the threads have all logged their
# N records (a barrier) and wait; in mode "busy" (T > 1) all but the dying
# thread are still logging when it dies.
#
# For each way and T, the log is decoded (cce-decode --format=records) and
#   (a) the records decoded are the records logged: in idle mode exactly
#       T * N; in busy mode every record whose cce_log returned before the
#       death (the counts the threads keep in a shared file), and at most
#       one more per thread (logged, killed before its count was stored);
#   (b) each (thread index, seq) is there exactly once, a thread's
#       records in the order it made them, and the records of one thread
#       index carry one thread number;
#   (c) each record's path is the path gdb saw for its class (oracle.py
#       on an -O0 build without cce, run once), never one cce-decode
#       chose;
# (d) a death by a crash signal (segv, bus, fpe, ill, abort, assert) adds
#     exactly one crash record (tag CCE_TAG_SIGNAL + the signal, cce(3)
#     CCE_CRASH), and no other way adds one; crash records are left out
#     of (a)-(c), which are about the program's own records;
# the process must have died in the way asked (its exit status), and
# cce-decode must succeed (exit status 0; in idle mode with nothing on
# standard error: no record was being made at the death, so none can be
# torn).  The table "way threads mode logged decoded" goes to the test's
# log.
#
# Knobs: DEATH_N (records per thread, default 1000), DEATH_THREADS
# (default "1 4 16"), DEATH_WAYS (default: all), DEATH_OPT (the cce build's
# flags, default -O2), E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb death
crash_need_sleep death
e2e_tmpdir death || exit 1
ulimit -c 0 2>/dev/null

n=${DEATH_N:-1000}
thread_counts=${DEATH_THREADS:-"1 4 16"}
ways=${DEATH_WAYS:-"segv bus fpe ill abort assert _exit kill kill-ext term term-ext int int-ext exec return"}
opt=${DEATH_OPT:--O2}
src=$here/death.c
t_start=$(date +%s)

# The oracle: two threads, two records of each class each.
crash_oracle "$src" return 2 $((2 * crash_nclass)) idle \
  "$tmp/oracle/counts" "$tmp/oracle/ready" || exit 1

exe=$tmp/death
if ! cce_cc $opt "$src" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: death $opt: compilation failed"; exit 1
fi

# expect WAY: how the process must end.
expect () {
  case $1 in
    segv) echo "signal SEGV" ;;
    bus) echo "signal BUS" ;;
    fpe) echo "signal FPE" ;;
    ill) echo "signal ILL" ;;       # x86: __builtin_trap is ud2
    abort|assert) echo "signal ABRT" ;;
    _exit) echo "status 3" ;;
    kill|kill-ext) echo "signal KILL" ;;
    term|term-ext) echo "signal TERM" ;;
    int|int-ext) echo "signal INT" ;;
    exec|return) echo "status 0" ;;
  esac
}

failed=0 passed=0
printf '%-8s %7s %4s %8s %8s %6s  %s\n' way threads mode logged decoded lost \
  result >"$tmp/table"

# run WAY T MODE
run () {
  way=$1 t=$2 mode=$3
  what="$way T=$t $mode"
  d=$tmp/run
  rm -rf "$d" && mkdir "$d" || return 1
  case $way in
    *-ext) pway=wait ;;
    *) pway=$way ;;
  esac
  (cd "$d" && CCE_LOG=$d/log && export CCE_LOG &&
   exec "$exe" "$pway" "$t" "$n" "$mode" "$d/counts" "$d/ready") \
    >"$d/out" 2>"$d/err" &
  pid=$!
  case $way in
    *-ext)
      # Wait for the threads to be where MODE says, then send the signal.
      i=0
      while [ ! -e "$d/ready" ] && kill -0 "$pid" 2>/dev/null \
            && [ $i -lt 1200 ]; do
        sleep 0.05
        i=$((i + 1))
      done
      sig=$(echo "${way%-ext}" | tr a-z A-Z)
      kill -s "$sig" "$pid" 2>/dev/null
      ;;
  esac
  wait "$pid" 2>/dev/null       # the shell's report: the table says it
  st=$?
  ended=$(crash_end $st)
  result=PASS why=
  if [ "$ended" != "$(expect "$way")" ]; then
    result=FAIL why="ended with $ended, not $(expect "$way")"
  fi
  crash_counts "$d/counts" "$t" >"$d/counts.txt"
  if [ -f "$d/log" ]; then
    "$CCE_DECODE" --format=records "$exe" "$d/log" >"$d/decoded" 2>"$d/decode.err"
    dst=$?
  else
    : >"$d/decoded"
    echo "(no log file)" >"$d/decode.err"
    dst=none
  fi
  # Crash records (tags from CCE_TAG_SIGNAL, cce-format.h) apart.
  awk -F '\t' '$2 ~ /^[0-9]+$/ && $2 < 4292870144' "$d/decoded" >"$d/own"
  ncrash=$(awk -F '\t' '!($2 ~ /^[0-9]+$/ && $2 < 4292870144)' "$d/decoded" | wc -l)
  case $way in
    segv|bus|fpe|ill|abort|assert) wcrash=1 ;;
    *) wcrash=0 ;;
  esac
  if [ "$ncrash" -ne "$wcrash" ]; then
    result=FAIL why="${why:+$why; }$ncrash crash records, not $wcrash"
  fi
  logged=0 decoded=0 lost=0 extra=0 dup=0 wrong=0 beyond=0 disorder=0 badthread=0
  crash_check "$([ "$mode" = idle ] && echo exact || echo extra1)" \
    "$d/counts.txt" "$d/own" || { result=FAIL why="${why:+$why; }check failed"; }
  if [ "$mode" = idle ] &&
     awk -F '\t' -v n="$n" '$2 != n { bad = 1 } END { exit !bad }' \
       "$d/counts.txt"; then
    result=FAIL why="${why:+$why; }the threads did not log $n records each"
  fi
  # A count of 0 logged is the program's failure, never a pass.
  [ "${logged:-0}" -gt 0 ] || { result=FAIL why="${why:+$why; }nothing logged"; }
  if [ "$lost" -ne 0 ] || [ "$dup" -ne 0 ] || [ "$wrong" -ne 0 ] ||
     [ "$beyond" -ne 0 ] || [ "$disorder" -ne 0 ] || [ "$badthread" -ne 0 ]; then
    result=FAIL
    why="${why:+$why; }lost $lost, duplicated $dup, wrong path $wrong, unaccounted $beyond, out of order $disorder, thread numbers $badthread"
  fi
  if [ "$dst" = none ]; then
    result=FAIL why="${why:+$why; }no log file"
  elif [ "$dst" != 0 ]; then
    result=FAIL why="${why:+$why; }cce-decode exit status $dst"
  elif [ "$mode" = idle ] && [ -s "$d/decode.err" ]; then
    result=FAIL why="${why:+$why; }cce-decode wrote to stderr"
  fi
  printf '%-8s %7s %4s %8s %8s %6s  %s\n' "$way" "$t" "$mode" "$logged" \
    "$decoded" "$lost" "$result" >>"$tmp/table"
  if [ $result = PASS ]; then
    passed=$((passed + 1))
  else
    echo "FAIL: death $what: $why"
    sed "s/^/    /" "$tmp/details"
    head -n 3 "$d/decode.err" | sed 's/^/    cce-decode: /'
    head -n 3 "$d/err" | sed 's/^/    program: /'
    failed=$((failed + 1))
  fi
}

for t in $thread_counts; do
  for way in $ways; do
    run "$way" "$t" idle
  done
  [ "$t" -gt 1 ] || continue
  for way in $ways; do
    run "$way" "$t" busy
  done
done

echo "== death $opt, $n records per thread:"
cat "$tmp/table"
echo "== death: $passed passed, $failed failed ($(($(date +%s) - t_start))s)"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
