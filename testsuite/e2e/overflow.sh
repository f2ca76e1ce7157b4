#!/bin/sh
# End-to-end test: the overflow program (gen-overflow.sh: 2^80 contexts)
# against the gdb oracle (see run-e2e.sh), then a check that the plugin
# did cut edges for overflow: its dump (-fplugin-arg-cce-dump=FILE) must
# report "overflow cuts N" with N > 0.
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/run-e2e.sh" overflow
st=$?

. "$here/env.sh"
e2e_tmpdir overflow-dump || exit 1
dump_ok=no
if sh "$here/gen-overflow.sh" "$tmp/src" \
   && sh "$CCE_CC" -O2 "$tmp/src/overflow.c" -o "$tmp/prog" \
        -fplugin-arg-cce-dump="$tmp/prog.cce" >"$tmp/cc.log" 2>&1; then
  cuts=$(sed -n 's/.*overflow cuts \([0-9][0-9]*\).*/\1/p' "$tmp/prog.cce" \
         | head -n 1)
  if [ -n "$cuts" ] && [ "$cuts" -gt 0 ]; then
    echo "PASS: overflow dump: $cuts overflow cuts"
    dump_ok=yes
  else
    head -n 2 "$tmp/prog.cce"
    echo "FAIL: overflow dump: no overflow cut reported"
  fi
else
  head -n 40 "$tmp/cc.log"
  echo "FAIL: overflow dump: the build with -fplugin-arg-cce-dump failed"
fi
[ $dump_ok = yes ] || exit 1
exit $st
