#!/bin/sh
# End-to-end test: the guess program against the gdb oracle (see
# run-e2e.sh), then a check that the plugin guessed what it should: in its
# dump (-fplugin-arg-cce-dump=FILE), the call through call_cmp's parameter
# must have exactly two guessed targets, key_cmp and key_cmp_rev, the only
# functions of its type (four more take two pointers and return an int).
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/run-e2e.sh" guess
st=$?

. "$here/env.sh"
e2e_tmpdir guess-dump || exit 1
if ! sh "$CCE_CC" -O2 "$here/guess.c" -o "$tmp/prog" \
       -fplugin-arg-cce-dump="$tmp/prog.cce" >"$tmp/cc.log" 2>&1; then
  head -n 40 "$tmp/cc.log"
  echo "FAIL: guess dump: the build with -fplugin-arg-cce-dump failed"
  exit 1
fi
# "node N NAME flags ..." and "site S in node N kind d -> node T ...
# (guessed target of indirect site I)".
got=$(awk '
  $1 == "node" { name[$2] = $3; sub(/\..*/, "", name[$2]) }
  $1 == "site" && /guessed target/ { caller[NR] = $5; callee[NR] = $10 }
  END {
    for (r in caller)
      if (name[caller[r]] == "call_cmp") print name[callee[r]]
  }' "$tmp/prog.cce" | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$got" = "key_cmp key_cmp_rev" ]; then
  echo "PASS: guess dump: call_cmp guesses $got"
else
  echo "FAIL: guess dump: call_cmp guesses '$got', not key_cmp and key_cmp_rev"
  exit 1
fi
exit $st
