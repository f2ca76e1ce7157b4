# recipes/python3.11.sh -- CPython 3.11 in the corpus, sourced by
# run-corpus.sh (which describes the recipe_* functions) and used by
# validate-recipes.sh (the vrecipe_* ones).
#
# python3.11: the upstream tarball (Debian's patches change the layout of
# the installation, not the interpreter), autoconf, the interpreter linked
# statically with libpython (no --enable-shared), no PGO and no
# --with-lto: the variant's flags go into CFLAGS and LDFLAGS as for the
# other programs, and the extension modules that setup.py builds get them
# too.  configure decides the byte order of doubles by grepping an object
# file, which holds no code under -flto: the recipe gives the answer
# (ax_cv_c_float_words_bigendian=no, x86-64).  Built: the interpreter,
# the shared extension modules, and on the way _freeze_module and
# _bootstrap_python, which run during the build (Programs/_testembed, for
# test_embed only, is not built).  The newest security update of Debian 12
# was not downloadable from every mirror; the pinned version is the
# fallback (only its upstream tarball is used).
# Tests: `python -m test -v` on a set of the regression tests (built-in
# types, strings and regular expressions, the compiler, generators and
# coroutines, pickle and marshal, decimal, threads, the garbage
# collector, settrace), with PYTHONHASHSEED=0 so that what the tests
# print in the order of a set is the same in every run.
# Workload: testsuite/corpus/python-workload.py (dicts and strings,
# recursion, classes, generators, exceptions, a small interpreter).
recipe_python3_11_pkg () { echo python3.11 python3.11=3.11.2-6+deb12u8; }
recipe_python3_11_deps () {
  echo pkg-config zlib1g-dev libffi-dev libssl-dev libbz2-dev liblzma-dev
}
recipe_python3_11_prepare () { unpack_orig python3.11 "$1"; }
recipe_python3_11_build () {
  # The build runs _bootstrap_python several at a time; built with traced
  # functions (the validation's build), they log, and processes must not
  # share a log file: theirs go to /dev/null.
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib ax_cv_c_float_words_bigendian=no &&
   CCE_LOG=/dev/null make -j"$JOBS" python platform oldsharedmods sharedmods)
}
recipe_python3_11_bin () { echo "$1/python"; }
python3_11_tests="test_list test_dict test_set test_string test_re test_json
  test_itertools test_functools test_collections test_unicode test_bytes
  test_long test_sort test_descr test_generators test_exceptions
  test_grammar test_class test_scope test_with test_coroutines test_pickle
  test_math test_random test_decimal test_struct test_array test_deque
  test_heapq test_bisect test_enum test_dataclasses test_typing test_ast
  test_compile test_statistics test_fractions test_zlib test_hashlib
  test_weakref test_gc test_sys_settrace test_threading test_contextlib
  test_operator test_format test_fstring test_int test_float test_complex
  test_tuple test_ordered_dict test_csv test_difflib test_copy
  test_marshal test_userdict test_userlist test_unicodedata test_codecs"
recipe_python3_11_test () {
  # shellcheck disable=SC2086
  cd "$2" && PYTHONHASHSEED=0 ./python -m test -v $python3_11_tests
}
recipe_python3_11_summary () {
  # unittest's "Ran N tests" and "OK (skipped=S)" or "FAILED (failures=F,
  # errors=E, skipped=S)" of each test file: run = N - S, passed = run -
  # F - E - unexpected successes.
  awk '/^Ran [0-9]+ tests? in / { ran += $2 }
       /^(OK|FAILED) \(.*\)$/ {
         s = $0; sub(/^[A-Z]+ \(/, "", s); sub(/\)$/, "", s)
         n = split(s, kv, ", ")
         for (i = 1; i <= n; i++) {
           split(kv[i], p, "=")
           if (p[1] == "skipped") skip += p[2]
           else if (p[1] == "failures" || p[1] == "errors" || p[1] == "unexpected successes") bad += p[2]
         }
       }
       END { printf "%d %d\n", ran - skip - bad, ran - skip }' "$1"
}
recipe_python3_11_normalize () {
  # Times and load averages, the build date in the banner, the process id
  # in the test directory's name, object addresses in reprs; test_sort's
  # verbose lines about randomly made lists; and the progress lines that
  # test_threading's threads print in the order they run (perhaps after a
  # test's name on its line).
  sed -E -e 's/^[0-9]+:[0-9]{2}:[0-9]{2} load avg: [0-9.]+ //' \
    -e 's/^(Ran [0-9]+ tests?) in [0-9.]+s$/\1/' -e '/^Total duration: /d' \
    -e 's/^(== CPython [^(]*\(main, )[^)]*\)/\1DATE)/' \
    -e 's/test_python_[0-9]+/test_python_PID/g' \
    -e 's/0x[0-9a-f]{6,}/0xADDR/g' \
    -e '/^ +(complaining at Complains\([0-9]+\) Complains\([0-9]+\)|checking exception during sort left some permutation)$/d' \
    -e 's/(task <thread [0-9]+> (will run for [0-9.]+ usec|done)|<thread [0-9]+> is finished\. [0-9]+ tasks are running|[0-9]+ tasks are running)$//' \
    -e '/^$/d'
}
recipe_python3_11_about () { echo '`python -S python-workload.py`: word counts in dicts, recursion, classes with special methods and inheritance, generators and closures, exceptions, a small stack-machine interpreter; 40 rounds.'; }
recipe_python3_11_workload () {
  PYTHONHASHSEED=0 ./python -S "$here/python-workload.py"
}

# The interpreter entered from C (calls of Python code by C functions:
# sort keys, special methods, generators), dict and list growth, the
# generators' resumption, the exceptions raised, on one round of the
# workload.  PYTHONHASHSEED=0: string hashes, and so the order of sets
# of strings, as in the -O0 build under gdb.
vrecipe_python3_11_funcs () {
  echo _PyEval_EvalFrameDefault dictresize list_resize gen_send_ex2 \
    _PyErr_SetObject slot_tp_richcompare
}
vrecipe_python3_11_run () {
  v_bin=python v_args="-S $here/python-workload.py 1" v_stdin=/dev/null
  v_env=PYTHONHASHSEED=0
}
