# validate-recipes.sh -- sourced by run-corpus.sh: the validation of
# decoded contexts on each corpus program (validate.sh), and the ccStack
# push count.
#
# For each program, recipes/PROG.sh defines the validation recipe:
# vrecipe_PROG_funcs names a handful of functions that
# are hot and reached from many contexts, and vrecipe_PROG_run sets the
# single-process, deterministic run to validate on: v_bin (relative to the
# build tree), v_args, v_stdin, and optionally v_env (NAME=VALUE words
# added to the environment of both runs, the traced one and gdb's).
# validate_program PROG builds two more variants of PROG with the
# program's own recipe:
#   trace  cce as in the "cce" build (observe-all too, unless
#          --observed-only; the wrapper of --wrapper), plus -g,
#          -fplugin-arg-cce-trace=FUNCS and -fplugin-arg-cce-count
#          (ccStack pushes counted);
#   o0     -O0 -g, no LTO, no cce: the oracle's build, run under gdb;
# then runs validate.sh on them and writes PROG/validated ("N M D": N
# contexts compared, M mismatches, D distinct paths) and PROG/pushes
# (ccStack pushes per second of the traced run, and in total).

# validate_program PROG: see above.  Returns 1 on a mismatch or failure.
validate_program () {
  prog=$1
  f=$(fn "$prog")
  type "vrecipe_${f}_funcs" >/dev/null 2>&1 || {
    log "$prog/validate: no validation recipe"; return 0; }
  pdir=$workdir/$prog
  : "${CCE_DECODE:=cce-decode}"
  funcs=$("vrecipe_${f}_funcs")
  tlist=$(echo $funcs | tr ' ' ,)
  for v in trace o0; do
    if test $v = trace; then
      # As the cce build (run_program), with -g and the traced functions
      # on the compile and the link.
      tflags="-fplugin-arg-cce-trace=$tlist -fplugin-arg-cce-count $observe_flag"
      test -z "${lto_jobs:-}" || tflags="$tflags -flto=$lto_jobs"
      CC_V=gcc CXX_V=g++ CFLAGS_V="$PLAIN_CFLAGS -g $CCE_CFLAGS $tflags"
      LDFLAGS_V="$PLAIN_CFLAGS -g $CCE_CFLAGS $CCE_LIBS $tflags" LIBS_V= rv=cce
      # --wrapper: the wrapper adds the cce flags.
      if test -n "$wrapper"; then
        CC_V=$wrapper CXX_V=$cxx_wrapper CFLAGS_V="$PLAIN_CFLAGS -g $tflags"
        LDFLAGS_V="$PLAIN_CFLAGS -g $tflags"
      fi
    else
      CC_V=gcc CXX_V=g++ CFLAGS_V="-O0 -g" LDFLAGS_V="-O0 -g" LIBS_V= rv=plain
    fi
    tree=$pdir/$v
    log "$prog/$v: unpacking and building (log: $pdir/$v.build.log)"
    if ! "recipe_${f}_prepare" "$tree" >"$pdir/$v.build.log" 2>&1 ||
       ! "recipe_${f}_build" $rv "$tree" >>"$pdir/$v.build.log" 2>&1; then
      log "$prog/$v: build FAILED; last lines of $pdir/$v.build.log:"
      tail -n 15 "$pdir/$v.build.log" | sed 's/^/    /'
      return 1
    fi
  done
  v_env=
  "vrecipe_${f}_run"
  rm -f "$pdir/trace.stats"
  t0=$(now)
  log "$prog/validate: functions $funcs"
  # shellcheck disable=SC2086
  env $v_env CCE_STATS="$pdir/trace.stats" sh "$here/validate.sh" --funcs "$funcs" \
    --budget "${CCE_VALIDATE_BUDGET:-2000}" --stdin "$v_stdin" \
    --cwd "$pdir/trace" --out "$pdir/validate" --decode "$CCE_DECODE" \
    "$pdir/trace/$v_bin" "$pdir/o0/$v_bin" $v_args 2>&1 | sed 's/^/    /'
  st=$(cat "$pdir/validate/validated" 2>/dev/null)
  cp "$pdir/validate/validated" "$pdir/validated" 2>/dev/null
  # Pushes: the traced run's processes (the first line of trace.stats is
  # the traced run's, as validate.sh runs it before gdb).
  if test -s "$pdir/trace.stats"; then
    secs=$(cat "$pdir/validate/traced.secs" 2>/dev/null)
    awk -v secs="$secs" '{ p += $5 } END {
      if (secs > 0) printf "%.3g/s (%d in %.2f s)\n", p / secs, p, secs
      else printf "%d\n", p }' "$pdir/trace.stats" >"$pdir/pushes"
    log "$prog/validate: ccStack pushes $(cat "$pdir/pushes")"
  fi
  log "$prog/validate: done in $(elapsed "$t0" "$(now)") s"
  set -- $st
  test -n "$1" && test "$1" -gt 0 && test "$2" -eq 0
}
