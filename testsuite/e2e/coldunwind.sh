#!/bin/sh
# coldunwind.sh -- unwinders see through the cold calls of the ccStack:
# coldunwind.c, built with cce at -O2 (frame pointer omitted) and at -O2
# -fno-omit-frame-pointer, with a fold limit small enough that its folded
# recursion pushes, runs under gdb with coldunwind.py, which checks the
# backtrace at each register-keeping entry point (cce-abi.h) against the
# source-level call chain, and steps through every instruction of each
# kind of cold call and of the entry points it reaches, requiring the
# backtrace to reach main (start_thread in the thread) at each of them.
#
# Exit status: 0 passed, 1 failed, 77 skipped (no gdb, no Python in gdb,
# or not x86-64, where the plugin makes plain calls).
#
# Environment: see run-e2e.sh.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

skip () { echo "SKIP: coldunwind: $*"; exit 77; }

[ -f "$CCE_PLUGIN" ] || { echo "ERROR: no plugin $CCE_PLUGIN"; exit 1; }
case $($CC -dumpmachine) in
  x86_64-*) ;;
  *) skip "the register-keeping entry points exist only on x86-64" ;;
esac
[ -n "$GDB" ] || skip "no gdb (GDB is empty)"
command -v "$GDB" > /dev/null 2>&1 || skip "gdb '$GDB' not found"
"$GDB" -q -nx -batch -ex 'python print("cce-py-ok")' 2> /dev/null \
  | grep -q cce-py-ok || skip "$GDB has no Python support"
command -v objdump > /dev/null 2>&1 || skip "no objdump"

e2e_tmpdir coldunwind || exit 1

failed=0
for variant in -fomit-frame-pointer -fno-omit-frame-pointer; do
  what="-O2 $variant"
  if ! cce_cc -O2 $variant -g -flto -fplugin-arg-cce-fold=1 \
       -o "$tmp/coldunwind" "$here/coldunwind.c" -ldl -pthread \
       > "$tmp/build.log" 2>&1; then
    echo "FAIL: $what: build"; sed 's/^/  /' "$tmp/build.log"
    failed=$((failed + 1)); continue
  fi
  CCE_LOG=$tmp/log "$GDB" -nx -q -batch -x "$here/coldunwind.py" \
    "$tmp/coldunwind" < /dev/null > "$tmp/gdb.out" 2>&1
  sed -n "s/^\(ok:\|FAIL:\|  \)/$what: &/p" "$tmp/gdb.out"
  if ! grep -q '^coldunwind: done' "$tmp/gdb.out"; then
    echo "FAIL: $what: the gdb script did not finish:"
    tail -n 20 "$tmp/gdb.out" | sed 's/^/  /'
    failed=$((failed + 1))
  elif ! grep -q '^coldunwind: 0 failed' "$tmp/gdb.out"; then
    failed=$((failed + 1))
  fi
done
[ $failed = 0 ] || { echo "$failed failed"; exit 1; }
