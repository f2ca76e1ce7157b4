# cce-flags.sh -- sourced (POSIX sh): the flags of a build instrumented
# with cce, as `pkg-config --cflags/--libs cce` gives them, for the
# corpus scripts (testsuite/corpus/run-corpus.sh, validate-recipes.sh).
# The flags themselves are written once, in configure.ac, which puts them
# into cce.pc, cce-uninstalled.pc and cce-gcc.
#
# cce_flags sets
#   CCE_CFLAGS     what `pkg-config --cflags cce` gives: the compile flags
#   CCE_LIBS       what `pkg-config --libs cce` gives: the link flags
#   CCE_LINK_LIBS  the words of CCE_LIBS that are not in CCE_CFLAGS: what
#                  a link line that has CCE_CFLAGS needs on top
#   cce_tree       the top of the build tree they come from, or empty
#   cce_from       where they come from, in words
# from CCE_PKG_CONFIG_PATH, a directory (or a colon-separated list) that
# holds a cce-uninstalled.pc (a configured build tree), when it is set;
# else from pkg-config as PKG_CONFIG_PATH finds cce (an installed cce, or
# a cce-uninstalled.pc on PKG_CONFIG_PATH).  It returns 1, with a message
# on stderr that starts with $me, when there are no flags.  cce_cflags
# and cce_libs print CCE_CFLAGS and CCE_LIBS.

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
  cf_path=${PKG_CONFIG_PATH:-}
  if test -n "${CCE_PKG_CONFIG_PATH:-}"; then
    if ! cce_pc_dir "$CCE_PKG_CONFIG_PATH" > /dev/null; then
      echo "$cf_me: no cce-uninstalled.pc in CCE_PKG_CONFIG_PATH=$CCE_PKG_CONFIG_PATH (configure the build tree first)" >&2
      return 1
    fi
    cf_path=$CCE_PKG_CONFIG_PATH${cf_path:+:$cf_path}
  fi
  if ! CCE_CFLAGS=$(PKG_CONFIG_PATH=$cf_path pkg-config --cflags cce 2>/dev/null) ||
     ! CCE_LIBS=$(PKG_CONFIG_PATH=$cf_path pkg-config --libs cce 2>/dev/null); then
    echo "$cf_me: pkg-config finds no cce (set CCE_PKG_CONFIG_PATH to a build tree, or install cce)" >&2
    return 1
  fi
  if cf_dir=$(cce_pc_dir "$cf_path"); then
    cce_tree=$(PKG_CONFIG_PATH=$cf_path pkg-config --variable=top_builddir cce)
    cce_from="build tree ($cf_dir/cce-uninstalled.pc)"
  else
    cce_tree=
    cce_from="installed ($(pkg-config --variable=prefix cce 2>/dev/null))"
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
