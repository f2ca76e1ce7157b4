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
