#!/bin/sh
# forkkill.sh -- fork, exec and threads: the records of a fork child
# killed with SIGKILL are in its own log, and the parent's in the
# parent's, however the parent ends.
#
# forkkill.c: the parent's main thread and two threads log, the main
# thread forks; the child logs from the forking thread and from a thread
# of its own, and kills itself with SIGKILL while that thread is alive;
# the parent waits for it, logs again, and ends in way W: a return from
# main (exit), SIGKILL sent to itself (kill), or execv of /bin/true
# (exec), its threads alive.  For each W:
#   - the child's log is $CCE_LOG.PID, PID the child's, and there is no
#     other file but the parent's $CCE_LOG;
#   - the parent's log holds exactly the parent's records and the child's
#     exactly the child's: every tag once, each thread's in the order it
#     made them, each with the path gdb saw for
#     it (oracle.py on an -O0 build without cce, the program run without
#     the fork, its child's part run in place -- the same calls);
#   - the forking thread has the same thread number in both logs, and the
#     child's new thread a number that none of the parent's threads had.
#
# Knobs: FORKKILL_N (records per thread, default 200), FORKKILL_OPT (the
# cce build's flags, default -O2), E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb forkkill
e2e_tmpdir forkkill || exit 1
ulimit -c 0 2>/dev/null

n=${FORKKILL_N:-200}
opt=${FORKKILL_OPT:--O2}
src=$here/forkkill.c
t_start=$(date +%s)

# The oracle: every record, each tag once.  Thread indexes 0-2 are the
# parent's, 3-4 the child's; without the fork, 0 and 3 are one thread:
# gdb sees 4.
$CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$src" -o "$tmp/prog.O0" -pthread \
  -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce >"$tmp/cc.O0.log" 2>&1 \
  || { cat "$tmp/cc.O0.log"; echo "ERROR: the -O0 build failed"; exit 1; }
mkdir "$tmp/oracle" || exit 1
(cd "$tmp/oracle" && CCE_LOG="$tmp/oracle/O0.log" CCE_ORACLE_OUT="$tmp/oracle.txt" \
   timeout 600 "$GDB" -q -batch -nx -x "$here/oracle.py" \
   --args "$tmp/prog.O0" oracle "$n") >"$tmp/gdb.log" 2>&1 \
  || { tail -n 20 "$tmp/gdb.log"; echo "ERROR: the oracle failed"; exit 1; }
grep '^oracle:' "$tmp/gdb.log"
awk -F '\t' '$2 < 3 * 1048576 { print $2 "\t" $3 }' "$tmp/oracle.txt" \
  | LC_ALL=C sort >"$tmp/expected.parent"
awk -F '\t' '$2 >= 3 * 1048576 { print $2 "\t" $3 }' "$tmp/oracle.txt" \
  | LC_ALL=C sort >"$tmp/expected.child"
np=$(wc -l <"$tmp/expected.parent") nc=$(wc -l <"$tmp/expected.child")
if [ "$np" -ne $((4 * n)) ] || [ "$nc" -ne $((2 * n)) ] ||
   [ "$(cut -f1 "$tmp/oracle.txt" | LC_ALL=C sort -u | wc -l)" -ne 4 ]; then
  echo "ERROR: the oracle saw $np records of the parent, $nc of the child"
  exit 1
fi

exe=$tmp/forkkill
if ! cce_cc $opt "$src" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: forkkill $opt: compilation failed"; exit 1
fi

# decode LOG OUT: the log's records, tag and path, sorted; the thread
# number of each thread index in OUT.threads; the records that come after
# a later record of their thread in OUT.disorder.  Prints nothing on
# stdout; returns cce-decode's exit status (1 if LOG is not there).
decode () {
  : >"$2"; : >"$2.threads"; : >"$2.disorder"
  [ -f "$1" ] || return 1
  "$CCE_DECODE" --format=records "$exe" "$1" >"$2.raw" 2>"$2.err"
  _st=$?
  cut -f2- "$2.raw" | LC_ALL=C sort >"$2"
  awk -F '\t' '{ print int ($2 / 1048576) "\t" $1 }' "$2.raw" \
    | LC_ALL=C sort -u >"$2.threads"
  awk -F '\t' '{ t = int ($2 / 1048576); s = $2 % 1048576
                 if ((t in last) && s <= last[t]) print
                 last[t] = s }' "$2.raw" >"$2.disorder"
  return $_st
}

# tnum THREADS I: the thread number of thread index I in THREADS.
tnum () { awk -F '\t' -v i="$2" '$1 == i { print $2 }' "$1"; }

failed=0 passed=0
printf '%-5s %14s %14s  %s\n' way parent child result >"$tmp/table"
for way in exit kill exec; do
  d=$tmp/$way
  mkdir "$d" || exit 1
  (cd "$d" && CCE_LOG=$d/log && export CCE_LOG && exec "$exe" "$way" "$n") \
    >"$d/out" 2>"$d/err" &
  pid=$!
  wait "$pid" 2>/dev/null
  st=$?
  why=
  case $way in
    kill) want="signal KILL" ;;
    *) want="status 0" ;;
  esac
  [ "$(crash_end $st)" = "$want" ] || why="the parent ended with $(crash_end $st), not $want"
  child=$(sed -n 's/^child \([0-9]*\) killed by SIGKILL$/\1/p' "$d/out")
  if [ -z "$child" ]; then
    why="${why:+$why; }the child was not killed by SIGKILL: $(head -n 1 "$d/out")"
    child=none
  fi
  others=$(cd "$d" && ls | grep '^log' | grep -v -x -e log -e "log\.$child")
  [ -z "$others" ] || why="${why:+$why; }unexpected files: $(echo $others)"

  decode "$d/log" "$d/parent"; pst=$?
  decode "$d/log.$child" "$d/child"; cst=$?
  pdec=$(wc -l <"$d/parent") cdec=$(wc -l <"$d/child")
  [ -f "$d/log" ] || why="${why:+$why; }no parent log"
  [ -f "$d/log.$child" ] || why="${why:+$why; }no log.$child"
  [ "$pst" -eq 0 ] || [ ! -f "$d/log" ] || why="${why:+$why; }cce-decode of the parent's log: exit status $pst"
  [ "$cst" -eq 0 ] || [ ! -f "$d/log.$child" ] || why="${why:+$why; }cce-decode of the child's log: exit status $cst"
  for who in parent child; do
    if ! diff "$tmp/expected.$who" "$d/$who" >"$d/$who.diff"; then
      why="${why:+$why; }the $who's records differ from the oracle's ($(grep -c '^<' "$d/$who.diff") missing, $(grep -c '^>' "$d/$who.diff") unexpected)"
    fi
  done
  for who in parent child; do
    [ ! -s "$d/$who.disorder" ] ||
      why="${why:+$why; }$(wc -l <"$d/$who.disorder") records of the $who out of their thread's order"
  done
  # Thread numbers: the forking thread (indexes 0 and 3) keeps its
  # number; the child's new thread (4) gets one the parent's threads
  # (0-2) do not have.
  if [ -s "$d/parent.threads" ] && [ -s "$d/child.threads" ]; then
    main_p=$(tnum "$d/parent.threads" 0) main_c=$(tnum "$d/child.threads" 3)
    new_c=$(tnum "$d/child.threads" 4)
    [ "$main_p" = "$main_c" ] ||
      why="${why:+$why; }the forking thread is thread $main_p in the parent's log, $main_c in the child's"
    if awk -F '\t' -v t="$new_c" '$1 <= 2 && $2 == t { f = 1 } END { exit !f }' \
         "$d/parent.threads"; then
      why="${why:+$why; }the child's new thread has a number of the parent's, $new_c"
    fi
  fi
  if [ -z "$why" ]; then
    result=PASS passed=$((passed + 1))
  else
    result=FAIL failed=$((failed + 1))
    echo "FAIL: forkkill $way: $why"
    for who in parent child; do
      head -n 6 "$d/$who.diff" | sed "s/^/    $who: /"
      [ ! -s "$d/$who.err" ] || head -n 3 "$d/$who.err" | sed "s/^/    cce-decode ($who): /"
    done
    head -n 3 "$d/err" | sed 's/^/    program: /'
  fi
  printf '%-5s %14s %14s  %s\n' "$way" "$pdec/$np" "$cdec/$nc" "$result" >>"$tmp/table"
done

echo "== forkkill $opt, records decoded/logged:"
cat "$tmp/table"
echo "== forkkill: $passed passed, $failed failed ($(($(date +%s) - t_start))s)"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
