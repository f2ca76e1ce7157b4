# recipes/xz-utils.sh -- xz-utils in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# xz-utils: autoconf + libtool; --disable-shared so that xz links
# liblzma statically (the codecs are in the instrumented binary).  Tests:
# `make check`, then a multi-threaded round trip (xz -T2 with 1 MiB blocks,
# so two threads really compress and decompress) whose compressed stream's
# checksum is compared too.  Workload: that round trip on 8 MB of text.
recipe_xz_utils_pkg () { echo xz-utils; }
recipe_xz_utils_deps () { :; }
recipe_xz_utils_prepare () { unpack_deb xz-utils "$1"; }
recipe_xz_utils_build () {
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --disable-shared --disable-nls --disable-doc &&
   make -j"$JOBS")
}
recipe_xz_utils_bin () { echo "$1/src/xz/xz"; }
recipe_xz_utils_test () {
  make -C "$2" check; rc=$?
  d=$(data 8)
  echo "threads: xz -T2 --block-size=1MiB -6"
  "$2/src/xz/xz" -T2 --block-size=1MiB -6 -c < "$d" > "$2/threads.xz" &&
    cksum < "$2/threads.xz" &&
    "$2/src/xz/xz" -T2 -dc < "$2/threads.xz" | cmp - "$d" &&
    echo "PASS: threads round trip" || { echo "FAIL: threads round trip"; rc=1; }
  return $rc
}
recipe_xz_utils_summary () {
  awk '/^# TOTAL: / { t += $3 } /^# (PASS|XFAIL): / { p += $3 }
       /^PASS: threads/ { p++; t++ } /^FAIL: threads/ { t++ }
       END { printf "%d %d\n", p, t }' "$1"
}
recipe_xz_utils_normalize () { cat; }
recipe_xz_utils_about () { echo '`xz -T2 --block-size=1MiB -6` and `xz -T2 -d` on 8 MB of generated text (two threads each way).'; }
recipe_xz_utils_workload () {
  ./src/xz/xz -T2 --block-size=1MiB -6 -c < "$(data 8)" | ./src/xz/xz -T2 -dc | cksum
}

vrecipe_xz_utils_funcs () {
  echo lzma_alloc lzma_free lzma_bufcpy lzma_check_update lzma_code \
    lz_encode lzma_next_end
}
vrecipe_xz_utils_run () {
  v_bin=src/xz/xz v_args="-T1 -6 -c" v_stdin=$(data 2)
}
