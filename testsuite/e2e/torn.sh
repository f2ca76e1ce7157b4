#!/bin/sh
# torn.sh -- a record the process dies in the middle of is torn: skipped,
# counted and never decoded, and every record before it decodes.
#
# torn.c logs N records and then one more; gdb (torn.py) kills it at the
# store of that record's mark, when everything else of the record is
# written.  cce-decode must print the N records, say in one line that it
# skipped 1 torn record, and exit 0.  The records must be those gdb sees
# at each cce_log of an -O0 build (oracle.py), but for the torn last one.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
if ! command -v "$GDB" > /dev/null 2>&1; then
  echo "SKIP: torn: no gdb (apt-get install gdb)"; exit 77
fi
if ! "$GDB" -q -batch -nx -ex 'python print(1)' > /dev/null 2>&1; then
  echo "SKIP: torn: gdb has no Python"; exit 77
fi
e2e_tmpdir torn || exit 1

n=100
e2e_oracle "$here/torn.c" "$tmp/oracle.txt" $n || exit 1
if ! cce_cc -O2 "$here/torn.c" -o "$tmp/torn" >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: torn: compilation failed"; exit 1
fi
TORN_N=$n CCE_LOG=$tmp/log timeout -k 10 300 "$GDB" -q -batch -nx \
  -x "$here/torn.py" --args "$tmp/torn" $n > "$tmp/gdb.out" 2>&1
cat "$tmp/gdb.out"
grep -q "torn.py: killed at" "$tmp/gdb.out" || {
  echo "FAIL: torn: gdb did not stop at the store of the mark"; exit 1; }

"$CCE_DECODE" --format=records "$tmp/torn" "$tmp/log" > "$tmp/records" \
  2> "$tmp/err"
st=$?
cat "$tmp/err"
status=0
[ $st -eq 0 ] || { echo "FAIL: torn: cce-decode exited $st"; status=1; }
# One line on stderr, with the count.
if [ "$(wc -l < "$tmp/err")" -ne 1 ] ||
   ! grep -q ": 1 torn record skipped" "$tmp/err"; then
  echo "FAIL: torn: cce-decode did not say that it skipped 1 torn record"
  status=1
fi
# The N complete records, each as gdb saw it in the -O0 build (the torn
# one nowhere).
head -n $n "$tmp/oracle.txt" > "$tmp/expected"
if [ "$(wc -l < "$tmp/expected")" -ne $n ]; then
  echo "FAIL: torn: the oracle saw fewer than $n records"; status=1
elif ! diff "$tmp/expected" "$tmp/records"; then
  echo "FAIL: torn: the decoded records differ from gdb's"; status=1
fi
[ $status -ne 0 ] || echo "PASS: torn: $n records decoded, the torn one skipped and counted"
exit $status
