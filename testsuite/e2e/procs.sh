#!/bin/sh
# procs.sh -- processes around a program built with cce (procs.c):
#   - a vfork child that resets a signal handler before it execs leaves
#     its parent's handler alone;
#   - processes that have the same CCE_LOG open at once do not kill one
#     another: the first to open the file has it, each other one writes
#     $CCE_LOG.PID, and every record of every process decodes.
#
# Knobs: E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir procs || exit 1

exe=$tmp/procs
cce_cc -O2 -o "$exe" "$here/procs.c" >"$tmp/cc.log" 2>&1 || {
  echo "FAIL: procs: compilation failed"; cat "$tmp/cc.log"; exit 1; }
fail=0

out=$(CCE_LOG=/dev/null "$exe" vfork); st=$?
if [ "$st" = 0 ] && [ "$out" = "handler ran" ]; then
  echo "PASS: procs vfork: the parent's handler ran"
else
  echo "FAIL: procs vfork: $out (exit $st)"; fail=1
fi

# Three processes at once, 20 times, each logging 20,000 records into
# the same file and keeping it open until all three have: none may die,
# and the records of all decode.
n=20000 rounds=20 bad=0
for r in $(seq $rounds); do
  d=$tmp/r$r s=$tmp/s$r
  mkdir -p "$d" "$s"
  CCE_LOG=$d/log "$exe" log $n "$s" & p1=$!
  CCE_LOG=$d/log "$exe" log $n "$s" & p2=$!
  CCE_LOG=$d/log "$exe" log $n "$s" & p3=$!
  for t in $(seq 600); do
    [ $(ls "$s" | grep -c '^ready\.') -ge 3 ] && break
    sleep 0.1
  done
  touch "$s/go"
  for p in $p1 $p2 $p3; do
    wait $p || { echo "FAIL: procs log: round $r: a process exited with $?"; bad=1; }
  done
  total=0
  for f in "$d"/log*; do
    c=$("$CCE_DECODE" --format=records "$exe" "$f" 2>"$tmp/dec.err" | wc -l)
    [ -s "$tmp/dec.err" ] && { echo "FAIL: procs log: round $r: $f:"; cat "$tmp/dec.err"; bad=1; }
    total=$((total + c))
  done
  [ "$total" = $((3 * n)) ] ||
    { echo "FAIL: procs log: round $r: $total records decoded, want $((3 * n))"; bad=1; }
done
if [ $bad = 0 ]; then
  echo "PASS: procs log: $rounds rounds of 3 processes sharing CCE_LOG, every record decoded"
else
  fail=1
fi
exit $fail
