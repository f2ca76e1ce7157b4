#!/bin/sh
# smoke.sh -- the corpus smoke test of `make check` (and so of .ci/run):
# run-corpus.sh --smoke on this build tree -- three real programs from
# Debian source packages (lua5.4, xz-utils, gawk) built plain and with cce,
# their own tests compared, and their decoded contexts checked against
# gdb (validate.sh).  Exit 77 (skipped) when the sources cannot be
# downloaded.  CCE_CORPUS_SMOKE=no skips it on purpose.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
if test "${CCE_CORPUS_SMOKE:-yes}" = no; then
  echo "SKIP: corpus smoke test turned off (CCE_CORPUS_SMOKE=no)"
  exit 77
fi
: "${CCE_BUILDDIR:?run from make check}"
CCE_PKG_CONFIG_PATH=$CCE_BUILDDIR
export CCE_PKG_CONFIG_PATH CCE_DECODE
exec sh "$here/run-corpus.sh" --smoke --no-table \
  --workdir "${CCE_CORPUS_WORKDIR:-${TMPDIR:-/tmp}/cce-corpus-smoke}"
