# recipes/lua5.4.sh -- lua5.4 in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# lua5.4: the upstream tarball with its own Makefile (Debian's patches
# switch the build to libtool).  No test suite in the package:
# testsuite/corpus/lua-workload.lua checks what makes Lua hard for cce
# (setjmp/longjmp errors, coroutines, parser recursion, C->Lua->C
# callbacks).  Workload: that script 8 times.
recipe_lua5_4_pkg () { echo lua5.4; }
recipe_lua5_4_deps () { :; }
recipe_lua5_4_prepare () { unpack_orig lua5.4 "$1"; }
recipe_lua5_4_build () {
  make -C "$2" linux CC="$CC_V -std=gnu99" MYCFLAGS="$CFLAGS_V" MYLDFLAGS="$LDFLAGS_V" \
    AR="gcc-ar rcu" RANLIB=gcc-ranlib -j"$JOBS"
}
recipe_lua5_4_bin () { echo "$1/src/lua"; }
recipe_lua5_4_test () { (cd "$2" && ./src/lua "$here/lua-workload.lua"); }
recipe_lua5_4_summary () {
  awk '/^PASS / { p++ } /^(PASS|FAIL) / { t++ } END { printf "%d %d\n", p, t }' "$1"
}
recipe_lua5_4_normalize () { cat; }
recipe_lua5_4_about () { echo '`lua-workload.lua` (setjmp/longjmp errors, coroutines, parser recursion, callbacks) 8 times.'; }
recipe_lua5_4_workload () {
  i=0
  while test $i -lt 8; do ./src/lua "$here/lua-workload.lua" || return 1; i=$((i + 1)); done
}

vrecipe_lua5_4_funcs () {
  echo luaS_new luaH_resize luaD_throw luaF_newLclosure luaC_step \
    luaD_growstack luaF_close
}
vrecipe_lua5_4_run () {
  v_bin=src/lua v_args=$here/lua-workload.lua v_stdin=/dev/null
}
