#!/bin/sh
# fuzz-log.sh -- the fuzz target of the log reader (fuzz-log.c).
#
# 1. Replays every saved input (logfuzz/corpus: logs of versions 3 and 4 (tables), valid,
#    torn, cut short and damaged, and the inputs of past findings)
#    through logfuzz/fuzz-log-replay, the target built like the decoder.
# 2. When configure found libFuzzer, replays them through logfuzz/fuzz-log
#    (with the address and undefined sanitizers), then fuzzes for
#    LOGFUZZ_TIME seconds (default 45; 0: no fuzzing), niced, with new
#    inputs kept in a scratch directory, never in the source tree.
# A finding fails the test and names the input that shows it; add it to
# logfuzz/corpus with the fix.  Skipped (77) when neither build exists.
#
# Environment (set by the testsuite's Makefile): srcdir, builddir.

: "${srcdir:?}" "${builddir:?}"
corpus=$srcdir/logfuzz/corpus
replay=$builddir/logfuzz/fuzz-log-replay
fuzzer=$builddir/logfuzz/fuzz-log
time=${LOGFUZZ_TIME:-45}

[ -d "$corpus" ] || { echo "ERROR: no corpus $corpus"; exit 1; }
if [ ! -x "$replay" ] && [ ! -x "$fuzzer" ]; then
  echo "SKIP: neither $replay nor $fuzzer is built"
  exit 77
fi

failed=0
ninputs=$(find "$corpus" -type f | wc -l)

if [ -x "$replay" ]; then
  if "$replay" "$corpus"; then
    echo "ok:   replay of the $ninputs inputs (plain build)"
  else
    echo "FAIL: replay of the corpus (plain build)"
    failed=1
  fi
fi

if [ ! -x "$fuzzer" ]; then
  echo "note: no libFuzzer build (configure found no clang with"
  echo "      -fsanitize=fuzzer): the corpus was only replayed"
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/cce-logfuzz.XXXXXX") || exit 1
  trap 'rm -rf "$tmp"' EXIT
  mkdir "$tmp/new" "$tmp/art"
  if "$fuzzer" -runs=0 "$corpus" >"$tmp/replay.log" 2>&1; then
    echo "ok:   replay of the $ninputs inputs (libFuzzer, ASan, UBSan)"
  else
    tail -n 30 "$tmp/replay.log"
    echo "FAIL: replay of the corpus (libFuzzer, ASan, UBSan)"
    failed=1
  fi
  if [ "$failed" -eq 0 ] && [ "$time" -gt 0 ]; then
    nice -n 10 "$fuzzer" -max_total_time="$time" -max_len=65536 \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$tmp/art/" "$tmp/new" "$corpus" \
      >"$tmp/fuzz.log" 2>&1
    st=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/fuzz.log")
    if [ "$st" -eq 0 ]; then
      echo "ok:   ${time}s of fuzzing, ${execs:-?} runs, no finding"
    else
      tail -n 40 "$tmp/fuzz.log"
      for a in "$tmp"/art/*; do
        [ -f "$a" ] || continue
        keep=$builddir/logfuzz/finding-$(basename "$a")
        cp "$a" "$keep"
        echo "input: $keep"
      done
      echo "FAIL: the fuzzer found a bug (exit status $st)"
      failed=1
    fi
  fi
fi

[ "$failed" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$failed"
