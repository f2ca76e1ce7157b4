# recipes/bash.sh -- bash in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# bash: autoconf, `make tests` (as nobody when run as root: some tests
# fail as root).  The tests print nothing but their names unless something
# differs; a test "passes" here when it printed nothing else but warnings.
# Workload: testsuite/corpus/bash-workload.sh.
recipe_bash_pkg () { echo bash; }
recipe_bash_deps () { :; }
recipe_bash_prepare () { unpack_deb bash "$1"; }
recipe_bash_build () {
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --without-bash-malloc --disable-nls &&
   make -j"$JOBS")
}
recipe_bash_bin () { echo "$1/bash"; }
recipe_bash_test () {
  if test "$(id -u)" = 0; then
    chown -R nobody "$2" &&
    su nobody -s /bin/sh -c "cd '$2' && make tests"
  else
    make -C "$2" tests
  fi
}
recipe_bash_summary () {
  awk '/^run-/ { t++; if (cur != "" && !bad) p++; cur = $1; bad = 0; next }
       cur != "" && !/^warning: / && !/^[ \t]*$/ { bad = 1 }
       END { if (cur != "" && !bad) p++; printf "%d %d\n", p, t }' "$1"
}
recipe_bash_normalize () {
  # Temporary names, process group numbers and job reports carry process
  # ids; which line of jobs.tests a killed job is reported at depends on
  # timing, and so does whether nameref11.sub's coproc has exited (and
  # unset RO_PID) when the test prints it: a loaded machine makes plain
  # bash print "declare -r RO_PID" too.  The diff hunk lines around such
  # lines move with them.
  sed -E -e 's/bashtst-[0-9]*/bashtst-N/g' \
      -e 's/terminal process group \([0-9]*\)/terminal process group (PID)/' \
      -e 's/line [0-9]+: [0-9]+ (Killed|Terminated|Done|Stopped)/line N: PID \1/' \
      -e '/RO_PID/d' -e '/^[0-9]+(,[0-9]+)?[acd][0-9]+(,[0-9]+)?$/d'
}
recipe_bash_about () { echo '`bash-workload.sh`: arithmetic loops, associative arrays, expansions, recursive functions in subshells, a trap, a pipeline.'; }
recipe_bash_workload () { ./bash "$here/bash-workload.sh"; }

vrecipe_bash_funcs () {
  echo expand_word_internal execute_command_internal make_bare_word \
    find_variable hash_search
}
vrecipe_bash_run () {
  # Not bash-workload.sh: its subshells and commands fork, and every
  # child would write a log of its own.
  v_bin=bash v_args=$here/bash-validate.sh v_stdin=/dev/null
}
