# recipes/gawk.sh -- gawk in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# gawk: autoconf, `make check` (the interpreter, the extensions and
# the locale tests).  Debian's tree lacks the Texinfo source of the manual
# (not DFSG-free); debian/rules touches the doc files so that make does
# not try to rebuild the manual, and so does this recipe.  The extensions
# are shared objects linked by libtool, which drops -fplugin: they come
# out uninstrumented, which is what README.md asks for (instrument only
# the executable).  The charset tests need the locales en_US.UTF-8,
# fr_FR.UTF-8, ru_RU.UTF-8, ja_JP.UTF-8 and el_GR.iso88597; as root the
# runner generates them (localedef) if they are missing.  Workload:
# testsuite/corpus/gawk-workload.awk on 16 MB of text.  The strftime test
# compares gawk's clock with date's and retries while gawk's two readings
# differ; but gawk's time () reads the coarse clock, which lags date's by
# a few milliseconds, so near a second's boundary the test fails in either
# build.  The recipe also retries while date's reading differs.  The time
# test compares gettimeofday () with systime (), the same two clocks: the
# recipe reads both again while their seconds differ.
recipe_gawk_pkg () { echo gawk; }
recipe_gawk_deps () { echo locales; }
recipe_gawk_prepare () {
  unpack_deb gawk "$1" &&
  (cd "$1" && touch --date="Jan 01 2000" doc/gawktexi.in doc/sidebar.awk \
     doc/gawk.texi doc/gawk.info doc/gawkinet.texi doc/gawkinet.info \
     doc/gawkworkflow.texi doc/gawkworkflow.info doc/pm-gawk.texi doc/pm-gawk.info &&
   sed -i 's/if (before == after) {/if (before == after \&\& sd == after) {/' \
     test/strftime.awk && grep -q 'sd == after' test/strftime.awk &&
   sed -i 's/^   st = systime()$/   st = systime(); for (k = 0; int(res) != st \&\& k < 1000; k++) { res = gettimeofday(); st = systime() }/' \
     test/time.awk && grep -q 'int(res) != st' test/time.awk)
}
recipe_gawk_build () {
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --disable-nls &&
   make -j"$JOBS")
}
recipe_gawk_bin () { echo "$1/gawk"; }
recipe_gawk_setup () {
  need=
  for l in en_US:UTF-8:en_US.utf8 fr_FR:UTF-8:fr_FR.utf8 ru_RU:UTF-8:ru_RU.utf8 \
           ja_JP:UTF-8:ja_JP.utf8 el_GR:ISO-8859-7:el_GR.iso88597; do
    locale -a 2>/dev/null | grep -qix "${l##*:}" || need="$need $l"
  done
  test -z "$need" && return 0
  if test "$(id -u)" != 0; then
    log "gawk: locales missing ($need); the charset tests will be skipped in both builds"
    return 0
  fi
  for l in $need; do
    loc=${l%%:*} cs=${l#*:}; cs=${cs%%:*}
    log "gawk: setup: localedef -i $loc -f $cs ${l##*:}"
    localedef -i "$loc" -f "$cs" "${l##*:}" || return 1
  done
}
recipe_gawk_test () { make -C "$2" check; }
recipe_gawk_summary () {
  # Each test prints its name on a line of its own; failures end in
  # "N TESTS FAILED".
  awk '/^Making check in test$/ { on = 1 } !on { next }
       /^[A-Za-z][A-Za-z0-9_+-]*$/ { t++ }
       /^[0-9]+ TESTS? FAILED/ { f += $1 }
       END { printf "%d %d\n", t - f, t }' "$1"
}
recipe_gawk_normalize () {
  # The diffs of failing tests carry the time stamps of the files; the
  # strftime test says how many tries it took to read the clock within
  # one second, which depends on when it ran.
  sed -e 's/^\(---\|+++\) \([^ 	]*\)[ 	].*/\1 \2/' \
      -e '/^Notice: it took [0-9]* loops to get the before and after strftime values to match$/d'
}
recipe_gawk_about () { echo '`gawk -f gawk-workload.awk` on 16 MB of generated text: word counts, regular expressions, recursion, `asorti` with a user-defined comparison.'; }
recipe_gawk_workload () { ./gawk -f "$here/gawk-workload.awk" "$(data 16)"; }

vrecipe_gawk_funcs () {
  echo r_format_val research format_tree do_sub assoc_list setup_frame \
    make_regexp cmp_nodes
}
vrecipe_gawk_run () {
  v_bin=gawk v_args="-f $here/gawk-workload.awk $(data 1)" v_stdin=/dev/null
}
