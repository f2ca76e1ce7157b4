#!/bin/sh
# heap.sh -- CCE_HEAP=1: the heap profile against gdb.
#
# heap.c (malloc, calloc, realloc chains, reallocarray, the aligned
# allocators, strdup, strndup, getline, fmemopen, blocks allocated in one
# thread and freed in another, a leak, a block a constructor allocated,
# a peak of 2 MiB) is built with cce at -O2 with
# -fplugin-arg-cce-observe-all and run with CCE_HEAP=1:
#   (a) per context, the allocations, their bytes, and the blocks and
#       bytes live at the exit must be those gdb sees in an -O0 build of
#       the same program (heaporacle.py: breakpoints on the C library's
#       allocator, the context of each call; heapcmp.py compares);
#       The same for a build with -fplugin-arg-cce-idreg;
#   (b) the peak entries hold the 2 MiB of grow (within 1/16);
#   (c) --format=folded gives the bytes live at the exit per path;
#       --format=pprof the four sample types of heap profiles (and pprof
#       -top -sample_index=inuse_space shows the leak, if $PPROF or pprof
#       is there); --format=speedscope the live and allocated bytes;
#   (d) CCE_HEAP_SAMPLE=4096: the weighted bytes allocated are within 15%
#       of the exact ones;
#   (e) a fork child's frees do not reach the parent's profile;
#   (f) without CCE_HEAP nothing is logged; a bad CCE_HEAP or a log that
#       cannot hold the profile (/dev/null): one line on standard error,
#       and the program runs on.
#
# Knobs: E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir heap || exit 1

exe=$tmp/heap
fail=0
bad () {
  echo "FAIL: heap: $*"
  fail=1
}

if ! cce_cc -O2 -g -fplugin-arg-cce-observe-all "$here/heap.c" -o "$exe" \
     -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: heap: compilation failed"; exit 1
fi

# (a) against gdb.
if ! $CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$here/heap.c" -o "$tmp/heap.O0" \
     -pthread -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce \
     >"$tmp/cc.O0.log" 2>&1; then
  cat "$tmp/cc.O0.log"; echo "ERROR: heap: the -O0 build failed"; exit 99
fi
if ! CCE_ORACLE_OUT=$tmp/oracle.out timeout 600 "$GDB" -q -batch -nx \
     -x "$here/heaporacle.py" --args "$tmp/heap.O0" >"$tmp/gdb.log" 2>&1; then
  tail -n 20 "$tmp/gdb.log"; echo "ERROR: heap: the oracle failed"; exit 99
fi
CCE_HEAP=1 CCE_LOG=$tmp/heap.log "$exe" 2>"$tmp/run.err" ||
  bad "exit status $? with CCE_HEAP=1"
[ -s "$tmp/run.err" ] && bad "standard error: $(cat "$tmp/run.err")"
"$CCE_DECODE" --format=records "$exe" "$tmp/heap.log" >"$tmp/heap.records" \
  2>"$tmp/decode.err" || bad "cce-decode failed: $(cat "$tmp/decode.err")"
python3 "$here/heapcmp.py" "$tmp/oracle.out" "$tmp/heap.records" \
  >"$tmp/cmp.out" || bad "the profile differs from gdb's: $(cat "$tmp/cmp.out")"
grep -q 'main;leak;leaf_alloc;malloc	3	303' "$tmp/oracle.out" ||
  bad "the oracle did not see the leak"
grep -q 'make_early;malloc' "$tmp/oracle.out" ||
  bad "the oracle did not see the constructor's block"
# ... and so must the profile of the build that keeps the id in a
# register (-fplugin-arg-cce-idreg), whose allocation functions read it
# there, or in the unwound frame of the call from the program.
if cce_cc -O2 -g -fplugin-arg-cce-observe-all -fplugin-arg-cce-idreg \
     "$here/heap.c" -o "$exe.reg" -pthread >"$tmp/cc.reg.log" 2>&1; then
  CCE_HEAP=1 CCE_LOG=$tmp/heap.reg.log "$exe.reg" 2>"$tmp/run.reg.err" ||
    bad "idreg: exit status $? with CCE_HEAP=1"
  "$CCE_DECODE" --format=records "$exe.reg" "$tmp/heap.reg.log" \
    >"$tmp/heap.reg.records" 2>"$tmp/decode.reg.err" ||
    bad "idreg: cce-decode failed: $(cat "$tmp/decode.reg.err")"
  python3 "$here/heapcmp.py" "$tmp/oracle.out" "$tmp/heap.reg.records" \
    >"$tmp/cmp.reg.out" ||
    bad "idreg: the profile differs from gdb's: $(cat "$tmp/cmp.reg.out")"
else
  cat "$tmp/cc.reg.log"; bad "idreg: compilation failed"
fi

# (b) the peak.
awk -F'\t' '$2 == "peak" && $3 == "main;grow;malloc" {
    v = 0
    for (i = 4; i <= NF; i++) if ($i ~ /^value=/) v = substr($i, 7)
    if (v >= 2097152 * 15 / 16 - 65536 && v <= 2097152) ok = 1
  } END { exit !ok }' "$tmp/heap.records" ||
  bad "no peak entry of main;grow;malloc near 2 MiB"

# (c) the other formats.
"$CCE_DECODE" --format=folded "$exe" "$tmp/heap.log" >"$tmp/heap.folded" ||
  bad "--format=folded failed"
grep -qx 'main;leak;leaf_alloc;malloc 303' "$tmp/heap.folded" ||
  bad "folded: no leak of 303 bytes: $(cat "$tmp/heap.folded")"
grep -q 'grow' "$tmp/heap.folded" && bad "folded: grow's blocks are live"
"$CCE_DECODE" --format=pprof "$exe" "$tmp/heap.log" >"$tmp/heap.pb.gz" ||
  bad "--format=pprof failed"
for t in alloc_objects alloc_space inuse_objects inuse_space; do
  gzip -dc "$tmp/heap.pb.gz" | grep -aq "$t" || bad "pprof: no sample type $t"
done
# The real pprof: $PPROF, the one e2e/profiles.sh builds into the build
# tree's tools/, or one on PATH.
pprof=${PPROF:-}
if [ -z "$pprof" ] && [ -x "${builddir:-$CCE_BUILDDIR/testsuite}/tools/pprof" ]; then
  pprof=${builddir:-$CCE_BUILDDIR/testsuite}/tools/pprof
fi
[ -n "$pprof" ] || pprof=$(command -v pprof 2>/dev/null)
if [ -n "$pprof" ] && [ -x "$pprof" ]; then
  "$pprof" -top -sample_index=inuse_space "$exe" "$tmp/heap.pb.gz" \
    >"$tmp/pprof.top" 2>&1 || bad "pprof -top failed: $(cat "$tmp/pprof.top")"
  grep -q '303B.*leaf_alloc' "$tmp/pprof.top" ||
    bad "pprof -top: no leak in leaf_alloc: $(cat "$tmp/pprof.top")"
else
  echo "heap: no pprof (set PPROF, or run e2e/profiles.sh first): its check skipped"
fi
"$CCE_DECODE" --format=speedscope "$exe" "$tmp/heap.log" >"$tmp/heap.json" ||
  bad "--format=speedscope failed"
python3 - "$tmp/heap.json" <<'EOF' || bad "speedscope: not the heap's profiles"
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["profiles"]]
assert names == ["inuse_space", "alloc_space"], names
inuse = d["profiles"][0]
assert inuse["unit"] == "bytes"
# The leak (303), the handed-off blocks (112), the TLS vectors.
assert inuse["endValue"] >= 303 + 112, inuse["endValue"]
EOF

# (d) sampling.
CCE_HEAP=1 CCE_LOG=$tmp/exact.log "$exe" 300 || bad "exit status $? (300 rounds)"
CCE_HEAP=1 CCE_HEAP_SAMPLE=4096 CCE_LOG=$tmp/sampled.log "$exe" 300 ||
  bad "exit status $? with CCE_HEAP_SAMPLE"
for n in exact sampled; do
  "$CCE_DECODE" --format=speedscope "$exe" "$tmp/$n.log" >"$tmp/$n.json" ||
    bad "--format=speedscope of $n failed"
done
python3 - "$tmp/exact.json" "$tmp/sampled.json" <<'EOF' ||
import json, sys
e, s = (json.load(open(f))["profiles"][1]["endValue"] for f in sys.argv[1:])
print("heap: %d bytes allocated, %d estimated from samples" % (e, s))
sys.exit(abs(s - e) > 0.15 * e)
EOF
  bad "sampled: the weighted bytes are not within 15% of the exact ones"

# (e) fork: the child's frees and allocations do not reach the parent's
# profile.
cat >"$tmp/fork.c" <<'EOF'
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile int s;
__attribute__ ((noinline)) static void *
mk (size_t n)
{
  void *p = malloc (n);
  s += p != 0;
  return p;
}
int
main (void)
{
  void *a = mk (100), *b = mk (200);
  pid_t pid = fork ();
  if (pid == 0)
    {
      free (a);
      free (mk (300));
      _exit (0);
    }
  waitpid (pid, NULL, 0);
  free (b);
  return 0;
}
EOF
if cce_cc -O2 -fplugin-arg-cce-observe-all "$tmp/fork.c" -o "$tmp/fork" \
     >"$tmp/cc.fork.log" 2>&1; then
  CCE_HEAP=1 CCE_LOG=$tmp/fork.log "$tmp/fork" || bad "fork: exit status $?"
  "$CCE_DECODE" --format=folded "$tmp/fork" "$tmp/fork.log" >"$tmp/fork.folded" ||
    bad "fork: cce-decode failed"
  [ "$(cat "$tmp/fork.folded")" = "main;mk;malloc 100" ] ||
    bad "fork: the parent's live bytes: $(cat "$tmp/fork.folded")"
else
  cat "$tmp/cc.fork.log"; bad "fork: compilation failed"
fi

# (f) off, bad settings.
(cd "$tmp" && CCE_LOG= "$exe") || bad "exit status $? without CCE_HEAP"
ls "$tmp"/cce-*.log >/dev/null 2>&1 && bad "a log without CCE_HEAP"
CCE_HEAP=yes CCE_LOG=$tmp/bad.log "$exe" 2>"$tmp/bad.err" ||
  bad "exit status $? with CCE_HEAP=yes"
[ "$(wc -l <"$tmp/bad.err")" -eq 1 ] || bad "CCE_HEAP=yes: $(cat "$tmp/bad.err")"
CCE_HEAP=1 CCE_LOG=/dev/null "$exe" 2>"$tmp/null.err" ||
  bad "exit status $? with CCE_LOG=/dev/null"
[ "$(wc -l <"$tmp/null.err")" -eq 1 ] ||
  bad "CCE_LOG=/dev/null: $(cat "$tmp/null.err")"

[ $fail -eq 0 ] && echo "PASS: heap ($(cat "$tmp/cmp.out"))"
exit $fail
