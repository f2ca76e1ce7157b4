# env.sh -- sourced by the end-to-end test scripts, after they set HERE to
# their own directory.  The test harness (testsuite/Makefile.am) sets
# these variables; the defaults let a test run by hand from a build in the
# source tree.
: "${CCE_SRCDIR:=$(cd "$here/../.." && pwd)}"
: "${CCE_BUILDDIR:=$CCE_SRCDIR}"
: "${CCE_PLUGIN:=$CCE_BUILDDIR/plugin/.libs/cce.so}"
: "${CCE_RTDIR:=$CCE_BUILDDIR/rt/.libs}"
: "${CCE_INCDIR:=$CCE_SRCDIR/rt}"
: "${CCE_DECODE:=$CCE_BUILDDIR/decode/cce-decode}"
: "${CCE_CC:=$CCE_SRCDIR/testsuite/cce-cc}"
: "${CC:=gcc}"
GDB=${GDB-gdb}
unset CCE_LOG

# Compile and/or link with cce, as $(pkg-config --cflags/--libs cce) would.
cce_cc () {
  sh "$CCE_CC" "$@"
}

# e2e_tmpdir NAME: a new temporary directory in $tmp, removed when the
# script exits unless E2E_KEEP is set.
e2e_tmpdir () {
  tmp=$(mktemp -d "${E2E_TMPDIR:-${TMPDIR:-/tmp}}/cce-e2e-$1.XXXXXX") || return 1
  if [ -n "$E2E_KEEP" ]; then
    echo "keeping $tmp"
  else
    trap 'rm -rf "$tmp"' 0
    trap 'exit 1' 1 2 13 15
  fi
}

# e2e_oracle SRC OUT ARGS...: build SRC at -O0 -g without cce (linked with
# libcce, so that cce_log exists) as $tmp/prog.O0, run it with ARGS under
# gdb (oracle.py, in the directory $tmp/oracle), and write the records gdb
# saw to OUT (THREAD<TAB>TAG<TAB>PATH).  Returns 1, having said why, on
# failure.
e2e_oracle () {
  _src=$1 _out=$2; shift 2
  mkdir -p "$tmp/oracle" || return 1
  if ! $CC -O0 -g -fno-lto -I"$CCE_INCDIR" "$_src" -o "$tmp/prog.O0" \
       -pthread -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce \
       >"$tmp/cc.O0.log" 2>&1; then
    cat "$tmp/cc.O0.log"; echo "ERROR: the -O0 build failed"; return 1
  fi
  if ! (cd "$tmp/oracle" && CCE_LOG="$tmp/oracle/O0.log" \
        CCE_ORACLE_OUT="$_out" \
        timeout 600 "$GDB" -q -batch -nx -x "$here/oracle.py" \
        --args "$tmp/prog.O0" "$@") >"$tmp/gdb.log" 2>&1; then
    tail -n 20 "$tmp/gdb.log"; echo "ERROR: the oracle failed"; return 1
  fi
}
