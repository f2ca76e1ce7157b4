#!/bin/sh
# crashctx.sh -- the context of a crash record is exact, or marked
# incomplete, and never wrong: checked against gdb in the same run as
# the log.
#
# crashctx.c, built with cce in the variants below, dies in each way
# below under gdb (crashctx.py): gdb stops when the kernel is about to
# deliver the fatal signal, before libcce's handler runs, and writes the
# context of the thread there (its backtrace, inlined frames included)
# and the instruction's address; then it passes the signal on, so that
# libcce logs the crash record and the process dies of it.  cce-decode
# decodes the log, which must hold exactly one crash record, tagged with
# gdb's signal, whose PC word (read raw by pcrecords.py) is gdb's
# instruction (outside the program: CCE_PC_EXTERNAL, or CCE_PC_CALLER
# with the return address of the call out of the program that gdb's
# innermost frame of the program made); its path is
#   exact         gdb's context;
#   incomplete    "[incomplete]" followed by the innermost frames of
#                 gdb's context (exact as far as it goes);
#   outside       "[incomplete]" alone, for an instruction outside the
#                 program's code (abort's signal comes from inside the C
#                 library: a runtime that does not place it there gives
#                 this; one that does gives a path ending with abort);
#   WRONG         anything else: the test fails.
# With -fplugin-arg-cce-async and every call encoded (observe-all), a
# crash at an instruction of the program must be exact.  Paths are
# compared whole, frame by frame, the exhausted stack's too (some 1600
# frames); the table shows them run-length encoded (recurse_forever*1609),
# with the PC map's state at the instruction (at the call out of the
# program for one outside it).
#
#   way       signal  thread  where
#   segv      SEGV    main    store_through, called through a function
#                             pointer from reach, inlined into chain2
#   fpe       FPE     main    divide_via (integer division by zero), on
#                             the same path
#   abort     ABRT    main    the C library's abort, at the bottom of a
#                             recursion 61 frames deep
#   overflow  SEGV    second  recurse_forever (stack of 256 KiB exhausted)
#   qsort     SEGV    second  compare_faulting, a qsort comparator
#   tailcall  SEGV    main    the C library's strlen, called in tail
#                             position by tail_strlen: a jump there but
#                             under async, so that gdb's innermost frame
#                             of the program is main, and the decoder
#                             must not name a frame it cannot know
#
# Knobs: CRASHCTX_VARIANTS, CRASHCTX_WAYS, E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb crashctx
command -v python3 >/dev/null 2>&1 || { echo "SKIP: crashctx: no python3"; exit 77; }
e2e_tmpdir crashctx || exit 99

variants='
O2 -O2
O2-all -O2 -fplugin-arg-cce-observe-all
O2-all-noasync -O2 -fplugin-arg-cce-observe-all -fplugin-arg-cce-async=0
O2-async-all -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O3-async-all-none -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -flto-partition=none
O2-async-all-reg -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg
'
ways=${CRASHCTX_WAYS:-segv fpe abort overflow qsort tailcall}
failed=0 passed=0
printf '%-14s %-9s %-8s %-10s %-8s %s\n' \
  variant way signal result state "path (gdb; decoded if not the same)"
echo "$variants" | {
while read -r name flags; do
  [ -n "$name" ] || continue
  case " ${CRASHCTX_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
  exe=$tmp/crashctx.$name
  if ! cce_cc $flags -g "$here/crashctx.c" -o "$exe" -pthread \
       >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: $name: the build failed"
    failed=$((failed + 1)); continue
  fi
  main=$(nm "$exe" | awk '$3 == "main" { print "0x" $1 }')
  case $name in *noasync*) strict=0 ;; *-all*|*async*) strict=1 ;; *) strict=0 ;; esac
  for way in $ways; do
    d=$tmp/$name.$way
    mkdir -p "$d" || exit 99
    if ! (cd "$d" && CCE_LOG="$d/log" CCE_CRASHCTX_OUT="$d/exp" \
          CCE_CRASHCTX_MAIN="$main" \
          timeout 300 "$GDB" -q -batch -nx -x "$here/crashctx.py" \
          --args "$exe" "$way") >"$d/gdb.log" 2>&1; then
      tail -n 20 "$d/gdb.log"
      echo "FAIL: $name $way: the run under gdb failed"
      failed=$((failed + 1)); continue
    fi
    if ! "$CCE_DECODE" --format=records "$exe" "$d/log" >"$d/got" \
         2>"$d/decode.err"; then
      cat "$d/decode.err"; echo "FAIL: $name $way: cce-decode failed"
      failed=$((failed + 1)); continue
    fi
    python3 "$here/pcrecords.py" "$d/log" >"$d/raw" \
      || { echo "FAIL: $name $way: pcrecords.py"; failed=$((failed + 1)); continue; }
    # The state of the PC map at gdb's instruction; outside the program,
    # at the call out of it.
    cut -f 3 "$d/exp" \
      | python3 -c 'a = input(); print("0" if a == "-" else "%x"
          % (int(a[2:], 16) - 1) if a.startswith("-:") else a)' \
      | python3 "$here/pcmap.py" "$exe" states >"$d/state" \
      || { echo "FAIL: $name $way: pcmap.py"; failed=$((failed + 1)); continue; }
    if python3 - "$name $way" "$strict" "$d/exp" "$d/got" "$d/raw" \
         "$d/state" <<'PY'
import itertools
import sys

what, strict = sys.argv[1], sys.argv[2] == "1"
exp = open(sys.argv[3]).read().rstrip("\n").split("\t")
got = [l.split("\t") for l in open(sys.argv[4]).read().splitlines()]
raw = [l.split("\t") for l in open(sys.argv[5]).read().splitlines()]
state = open(sys.argv[6]).read().strip()
signal, epath, addr = exp
external = addr.startswith("-") or state == "NONE"


def rle(path):
    return ";".join("%s*%d" % (k, n) if n > 1 else k
                    for k, n in ((k, len(list(g)))
                                 for k, g in itertools.groupby(path)))


def result(verdict, why=""):
    line = "%-14s %-9s %-8s %-10s %-8s %s" % (
        what.split()[0], what.split()[1], signal, verdict, state,
        rle(e))
    if d != e:
        line += "\n%58s%s" % ("decoded: ", rle(d) if d else "-")
    print(line)
    if why:
        print("FAIL: %s: %s" % (what, why))
        sys.exit(1)
    sys.exit(0)


e, d = epath.split(";"), []
crash = [i for i, g in enumerate(got) if g[1].startswith("SIG")]
if len(crash) != 1 or len(got) != len(raw):
    result("-", "%d crash records (%d decoded, %d raw), not 1"
           % (len(crash), len(got), len(raw)))
i = crash[0]
d = got[i][2].split(";")
if got[i][1] != signal:
    result("-", "a record of %s, gdb stopped at %s" % (got[i][1], signal))
# The record's instruction, written as crashctx.py writes gdb's: a call
# out of the program (CCE_PC_CALLER) by its return address after "-:";
# CCE_PC_EXTERNAL (not placed) is "-", any instruction outside.
w = int(raw[i][2], 16)
if w >> 32 == 0xffffffff or not w & 0x80000000:
    waddr = "-"
else:
    waddr = ("-:" if w & 0x40000000 else "") + "%x" % (w & 0x3fffffff)
if waddr != addr and not (waddr == "-" and external):
    result("-", "the record is at %s, gdb stopped at %s" % (waddr, addr))
if d == e:
    result("exact")
if d[0] == "[incomplete]":
    known = d[1:]
    if known and e[len(e) - len(known):] == known:
        result("incomplete", "incomplete at an instruction of the program"
               " (state %s)" % state if strict and not external else "")
    if not known and external:
        result("outside")
result("WRONG", "the decoded path is not gdb's")
PY
    then passed=$((passed + 1))
    else failed=$((failed + 1))
    fi
  done
done
echo "== crashctx: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
