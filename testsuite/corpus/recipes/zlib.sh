# recipes/zlib.sh -- zlib in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# zlib: its own configure (static and shared library) and `make test`.
# Workload: minigzip -9 and back on 16 MB of text.
recipe_zlib_pkg () { echo zlib; }
recipe_zlib_deps () { :; }
recipe_zlib_prepare () { unpack_deb zlib "$1"; }
recipe_zlib_build () {
  (cd "$2" && CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm ./configure &&
   make -j"$JOBS" AR=gcc-ar RANLIB=gcc-ranlib all)
}
recipe_zlib_bin () { echo "$1/minigzip"; }
recipe_zlib_test () { make -C "$2" test AR=gcc-ar RANLIB=gcc-ranlib; }
recipe_zlib_summary () {
  awk '/test OK/ { p++ } /test OK|test FAILED/ { t++ } END { printf "%d %d\n", p, t }' "$1"
}
recipe_zlib_normalize () { cat; }
recipe_zlib_about () { echo '`minigzip -9` and `minigzip -d` on 16 MB of generated text.'; }
recipe_zlib_workload () {
  ./minigzip -9 < "$(data 16)" | ./minigzip -d | cksum
}

vrecipe_zlib_funcs () {
  echo fill_window _tr_flush_block build_tree send_tree compress_block \
    deflate gz_comp zcalloc
}
vrecipe_zlib_run () { v_bin=minigzip v_args=-9 v_stdin=$(data 4); }
