# crash.sh -- sourced by the tests of programs that die or lose their
# log (death.sh, randomkill.sh, logerr.sh, enospc.sh), after env.sh and
# e2e_tmpdir.  The programs log through crashlog.h: record SEQ of thread
# index I has the tag I << 20 | SEQ and the path of its class,
# SEQ % CRASH_NCLASS; each thread stores its count of records in a shared
# file after every cce_log returns.

crash_nclass=16

# crash_need_gdb NAME: exit 77 unless gdb with Python is there.
crash_need_gdb () {
  [ -n "$GDB" ] || { echo "SKIP: $1: no gdb (GDB is empty)"; exit 77; }
  command -v "$GDB" >/dev/null 2>&1 \
    || { echo "SKIP: $1: gdb '$GDB' not found"; exit 77; }
  "$GDB" -q -nx -batch -ex 'python print("cce-py-ok")' 2>/dev/null \
    | grep -q cce-py-ok || { echo "SKIP: $1: $GDB has no Python support"; exit 77; }
}

# crash_need_sleep NAME: exit 77 unless sleep takes fractions of a second.
crash_need_sleep () {
  sleep 0.001 2>/dev/null \
    || { echo "SKIP: $1: sleep takes no fractions of a second"; exit 77; }
}

# crash_oracle SRC ARGS...: build SRC at -O0 -g without cce (linked with
# libcce, so that cce_log exists), run it with ARGS under gdb (oracle.py,
# in the directory $tmp/oracle), and write the path of each class, taken
# from the records gdb saw, to $tmp/expected (crash_expected).  The run
# must log every class.  Returns 1, having said why, on failure.
crash_oracle () {
  _csrc=$1; shift
  e2e_oracle "$_csrc" "$tmp/oracle.txt" "$@" || return 1
  grep '^oracle:' "$tmp/gdb.log"
  crash_expected "$tmp/oracle.txt" >"$tmp/expected" || return 1
  echo "oracle: the path of each class of records (gdb, -O0):"
  sed 's/^/  /' "$tmp/expected"
}

# crash_expected ORACLE: print CLASS<TAB>PATH for each class from the
# oracle's records (THREAD<TAB>TAG<TAB>PATH).  Every record of a class,
# whatever its thread, must have the same path, and every class must be
# there.
crash_expected () {
  awk -F '\t' -v nclass="$crash_nclass" '
    { c = ($2 % 1048576) % nclass
      if (c in path && path[c] != $3) {
        print "ERROR: oracle: class " c " has two paths: " path[c] \
              " and " $3 > "/dev/stderr"
        bad = 1
      }
      path[c] = $3 }
    END { for (c = 0; c < nclass; c++) {
            if (!(c in path)) {
              print "ERROR: oracle: no record of class " c > "/dev/stderr"
              bad = 1
            }
            print c "\t" path[c]
          }
          exit bad }' "$1"
}

# crash_counts FILE T: print THREAD_INDEX<TAB>COUNT for thread indexes
# 0 .. T-1 from the counts file of crashlog.h (word 8 * I of the file, a
# native uint64_t); 0 for a thread, or a file, that is not there.
crash_counts () {
  if [ -f "$1" ]; then od -A n -v -t u8 "$1"; fi \
    | awk -v t="$2" '{ for (i = 1; i <= NF; i++) w[n++] = $i }
                     END { for (i = 0; i < t; i++)
                             print i "\t" ((8 * i) in w ? w[8 * i] : 0) }'
}

# crash_check MODE COUNTS DECODED: check DECODED (cce-decode's records)
# against COUNTS and $tmp/expected with crashcheck.awk in MODE (exact,
# extra1 or prefix); set logged decoded lost extra dup wrong beyond holes
# disorder badthread, and write the first problems to $tmp/details.
crash_check () {
  : >"$tmp/details"
  _r=$(awk -f "$here/crashcheck.awk" -v mode="$1" -v nclass="$crash_nclass" \
         -v details="$tmp/details" "$tmp/expected" "$2" "$3") || return 1
  case $_r in
    logged=*) eval "$_r" ;;
    *) echo "ERROR: crashcheck.awk: $_r"; return 1 ;;
  esac
}

# crash_end STATUS: how a process ended, from the shell's exit status
# STATUS: "signal NAME" or "status N".
crash_end () {
  if [ "$1" -gt 128 ]; then
    echo "signal $(kill -l $(($1 - 128)))"
  else
    echo "status $1"
  fi
}

# crash_logerr_build NAME: for logerr.sh and enospc.sh (test NAME), the
# gdb oracle of $src (logerr.c) and its cce build, $exe.
crash_logerr_build () {
  crash_oracle "$src" "$tmp/oracle/counts" 2 $((2 * crash_nclass)) 0 || exit 1
  exe=$tmp/logerr
  if ! cce_cc -O2 "$src" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"; echo "FAIL: $1: compilation failed"; exit 1
  fi
}

# crash_logerr_run NAME LOG: run $exe with CCE_LOG=LOG in $tmp/NAME, with
# $nthreads threads logging $n records each and exit status 3; set st.
crash_logerr_run () {
  mkdir -p "$tmp/$1" || exit 1
  (cd "$tmp/$1" && CCE_LOG=$2 && export CCE_LOG &&
   exec "$exe" "$tmp/$1/counts" $nthreads $n 3) >"$tmp/$1/out" 2>"$tmp/$1/err"
  st=$?
}

# crash_trap_umount: on exit, unmount the file system mounted at
# $crash_mounted (if it is set) before the test's directory goes.
crash_mounted=
crash_cleanup () {
  [ -z "$crash_mounted" ] || umount "$crash_mounted" 2>/dev/null
  [ -n "$E2E_KEEP" ] || rm -rf "$tmp"
}
crash_trap_umount () {
  trap crash_cleanup 0
  trap 'exit 1' 1 2 13 15
}
