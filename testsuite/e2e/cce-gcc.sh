#!/bin/sh
# cce-gcc.sh -- the build tree's cce-gcc (driver/cce-gcc, with
# CCE_PKG_CONFIG_PATH=the build tree, i.e. cce-uninstalled.pc) as the C
# compiler of a build system:
#   1. what it adds for each kind of command line: queries and command
#      lines without input as plain GCC; -E, -M, -MM, -MD, -S, -c and
#      response files without the link flags; links with them, also
#      -shared and links of objects built without -flto;
#   2. one error line and exit 1 for a missing cce, a compiler that is not
#      GCC 12, a missing plugin; cce-g++ (the same script) builds a C++
#      program whose log decodes with C++ names, and names CCE_REAL_CXX
#      in its error;
#   3. a tiny autoconf configure (when autoconf is there: a header, a
#      function and a library probe) and a tiny CMake project (when cmake
#      is there) with CC=cce-gcc build the example
#      (examples/hello.c, util.c); its decoded log must be
#      examples/hello.expected.
#
# Environment: see run-e2e.sh.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

driver=$CCE_BUILDDIR/driver/cce-gcc
[ -f "$driver" ] || { echo "ERROR: no $driver"; exit 1; }
[ -f "$CCE_PLUGIN" ] || { echo "ERROR: no plugin $CCE_PLUGIN"; exit 1; }
# Only the build tree's cce-uninstalled.pc tells cce-gcc where cce is.
unset CCE_PLUGIN CCE_INCDIR CCE_LIBDIR CCE_SPECS CCE_PREFIX CCE_REAL_CC
unset MAKEFLAGS MFLAGS MAKELEVEL
CCE_PKG_CONFIG_PATH=$CCE_BUILDDIR
export CCE_PKG_CONFIG_PATH
ex=$CCE_SRCDIR/examples

e2e_tmpdir cce-gcc || exit 1
cd "$tmp" || exit 1

failed=0
ok () { echo "ok:   $*"; }
bad () { echo "FAIL: $*"; failed=$((failed + 1)); }
# check WHAT COMMAND...: COMMAND succeeds
check () {
  what=$1; shift
  if "$@" > out 2>&1; then ok "$what"
  else bad "$what"; sed 's/^/  /' out; fi
}
# same WHAT ARGS...: cce-gcc ARGS prints what $CC ARGS prints
same () {
  what=$1; shift
  $CC "$@" > want 2>&1; st1=$?
  sh "$driver" "$@" > got 2>&1; st2=$?
  if [ $st1 = $st2 ] && cmp -s want got; then ok "$what: as $CC"
  else bad "$what: differs from $CC"; diff want got | sed 's/^/  /'; fi
}
# adds WHAT PATTERN ARGS...: cce-gcc -### ARGS passes PATTERN (grep -e) to
# the compiler or linker; lacks: does not
adds () {
  what=$1 pat=$2; shift 2
  sh "$driver" -### "$@" > cmds 2>&1
  if grep -q -e "$pat" cmds; then ok "$what"
  else bad "$what: no $pat in"; sed 's/^/  /' cmds; fi
}
lacks () {
  what=$1 pat=$2; shift 2
  sh "$driver" -### "$@" > cmds 2>&1
  if grep -q -e "$pat" cmds; then bad "$what: $pat in"; sed 's/^/  /' cmds
  else ok "$what"; fi
}

# ---- 1. command lines ----------------------------------------------------
same "--version" --version
same "-dumpversion" -dumpversion
same "-dumpmachine" -dumpmachine
same "-print-file-name=plugin" -print-file-name=plugin
same "-print-prog-name=ld" -print-prog-name=ld
same "-v without input" -v
same "no input" -O2

check "-E" sh "$driver" -E "$ex/util.c" -o util.i
grep -q 'cce_log' util.i || bad "-E: no cce.h in util.i"
check "-M" sh "$driver" -M "$ex/util.c" -o util.M
check "-MM -MF" sh "$driver" -MM -MF util.MM "$ex/util.c"
check "-MD -c" sh "$driver" -MD -c "$ex/util.c" -o util.o
for d in util.M util.MM util.d; do
  grep -q 'rt/cce.h' $d || bad "$d names no rt/cce.h"
done
check "-S" sh "$driver" -S "$ex/util.c" -o util.s
check "-c makes an LTO object" sh -c 'readelf -S util.o | grep -q gnu.lto_'
check "-fsyntax-only" sh "$driver" -fsyntax-only "$ex/util.c"
lacks "-c: no link flags" '-lcce' -c "$ex/util.c"
adds "-c: the plugin" 'fplugin=.*cce\.so' -c "$ex/util.c"
adds "link: libcce" '-lcce' "$ex/util.c" "$ex/hello.c"
printf '%s\n' -c "\"$ex/util.c\"" -o util2.o > args.rsp
lacks "@response file with -c: no link flags" '-lcce' @args.rsp
check "@response file with -c" sh "$driver" @args.rsp

# A program from an LTO object and a response file.
check "link from objects" sh "$driver" -O2 -c "$ex/hello.c" -o hello.o
check "link" sh "$driver" -O2 hello.o util.o -o hello-objs
if CCE_LOG=objs.log ./hello-objs > /dev/null &&
   "$CCE_DECODE" --format=records hello-objs objs.log > objs.got &&
   cmp -s objs.got "$ex/hello.expected"; then
  ok "hello from -c objects decodes as examples/hello.expected"
else
  bad "hello from -c objects"; diff "$ex/hello.expected" objs.got | sed 's/^/  /'
fi

# Objects built without -flto, and -shared.
printf 'int plain (int x) { return x + 1; }\n' > plain.c
printf 'int plain (int); int main (void) { return plain (-1); }\n' > main.c
check "objects without -flto" sh -c "$CC -O2 -c plain.c && $CC -O2 -c main.c"
check "link of objects without -flto" sh "$driver" -O2 main.o plain.o -o plain-prog
check "it runs" ./plain-prog
check "link with an object without -flto" sh "$driver" -O2 main.c plain.o -o mixed
check "it runs" ./mixed
check "-shared" sh "$driver" -O2 -fPIC -shared "$ex/util.c" -o libutil.so
check "program on a cce shared library" sh "$driver" -O2 "$ex/hello.c" \
  -L. -lutil -Wl,-rpath,"$tmp" -o hello-so
check "it runs" sh -c 'CCE_LOG=so.log ./hello-so'

# ---- 2. errors -------------------------------------------------------------
# one_error WHAT PATTERN COMMAND...: exit 1, one line on stderr, matching
one_error () {
  what=$1 pat=$2; shift 2
  "$@" -c "$ex/util.c" -o err.o > err.out 2> err.log; st=$?
  if [ $st = 1 ] && [ "$(wc -l < err.log)" = 1 ] && grep -q -e "$pat" err.log &&
     [ ! -s err.out ]; then
    ok "$what: $(cat err.log)"
  else
    bad "$what (exit $st):"; sed 's/^/  /' err.log err.out
  fi
}
one_error "no cce" '^cce-gcc: .*no cce' \
  env CCE_PKG_CONFIG_PATH="$tmp/nowhere" sh "$driver"
printf '#!/bin/sh\necho 13\n' > gcc-13
chmod +x gcc-13
one_error "not GCC 12" '^cce-gcc: .*GCC 12' \
  env CCE_REAL_CC="$tmp/gcc-13" sh "$driver"
one_error "no compiler" '^cce-gcc: cannot run' \
  env CCE_REAL_CC="$tmp/no-such-gcc" sh "$driver"
one_error "no plugin" '^cce-gcc: no cce plugin' \
  env -u CCE_PKG_CONFIG_PATH CCE_PREFIX="$tmp/nowhere" sh "$driver"

# decoded DIR PROG: PROG's log decodes as examples/hello.expected
decoded () {
  if (cd "$1" && CCE_LOG=hello.log "./$2" > /dev/null &&
      "$CCE_DECODE" --format=records "$2" hello.log > got) &&
     cmp -s "$1/got" "$ex/hello.expected"; then
    return 0
  fi
  diff "$ex/hello.expected" "$1/got" | sed 's/^/  /'
  return 1
}

# ---- cce-g++: the same script, running g++ ----------------------------------
gxx=$CCE_BUILDDIR/driver/cce-g++
if [ -f "$gxx" ] && command -v g++ > /dev/null 2>&1; then
  mkdir gxx && cat > gxx/sq.cc <<'CC'
#include <cce.h>
struct Sq { int s; int area () const { cce_log (1); return s * s; } };
template <typename T> __attribute__ ((noinline)) T twice (T x)
{ cce_log (2); return x + x; }
int main () { Sq q { 3 }; twice (1); twice (2.0); return q.area () == 9 ? 0 : 1; }
CC
  printf '1\t2\tmain;twice<int>\n1\t2\tmain;twice<double>\n1\t1\tmain;Sq::area\n' \
    > gxx/want
  if (cd gxx && sh "$gxx" -O2 sq.cc -o sq > cc.log 2>&1 &&
      CCE_LOG=sq.log ./sq && "$CCE_DECODE" --format=records sq sq.log > got) &&
     cmp -s gxx/want gxx/got; then
    ok "cce-g++: a C++ program decodes with its C++ names"
  else
    bad "cce-g++: a C++ program"; cat gxx/cc.log gxx/got 2>/dev/null | sed 's/^/  /'
  fi
  if ! CCE_REAL_CXX=/nonexistent/g++ sh "$gxx" -c gxx/sq.cc -o gxx/x.o \
       2> err && grep -q "^cce-g++: cannot run.*CCE_REAL_CXX" err; then
    ok "cce-g++: CCE_REAL_CXX chooses the compiler"
  else
    bad "cce-g++: CCE_REAL_CXX"; sed 's/^/  /' err
  fi
fi

# ---- 3. build systems ------------------------------------------------------
if command -v autoconf > /dev/null 2>&1; then
  mkdir ac && cp "$ex/hello.c" "$ex/util.c" ac/ && cd ac || exit 1
  cat > configure.ac <<'AC'
AC_INIT([hello], [1])
AC_PROG_CC
AC_CHECK_HEADERS([cce.h])
AC_CHECK_FUNCS([strdup])
AC_SEARCH_LIBS([sqrt], [m])
AC_SEARCH_LIBS([cce_log], [cce])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
  cat > Makefile.in <<'MK'
CC = @CC@
CFLAGS = @CFLAGS@
DEFS = @DEFS@
hello: hello.o util.o
	$(CC) $(CFLAGS) -o $@ hello.o util.o
.c.o:
	$(CC) $(DEFS) $(CFLAGS) -MD -c $<
-include hello.d util.d
MK
  if autoconf > ../ac.log 2>&1 &&
     CC="sh $driver" ./configure > ../ac.log 2>&1 &&
     make > ../ac-make.log 2>&1; then
    ok "autoconf: CC=cce-gcc ./configure && make"
    grep -q 'HAVE_CCE_H 1' config.log && grep -q 'HAVE_STRDUP 1' config.log ||
      bad "autoconf: configure did not find cce.h and strdup"
    # The probe of cce_log declares it "char cce_log ();" and returns its
    # value: the plugin must build that too.
    grep -q "ac_cv_search_cce_log='none required'" config.log ||
      bad "autoconf: configure did not find cce_log"
    [ -f hello.d ] || bad "autoconf: no dependency file hello.d"
    if decoded . hello; then ok "autoconf: hello decodes as examples/hello.expected"
    else bad "autoconf: hello"; fi
  else
    bad "autoconf: CC=cce-gcc ./configure && make"
    tail -20 ../ac.log config.log ../ac-make.log 2>/dev/null | sed 's/^/  /'
  fi
  cd "$tmp" || exit 1
else
  echo "note: no autoconf; the configure build did not run"
fi

if command -v cmake > /dev/null 2>&1; then
  mkdir cm && cp "$ex/hello.c" "$ex/util.c" cm/ || exit 1
  cat > cm/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.10)
project(hello C)
add_executable(hello hello.c util.c)
CM
  if cmake -S cm -B cm/build -DCMAKE_C_COMPILER="$driver" \
       -DCMAKE_BUILD_TYPE=Release > cm.log 2>&1 &&
     cmake --build cm/build > cm-make.log 2>&1; then
    ok "cmake -DCMAKE_C_COMPILER=cce-gcc"
    if decoded cm/build hello; then ok "cmake: hello decodes as examples/hello.expected"
    else bad "cmake: hello"; fi
  else
    bad "cmake -DCMAKE_C_COMPILER=cce-gcc"; tail -20 cm.log cm-make.log | sed 's/^/  /'
  fi
else
  echo "note: no cmake; the CMake build did not run"
fi

[ $failed = 0 ] || { echo "$failed failed"; exit 1; }
