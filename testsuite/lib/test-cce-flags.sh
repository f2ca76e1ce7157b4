#!/bin/sh
# test-cce-flags.sh -- checks testsuite/lib/cce-flags.sh: the flags of a
# cce-uninstalled.pc named by CCE_PKG_CONFIG_PATH or found on
# PKG_CONFIG_PATH, and the errors.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
. "$here/cce-flags.sh"
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-cce-flags.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
me=test-cce-flags

. "$here/check.sh"

unset CCE_PKG_CONFIG_PATH
PKG_CONFIG_PATH=$tmp/empty PKG_CONFIG_LIBDIR=$tmp/empty
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR

# Errors.
check "no .pc in CCE_PKG_CONFIG_PATH" \
  "$(CCE_PKG_CONFIG_PATH=$tmp/none:$tmp; cce_flags 2>&1; echo "status $?")" \
  "test-cce-flags: no cce-uninstalled.pc in CCE_PKG_CONFIG_PATH=$tmp/none:$tmp (configure the build tree first)
status 1"

# A cce-uninstalled.pc in CCE_PKG_CONFIG_PATH: pkg-config's flags, as
# pkg-config prints them (with a space at the end).
if command -v pkg-config > /dev/null 2>&1; then
  mkdir -p "$tmp/pc"
  cat > "$tmp/pc/cce-uninstalled.pc" <<EOF2
top_builddir=/pc/top
Name: cce
Description: test
Version: 0
Cflags: -I/pc/inc -flto -fplugin=/pc/cce.so
Libs: -flto -fplugin=/pc/cce.so -L/pc/lib -lcce
EOF2
  CCE_PKG_CONFIG_PATH=$tmp/none:$tmp/pc
  cce_flags; check "pc: status" $? 0
  check "pc: cflags" "$CCE_CFLAGS" "-I/pc/inc -flto -fplugin=/pc/cce.so "
  check "pc: libs" "$CCE_LIBS" "-flto -fplugin=/pc/cce.so -L/pc/lib -lcce "
  check "pc: link libs" "$CCE_LINK_LIBS" "-L/pc/lib -lcce"
  check "pc: from" "$cce_from" "build tree ($tmp/pc/cce-uninstalled.pc)"
  check "pc: tree" "$cce_tree" "/pc/top"
  check "no cce at all" "$(unset CCE_PKG_CONFIG_PATH; cce_flags 2>&1; echo "status $?")" \
    "test-cce-flags: pkg-config finds no cce (set CCE_PKG_CONFIG_PATH to a build tree, or install cce)
status 1"
  # The same .pc found through PKG_CONFIG_PATH.
  unset CCE_PKG_CONFIG_PATH
  check "PKG_CONFIG_PATH: cflags" "$(PKG_CONFIG_PATH=$tmp/pc cce_cflags)" \
    "-I/pc/inc -flto -fplugin=/pc/cce.so "
else
  echo "no pkg-config: the .pc checks not run"
fi

check_summary
