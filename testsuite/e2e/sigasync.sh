#!/bin/sh
# sigasync.sh -- asynchronous signals (see sigasync.c).  Not a plain
# oracle comparison, since the number and place of the alarms differ
# between runs:
#   - the records of the program itself (tags < 100, and the synchronous
#     SIGUSR1 handler's, tag 200) must equal the gdb oracle's, taken from a
#     run without the timer;
#   - every alarm record (tag 100) must end in "[signal];on_alarm;note",
#     the handler's part, below the interrupted context: a path from
#     main (the PC map placed the interrupted instruction) or one marked
#     "[incomplete]" (where it cannot; asynctick.sh checks the placed
#     ones against gdb), or "[incomplete];on_alarm;note" where the
#     runtime could not place the interrupted instruction at all;
#   - there must be at least 5 of them, and the program must not crash.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

[ -n "$GDB" ] && command -v "$GDB" >/dev/null 2>&1 \
  || { echo "SKIP: sigasync: no gdb"; exit 77; }
e2e_tmpdir sigasync || exit 1

src=$here/sigasync.c
$CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$src" -o "$tmp/prog.O0" \
  -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce || { echo "ERROR: -O0 build"; exit 1; }
(cd "$tmp" && CCE_TEST_NO_TIMER=1 CCE_LOG="$tmp/O0.log" \
   CCE_ORACLE_OUT="$tmp/oracle.txt" \
   timeout 600 "$GDB" -q -batch -nx -x "$here/oracle.py" --args "$tmp/prog.O0") \
  >"$tmp/gdb.log" 2>&1 || { tail -n 20 "$tmp/gdb.log"; echo "ERROR: oracle"; exit 1; }
cut -f2- "$tmp/oracle.txt" >"$tmp/expected"
[ -s "$tmp/expected" ] || { echo "ERROR: the oracle saw nothing"; exit 1; }

failed=0 passed=0
for v in "O2:" "O2:-flto-partition=none" "O3:" \
         "O2:-fplugin-arg-cce-idreg -fplugin-arg-cce-observe-all"; do
  opt=${v%%:*} pflag=${v#*:}
  tag="sigasync -$opt ${pflag:-(default partitioning)}"
  exe=$tmp/prog.$opt
  if ! cce_cc -"$opt" $pflag "$src" -o "$exe" >"$tmp/cc.log" 2>&1; then
    head -n 30 "$tmp/cc.log"; echo "FAIL: $tag: compilation failed"
    failed=$((failed + 1)); continue
  fi
  rm -f "$tmp/run.log"
  if ! (cd "$tmp" && CCE_LOG="$tmp/run.log" timeout 120 "$exe"); then
    echo "FAIL: $tag: the program failed"; failed=$((failed + 1)); continue
  fi
  "$CCE_DECODE" --format=records "$exe" "$tmp/run.log" >"$tmp/decoded" \
    || { echo "FAIL: $tag: cce-decode failed"; failed=$((failed + 1)); continue; }
  awk -F '\t' '$2 != 100' "$tmp/decoded" | cut -f2- >"$tmp/own"
  awk -F '\t' '$2 == 100' "$tmp/decoded" >"$tmp/alarm"
  n_alarm=$(wc -l <"$tmp/alarm")
  bad=$(awk -F '\t' '$3 !~ /^(main|\[incomplete\]);(.*;)?\[signal\];on_alarm;note$/ &&
                     $3 != "[incomplete];on_alarm;note"' "$tmp/alarm" | head -n 5)
  n_placed=$(awk -F '\t' '$3 ~ /^main;/' "$tmp/alarm" | wc -l)
  if ! diff -u "$tmp/expected" "$tmp/own" >"$tmp/diff"; then
    head -n 30 "$tmp/diff"
    echo "FAIL: $tag: the program's own records differ from the oracle"
    failed=$((failed + 1))
  elif [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: $tag: alarm records are not [incomplete] or [signal] below on_alarm;note"
    failed=$((failed + 1))
  elif [ "$n_alarm" -lt 5 ]; then
    echo "FAIL: $tag: only $n_alarm alarm records"
    failed=$((failed + 1))
  else
    echo "PASS: $tag: $(wc -l <"$tmp/own") contexts match, $n_alarm alarm records ($n_placed placed below the signal)"
    passed=$((passed + 1))
  fi
done
echo "== sigasync: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
