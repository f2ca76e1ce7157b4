#!/bin/sh
# pcstep.sh -- the context at any instruction is exact, or marked
# incomplete, and never wrong: checked at every instruction a program
# executes, against gdb.
#
# pcstep.c (every kind of call site) is built with cce in the variants
# below.  pcstep.py runs each build under gdb one instruction at a time:
# at every instruction of the program it writes a record of that
# instruction, as the sampler would make it there (its PC word, the id
# and the ccStack of that moment), and the context gdb sees there (its
# backtrace: call frame information and inlined frames).  cce-decode
# decodes the records; each must be gdb's context, or "[incomplete]"
# followed by the innermost frames of gdb's context (exact as far as it
# goes).  With -fplugin-arg-cce-async and every call encoded
# (observe-all), a record may be incomplete only where the PC map says
# that the state is not known (after a call that returns twice).  The
# table "variant records exact incomplete transitional" goes to the log;
# transitional records are those of instructions where the id or the
# ccStack was not the function's own (the PC map's other states).
#
# Knobs: PCSTEP_VARIANTS (names from the list below), E2E_KEEP,
# E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb pcstep
e2e_tmpdir pcstep || exit 99

variants='
O2 -O2
O2-all -O2 -fplugin-arg-cce-observe-all
O2-async -O2 -fplugin-arg-cce-async
O2-async-all -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O3-async-all -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O2-async-all-none -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -flto-partition=none
O3-all-none -O3 -fplugin-arg-cce-observe-all -flto-partition=none
'
fail=0
printf '%-20s %8s %8s %10s %12s\n' variant records exact incomplete transitional
echo "$variants" | while read -r name flags; do
  [ -n "$name" ] || continue
  case " ${PCSTEP_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
  exe=$tmp/pcstep.$name
  if ! cce_cc $flags -g "$here/pcstep.c" -o "$exe" >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: $name: the build failed"; exit 1
  fi
  main=$(nm "$exe" | awk '$3 == "main" { print "0x" $1 }')
  if ! CCE_LOG=/dev/null CCE_PCSTEP_LOG="$tmp/$name.log" \
       CCE_PCSTEP_OUT="$tmp/$name.exp" CCE_PCSTEP_MAIN="$main" \
       timeout 600 "$GDB" -q -batch -nx -x "$here/pcstep.py" --args "$exe" \
       >"$tmp/gdb.log" 2>&1; then
    tail -n 20 "$tmp/gdb.log"; echo "FAIL: $name: the stepping failed"; exit 1
  fi
  if ! "$CCE_DECODE" --format=records "$exe" "$tmp/$name.log" \
       >"$tmp/$name.got" 2>"$tmp/decode.err"; then
    cat "$tmp/decode.err"; echo "FAIL: $name: cce-decode failed"; exit 1
  fi
  python3 "$here/pcmap.py" "$exe" states <"$tmp/$name.exp.addr" \
    >"$tmp/$name.states" || { echo "FAIL: $name: pcmap.py"; exit 1; }
  case $name in *async-all*) strict=1 ;; *) strict=0 ;; esac
  python3 - "$name" "$strict" "$tmp/$name.exp" "$tmp/$name.got" \
    "$tmp/$name.states" "$tmp/$name.exp.addr" <<'PY' || exit 1
import sys
name, strict = sys.argv[1], sys.argv[2] == "1"
exp = open(sys.argv[3]).read().splitlines()
got = open(sys.argv[4]).read().splitlines()
states = open(sys.argv[5]).read().splitlines()
addrs = open(sys.argv[6]).read().splitlines()
if not exp:
    sys.exit("FAIL: %s: gdb saw no instruction of the program" % name)
if len(got) != len(exp):
    sys.exit("FAIL: %s: %d records decoded, %d made" % (name, len(got),
                                                       len(exp)))
exact = incomplete = transitional = 0
bad = []
for e, g, s, a in zip(exp, got, states, addrs):
    if s not in ("OWN", "UNKNOWN", "NONE"):
        transitional += 1
    epath = e.split("\t")[2].split(";")
    gpath = g.split("\t")[2].split(";")
    if g == e:
        exact += 1
        continue
    if gpath[0] == "[incomplete]":
        known = gpath[1:]
        if known and epath[len(epath) - len(known):] == known:
            incomplete += 1
            if strict and s != "UNKNOWN":
                bad.append("incomplete where the state is %s at %s:\n"
                           "  gdb: %s\n  got: %s" % (s, a, e, g))
            continue
    bad.append("WRONG at %s (%s):\n  gdb: %s\n  got: %s" % (a, s, e, g))
print("%-20s %8d %8d %10d %12d" % (name, len(exp), exact, incomplete,
                                    transitional))
for b in bad[:20]:
    print("FAIL: %s: %s" % (name, b))
if bad:
    sys.exit("FAIL: %s: %d records not as gdb saw them" % (name, len(bad)))
if strict and transitional == 0:
    sys.exit("FAIL: %s: no instruction in a transitional state" % name)
PY
done || fail=1
[ $fail = 0 ] && echo "PASS: every record is gdb's context or incomplete"
exit $fail
