#!/bin/sh
# nomap.sh -- a log on a file system that cannot map files shared
# (nomap.c, preloaded, makes such an mmap fail with ENODEV) is written as
# a stream, one write per record: every record decodes, with its path,
# and nothing is said on stderr.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir nomap || exit 1

n=1000
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
# torn.c logs tags 0..N, alternating left and right, then N from left.
awk -F '\t' -v n=$n '
  { want = ($2 % 2 && $2 != n) ? "main;right;leaf" : "main;left;leaf"
    if ($2 != NR - 1 || $3 != want) {
      printf "FAIL: nomap: record %d is \"%s\"\n", NR, $0; bad = 1 } }
  END { if (NR != n + 1) { printf "FAIL: nomap: %d records, not %d\n", NR, n + 1
                           bad = 1 }
        exit bad }' "$tmp/records" || status=1
[ $status -ne 0 ] || echo "PASS: nomap: $((n + 1)) records written as a stream decode"
exit $status
