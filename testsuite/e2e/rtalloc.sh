#!/bin/sh
# rtalloc.sh -- libcce never calls the program's allocator: rtalloc.c
# replaces malloc and its kin, counts the calls whose caller is libcce's
# code, and makes threads 20 calls deep; built with cce at -O2 (with every
# call encoded too, so that the threads start with a ccStack), it must
# count none, and its threads' records must decode.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
e2e_tmpdir rtalloc || exit 1

status=0
for opt in "" -fplugin-arg-cce-observe-all; do
  tag="rtalloc -O2 ${opt:-(default)}"
  if ! cce_cc -O2 $opt "$here/rtalloc.c" -o "$tmp/prog" -pthread \
       >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: $tag: build"; status=1; continue
  fi
  out=$(cd "$tmp" && CCE_LOG="$tmp/log" "$tmp/prog" 2>&1)
  st=$?
  echo "$out"
  if [ $st -ne 0 ]; then
    echo "FAIL: $tag: exit status $st"; status=1; continue
  fi
  n=$("$CCE_DECODE" --format=records "$tmp/prog" "$tmp/log" | grep -c worker)
  if [ "$n" != 8 ]; then
    echo "FAIL: $tag: $n records of the threads decode to worker, not 8"
    status=1; continue
  fi
  echo "PASS: $tag"
done
exit $status
