# cce_gcc_plugin.m4 -- find what is needed to build a GCC plugin.  -*- Autoconf -*-
#
# CCE_GCC_PLUGIN
# --------------
# Requires AC_PROG_CC and AC_PROG_CXX.  Checks that $CC is GCC of a
# supported major version, that $CXX is the g++ of the same version (a
# plugin must be built by the C++ compiler of the GCC that loads it), finds
# GCC's plugin directory with `$CC -print-file-name=plugin' and checks that
# its headers compile.
#
# Substitutes:
#   GCC_MAJOR            major version of $CC, e.g. 12
#   GCC_PLUGIN_DIR       the plugin directory of $CC
#   GCC_PLUGIN_CPPFLAGS  -I$GCC_PLUGIN_DIR/include
AC_DEFUN([CCE_GCC_PLUGIN],
[AC_REQUIRE([AC_PROG_CC])dnl
AC_REQUIRE([AC_PROG_CXX])dnl
m4_define([cce_gcc_supported], [12])dnl

dnl Is $CC GCC at all (and not a compiler that only claims __GNUC__)?
AC_CACHE_CHECK([whether $CC is GCC], [cce_cv_cc_is_gcc],
  [AC_LANG_PUSH([C])
   AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#if !defined __GNUC__ || defined __clang__ || defined __INTEL_COMPILER
# error not GCC
#endif
]])], [cce_cv_cc_is_gcc=yes], [cce_cv_cc_is_gcc=no])
   AC_LANG_POP([C])])
AS_IF([test "x$cce_cv_cc_is_gcc" != xyes],
  [AC_MSG_ERROR([cce supports GCC cce_gcc_supported; $CC is not GCC])])

AC_CACHE_CHECK([the major version of $CC], [cce_cv_gcc_major],
  [AC_LANG_PUSH([C])
   AC_COMPUTE_INT([cce_cv_gcc_major], [__GNUC__], [],
                  [cce_cv_gcc_major=unknown])
   AC_LANG_POP([C])])
GCC_MAJOR=$cce_cv_gcc_major
AS_CASE([" cce_gcc_supported "],
  [*" $GCC_MAJOR "*], [],
  [AC_MSG_ERROR([cce supports GCC cce_gcc_supported; found GCC $GCC_MAJOR])])

dnl The plugin is C++ and must be compiled by the g++ of the same GCC.
AC_CACHE_CHECK([the major version of $CXX], [cce_cv_gxx_major],
  [AC_LANG_PUSH([C++])
   AC_COMPUTE_INT([cce_cv_gxx_major], [__GNUC__ + 0], [
#if !defined __GNUC__ || defined __clang__ || defined __INTEL_COMPILER
# error not g++
#endif
], [cce_cv_gxx_major=unknown])
   AC_LANG_POP([C++])])
AS_IF([test "x$cce_cv_gxx_major" != "x$GCC_MAJOR"],
  [AC_MSG_ERROR([the GCC plugin must be built by g++ $GCC_MAJOR; $CXX is not (use CXX=g++-$GCC_MAJOR)])])

AC_CACHE_CHECK([for the GCC plugin directory], [cce_cv_gcc_plugin_dir],
  [cce_cv_gcc_plugin_dir=`$CC -print-file-name=plugin 2>/dev/null`
   AS_CASE([$cce_cv_gcc_plugin_dir],
     [/*], [test -d "$cce_cv_gcc_plugin_dir" || cce_cv_gcc_plugin_dir=no],
     [cce_cv_gcc_plugin_dir=no])])
AS_IF([test "x$cce_cv_gcc_plugin_dir" = xno],
  [AC_MSG_ERROR([GCC plugin headers not found: apt-get install gcc-$GCC_MAJOR-plugin-dev])])
GCC_PLUGIN_DIR=$cce_cv_gcc_plugin_dir
GCC_PLUGIN_CPPFLAGS="-I$GCC_PLUGIN_DIR/include"

AC_CACHE_CHECK([whether the GCC plugin headers compile],
  [cce_cv_gcc_plugin_headers],
  [AC_LANG_PUSH([C++])
   cce_save_CPPFLAGS=$CPPFLAGS
   CPPFLAGS="$GCC_PLUGIN_CPPFLAGS $CPPFLAGS"
   AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include "gcc-plugin.h"
#include "plugin-version.h"
]], [[return gcc_version.basever == 0;]])],
     [cce_cv_gcc_plugin_headers=yes], [cce_cv_gcc_plugin_headers=no])
   CPPFLAGS=$cce_save_CPPFLAGS
   AC_LANG_POP([C++])])
AS_IF([test "x$cce_cv_gcc_plugin_headers" != xyes],
  [AC_MSG_ERROR([GCC plugin headers not found: apt-get install gcc-$GCC_MAJOR-plugin-dev])])

AC_SUBST([GCC_MAJOR])
AC_SUBST([GCC_PLUGIN_DIR])
AC_SUBST([GCC_PLUGIN_CPPFLAGS])
])

# CCE_PLUGIN_INSTALL_DIR
# ----------------------
# Requires CCE_GCC_PLUGIN.  Where "make install" puts the plugin cce.so:
# the directory given with --with-gcc-plugin-dir=DIR; by default GCC's own
# plugin directory (GCC_PLUGIN_DIR) when that lies under the prefix, so
# that -fplugin=cce finds it by name (--prefix=/usr with the system GCC),
# and $(libdir)/cce otherwise (--prefix=/usr/local, or the temporary
# prefix of "make distcheck": never outside the prefix).  A default under
# the prefix is written relative to ${prefix}, so that the installed files
# stay relocatable.
#
# Substitutes:
#   CCE_PLUGIN_INSTDIR   the install directory of cce.so
AC_DEFUN([CCE_PLUGIN_INSTALL_DIR],
[AC_REQUIRE([CCE_GCC_PLUGIN])dnl
AC_ARG_WITH([gcc-plugin-dir],
  [AS_HELP_STRING([--with-gcc-plugin-dir=DIR],
    [install the plugin cce.so in DIR [GCC's plugin directory if it is
     under PREFIX, else LIBDIR/cce]])],
  [], [with_gcc_plugin_dir=auto])
AC_MSG_CHECKING([where to install the plugin])
AS_CASE([$with_gcc_plugin_dir],
  [yes|no|""],
    [AC_MSG_ERROR([--with-gcc-plugin-dir needs a directory])],
  [auto],
    [cce_prefix=$prefix
     test "x$cce_prefix" = xNONE && cce_prefix=$ac_default_prefix
     cce_gcc_dir=`cd "$GCC_PLUGIN_DIR" 2>/dev/null && pwd`
     AS_CASE([$cce_gcc_dir],
       ["$cce_prefix"/*],
         [CCE_PLUGIN_INSTDIR='${prefix}'${cce_gcc_dir@%:@"$cce_prefix"}],
       [CCE_PLUGIN_INSTDIR='${libdir}/cce'])],
  [CCE_PLUGIN_INSTDIR=$with_gcc_plugin_dir])
AC_MSG_RESULT([$CCE_PLUGIN_INSTDIR])
AC_SUBST([CCE_PLUGIN_INSTDIR])
])
