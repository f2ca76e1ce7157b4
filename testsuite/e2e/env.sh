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
