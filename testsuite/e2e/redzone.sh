#!/bin/sh
# redzone.sh -- the cold grow of a ccStack push keeps the red zone of a
# leaf function intact (redzone.c says how).  Built with cce at -O1, -O2
# and -O3, every call encoded, with the default cold paths (keep=1) and
# with keep=0; each build must compute the same sums as plain C.
#
# Environment: see run-e2e.sh.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

[ -f "$CCE_PLUGIN" ] || { echo "ERROR: no plugin $CCE_PLUGIN"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cce-e2e-redzone.XXXXXX") || exit 1
if [ -n "$E2E_KEEP" ]; then
  echo "keeping $tmp"
else
  trap 'rm -rf "$tmp"' 0
  trap 'exit 1' 1 2 13 15
fi

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
[ $failed = 0 ] || { echo "$failed failed"; exit 1; }
