#!/bin/sh
# asynctick.sh -- the context of every CPU-time tick (CCE_SAMPLE) is
# exact, or marked incomplete, and never wrong: checked against gdb in
# the same run as the log.
#
# asynctick.c (CPU-bound rounds of direct calls with addition values,
# inlined frames, recursion, calls through a pointer table, a qsort that
# calls back, on 3 threads) is built with cce in the variants below and
# run under gdb with CCE_SAMPLE=1000 (asynctick.py): at each sample
# record libcce makes (a breakpoint on its cce_log_pc that never stops)
# gdb writes the context below the signal frame, from its backtrace, and
# the interrupted instruction's address (outside the program: the return
# address of the call out of it that the innermost frame of the program
# made).  cce-decode decodes the log; the records of each thread must be
# gdb's, one for one and in order, at gdb's instructions: the PC word of
# each record (read raw by pcrecords.py) is gdb's address, or for a call
# out of the program (CCE_PC_CALLER) its return address, or
# CCE_PC_EXTERNAL for an instruction outside the program.  libcce numbers
# threads by their first record, gdb by their creation: each of gdb's
# threads is matched with the decoder's thread that has as many records
# at the same instructions (the permutations of the threads with equal
# counts are tried).  Then each decoded record is
#   exact         gdb's context;
#   incomplete    "[incomplete]" followed by the innermost frames of
#                 gdb's context (exact as far as it goes);
#   outside       "[incomplete]" alone, for an instruction outside the
#                 program's code (the C library, the vDSO, libcce, the
#                 PLT: the PC word is not in a range of the PC map);
#   WRONG         anything else: the test fails.
# With -fplugin-arg-cce-async and every call encoded (observe-all) a
# record may be incomplete with frames only where the PC map (pcmap.py)
# says that the state is UNKNOWN (for a call out of the program, at the
# call), and the async variants together must have ticks at instructions
# of the program in transitional states (PC map states other than OWN,
# UNKNOWN and none: between an id's store and its call, inside a push,
# after a return before the restore), else the program did not exercise
# them.  The table "variant ticks exact incomplete outside transitional
# keep" goes to the log; keep counts the ticks in libcce's
# register-keeping push, pop and grow (fold=1 makes recursion push
# and pop at almost every level).
#
# Knobs: ASYNCTICK_VARIANTS (names from the list below), ASYNCTICK_MS
# (CPU time per thread, default 300), E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb asynctick
command -v python3 >/dev/null 2>&1 || { echo "SKIP: asynctick: no python3"; exit 77; }
e2e_tmpdir asynctick || exit 99

variants='
O2 -O2
O2-all -O2 -fplugin-arg-cce-observe-all
O2-async-all -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O3-async-all -O3 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all
O2-async-all-none -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -flto-partition=none
O2-async-all-fold1 -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-fold=1
O2-async-all-reg -O2 -fplugin-arg-cce-async -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg
'
threads=3
ms=${ASYNCTICK_MS:-300}
: >"$tmp/totals"
printf '%-20s %6s %6s %10s %8s %12s %6s\n' \
  variant ticks exact incomplete outside transitional keep
echo "$variants" | while read -r name flags; do
  [ -n "$name" ] || continue
  case " ${ASYNCTICK_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
  exe=$tmp/asynctick.$name
  if ! cce_cc $flags -g "$here/asynctick.c" -o "$exe" -pthread \
       >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: $name: the build failed"; exit 1
  fi
  main=$(nm "$exe" | awk '$3 == "main" { print "0x" $1 }')
  rm -f "$tmp/$name.log"
  if ! CCE_SAMPLE=1000 CCE_LOG="$tmp/$name.log" CCE_TICK_OUT="$tmp/$name.exp" \
       CCE_TICK_MAIN="$main" \
       timeout 600 "$GDB" -q -batch -nx -x "$here/asynctick.py" \
       --args "$exe" $threads "$ms" >"$tmp/gdb.log" 2>&1; then
    tail -n 20 "$tmp/gdb.log"; echo "FAIL: $name: the run under gdb failed"
    exit 1
  fi
  if ! "$CCE_DECODE" --format=records "$exe" "$tmp/$name.log" \
       >"$tmp/$name.got" 2>"$tmp/decode.err"; then
    cat "$tmp/decode.err"; echo "FAIL: $name: cce-decode failed"; exit 1
  fi
  python3 "$here/pcrecords.py" "$tmp/$name.log" >"$tmp/$name.raw" \
    || { echo "FAIL: $name: pcrecords.py"; exit 1; }
  # Each record's instruction as asynctick.py writes gdb's: the
  # link-time address of its PC word; for a PC word of a call out of the
  # program (CCE_PC_CALLER) "-:" and the call's return address; "-" for
  # CCE_PC_EXTERNAL.  The PC map's state there: at the call instruction
  # for a call out of the program.
  python3 -c '
import sys
for line in sys.stdin:
    w = int(line.split("\t")[2], 16)
    if w >> 32 == 0xffffffff or not w & 0x80000000:
        print("-\t0")
    elif w & 0x40000000:
        print("-:%x\t%x" % (w & 0x3fffffff, (w & 0x3fffffff) - 1))
    else:
        print("%x\t%x" % (w & 0x3fffffff, w & 0x3fffffff))' \
    <"$tmp/$name.raw" >"$tmp/$name.where" || exit 1
  cut -f 1 "$tmp/$name.where" >"$tmp/$name.addr"
  cut -f 2 "$tmp/$name.where" \
    | python3 "$here/pcmap.py" "$exe" states >"$tmp/$name.states" \
    || { echo "FAIL: $name: pcmap.py"; exit 1; }
  case $name in *noasync*) strict=0 ;; *-all*|*async*) strict=1 ;; *) strict=0 ;; esac
  python3 - "$name" "$strict" "$tmp/$name.exp" "$tmp/$name.got" \
    "$tmp/$name.raw" "$tmp/$name.addr" "$tmp/$name.states" \
    "$tmp/totals" <<'PY' || exit 1
import itertools
import sys

name, strict = sys.argv[1], sys.argv[2] == "1"
lines = lambda i: open(sys.argv[i]).read().splitlines()
exp, got, raw, addrs, states = (lines(i) for i in range(3, 8))
tag_sample = "4292870400"


def fail(msg):
    print("FAIL: %s: %s" % (name, msg))
    sys.exit(1)


if not (len(got) == len(raw) == len(addrs) == len(states)):
    fail("%d records decoded, %d read raw" % (len(got), len(raw)))
# gdb's records per gdb thread, in order: (path, addr).
gdb_threads = {}
for e in exp:
    thr, _tag, path, addr = e.split("\t")
    gdb_threads.setdefault(thr, []).append((path, addr))
# The log's records per libcce thread, in file order: (path, addr, state).
log_threads = {}
for g, r, a, s in zip(got, raw, addrs, states):
    thr, tag, path = g.split("\t")
    rthr, rtag = r.split("\t")[:2]
    if thr != rthr or tag != "sample" or rtag != tag_sample:
        fail("not a sample record, or decoded and raw disagree: %r, %r"
             % (g, r))
    log_threads.setdefault(thr, []).append((path, a, s))
if not exp:
    fail("gdb saw no tick")
counts = lambda d: sorted(len(v) for v in d.values())
if counts(gdb_threads) != counts(log_threads):
    fail("records per thread: gdb %s, log %s"
         % (counts(gdb_threads), counts(log_threads)))



def same_place(gdb_addr, log_addr):
    """Is the record's instruction gdb's?  An instruction outside the
    program that the runtime cannot place (CCE_PC_EXTERNAL) is any
    instruction outside it.  One in a register-keeping entry point of
    libcce ("-k:" and the address it returns to) is placed at the jump
    there (the byte before that address) or at that address, as the
    push or pop has committed or not."""
    if gdb_addr.startswith("-k:") and log_addr != "-" \
       and not log_addr.startswith("-"):
        ret = int(gdb_addr[3:], 16)
        return int(log_addr, 16) in (ret, ret - 1)
    return (gdb_addr == log_addr
            or (log_addr == "-" and gdb_addr.startswith("-")))


# Match threads: among those with equal counts, the permutation that puts
# every record at gdb's instruction.
match = {}
for n in sorted(set(counts(gdb_threads))):
    gs = sorted(t for t, v in gdb_threads.items() if len(v) == n)
    ls = sorted(t for t, v in log_threads.items() if len(v) == n)
    for perm in itertools.permutations(ls):
        if all(all(same_place(ga, la) for (_, ga), (_, la, _)
                   in zip(gdb_threads[g], log_threads[l]))
               for g, l in zip(gs, perm)):
            match.update(zip(gs, perm))
            break
    else:
        fail("no match of gdb's threads %s to the log's %s with %d records"
             " at the same instructions" % (gs, ls, n))

exact = incomplete = outside = transitional = keep = 0
bad = []
for g, l in sorted(match.items()):
    for i, ((epath, addr), (gpath, _, s)) in enumerate(
            zip(gdb_threads[g], log_threads[l])):
        where = "thread %s record %d at %s (%s)" % (l, i + 1, addr, s)
        external = (addr.startswith("-") and not addr.startswith("-k:")
                    or s == "NONE")
        if not external and s not in ("OWN", "UNKNOWN"):
            transitional += 1
        keep += addr.startswith("-k:")
        if gpath == epath:
            exact += 1
            continue
        e, d = epath.split(";"), gpath.split(";")
        if d[0] == "[incomplete]":
            known = d[1:]
            if known and e[len(e) - len(known):] == known:
                incomplete += 1
                if strict and s != "UNKNOWN":
                    bad.append("incomplete where the state is %s, %s:\n"
                               "  gdb: %s\n  got: %s"
                               % (s, where, epath, gpath))
                continue
            if not known and external:
                outside += 1
                continue
        bad.append("WRONG at %s:\n  gdb: %s\n  got: %s"
                   % (where, epath, gpath))
line = ("%-20s %6d %6d %10d %8d %12d %6d"
        % (name, len(exp), exact, incomplete, outside, transitional, keep))
print(line)
open(sys.argv[8], "a").write(line + "\n")
for b in bad[:20]:
    print("FAIL: %s: %s" % (name, b))
if bad:
    fail("%d records not as gdb saw them" % len(bad))
PY
done || exit 1
# The async variants together must have met transitional states.
awk '$1 ~ /async/ { a = 1; n += $6 } END { exit a && !(n > 0) }' "$tmp/totals" \
  || { echo "FAIL: no tick in a transitional state in the async variants"
       exit 1; }
echo "PASS: every tick is gdb's context or incomplete"
