# recipes/json-c.sh -- json-c in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# json-c: CMake, the corpus's one CMake build.  The flags go in CFLAGS and
# LDFLAGS in the environment of the first cmake run, as a user sets them;
# the compiler in CMAKE_C_COMPILER (its first word; the others, if any, in
# CMAKE_C_COMPILER_ARG1), and CMAKE_AR/CMAKE_RANLIB are gcc-ar/gcc-ranlib
# so that the static library keeps its LTO objects.  CMAKE_BUILD_TYPE=None:
# json-c's default, debug, would add -g.  A static library only
# (BUILD_SHARED_LIBS=OFF), so the tests and json_parse link the library
# code into the executable.  Tests: ctest, one test at a time (each test
# compares a test program's output with the expected one).  Workload:
# apps/json_parse -f (parse and pretty-print) on a 14 MB JSON document
# generated from 4 MB of text, 4 times.
recipe_json_c_pkg () { echo json-c; }
recipe_json_c_deps () { echo cmake; }
recipe_json_c_prepare () { unpack_deb json-c "$1"; }
recipe_json_c_build () {
  set -- "$1" "$2" $CC_V
  jc_tree=$2; shift 2
  jc_cc=$1; shift
  (cd "$jc_tree" && CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     cmake -S . -B build -DCMAKE_C_COMPILER="$(command -v "$jc_cc" || echo "$jc_cc")" \
       ${1:+-DCMAKE_C_COMPILER_ARG1="$*"} \
       -DCMAKE_AR="$(command -v gcc-ar)" -DCMAKE_RANLIB="$(command -v gcc-ranlib)" \
       -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=ON \
       -DDISABLE_WERROR=ON &&
   cmake --build build -j"$JOBS")
}
recipe_json_c_bin () { echo "$1/build/apps/json_parse"; }
recipe_json_c_test () {
  (cd "$2/build" && USE_VALGRIND=0 ctest -j1 --output-on-failure)
}
recipe_json_c_summary () {
  # "100% tests passed, 0 tests failed out of 23"
  awk '/% tests passed, [0-9]+ tests? failed out of [0-9]+/ { f = $4; t = $NF }
       END { printf "%d %d\n", t - f, t }' "$1"
}
recipe_json_c_normalize () {
  sed -e 's/ *[0-9.]* sec$//' -e '/^Total Test time/d'
}
recipe_json_c_about () { echo '`json_parse -f` (parse and pretty-print) on a generated 14 MB JSON document, 4 times.'; }
# json_c_data MB [LINES]: a JSON document made once per work dir from MB
# megabytes of the generated text (its first LINES lines): an array of
# objects, one a line of text, with strings, numbers, booleans, an array
# and a nested object.
json_c_data () {
  jfile=$workdir/data/json-$1M${2:+-$2}.json
  if ! test -s "$jfile"; then
    sed -n "1,${2:-\$}p" "$(data $1)" | awk 'BEGIN { printf "[" }
      { n++; if (n > 1) printf ","
        printf "{\"id\":%d,\"len\":%d,\"text\":\"%s\",\"words\":[", n, length($0), $0
        for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? "," : ""), $i
        printf "],\"meta\":{\"first\":\"%s\",\"nf\":%d,\"odd\":%s}}", $1, NF, (n % 2 ? "true" : "false") }
      END { print "]" }' > "$jfile.tmp" && mv "$jfile.tmp" "$jfile"
  fi
  echo "$jfile"
}
recipe_json_c_workload () {
  jdata=$(json_c_data 4) && i=0 &&
  while test $i -lt 4; do
    ./build/apps/json_parse -f "$jdata" | grep -v '^maxrss' | cksum || return 1
    i=$((i + 1))
  done
}

# Parsing (the tokenizer's per-chunk calls), building objects and hash
# tables, and the recursive serializer and destructor (json_object_put
# frees the nested objects through the tables' entry-free callbacks).
vrecipe_json_c_funcs () {
  echo json_tokener_parse_ex json_object_new_object json_object_object_add \
    lh_table_resize json_object_put json_escape_str json_object_new_array
}
vrecipe_json_c_run () {
  v_bin=build/apps/json_parse v_args="-f $(json_c_data 1 2000)" v_stdin=/dev/null
}
