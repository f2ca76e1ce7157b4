#!/bin/sh
# redzone.sh -- the cold grow of a ccStack push keeps the red zone of a
# leaf function intact (redzone.c says how).  Built with cce at -O1, -O2
# and -O3, every call encoded, with the default cold paths (keep=1) and
# with keep=0; each build must compute the same sums as plain C.  And
# gdb must unwind from inside the grow through the leaf to the thread's
# start (the CFI of rt/keep.c).
#
# Environment: see run-e2e.sh.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

[ -f "$CCE_PLUGIN" ] || { echo "ERROR: no plugin $CCE_PLUGIN"; exit 1; }

e2e_tmpdir redzone || exit 1

failed=0
for opt in -O1 -O2 -O3; do
  for keep in 1 0; do
    what="$opt keep=$keep"
    if ! cce_cc $opt -flto -fplugin-arg-cce-observe-all \
         -fplugin-arg-cce-keep=$keep -o "$tmp/redzone" "$here/redzone.c" \
         -ldl -pthread > "$tmp/build.log" 2>&1; then
      echo "FAIL: $what: build"; sed 's/^/  /' "$tmp/build.log"
      failed=$((failed + 1)); continue
    fi
    CCE_LOG=$tmp/log "$tmp/redzone" > "$tmp/out" 2>&1
    st=$?
    case $st in
      0) echo "ok:   $what: $(cat "$tmp/out")" ;;
      77) cat "$tmp/out"; exit 77 ;;
      *) echo "FAIL: $what (exit $st): $(cat "$tmp/out")"
         failed=$((failed + 1)) ;;
    esac
  done
done
# Unwinding through the cold call: gdb's backtrace at __cce_grow_v6 (in
# the grow reached from the asm) must go on through f and run to glibc's
# start_thread, which needs the entry points' CFI (rt/keep.c) to describe
# their step over the red zone and where the return address is.
if command -v "$GDB" > /dev/null 2>&1; then
  if cce_cc -O2 -g -flto -fplugin-arg-cce-observe-all -o "$tmp/redzone-g" \
       "$here/redzone.c" -ldl -pthread > "$tmp/build.log" 2>&1; then
    CCE_LOG=$tmp/log "$GDB" -nx -q -batch -ex 'set breakpoint pending on' \
      -ex 'break __cce_grow_v6' -ex run -ex bt "$tmp/redzone-g" \
      < /dev/null > "$tmp/bt" 2>&1
    if grep -q '__cce_grow_keep_v6' "$tmp/bt" && grep -q ' f (' "$tmp/bt" &&
       grep -q ' run (' "$tmp/bt" && grep -q 'start_thread' "$tmp/bt"; then
      echo "ok:   gdb unwinds from the grow through f and run to start_thread"
    else
      echo "FAIL: gdb's backtrace from the grow does not reach start_thread:"
      grep '^#' "$tmp/bt" | sed 's/^/  /'
      failed=$((failed + 1))
    fi
  else
    echo "FAIL: -g build"; sed 's/^/  /' "$tmp/build.log"
    failed=$((failed + 1))
  fi
else
  echo "note: no gdb; the unwinding check did not run"
fi
[ $failed = 0 ] || { echo "$failed failed"; exit 1; }
