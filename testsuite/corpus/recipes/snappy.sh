# recipes/snappy.sh -- snappy in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# snappy (C++): CMake, as recipes/json-c.sh builds it (the flags in
# CXXFLAGS and LDFLAGS in the environment of the first cmake run, the
# compiler in CMAKE_CXX_COMPILER, gcc-ar/gcc-ranlib, CMAKE_BUILD_TYPE=None),
# a static library, Debian's packaged GoogleTest (libgtest-dev: a library
# built without LTO or cce, whose test runner calls the tests' bodies back
# through virtual calls), and no benchmarks (they need Google Benchmark).
# Only the test program's target is built: Debian's patch adds a second
# static library target with the same output file, libsnappy.a, and a
# parallel build of both races.
# Tests: snappy_unittest, run directly in the source tree (it reads
# testdata/) so that GoogleTest's own counts are the test counts.
# Workload: snappy_unittest's compression tests that do real work
# (AppendSelfPatternExtensionEdgeCasesExhaustive, FindMatchLengthRandom,
# TestBenchmarkFiles: every testdata/ file compressed and uncompressed),
# 3 times.
recipe_snappy_pkg () { echo snappy; }
recipe_snappy_deps () { echo g++ cmake libgtest-dev libgmock-dev zlib1g-dev; }
recipe_snappy_prepare () { unpack_deb snappy "$1"; }
recipe_snappy_build () {
  set -- "$1" "$2" $CXX_V
  sn_tree=$2; shift 2
  sn_cxx=$1; shift
  (cd "$sn_tree" && CXXFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     cmake -S . -B build -DCMAKE_CXX_COMPILER="$(command -v "$sn_cxx" || echo "$sn_cxx")" \
       ${1:+-DCMAKE_CXX_COMPILER_ARG1="$*"} \
       -DCMAKE_AR="$(command -v gcc-ar)" -DCMAKE_RANLIB="$(command -v gcc-ranlib)" \
       -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=OFF \
       -DSNAPPY_BUILD_TESTS=ON -DSNAPPY_BUILD_BENCHMARKS=OFF \
       -DSNAPPY_USE_BUNDLED_GTEST=OFF -DSNAPPY_USE_BUNDLED_BENCHMARK_LIB=OFF &&
   cmake --build build -j"$JOBS" --target snappy_unittest)
}
recipe_snappy_bin () { echo "$1/build/snappy_unittest"; }
recipe_snappy_test () { (cd "$2" && ./build/snappy_unittest); }
# gtest_summary LOG: "PASSED TOTAL" from GoogleTest's last lines.
gtest_summary () {
  awk '/^\[==========\] [0-9]+ tests? from .* ran\./ { t += $2 }
       /^\[  PASSED  \] [0-9]+ test/ { p += $4 }
       END { printf "%d %d\n", p, t }' "$1"
}
recipe_snappy_summary () { gtest_summary "$1"; }
# gtest_normalize: GoogleTest's output without its timings.
gtest_normalize () { sed -e 's/ ([0-9]* ms)$//' -e 's/ ([0-9]* ms total)$//'; }
recipe_snappy_normalize () { gtest_normalize; }
recipe_snappy_about () { echo '`snappy_unittest` with its compression tests that do real work (every `testdata/` file compressed and uncompressed, exhaustive pattern extension, random match lengths), 3 times.'; }
recipe_snappy_workload () {
  ./build/snappy_unittest --gtest_repeat=3 \
    --gtest_filter='Snappy.AppendSelfPatternExtensionEdgeCasesExhaustive:Snappy.FindMatchLengthRandom:Snappy.TestBenchmarkFiles' |
    gtest_normalize
}

# The compressor's and decompressor's entry points and the fragment
# compressor, called from the tests' bodies that GoogleTest calls back.
vrecipe_snappy_funcs () {
  echo Compress RawCompress RawUncompress CompressFragment \
    GetUncompressedLength IsValidCompressedBuffer VerifyString
}
vrecipe_snappy_run () {
  v_bin=build/snappy_unittest v_stdin=/dev/null
  # No pattern: gdb runs the oracle through a shell.
  v_args="--gtest_filter=Snappy.SimpleTests:Snappy.MaxBlowup:Snappy.TestBenchmarkFiles:SnappyCorruption.TruncatedVarint:SnappyCorruption.UnterminatedVarint:SnappyCorruption.OverflowingVarint"
}
