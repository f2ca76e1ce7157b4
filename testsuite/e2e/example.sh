#!/bin/sh
# example.sh -- examples/hello.expected, the decoded records that the
# tests of cce as installed (install.sh, cce-gcc.sh, installcheck) compare
# with, is what gdb sees: the example built at -O0 -g without the plugin
# and run under the oracle (oracle.py) gives exactly these records.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
[ -n "$GDB" ] && command -v "$GDB" >/dev/null 2>&1 \
  || { echo "SKIP: example: no gdb"; exit 77; }
e2e_tmpdir example || exit 1

ex=$CCE_SRCDIR/examples
$CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$ex/hello.c" "$ex/util.c" \
  -o "$tmp/hello" -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce \
  || { echo "ERROR: -O0 build"; exit 1; }
(cd "$tmp" && CCE_LOG="$tmp/O0.log" CCE_ORACLE_OUT="$tmp/oracle.txt" \
   timeout 600 "$GDB" -q -batch -nx -x "$here/oracle.py" --args "$tmp/hello") \
  >"$tmp/gdb.log" 2>&1 || { tail -n 20 "$tmp/gdb.log"; echo "ERROR: oracle"; exit 1; }
if diff -u "$ex/hello.expected" "$tmp/oracle.txt"; then
  echo "PASS: examples/hello.expected is gdb's ($(wc -l < "$tmp/oracle.txt") records)"
else
  echo "FAIL: examples/hello.expected differs from gdb's records"
  exit 1
fi
