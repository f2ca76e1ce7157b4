#!/bin/sh
# End-to-end test: the guess program against the gdb oracle (see
# run-e2e.sh), then a check that the plugin guessed what it should: in its
# dump (-fplugin-arg-cce-dump=FILE), the call through call_cmp's parameter
# must have exactly two guessed targets, key_cmp and key_cmp_rev, the only
# functions of its type (four more take two pointers and return an int),
# and the call through hooks_now's field exactly one, hook_a, the function
# of that variable's initializer (four variables fill the field).
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
guesses_of () {
  awk -v fn="$1" '
    $1 == "node" { name[$2] = $3; sub(/\..*/, "", name[$2]) }
    $1 == "site" && /guessed target/ { caller[NR] = $5; callee[NR] = $10 }
    END {
      for (r in caller)
        if (name[caller[r]] == fn) print name[callee[r]]
    }' "$tmp/prog.cce" | sort | tr '\n' ' ' | sed 's/ $//'
}
check_guesses () {
  got=$(guesses_of "$1")
  if [ "$got" = "$2" ]; then
    echo "PASS: guess dump: $1 guesses $got"
  else
    echo "FAIL: guess dump: $1 guesses '$got', not $2 ($3)"
    exit 1
  fi
}
check_guesses call_cmp "key_cmp key_cmp_rev" "the only functions of its type"
check_guesses call_hook "hook_a" \
  "the function of the variable's own initializer"
exit $st
