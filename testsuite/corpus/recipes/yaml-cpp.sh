# recipes/yaml-cpp.sh -- yaml-cpp in the corpus, sourced by run-corpus.sh
# (which describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# yaml-cpp (C++): CMake, as recipes/snappy.sh builds it, a static library
# (YAML_BUILD_SHARED_LIBS=OFF), the tools (util/parse) and the tests.
# Debian's patch builds GoogleTest and GoogleMock from the googletest
# package's sources (/usr/src/googletest) with the same flags, so the test
# framework is instrumented too.  Tests: yaml-cpp-tests (GoogleTest: the
# scanner, parser, emitter, node API, the YAML spec's examples; parse
# errors are exceptions).  Workload: util/parse (load a document into
# nodes, emit it again) on a generated 4 MB YAML document, 3 times.
recipe_yaml_cpp_pkg () { echo yaml-cpp; }
recipe_yaml_cpp_deps () { echo g++ cmake googletest libgtest-dev libgmock-dev; }
recipe_yaml_cpp_prepare () { unpack_deb yaml-cpp "$1"; }
recipe_yaml_cpp_build () {
  set -- "$1" "$2" $CXX_V
  yc_tree=$2; shift 2
  yc_cxx=$1; shift
  (cd "$yc_tree" && CXXFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     cmake -S . -B build -DCMAKE_CXX_COMPILER="$(command -v "$yc_cxx" || echo "$yc_cxx")" \
       ${1:+-DCMAKE_CXX_COMPILER_ARG1="$*"} \
       -DCMAKE_AR="$(command -v gcc-ar)" -DCMAKE_RANLIB="$(command -v gcc-ranlib)" \
       -DCMAKE_BUILD_TYPE=None -DYAML_BUILD_SHARED_LIBS=OFF \
       -DYAML_CPP_BUILD_TOOLS=ON -DYAML_CPP_BUILD_TESTS=ON -DINSTALL_GTEST=OFF &&
   cmake --build build -j"$JOBS")
}
recipe_yaml_cpp_bin () { echo "$1/build/test/yaml-cpp-tests"; }
recipe_yaml_cpp_test () { (cd "$2/build/test" && ./yaml-cpp-tests); }
# gtest_summary and gtest_normalize: recipes/snappy.sh.
recipe_yaml_cpp_summary () { gtest_summary "$1"; }
recipe_yaml_cpp_normalize () { gtest_normalize; }
recipe_yaml_cpp_about () { echo '`util/parse` (load into nodes, emit) on a generated 4 MB YAML document, 3 times.'; }
# yaml_cpp_data MB [LINES]: a YAML document made once per work dir from MB
# megabytes of the generated text (its first LINES lines): a sequence of
# maps, one a line, with scalars, a flow sequence of quoted words and a
# nested flow map.
yaml_cpp_data () {
  yfile=$workdir/data/yaml-$1M${2:+-$2}.yaml
  if ! test -s "$yfile"; then
    sed -n "1,${2:-\$}p" "$(data $1)" | awk '
      { n++; printf "- id: %d\n  len: %d\n  text: \"%s\"\n  words: [", n, length($0), $0
        for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), $i
        printf "]\n  meta: {first: \"%s\", nf: %d, odd: %s}\n", $1, NF, (n % 2 ? "true" : "false") }' \
      > "$yfile.tmp" && mv "$yfile.tmp" "$yfile"
  fi
  echo "$yfile"
}
recipe_yaml_cpp_workload () {
  ydata=$(yaml_cpp_data 4) && i=0 &&
  while test $i -lt 3; do
    ./build/util/parse "$ydata" | cksum || return 1
    i=$((i + 1))
  done
}

# The scanner's tokens, the parser's recursion over nodes (block and flow
# maps), the node builder's events (a virtual call) and the emitter, on
# util/parse and the first 2,000 lines of the workload's document.  Not
# on the tests: GoogleTest runs them in the order their units' static
# constructors register them, which LTO changes.
vrecipe_yaml_cpp_funcs () {
  echo ScanNextToken PushIndentTo HandleNode HandleBlockMap HandleFlowMap \
    OnScalar EmitBeginMap PrepareNode
}
vrecipe_yaml_cpp_run () {
  v_bin=build/util/parse v_args=$(yaml_cpp_data 1 2000) v_stdin=/dev/null
}
