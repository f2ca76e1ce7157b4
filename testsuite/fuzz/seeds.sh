#!/bin/sh
# fuzz/seeds.sh -- the differential tester of calling contexts on a fixed
# set of random programs (seeds 1-64, three cce variants each: the
# default options and two drawn from every combination of -O1/-O2/-O3,
# partitioning, guess, clobber, fold, keep and observe-all), each
# compared with gdb's contexts in an -O0 build.  See fuzz/cce-fuzz.
# `make fuzz-contexts SEEDS=N` runs more.
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
exec python3 "$here/cce-fuzz" run --seeds "${CCE_FUZZ_SEEDS:-1-64}" \
  --variants 3 --jobs "${CCE_FUZZ_JOBS:-2}" --every 10
