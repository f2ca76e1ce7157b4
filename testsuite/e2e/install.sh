#!/bin/sh
# install.sh [--deb] -- cce as a user installs it.
#
# Installs this build tree with "make install DESTDIR=" into a scratch
# root; with --deb instead builds the Debian packages (debian/) from a
# copy of the source distribution with dpkg-buildpackage (nocheck) and
# unpacks them with "dpkg -x" (skipped, 77, without debhelper or the build
# dependencies; lintian, when there, must report no error).  Then, from
# that root only: checks that cce.pc names the installed plugin, builds
# the bundled example (examples/hello.c and util.c) with the root's
# cce-gcc (CCE_PREFIX points it there), runs it, and decodes its log with
# the root's cce-decode: the paths must be those of
# examples/hello.expected, and the program must use the root's libcce.
#
# Environment: see run-e2e.sh.  CCE_BUILDDIR is the build tree installed.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

mode=destdir
case $1 in
  --deb) mode=deb ;;
  '') ;;
  *) echo "usage: install.sh [--deb]" >&2; exit 2 ;;
esac
name=install${1:+-deb}

skip () { echo "SKIP: $name: $*"; exit 77; }
fail () { echo "FAIL: $name: $*"; exit 1; }

# The harness's build-tree paths are for testsuite/cce-cc: the installed
# cce-gcc must find everything by itself.
unset CCE_PLUGIN CCE_INCDIR CCE_LIBDIR CCE_SPECS CCE_PKG_CONFIG_PATH \
  CCE_REAL_CC CCE_PREFIX
# A make of our own, not part of the harness's make.
unset MAKEFLAGS MFLAGS MAKELEVEL

[ -f "$CCE_BUILDDIR/cce.pc" ] || fail "no $CCE_BUILDDIR/cce.pc (configure first)"
e2e_tmpdir "$name" || exit 1

# dist TARGET: a copy of the source distribution, as "make distdir" makes
# it, in $tmp/TARGET.  automake wants distdir relative to the build tree.
dist () {
  mkdir -p "$tmp/$1" &&
  rel=$(realpath --relative-to="$CCE_BUILDDIR" "$tmp/$1/cce") &&
  make -C "$CCE_BUILDDIR" distdir distdir="$rel" > "$tmp/dist.log" 2>&1 ||
    { sed 's/^/  /' "$tmp/dist.log"; fail "make distdir"; }
}

root=$tmp/root
case $mode in
  destdir)
    make -C "$CCE_BUILDDIR" install DESTDIR="$root" > "$tmp/install.log" 2>&1 ||
      { sed 's/^/  /' "$tmp/install.log"; fail "make install DESTDIR=$root"; }
    prefix=$(sed -n 's/^prefix=//p' "$CCE_BUILDDIR/cce.pc")
    echo "ok:   make install DESTDIR (prefix $prefix)" ;;
  deb)
    for t in dpkg-buildpackage dpkg-checkbuilddeps dh dpkg-deb realpath; do
      command -v $t > /dev/null 2>&1 || skip "no $t (apt-get install dpkg-dev debhelper)"
    done
    [ -f "$CCE_SRCDIR/debian/control" ] || skip "no debian/ in $CCE_SRCDIR"
    (cd "$CCE_SRCDIR" && dpkg-checkbuilddeps) > "$tmp/deps.log" 2>&1 ||
      skip "$(tail -1 "$tmp/deps.log")"
    dist src
    echo "building the packages (dpkg-buildpackage -us -uc -b, nocheck)"
    (cd "$tmp/src/cce" &&
     DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
      > "$tmp/deb.log" 2>&1 ||
      { tail -30 "$tmp/deb.log" | sed 's/^/  /'; fail "dpkg-buildpackage"; }
    for p in cce libcce0 libcce-dev; do
      deb=$(ls "$tmp/src/${p}_"*.deb 2>/dev/null | head -1)
      [ -n "$deb" ] || fail "no package $p"
      dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
    done
    echo "ok:   packages built and unpacked: $(cd "$tmp/src" && echo *.deb)"
    if command -v lintian > /dev/null 2>&1; then
      (cd "$tmp/src" && lintian --fail-on error *.changes) > "$tmp/lintian.log" 2>&1 ||
        { sed 's/^/  /' "$tmp/lintian.log"; fail "lintian reports errors"; }
      echo "ok:   lintian: $(grep -c '^[EW]:' "$tmp/lintian.log") errors and warnings"
      sed 's/^/  /' "$tmp/lintian.log"
    else
      echo "note: no lintian; the packages were not checked"
    fi
    # The plugin goes where GCC finds it by name.
    gccplugin=$(${CC:-gcc} -print-file-name=plugin)
    [ -f "$root$gccplugin/cce.so" ] ||
      fail "the plugin is not in GCC's plugin directory $gccplugin"
    echo "ok:   the plugin is in $gccplugin"
    prefix=/usr ;;
esac

pfx=$root$prefix
for f in bin/cce-gcc bin/cce-decode share/man/man1/cce-gcc.1 \
         share/man/man1/cce-decode.1 share/man/man3/cce.3 include/cce.h; do
  # Manual pages are compressed in the packages.
  [ -f "$pfx/$f" ] || [ -f "$pfx/$f.gz" ] || fail "not installed: $prefix/$f"
done
pc=$(find "$pfx" -name cce.pc | head -1)
[ -n "$pc" ] || fail "not installed: cce.pc"
plugin=$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$(dirname "$pc") \
  pkg-config --define-variable=prefix="$pfx" --variable=plugin cce)
[ -f "$plugin" ] || fail "cce.pc names the plugin $plugin, which is not there"
echo "ok:   cce.pc names the installed plugin ${plugin#$root}"

# The example, with nothing from the build tree.
CCE_PREFIX=$pfx "$pfx/bin/cce-gcc" -O2 -g -o "$tmp/hello" \
  "$CCE_SRCDIR/examples/hello.c" "$CCE_SRCDIR/examples/util.c" \
  > "$tmp/cc.log" 2>&1 || { sed 's/^/  /' "$tmp/cc.log"; fail "cce-gcc"; }
echo "ok:   built hello with $prefix/bin/cce-gcc"
lib=$(ldd "$tmp/hello" | sed -n 's/.*libcce[^ ]* => \([^ ]*\).*/\1/p')
case $lib in
  "$root"/*) echo "ok:   hello uses ${lib#$root}" ;;
  *) fail "hello uses libcce ${lib:-(none)}, not the installed one" ;;
esac
CCE_LOG=$tmp/hello.log "$tmp/hello" > "$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "hello failed"; }
"$pfx/bin/cce-decode" --format=records "$tmp/hello" "$tmp/hello.log" \
  > "$tmp/got" 2> "$tmp/decode.err" ||
  { cat "$tmp/decode.err"; fail "cce-decode"; }
if diff -u "$CCE_SRCDIR/examples/hello.expected" "$tmp/got"; then
  echo "ok:   decoded paths are those of examples/hello.expected"
else
  fail "decoded paths differ from examples/hello.expected"
fi
