# cce-flags.sh -- sourced (POSIX sh): the flags of a build instrumented
# with cce, the one place where the scripts get them (testsuite/cce-cc,
# testsuite/corpus/run-corpus.sh and, through cce-cc, bench/run-bench.sh,
# examples/ and testsuite/fuzz/cce-fuzz).
#
# cce_flags sets
#   CCE_CFLAGS     what `pkg-config --cflags cce` gives: the compile flags
#   CCE_LIBS       what `pkg-config --libs cce` gives: the link flags
#   CCE_LINK_LIBS  the words of CCE_LIBS that are not in CCE_CFLAGS: what
#                  a link line that has CCE_CFLAGS needs on top
#   cce_from       where they come from, in words
# from the first of:
#   1. CCE_PKG_CONFIG_PATH, a directory (or a colon-separated list) that
#      holds a cce-uninstalled.pc (a configured build tree): pkg-config
#      with that directory first in PKG_CONFIG_PATH;
#   2. CCE_PLUGIN, CCE_RTDIR and CCE_INCDIR (a build tree: the plugin, the
#      directory of libcce.so, the directory of cce.h), and CCE_SPECS
#      (default: cce-uninstalled.specs beside CCE_RTDIR, rt/Makefile.am),
#      composed as the installed cce.pc composes them, with the specs file
#      only when it exists;
#   3. `pkg-config --cflags/--libs cce` as PKG_CONFIG_PATH finds it (an
#      installed cce, or a cce-uninstalled.pc on PKG_CONFIG_PATH).
# It returns 1, with a message on stderr that starts with $me, when none
# gives flags.  cce_cflags and cce_libs print CCE_CFLAGS and CCE_LIBS.

# cce_pc_dir PATH: the first directory of the colon-separated PATH that
# holds a cce-uninstalled.pc.
cce_pc_dir () {
  cf_ifs=$IFS; IFS=:
  for cf_d in $1; do
    if test -n "$cf_d" && test -f "$cf_d/cce-uninstalled.pc"; then
      IFS=$cf_ifs; echo "$cf_d"; return 0
    fi
  done
  IFS=$cf_ifs
  return 1
}

cce_flags () {
  cf_me=${me:-cce-flags.sh}
  if test -n "${CCE_PKG_CONFIG_PATH:-}" &&
     cf_dir=$(cce_pc_dir "$CCE_PKG_CONFIG_PATH"); then
    cf_path=$CCE_PKG_CONFIG_PATH${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    CCE_CFLAGS=$(PKG_CONFIG_PATH=$cf_path pkg-config --cflags cce) || return 1
    CCE_LIBS=$(PKG_CONFIG_PATH=$cf_path pkg-config --libs cce) || return 1
    cce_from="build tree ($cf_dir/cce-uninstalled.pc)"
  elif test -n "${CCE_PLUGIN:-}"; then
    if test -z "${CCE_RTDIR:-}" || test -z "${CCE_INCDIR:-}"; then
      echo "$cf_me: CCE_RTDIR and CCE_INCDIR must be set with CCE_PLUGIN" >&2
      return 1
    fi
    if test ! -f "$CCE_PLUGIN"; then
      echo "$cf_me: plugin $CCE_PLUGIN not found (build the tree first)" >&2
      return 1
    fi
    cf_specs=${CCE_SPECS:-$(dirname "$CCE_RTDIR")/cce-uninstalled.specs}
    CCE_CFLAGS="-I$CCE_INCDIR -flto -fplugin=$CCE_PLUGIN -fno-ipa-icf"
    test -f "$cf_specs" && CCE_CFLAGS="$CCE_CFLAGS -specs=$cf_specs"
    CCE_LIBS="-flto -fplugin=$CCE_PLUGIN -fno-ipa-icf -L$CCE_RTDIR -Wl,-rpath,$CCE_RTDIR -lcce"
    cce_from="build tree ($CCE_PLUGIN)"
  else
    CCE_CFLAGS=$(pkg-config --cflags cce) || return 1
    CCE_LIBS=$(pkg-config --libs cce) || return 1
    if cf_dir=$(cce_pc_dir "${PKG_CONFIG_PATH:-}"); then
      cce_from="build tree ($cf_dir/cce-uninstalled.pc)"
    else
      cce_from="installed ($(pkg-config --variable=prefix cce 2>/dev/null))"
    fi
  fi
  CCE_LINK_LIBS=
  for cf_w in $CCE_LIBS; do
    case " $CCE_CFLAGS " in
      *" $cf_w "*) ;;
      *) CCE_LINK_LIBS=$CCE_LINK_LIBS${CCE_LINK_LIBS:+ }$cf_w ;;
    esac
  done
  return 0
}

cce_cflags () { cce_flags && echo "$CCE_CFLAGS"; }
cce_libs () { cce_flags && echo "$CCE_LIBS"; }
