#!/bin/sh
# threadorigin.sh -- cce-decode --thread-origin against the gdb oracle.
# The program (threadorigin.c) logs tag K just before it creates the
# thread whose records have tags 100 * K + I.  From the oracle's records
# alone, the expected --thread-origin path of a thread's record is the
# creating record's path (itself expanded if its thread has an origin),
# then "pthread_create", "[thread]", then the record's own path; without
# the option, the records must equal the oracle's.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
[ -n "$GDB" ] && command -v "$GDB" >/dev/null 2>&1 \
  || { echo "SKIP: threadorigin: no gdb"; exit 77; }
command -v python3 >/dev/null 2>&1 \
  || { echo "SKIP: threadorigin: no python3"; exit 77; }
e2e_tmpdir threadorigin || exit 1

src=$here/threadorigin.c
$CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$src" -o "$tmp/prog.O0" -pthread \
  -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce || { echo "ERROR: -O0 build"; exit 1; }
(cd "$tmp" && CCE_LOG="$tmp/O0.log" CCE_ORACLE_OUT="$tmp/oracle.txt" \
   timeout 600 "$GDB" -q -batch -nx -x "$here/oracle.py" --args "$tmp/prog.O0") \
  >"$tmp/gdb.log" 2>&1 || { tail -n 20 "$tmp/gdb.log"; echo "ERROR: oracle"; exit 1; }

# Expected output of --thread-origin, by tag (tags are unique here).
python3 - "$tmp/oracle.txt" >"$tmp/expected" <<'PY' || { echo "ERROR: expectation"; exit 1; }
import sys
path, thread = {}, {}
for line in open(sys.argv[1]):
    t, tag, p = line.rstrip("\n").split("\t")
    path[int(tag)] = p
    thread[int(tag)] = t
# The tag K of the record logged just before each thread was created.
made_by = {thread[tag]: tag // 100 for tag in path if tag >= 100}
def full(tag):
    t = thread[tag]
    if t not in made_by:
        return path[tag]
    return full(made_by[t]) + ";pthread_create;[thread];" + path[tag]
for tag in sorted(path):
    print("%d\t%s" % (tag, full(tag)))
PY

failed=0 passed=0
for v in "O2:" "O2:-flto-partition=none" "O3:" \
         "O2:-fplugin-arg-cce-idreg -fplugin-arg-cce-observe-all"; do
  opt=${v%%:*} pflag=${v#*:}
  tag="threadorigin -$opt ${pflag:-(default partitioning)}"
  exe=$tmp/prog.$opt
  cce_cc -"$opt" $pflag "$src" -o "$exe" -pthread >"$tmp/cc.log" 2>&1 \
    || { head -n 30 "$tmp/cc.log"; echo "FAIL: $tag: compilation failed"; failed=$((failed + 1)); continue; }
  rm -f "$tmp/run.log"
  (cd "$tmp" && CCE_LOG="$tmp/run.log" timeout 60 "$exe") \
    || { echo "FAIL: $tag: the program failed"; failed=$((failed + 1)); continue; }
  "$CCE_DECODE" -f records "$exe" "$tmp/run.log" | cut -f2- | sort -n >"$tmp/plain"
  cut -f2- "$tmp/oracle.txt" | sort -n >"$tmp/oracle.sorted"
  "$CCE_DECODE" -f records --thread-origin "$exe" "$tmp/run.log" \
    | cut -f2- | sort -n >"$tmp/origin"
  if ! diff -u "$tmp/oracle.sorted" "$tmp/plain"; then
    echo "FAIL: $tag: records differ from the oracle"; failed=$((failed + 1))
  elif ! diff -u "$tmp/expected" "$tmp/origin"; then
    echo "FAIL: $tag: --thread-origin paths differ from the oracle's"; failed=$((failed + 1))
  else
    echo "PASS: $tag: $(wc -l <"$tmp/origin") contexts match, with and without --thread-origin"
    passed=$((passed + 1))
  fi
done
echo "== threadorigin: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
