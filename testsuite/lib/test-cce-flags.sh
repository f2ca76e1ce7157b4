#!/bin/sh
# test-cce-flags.sh -- checks testsuite/lib/cce-flags.sh: the flags
# composed from CCE_PLUGIN, CCE_RTDIR and CCE_INCDIR (with and without the
# specs file), those of a cce-uninstalled.pc named by CCE_PKG_CONFIG_PATH,
# and the errors.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
. "$here/cce-flags.sh"
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-cce-flags.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
me=test-cce-flags

. "$here/check.sh"

unset CCE_PKG_CONFIG_PATH CCE_SPECS
mkdir -p "$tmp/b/plugin" "$tmp/b/rt/.libs" "$tmp/s/rt"
: > "$tmp/b/plugin/cce.so"
CCE_PLUGIN=$tmp/b/plugin/cce.so CCE_RTDIR=$tmp/b/rt/.libs CCE_INCDIR=$tmp/s/rt
export CCE_PLUGIN CCE_RTDIR CCE_INCDIR
P=$CCE_PLUGIN R=$CCE_RTDIR

# Composed, no specs file.
cce_flags; check "status" $? 0
check "cflags" "$CCE_CFLAGS" "-I$tmp/s/rt -flto -fplugin=$P -fno-ipa-icf"
check "libs" "$CCE_LIBS" "-flto -fplugin=$P -fno-ipa-icf -L$R -Wl,-rpath,$R -lcce"
check "link libs" "$CCE_LINK_LIBS" "-L$R -Wl,-rpath,$R -lcce"
check "from" "$cce_from" "build tree ($P)"
# Composed, with the build tree's specs file.
: > "$tmp/b/rt/cce-uninstalled.specs"
check "cflags, specs" "$(cce_cflags)" "-I$tmp/s/rt -flto -fplugin=$P -fno-ipa-icf -specs=$tmp/b/rt/cce-uninstalled.specs"
check "libs, specs" "$(cce_libs)" "-flto -fplugin=$P -fno-ipa-icf -L$R -Wl,-rpath,$R -lcce"
# CCE_PKG_CONFIG_PATH without a cce-uninstalled.pc: composed all the same.
CCE_PKG_CONFIG_PATH=$tmp/none:$tmp; export CCE_PKG_CONFIG_PATH
cce_flags
check "no .pc: from" "$cce_from" "build tree ($P)"

# Errors.
check "no plugin" "$(CCE_PLUGIN=$tmp/none.so; cce_flags 2>&1; echo "status $?")" \
  "test-cce-flags: plugin $tmp/none.so not found (build the tree first)
status 1"
check "no rtdir" "$(CCE_RTDIR=; cce_flags 2>&1; echo "status $?")" \
  "test-cce-flags: CCE_RTDIR and CCE_INCDIR must be set with CCE_PLUGIN
status 1"

# A cce-uninstalled.pc in CCE_PKG_CONFIG_PATH: pkg-config's flags, as
# pkg-config prints them (with a space at the end).
if command -v pkg-config > /dev/null 2>&1; then
  mkdir -p "$tmp/pc"
  cat > "$tmp/pc/cce-uninstalled.pc" <<EOF2
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
  # The same .pc found through PKG_CONFIG_PATH, with no CCE_PLUGIN.
  unset CCE_PKG_CONFIG_PATH CCE_PLUGIN
  check "PKG_CONFIG_PATH: cflags" "$(PKG_CONFIG_PATH=$tmp/pc cce_cflags)" \
    "-I/pc/inc -flto -fplugin=/pc/cce.so "
else
  echo "no pkg-config: the .pc checks not run"
fi

check_summary
