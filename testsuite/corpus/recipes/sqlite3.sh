# recipes/sqlite3.sh -- sqlite3 in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# sqlite3: autoconf + libtool, static library only, `make fuzztest`
# (fuzzcheck over the fuzz databases, and sessionfuzz).  fuzztest links its
# test programs itself with the configured flags, so they are instrumented
# too.  Workload: testsuite/corpus/sqlite-workload.sql.
recipe_sqlite3_pkg () { echo sqlite3; }
recipe_sqlite3_deps () { echo tcl zlib1g-dev; }
recipe_sqlite3_prepare () { unpack_deb sqlite3 "$1"; }
recipe_sqlite3_build () {
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --disable-shared --disable-tcl \
     --disable-readline &&
   make -j"$JOBS" sqlite3)
}
recipe_sqlite3_bin () { echo "$1/sqlite3"; }
recipe_sqlite3_test () { make -C "$2" fuzztest; }
recipe_sqlite3_summary () {
  # "fuzzcheck: 0 errors out of 12345 tests in 1.23s. SQLite ..."
  awk '/errors out of [0-9]+ tests/ { for (i = 1; i <= NF; i++) {
         if ($i == "errors") e += $(i-1); if ($i == "tests") t += $(i-1) } }
       / cases, [0-9]+ crashes/ { for (i = 1; i <= NF; i++) {
         if ($i == "cases,") t += $(i-1); if ($i == "crashes") e += $(i-1) } }
       END { printf "%d %d\n", t - e, t }' "$1"
}
recipe_sqlite3_normalize () {
  sed -e 's/ in [0-9.]* seconds$//' -e 's/ in [0-9.]*s\././'
}
recipe_sqlite3_about () { echo '`sqlite3 :memory: < sqlite-workload.sql`: 400,000 inserts, two index builds, aggregates, window functions, a self-join, JSON, recursive CTEs.'; }
recipe_sqlite3_workload () { ./sqlite3 :memory: < "$here/sqlite-workload.sql"; }

vrecipe_sqlite3_funcs () {
  echo sqlite3VdbeAddOp3 sqlite3ExprCodeTarget sqlite3Select \
    sqlite3WhereBegin sqlite3BtreeInsert sqlite3ErrorMsg
}
vrecipe_sqlite3_run () {
  v_bin=sqlite3 v_args=:memory: v_stdin=$here/sqlite-workload.sql
}
