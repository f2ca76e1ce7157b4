# recipes/jq.sh -- jq in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# jq 1.6: Debian's tree (a GitHub tarball: autoreconf first), linked
# statically (--disable-shared: the library code in the jq binary) against
# Debian's libonig (external code that calls back into jq).  Tests:
# `make check NO_VALGRIND=1`, plus the per-test logs that hold the counts.
# Debian 12's newest jq security update was not downloadable from every
# mirror; the pinned version is the fallback.  Workload: a jq program over
# 400,000 generated objects (group_by, sort_by, regex tests, recursion).
recipe_jq_pkg () { echo jq jq=1.6-2.1+deb12u2; }
recipe_jq_deps () { echo libonig-dev bison flex autoconf automake libtool; }
recipe_jq_prepare () { unpack_deb jq "$1"; }
recipe_jq_build () {
  (cd "$2" && autoreconf -fi &&
   ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --disable-shared --disable-docs &&
   make -j"$JOBS")
}
recipe_jq_bin () { echo "$1/jq"; }
recipe_jq_test () {
  make -C "$2" check NO_VALGRIND=1; rc=$?
  for t in jqtest mantest onigtest; do
    echo "=== tests/$t.log"; grep -v '^# ' "$2/tests/$t.log"
  done
  return $rc
}
recipe_jq_summary () {
  # "340 of 340 tests passed (0 malformed)" per jq test file; shtest counts
  # as one test.
  awk '/^[0-9]+ of [0-9]+ tests passed/ { p += $1; t += $3 }
       /^(PASS|FAIL|ERROR): tests\/shtest$/ { t++; if ($1 == "PASS:") p++ }
       END { printf "%d %d\n", p, t }' "$1"
}
recipe_jq_normalize () { sed -e 's|/tmp/jq[A-Za-z0-9]*|/tmp/jqTMP|g'; }
recipe_jq_about () { echo 'a jq program over 400,000 generated objects: group_by, sort_by, regex tests, a 3,000-deep recursion, tojson/fromjson.'; }
recipe_jq_workload () {
  ./jq -n -c '
    def depth: if . == 0 then 0 else (. - 1 | depth) + 1 end;
    [range(0; 400000) | {a: ., b: (. % 97), s: tostring}]
    | group_by(.b)
    | map({b: .[0].b, n: length, t: (map(.a) | add),
           d: (map(.s | select(test("^1[0-9]*7$"))) | length)})
    | sort_by(-.d, .b)
    | (length, (map(.t) | add), .[0], .[-1], (3000 | depth),
       (tojson | fromjson | length))'
}

vrecipe_jq_funcs () {
  echo jv_object_set jv_array_append gen_op_simple block_join jv_dump_term \
    jv_sort
}
vrecipe_jq_run () {
  cat >"$workdir/jq/validate.jq" <<'EOF2'
def depth: if . == 0 then 0 else (. - 1 | depth) + 1 end;
[range(0; 3000) | {a: ., b: (. % 97), s: tostring}]
| group_by(.b) | map({b: .[0].b, n: length}) | sort_by(-.n, .b)
| (length, .[0], (300 | depth), (tojson | fromjson | length))
EOF2
  v_bin=jq v_args="-n -c -f $workdir/jq/validate.jq" v_stdin=/dev/null
}
