# recipes/zstd.sh -- zstd in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# zstd (source package libzstd): its own Makefiles.  CFLAGS and
# LDFLAGS go in the environment, not on make's command line, where they
# would override the Makefiles' own additions (-pthread among them).
# Tests: tests/playTests.sh without the large-data tests (upstream's
# `make check`), run directly on the binary that was built: the
# test-zstd target would rebuild zstd with other flags first.  Workload:
# zstd -T2 -12 with 1 MiB jobs and back on 16 MB of text.
recipe_zstd_pkg () { echo libzstd; }
recipe_zstd_deps () { echo zlib1g-dev liblzma-dev; }
recipe_zstd_prepare () { unpack_deb zstd "$1"; }
recipe_zstd_build () {
  CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" make -C "$2/programs" -j"$JOBS" zstd \
    CC="$CC_V" AR=gcc-ar RANLIB=gcc-ranlib
}
recipe_zstd_bin () { echo "$1/programs/zstd"; }
recipe_zstd_test () {
  (cd "$2/tests" &&
   CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" make datagen CC="$CC_V" AR=gcc-ar RANLIB=gcc-ranlib &&
   EXE_PREFIX='' ZSTD_BIN=../programs/zstd DATAGEN_BIN=./datagen ./playTests.sh)
}
recipe_zstd_summary () {
  # playTests.sh stops at the first failure: count the tests it reached.
  awk '/^test ?: |^===> / { t++ } /^run-corpus.sh: test exit status 0$/ { ok = 1 }
       END { printf "%d %d\n", t - (ok ? 0 : 1), t }' "$1"
}
recipe_zstd_normalize () {
  # Everything else the script prints is progress displays, speeds, time
  # stamps and stderr interleaved with stdout at random: keep the names of
  # the tests it ran (it stops at the first failure) and its exit status.
  grep -E '^(test ?: |===> |roundTripTest: |fileRoundTripTest: |run-corpus.sh: )'
}
recipe_zstd_about () { echo '`zstd -T2 -B1M -12` and `zstd -d` on 16 MB of generated text (two compression threads).'; }
recipe_zstd_workload () {
  ./programs/zstd -q -T2 -B1M -12 -c < "$(data 16)" | ./programs/zstd -q -dc | cksum
}

vrecipe_zstd_funcs () {
  echo HIST_count_wksp FSE_normalizeCount FSE_buildCTable_wksp \
    HUF_compress4X_usingCTable ZSTD_compressLiterals \
    ZSTD_entropyCompressSeqStore ZSTD_compressBlock_internal \
    ZSTD_compressStream2
}
vrecipe_zstd_run () {
  v_bin=programs/zstd v_args="-q --single-thread -12 -c" v_stdin=$(data 16)
}
