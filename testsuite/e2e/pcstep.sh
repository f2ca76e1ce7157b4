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
# that the state is not known (after a call that returns twice, or after
# a self call of a function whose self tail calls became jumps, until the
# id is restored).  The
# table "variant records exact incomplete transitional" goes to the log;
# transitional records are those of instructions where the id or the
# ccStack was not the function's own (the PC map's other states).
#
# The same for random programs of the differential tester
# (testsuite/fuzz/fuzzgen.py) without threads: at -O2 in the default
# encoding, and at -O2 and -O3 with async and observe-all; and at -O2
# with async, observe-all and GCC's tail call passes, against the first
# of those as for tailjump.c below.
#
# Every build but those with GCC's tail call passes has
# -fno-optimize-sibling-calls: a call GCC turns into a jump (a tail call,
# a tail recursion made a loop) leaves no frame for gdb to see, while cce
# shows it, as the source has it.  Where the passes run, a record must be
# gdb's context but for frames gdb does not see (its innermost frame the
# same), and the source-level paths one after another must be those gdb
# saw in the build without them (where a run stops at PCSTEP_MAX, up to
# the shorter's).  And
# -fno-partial-inlining: where a split part (f.part.0) is inlined back
# into its function, GCC's debug information has an extra frame of the
# function, which gdb shows and the source does not have.
#
# Knobs: PCSTEP_VARIANTS (names from the list below), PCSTEP_SEEDS
# (fuzzgen seeds, default "3 7 23 42"), PCSTEP_MAX (the most instructions
# recorded per build, default 5000: the first ones from main on),
# E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb pcstep
e2e_tmpdir pcstep || exit 99

variants='
O2 -O2
O2-all -O2 -fplugin-arg-cce-observe-all
O2-all-noasync -O2 -fplugin-arg-cce-observe-all -fplugin-arg-cce-async=0
O2-async -O2 -fplugin-arg-cce-async
O2-async-all -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O3-async-all -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O2-async-all-none -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -flto-partition=none
O3-all-noasync-none -O3 -fplugin-arg-cce-observe-all -fplugin-arg-cce-async=0 -flto-partition=none
O2-async-all-fold1 -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-fold=1
O2-async-all-lp1 -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-local-pushes=1
O2-async-all-reg -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg
O3-async-all-reg-none -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg -flto-partition=none
O2-reg -O2 -fplugin-arg-cce-idreg
O2-async-all-reg-count -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg -fplugin-arg-cce-count
'
fail=0
printf '%-20s %8s %8s %10s %12s\n' variant records exact incomplete transitional

# check NAME EXE STRICT [REF [LOOPS]]: step through EXE and compare.  With
# REF (the oracle's records of a build whose tail calls stayed calls),
# EXE was built with GCC's tail call passes, whose jumps gdb sees fewer
# frames of: see tailjump below.  LOOPS=1: some must have become jumps.
check () {
  name=$1 exe=$2 strict=$3 ref=${4:-} need=${5:-0}
  main=$(nm "$exe" | awk '$3 == "main" { print "0x" $1 }')
  if ! CCE_LOG=/dev/null CCE_PCSTEP_LOG="$tmp/$name.log" \
       CCE_PCSTEP_MAX="${PCSTEP_MAX:-5000}" \
       CCE_PCSTEP_OUT="$tmp/$name.exp" CCE_PCSTEP_MAIN="$main" \
       timeout 600 "$GDB" -q -batch -nx -x "$here/pcstep.py" --args "$exe" \
       >"$tmp/gdb.log" 2>&1; then
    tail -n 20 "$tmp/gdb.log"; echo "FAIL: $name: the stepping failed"
    return 1
  fi
  if ! "$CCE_DECODE" --format=records "$exe" "$tmp/$name.log" \
       >"$tmp/$name.got" 2>"$tmp/decode.err"; then
    cat "$tmp/decode.err"; echo "FAIL: $name: cce-decode failed"; return 1
  fi
  python3 "$here/pcmap.py" "$exe" states <"$tmp/$name.exp.addr" \
    >"$tmp/$name.states" || { echo "FAIL: $name: pcmap.py"; return 1; }
  python3 - "$name" "$strict" "$tmp/$name.exp" "$tmp/$name.got" \
    "$tmp/$name.states" "$tmp/$name.exp.addr" "$ref" "$need" \
    "${PCSTEP_MAX:-5000}" <<'PY'
import sys
name, strict = sys.argv[1], sys.argv[2] == "1"
need, limit = sys.argv[8] == "1", int(sys.argv[9])
exp = open(sys.argv[3]).read().splitlines()
got = open(sys.argv[4]).read().splitlines()
states = open(sys.argv[5]).read().splitlines()
addrs = open(sys.argv[6]).read().splitlines()
ref = open(sys.argv[7]).read().splitlines() if sys.argv[7] else None


def collapse(path):
    """PATH with runs of one function as one frame: what gdb sees of a
    recursion whose self tail calls became jumps."""
    return [f for i, f in enumerate(path) if i == 0 or path[i - 1] != f]


def within(short, path):
    """Is SHORT PATH without some frames, the innermost kept: what gdb
    sees where tail calls became jumps (a sibling call leaves no frame of
    its caller, a loop one frame for its levels)?"""
    if not short or not path or short[-1] != path[-1]:
        return False
    it = iter(collapse(path))
    return all(f in it for f in collapse(short))


def changes(paths):
    """The paths one after another, each once per run of equal ones, and
    without the returns in between returns: where a self tail call stayed
    a call, its function returns at once when the call does, which a loop
    does in one return."""
    runs = [p for i, p in enumerate(paths) if i == 0 or paths[i - 1] != p]
    prefix = lambda a, b: len(a) < len(b) and b[:len(a)] == a
    return [p for i, p in enumerate(runs)
            if not (0 < i < len(runs) - 1 and prefix(p, runs[i - 1])
                    and prefix(runs[i + 1], p))]


loops = 0
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
    # Where self tail calls became loops, gdb's frame of one stands for
    # all its levels: the whole path is checked against REF below.
    if ref is not None and gpath[0] != "[incomplete]" \
            and within(epath, gpath):
        exact += 1
        loops += 1
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
if ref is not None:
    # The source-level paths, one after another, are those of the build
    # whose self tail calls stayed calls, as gdb saw them there; and gdb
    # saw fewer frames here at some instructions: loops were made.
    mine = changes([g.split("\t")[2].split(";") for g in got
                    if not g.split("\t")[2].startswith("[incomplete]")])
    theirs = changes([e.split("\t")[2].split(";") for e in ref])
    # Where a run stopped at the most records stepped, the shorter
    # sequence is a start of the other, but for its last path.
    if len(got) >= limit or len(ref) >= limit:
        n = min(len(mine), len(theirs)) - 1
        mine, theirs = mine[:n], theirs[:n]
    if mine != theirs:
        i = next((k for k, (a, b) in enumerate(zip(mine, theirs))
                  if a != b), min(len(mine), len(theirs)))
        bad.append("the paths differ from the calls' build at change %d:\n"
                   "  calls: %s\n  loops: %s"
                   % (i, ";".join(theirs[i]) if i < len(theirs) else "(end)",
                      ";".join(mine[i]) if i < len(mine) else "(end)"))
    if need and loops == 0:
        bad.append("no self tail call became a jump")
    print("%-20s %d records where gdb saw fewer frames, %d paths compared"
          % ("", loops, len(mine)))
for b in bad[:20]:
    print("FAIL: %s: %s" % (name, b))
if bad:
    sys.exit("FAIL: %s: %d records not as gdb saw them" % (name, len(bad)))
if strict and transitional == 0:
    sys.exit("FAIL: %s: no instruction in a transitional state" % name)
PY
}

# The hand-written program.
echo "$variants" | {
  while read -r name flags; do
    [ -n "$name" ] || continue
    case " ${PCSTEP_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
    exe=$tmp/pcstep.$name
    if ! cce_cc $flags -g -fno-optimize-sibling-calls -fno-partial-inlining \
         "$here/pcstep.c" \
         -o "$exe" >"$tmp/cc.log" 2>&1; then
      cat "$tmp/cc.log"; echo "FAIL: $name: the build failed"; exit 1
    fi
    case $name in *noasync*) strict=0 ;; *-all*|*async*) strict=1 ;; *) strict=0 ;; esac
    # The pushes of rarely's rare branch (its call of qsort and its two
    # calls through rare_ops) go out of line, but with idreg.
    case $name in
      *reg*) ;;
      *)
        if ! objdump -d "$exe" | awk '
             /^[0-9a-f]+ <rarely/ { f = 1; next }
             /^$/ { f = 0 }
             f && /jmp .*<__cce_push_keep_v[0-9]+@/ { n++ }
             END { exit !(n >= 3) }'; then
          echo "FAIL: $name: rarely's pushes are not out of line"
          exit 1
        fi ;;
    esac
    # Under async without idreg, direct calls with addition values add
    # them to the id word in place: the records above must cover some.
    case $name in
      *noasync*|*reg*) ;;
      *-all*|*async*)
        if ! objdump -d "$exe" | grep -Eq 'addq +\$0x[0-9a-f]+,%fs:'; then
          echo "FAIL: $name: no addition value added to the id word in place"
          exit 1
        fi
        # ... and between two of chained's calls one change of it.
        if ! objdump -d "$exe" | awk '
             /^[0-9a-f]+ <chained/ { f = 1; next }
             /^$/ { f = 0 }
             f && /call/ { n = 0 }
             f && /(add|sub)q +\$0x[0-9a-f]+,%fs:/ { seen++; if (++n > 1) bad = 1 }
             END { exit !(seen >= 3 && !bad) }'; then
          echo "FAIL: $name: chained's calls do not change the id word once each"
          exit 1
        fi
        # ... and never around no call: via_hook's guess of quiet.
        if objdump -d "$exe" | awk '
             /[ \t](add|sub)q +\$0x[0-9a-f]+,%fs:/ {
               v = $0; sub(/.*\$/, "", v); sub(/,.*/, "", v)
               if ($0 ~ /[ \t]subq / && add == v) bad = 1
               add = $0 ~ /[ \t]addq / ? v : ""; next }
             /call|jmp|ret/ { add = "" }
             END { exit !bad }'; then
          echo "FAIL: $name: the id word changes around no call"
          exit 1
        fi ;;
    esac
    check "$name" "$exe" $strict || exit 1
  done
} || fail=1

# Self tail calls that became jumps to the top of their function (loops),
# which the builds above forbid: gdb sees one frame for all the levels of
# such a loop, cce every level.  tailjump.c is built twice with async and
# every call encoded: once with -fno-optimize-sibling-calls (self tail
# calls stay calls, checked as above), once with GCC's tail call passes.
# In the second, each record must be gdb's context but for frames gdb
# does not see (a function's run of frames is one frame of a loop; its
# innermost frame the same), and the source-level paths one after
# another must be those that gdb saw in the first.
for v in "tailjump-O2 -O2" "tailjump-O3 -O3"; do
  set -- $v; vn=$1; shift
  case " ${PCSTEP_VARIANTS:-$vn} " in *" $vn "*) ;; *) continue ;; esac
  for tc in calls loops; do
    case $tc in calls) sib=-fno-optimize-sibling-calls ;; *) sib= ;; esac
    if ! cce_cc "$@" -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -g \
         $sib -fno-partial-inlining "$here/tailjump.c" -o "$tmp/$vn-$tc" \
         >"$tmp/cc.log" 2>&1; then
      cat "$tmp/cc.log"; echo "FAIL: $vn-$tc: the build failed"; fail=1
      continue 2
    fi
  done
  check "$vn-calls" "$tmp/$vn-calls" 1 || { fail=1; continue; }
  check "$vn-loops" "$tmp/$vn-loops" 1 "$tmp/$vn-calls.exp" 1 || fail=1
done

# Random programs of the differential tester (testsuite/fuzz), those
# without threads or a library built with cce: the default encoding and
# async, every call encoded.
for seed in ${PCSTEP_SEEDS-3 7 23 42}; do
  d=$tmp/gen$seed
  if ! python3 - "$seed" "$d" <<'PY' >"$tmp/gen.out" 2>&1; then
import os, sys
sys.path.insert(0, os.path.join(os.environ["CCE_SRCDIR"], "testsuite",
                                "fuzz"))
import fuzzgen
seed, d = int(sys.argv[1]), sys.argv[2]
model = fuzzgen.generate(seed)
ft = fuzzgen.features(model)
fuzzgen.write(model, d)
if ft["threads"] or ft["lc"]:
    print("skip")
else:
    print(" ".join(os.path.join(d, m + ".c") for m in ft["mods"]
                   if m.startswith("x")))
    print("lp" if ft["lp"] else "-")
    print("-rdynamic" if model.get("rdynamic") else "")
PY
    cat "$tmp/gen.out"; echo "FAIL: seed $seed: fuzzgen.py"; fail=1; continue
  fi
  test "$(sed -n 1p "$tmp/gen.out")" = skip && continue
  srcs=$(sed -n 1p "$tmp/gen.out")
  extra=$(sed -n 3p "$tmp/gen.out")
  if test "$(sed -n 2p "$tmp/gen.out")" = lp; then
    $CC -O2 -fPIC -shared -I"$CCE_INCDIR" -I"$d" "$d/libfzp.c" \
      -o "$d/libfzp.so" || { echo "FAIL: seed $seed: libfzp.so"; fail=1; continue; }
    extra="$extra -L$d -Wl,-rpath,$d -lfzp"
  fi
  for v in "O2 -O2" "O2-async-all -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all" \
           "O3-async-all -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all" \
           "O2-async-all-reg -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg"; do
    set -- $v; vn=$1; shift
    exe=$d/prog.$vn
    # shellcheck disable=SC2086
    if ! cce_cc "$@" -g -fno-optimize-sibling-calls -fno-partial-inlining \
         -I"$d" $srcs -o "$exe" \
         $extra -pthread \
         >"$tmp/cc.log" 2>&1; then
      cat "$tmp/cc.log"; echo "FAIL: seed $seed $vn: the build failed"
      fail=1; continue
    fi
    case $vn in *noasync*) strict=0 ;; *-all*|*async*) strict=1 ;; *) strict=0 ;; esac
    check "gen$seed-$vn" "$exe" $strict || fail=1
  done
  # The same with GCC's tail call passes, against the O2 build above, as
  # tailjump is: its self tail calls may become loops, its other tail
  # calls jumps (sibling calls).
  exe=$d/prog.O2-async-all-tail
  # shellcheck disable=SC2086
  if ! cce_cc -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -g \
       -fno-partial-inlining -I"$d" $srcs -o "$exe" $extra -pthread \
       >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: seed $seed O2-async-all-tail: the build failed"
    fail=1; continue
  fi
  test -f "$tmp/gen$seed-O2-async-all.exp" &&
    { check "gen$seed-O2-async-all-tail" "$exe" 1 \
        "$tmp/gen$seed-O2-async-all.exp" || fail=1; }
done
[ $fail = 0 ] && echo "PASS: every record is gdb's context or incomplete"
exit $fail
