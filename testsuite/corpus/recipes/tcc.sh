# recipes/tcc.sh -- tcc in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# tcc: its own configure and `make test`.  Two things a user would
# have to do under LTO, in both builds:
#  - link libm with --no-as-needed: `tcc -run` resolves the math functions
#    of the programs it runs in its own process, and with LTO tcc itself
#    no longer references libm, so --as-needed would drop it;
#  - keep -flto, -fplugin and -specs out of what tests/Makefile compiles
#    with gcc: some of those objects are linked by tcc, which cannot read
#    GCC's LTO bytecode (its filter already strips -W, -g and -O flags).
# Workload: tcc compiling its own source (tcc.c, all of tcc) 60 times.
recipe_tcc_pkg () { echo tcc; }
recipe_tcc_deps () { echo perl; }
recipe_tcc_prepare () {
  unpack_deb tcc "$1" &&
  sed -i 's/^CFLAGS := $(filter-out -W% -g% -O%,$(CFLAGS)) -I$(TOPSRC) $(LDFLAGS)$/CFLAGS := $(filter-out -W% -g% -O% -flto% -fplugin% -specs=% -fno-ipa-icf,$(CFLAGS) $(LDFLAGS)) -I$(TOPSRC)/' \
    "$1/tests/Makefile" &&
  grep -q 'filter-out -W% -g% -O% -flto%' "$1/tests/Makefile"
}
recipe_tcc_build () {
  # tcc's Makefile strips its binaries unless configured with --debug: the
  # validation's -g builds need their symbols (gdb).
  dbg=
  case " $CFLAGS_V " in *" -g "*) dbg=--debug ;; esac
  (cd "$2" && ./configure --cc="$CC_V" --extra-cflags="$CFLAGS_V" \
     --extra-ldflags="$LDFLAGS_V -Wl,--push-state,--no-as-needed -lm -Wl,--pop-state" \
     --ar=gcc-ar --triplet=x86_64-linux-gnu $dbg &&
   make -j"$JOBS")
}
recipe_tcc_bin () { echo "$1/tcc"; }
recipe_tcc_test () {
  # tests/Makefile's filter of -W% drops -Wl,-rpath too, and Debian's gcc
  # links without --as-needed: its test programs need libcce.so from the
  # build tree (an installed cce is on the loader's path anyway).
  if test -n "${CCE_RTDIR:-}"; then
    LD_LIBRARY_PATH=$CCE_RTDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} make -C "$2" test
  else
    make -C "$2" test
  fi
}
recipe_tcc_summary () {
  # make stops at the first failing test: count the tests it reached.
  awk '/^------------ .* ------------$/ || /^Test: / { t++ }
       /^run-corpus.sh: test exit status [1-9]/ { f = 1 }
       END { printf "%d %d\n", t - f, t }' "$1"
}
recipe_tcc_normalize () {
  # libtest_mt prints thread results in completion order, and times.
  awk '/^ *\([0-9]+ ms\)$/ { print " (TIME)"; next }
       /^( +[0-9]+)+ *$/ { n = split($0, v, " "); for (i = 1; i <= n; i++) w[i] = v[i] + 0
         for (i = 2; i <= n; i++) { x = w[i]; for (j = i - 1; j >= 1 && w[j] > x; j--) w[j+1] = w[j]; w[j+1] = x }
         s = ""; for (i = 1; i <= n; i++) s = s " " w[i]; print s; next }
       { print }'
}
recipe_tcc_about () { echo 'tcc compiling its own source (`tcc.c`, all of tcc in one unit) 60 times.'; }
recipe_tcc_workload () {
  i=0
  while test $i -lt 60; do
    ./tcc -B. -I. -Iinclude -c tcc.c -o "$PWD/self.o" || return 1
    i=$((i + 1))
  done
  cksum < self.o
}

vrecipe_tcc_funcs () { echo unary gen_op vpushi tok_alloc sym_push2 block; }
# Not -o /dev/null: tcc unlinks its output file and creates a new one,
# which, run as root, replaced /dev/null with a regular file.
vrecipe_tcc_run () {
  v_bin=tcc v_args="-B. -I. -Iinclude -c tcc.c -o validate-self.o" v_stdin=/dev/null
}
