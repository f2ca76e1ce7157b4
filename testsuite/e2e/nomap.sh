#!/bin/sh
# nomap.sh -- a log on a file system that cannot map files shared
# (nomap.c, preloaded, makes such an mmap fail with ENODEV) is written as
# a stream, one write per record: every record decodes, with the path gdb
# sees in an -O0 build (oracle.py), and nothing is said on stderr.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir nomap || exit 1

n=1000
if ! command -v "$GDB" > /dev/null 2>&1; then
  echo "SKIP: nomap: no gdb (apt-get install gdb)"; exit 77
fi
e2e_oracle "$here/torn.c" "$tmp/oracle.txt" $n || exit 1
if ! cce_cc -O2 "$here/torn.c" -o "$tmp/prog" >"$tmp/cc.log" 2>&1 ||
   ! ${CC:-gcc} -O2 -shared -fPIC -o "$tmp/nomap.so" "$here/nomap.c" -ldl \
     >>"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: nomap: compilation failed"; exit 1
fi
CCE_LOG=$tmp/log LD_PRELOAD=$tmp/nomap.so "$tmp/prog" $n 2>"$tmp/err"
st=$?
status=0
[ $st -eq 0 ] || { echo "FAIL: nomap: the program exited $st"; status=1; }
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; echo "FAIL: nomap: stderr"; status=1; }
"$CCE_DECODE" --format=records "$tmp/prog" "$tmp/log" > "$tmp/records" ||
  { echo "FAIL: nomap: cce-decode failed"; status=1; }
# Every record as gdb saw it at each cce_log of an -O0 build.
if ! diff "$tmp/oracle.txt" "$tmp/records"; then
  echo "FAIL: nomap: the decoded records differ from gdb's"; status=1
fi
[ $status -ne 0 ] || echo "PASS: nomap: $((n + 1)) records written as a stream decode as gdb saw them"
exit $status
