# validate-recipes.sh -- sourced by run-corpus.sh: the validation of
# decoded contexts on each corpus program (validate.sh), and the ccStack
# push count.
#
# For each program, vrecipe_PROG_funcs names a handful of functions that
# are hot and reached from many contexts, and vrecipe_PROG_run sets the
# single-process, deterministic run to validate on: v_bin (relative to the
# build tree), v_args, v_stdin.  validate_program PROG builds two more
# variants of PROG with the program's own recipe:
#   trace  cce as in the "cce" build (observe-all too, unless
#          --observed-only), plus -g, -fplugin-arg-cce-trace=FUNCS and
#          -fplugin-arg-cce-count (ccStack pushes counted);
#   o0     -O0 -g, no LTO, no cce: the oracle's build, run under gdb;
# then runs validate.sh on them and writes PROG/validated ("N M D": N
# contexts compared, M mismatches, D distinct paths) and PROG/pushes
# (ccStack pushes per second of the traced run, and in total).

vrecipe_lua5_4_funcs () {
  echo luaS_new luaH_resize luaD_throw luaF_newLclosure luaC_step \
    luaD_growstack luaF_close
}
vrecipe_lua5_4_run () {
  v_bin=src/lua v_args=$here/lua-workload.lua v_stdin=/dev/null
}

vrecipe_zlib_funcs () {
  echo fill_window _tr_flush_block build_tree send_tree compress_block \
    deflate gz_comp zcalloc
}
vrecipe_zlib_run () { v_bin=minigzip v_args=-9 v_stdin=$(data 4); }

vrecipe_sqlite3_funcs () {
  echo sqlite3VdbeAddOp3 sqlite3ExprCodeTarget sqlite3Select \
    sqlite3WhereBegin sqlite3BtreeInsert sqlite3ErrorMsg
}
vrecipe_sqlite3_run () {
  v_bin=sqlite3 v_args=:memory: v_stdin=$here/sqlite-workload.sql
}

vrecipe_gawk_funcs () {
  echo r_format_val research format_tree do_sub assoc_list setup_frame \
    make_regexp cmp_nodes
}
vrecipe_gawk_run () {
  v_bin=gawk v_args="-f $here/gawk-workload.awk $(data 1)" v_stdin=/dev/null
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

vrecipe_bzip2_funcs () {
  echo BZ2_bzWrite BZ2_bzCompress handle_compress copy_input_until_stop \
    copy_output_until_stop prepare_new_block BZ2_compressBlock mainSort
}
vrecipe_bzip2_run () { v_bin=bzip2 v_args="-9 -c" v_stdin=$(data 4); }

vrecipe_xz_utils_funcs () {
  echo lzma_alloc lzma_free lzma_bufcpy lzma_check_update lzma_code \
    lz_encode lzma_next_end
}
vrecipe_xz_utils_run () {
  v_bin=src/xz/xz v_args="-T1 -6 -c" v_stdin=$(data 2)
}

vrecipe_zstd_funcs () {
  echo HIST_count_wksp FSE_normalizeCount FSE_buildCTable_wksp \
    HUF_compress4X_usingCTable ZSTD_compressLiterals \
    ZSTD_entropyCompressSeqStore ZSTD_compressBlock_internal \
    ZSTD_compressStream2
}
vrecipe_zstd_run () {
  v_bin=programs/zstd v_args="-q --single-thread -12 -c" v_stdin=$(data 16)
}

vrecipe_tcc_funcs () { echo unary gen_op vpushi tok_alloc sym_push2 block; }
# Not -o /dev/null: tcc unlinks its output file and creates a new one,
# which, run as root, replaced /dev/null with a regular file.
vrecipe_tcc_run () {
  v_bin=tcc v_args="-B. -I. -Iinclude -c tcc.c -o validate-self.o" v_stdin=/dev/null
}

vrecipe_bash_funcs () {
  echo expand_word_internal execute_command_internal make_bare_word \
    find_variable hash_search
}
vrecipe_bash_run () {
  # Not bash-workload.sh: its subshells and commands fork, and every
  # child would write a log of its own.
  v_bin=bash v_args=$here/bash-validate.sh v_stdin=/dev/null
}

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
      CC_V=gcc CFLAGS_V="$PLAIN_CFLAGS -g $CCE_CFLAGS $tflags"
      LDFLAGS_V="$PLAIN_CFLAGS -g $CCE_CFLAGS $CCE_LIBS $tflags" LIBS_V= rv=cce
    else
      CC_V=gcc CFLAGS_V="-O0 -g" LDFLAGS_V="-O0 -g" LIBS_V= rv=plain
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
  "vrecipe_${f}_run"
  rm -f "$pdir/trace.stats"
  t0=$(now)
  log "$prog/validate: functions $funcs"
  # shellcheck disable=SC2086
  CCE_STATS=$pdir/trace.stats sh "$here/validate.sh" --funcs "$funcs" \
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
