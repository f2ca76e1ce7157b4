# recipes/bzip2.sh -- bzip2 in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# bzip2: the upstream tarball with its own Makefile.  Debian's
# Makefile links bzip2 against the shared libbz2; upstream's links the
# static libbz2.a, so the compressor itself is in the instrumented binary.
# Tests: `make test` (three compressions and decompressions, each checked
# with cmp).  Workload: bzip2 -9 and back on 16 MB of text.
recipe_bzip2_pkg () { echo bzip2; }
recipe_bzip2_deps () { :; }
recipe_bzip2_prepare () { unpack_orig bzip2 "$1"; }
recipe_bzip2_build () {
  make -C "$2" -j"$JOBS" libbz2.a bzip2 bzip2recover CC="$CC_V" \
    CFLAGS="-Wall -Winline -D_FILE_OFFSET_BITS=64 $CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
    AR=gcc-ar RANLIB=gcc-ranlib
}
recipe_bzip2_bin () { echo "$1/bzip2"; }
recipe_bzip2_test () {
  make -C "$2" test CC="$CC_V" CFLAGS="-Wall -Winline -D_FILE_OFFSET_BITS=64 $CFLAGS_V" \
    LDFLAGS="$LDFLAGS_V" AR=gcc-ar RANLIB=gcc-ranlib
}
recipe_bzip2_summary () {
  awk '/^cmp / { t++ } /differ|EOF on/ { f++ } END { printf "%d %d\n", t - f, t }' "$1"
}
recipe_bzip2_normalize () { cat; }
recipe_bzip2_about () { echo '`bzip2 -9` and `bzip2 -d` on 16 MB of generated text.'; }
recipe_bzip2_workload () { ./bzip2 -9 -c < "$(data 16)" | ./bzip2 -dc | cksum; }

vrecipe_bzip2_funcs () {
  echo BZ2_bzWrite BZ2_bzCompress handle_compress copy_input_until_stop \
    copy_output_until_stop prepare_new_block BZ2_compressBlock mainSort
}
vrecipe_bzip2_run () { v_bin=bzip2 v_args="-9 -c" v_stdin=$(data 4); }
