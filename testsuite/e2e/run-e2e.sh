#!/bin/sh
# run-e2e.sh NAME -- one end-to-end test of cce against an independent
# oracle.
#
# For the test program NAME:
#   1. build it at -O0 -g WITHOUT the plugin (linked against libcce so that
#      cce_log exists) and run it under gdb with oracle.py, which writes
#      the calling context of every cce_log call as gdb sees it;
#   2. for each of -O1 -O2 -O3, with default LTO partitioning and with
#      -flto-partition=none (and at -O3 with up to 16 LTRANS partitions
#      however small, "many": a partition per function in a small
#      program, each a module of its own), build it with the plugin
#      (testsuite/cce-cc),
#      run it with CCE_LOG set (and once more at -O2 with every call
#      encoded, -fplugin-arg-cce-observe-all, also with many
#      partitions, and with one partition and every push reading the id
#      where it is, local-pushes=1), decode the log with
#      "cce-decode --format=records", and compare with the oracle: line by
#      line for single-threaded programs, per thread as a multiset of
#      record sequences for multi-threaded ones.
#
# Exit status: 0 all variants match, 1 some failed, 77 skipped (reason
# printed: no gdb, gdb without Python).
#
# Environment (set by testsuite/Makefile.am; defaults for running by hand
# from a build in the source tree): CCE_PLUGIN CCE_RTDIR CCE_INCDIR
# CCE_DECODE CCE_SRCDIR CCE_BUILDDIR CCE_CC GDB CC srcdir.
# Knobs for debugging:
#   E2E_VARIANTS="O2:none O3:default"   run only these variants
#   E2E_ORACLE_ONLY=1                   print the oracle's records, stop
#   E2E_KEEP=1                          keep the temporary directory
#   E2E_TMPDIR=DIR                      where to make it (default TMPDIR)

name=${1:?usage: run-e2e.sh NAME}

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

skip () { echo "SKIP: $name: $*"; exit 77; }
hard () { echo "ERROR: $name: $*"; exit 1; }

# ---- the test programs --------------------------------------------------
# srcs: sources relative to $here (and -x options, passed on); cxx: a C++
# program, built with g++ ($CXX); libs: extra link flags; cmp: exact or
# threads; gen: generator to run (sources then come from its output);
# cflags: extra flags for the compiles and links of both builds; xsrcs:
# sources (relative to $here) compiled to objects with plain "$CC -O2 -c"
# (no -g, no -flto, no plugin) and linked into both builds, so that gdb
# sees their frames as external (no debug info) and cce as external code;
# early: the oracle stops at cce_log calls from the start of the program
# (constructors), not only from main on (oracle-early.py); solibs: shared
# libraries the program links with, each NAME:SOURCE (built like the
# program: at -O0 -g for the oracle, with cce for the variants, and part of
# the program for the oracle) or NAME:SOURCE:plain (built with plain
# "$CC -O2", no -g: outside the program, like libc).
# trace: functions traced with -fplugin-arg-cce-trace in the cce builds,
# and breakpoints of the oracle.  more: variants added to the default
# ones (see below).  notext: an extended regular expression that no line
# of "cce-decode --format=text" may match (names gdb never shows).
libs= cmp=exact gen= cflags= xsrcs= early= solibs= trace= more= cxx= notext=
case $name in
  multi_tu)  srcs="multi_tu.c multi_tu_b.c multi_tu_c.c" more=O2:default:gc ;;
  inline)    srcs=inline.c ;;
  clones)    srcs=clones.c ;;
  recursion) srcs=recursion.c ;;
  tailcall)  srcs=tailcall.c ;;
  clobber)   srcs=clobber.c ;;
  setjmp)    srcs=setjmp.c ;;
  unwind)    srcs=unwind.c libs="-fexceptions -pthread" cmp=threads ;;
  noreturn)  srcs=noreturn.c more=O2:default:fold ;;
  fnptr)     srcs=fnptr.c ;;
  entries)   srcs=entries.c libs=-rdynamic more="O2:default:regall O2:many:reg" ;;
  guess)     srcs=guess.c more=O2:none:gc ;;
  guessafter) srcs=guessafter.c ;;
  replmalloc) srcs=replmalloc.c ;;
  threads)   srcs=threads.c libs=-pthread cmp=threads ;;
  bigprog)   gen=gen-bigprog.sh ;;
  ctors)     srcs=ctors.c early=1 ;;
  cfeatures) srcs="cfeatures.c cfeatures_b.c" cflags="-Wl,-z,execstack" ;;
  overflow)  gen=gen-overflow.sh ;;
  nonlto)    srcs=nonlto.c xsrcs=nonlto_ext.c ;;
  extmain)   srcs=extmain.c xsrcs=extmain_main.c ;;
  openmp)    srcs=openmp.c cflags=-fopenmp cmp=threads ;;
  sigsync)   srcs=sigsync.c ;;
  trace)     srcs=trace.c trace="bump cmp depth scaled" ;;
  tailjump)  srcs=tailjump.c trace=ack ;;
  shlib)     srcs=shlib.c libs=-rdynamic
             solibs="cceshl:shlib_lib.c ccemid:shlib_mid.c:plain" ;;
  shlibguess) srcs=shlibguess.c solibs="ccesg:shlibguess_lib.c" ;;
  shlibquiet) srcs=shlibquiet.c solibs="ccesg:shlibguess_lib.c" ;;
  cxx)       srcs="cxx.cc cxx_b.cc -xc cxx_c.c -xnone" cxx=1 early=1 ;;
  cxxexc)    srcs=cxxexc.cc cxx=1 ;;
  cxxthread) srcs=cxxthread.cc cxx=1 libs=-pthread cmp=threads ;;
  cxxsplit)  srcs=cxxsplit.cc cxx=1 ;;
  cxxasync)  srcs=cxxasync.cc cxx=1 libs=-pthread cmp=threads ;;
  cxxcoro)   srcs=cxxcoro.cc cxx=1 cflags="-std=c++20 -fcoroutines"
             notext='\.Frame|\.actor|\.destroy|_Z[0-9NZ]' ;;
  *)         hard "unknown test program '$name'" ;;
esac

# C++ programs build with g++, in both builds (cce-cc runs $CC); a source
# list may switch the language of the sources after it (-xc ... -xnone).
if [ -n "$cxx" ]; then
  CC=${CXX:-g++}
  export CC
fi

# ---- what we need ---------------------------------------------------------
[ -n "$GDB" ] || skip "no gdb (GDB is empty)"
command -v "$GDB" >/dev/null 2>&1 || skip "gdb '$GDB' not found"
"$GDB" -q -nx -batch -ex 'python print("cce-py-ok")' 2>/dev/null \
  | grep -q cce-py-ok || skip "$GDB has no Python support"
[ -f "$CCE_INCDIR/cce.h" ] || hard "no $CCE_INCDIR/cce.h"
ls "$CCE_RTDIR"/libcce.so* >/dev/null 2>&1 \
  || ls "$CCE_RTDIR"/libcce.a >/dev/null 2>&1 || hard "no libcce in $CCE_RTDIR"
if [ -z "$E2E_ORACLE_ONLY" ]; then
  [ -f "$CCE_PLUGIN" ] || hard "no plugin $CCE_PLUGIN"
  [ -x "$CCE_DECODE" ] || hard "no decoder $CCE_DECODE"
fi
have_timeout=
command -v timeout >/dev/null 2>&1 && have_timeout=1
limit () { # SECONDS CMD...: run CMD, killed after SECONDS if possible
  t=$1; shift
  if [ -n "$have_timeout" ]; then timeout -k 10 "$t" "$@"; else "$@"; fi
}
# The recursion test goes 100000 calls deep.
ulimit -s 262144 2>/dev/null || ulimit -s unlimited 2>/dev/null || :

e2e_tmpdir "$name" || hard "cannot make a temporary directory"

now () { date +%s; }
t_start=$(now)

# ---- sources ----------------------------------------------------------------
extra_cflags=$cflags
if [ -n "$gen" ]; then
  sh "$here/$gen" "$tmp/src" >"$tmp/gen.log" 2>&1 \
    || { cat "$tmp/gen.log"; hard "$gen failed"; }
  set -- "$tmp"/src/*.c
  extra_cflags="$extra_cflags -I$tmp/src"
else
  set --
  for s in $srcs; do
    case $s in
      -*) set -- "$@" "$s" ;;
      *)  set -- "$@" "$here/$s" ;;
    esac
  done
fi
# "$@" is now the list of sources.

# The non-LTO objects, the same in both builds.
xobjs=
for s in $xsrcs; do
  o=$tmp/$(basename "$s" .c).o
  $CC -O2 -I"$CCE_INCDIR" -c "$here/$s" -o "$o" >"$tmp/cc.xobj.log" 2>&1 \
    || { cat "$tmp/cc.xobj.log"; hard "compiling $s failed"; }
  xobjs="$xobjs $o"
done

# build_solibs DIR CC...: build the shared libraries of $solibs into DIR
# with the compiler command CC... (for those built like the program); set
# solink to the link options of the program and prog_libs to the names of
# the libraries that are part of the program.
build_solibs () {
  sodir=$1; shift
  mkdir -p "$sodir"
  solink= prog_libs=
  for sl in $solibs; do
    lname=${sl%%:*} rest=${sl#*:}
    src=${rest%%:*} kind=
    case $rest in *:plain) kind=plain ;; esac
    if [ "$kind" = plain ]; then
      $CC -O2 -fPIC -shared -I"$CCE_INCDIR" "$here/$src" \
        -o "$sodir/lib$lname.so" >"$sodir/cc.$lname.log" 2>&1
    else
      "$@" -fPIC -shared -I"$CCE_INCDIR" "$here/$src" \
        -o "$sodir/lib$lname.so" >"$sodir/cc.$lname.log" 2>&1
      prog_libs="$prog_libs lib$lname.so"
    fi || { cat "$sodir/cc.$lname.log"; return 1; }
    solink="$solink -l$lname"
  done
  [ -z "$solibs" ] || solink="-L$sodir -Wl,-rpath,$sodir $solink"
}

# Print FILE, shortening lines of more than 240 characters (the contexts
# of the deep recursion have 100000 frames).
show () {
  awk '{ if (length ($0) > 240)
           print substr ($0, 1, 120) " ...[" gsub (/;/, ";") + 1 \
                 " frames]... " substr ($0, length ($0) - 80);
         else print }' "$@"
}

# Canonical form of a records file for a multi-threaded program: each
# thread's records in order as one block, the blocks sorted, threads
# renumbered in that order.
canon_threads () {
  awk -F '\t' '{ t = $1; sub (/^[^\t]*\t/, "");
                 if (!(t in blk)) order[++n] = t;
                 blk[t] = blk[t] $0 "\036" }
               END { for (i = 1; i <= n; i++) print blk[order[i]] }' "$1" \
    | LC_ALL=C sort \
    | awk '{ k = split ($0, a, "\036");
             for (i = 1; i < k; i++) printf "%d\t%s\n", NR, a[i] }'
}

# ---- the oracle ---------------------------------------------------------------
echo "== $name: oracle (-O0 build under gdb)"
build_solibs "$tmp/O0" $CC -O0 -g -fno-lto -L"$CCE_RTDIR" -lcce \
  || hard "building the -O0 shared libraries failed"
if ! $CC -O0 -g -fno-lto -I"$CCE_INCDIR" $extra_cflags "$@" $xobjs \
     -o "$tmp/prog.O0" $solink -L"$CCE_RTDIR" -Wl,-rpath,"$CCE_RTDIR" -lcce $libs \
     >"$tmp/cc.O0.log" 2>&1
then
  cat "$tmp/cc.O0.log"
  hard "the -O0 build failed"
fi
if ! (cd "$tmp" && CCE_LOG="$tmp/O0.log" CCE_ORACLE_OUT="$tmp/oracle.txt" \
      CCE_ORACLE_PROGRAM_LIBS="$prog_libs" CCE_ORACLE_TRACE="$trace" \
      limit 900 "$GDB" -q -batch -nx \
        ${early:+-x "$here/oracle-early.py"} -x "$here/oracle.py" \
      --args "$tmp/prog.O0") >"$tmp/gdb.log" 2>&1
then
  tail -n 30 "$tmp/gdb.log"
  hard "the oracle failed"
fi
grep '^oracle:' "$tmp/gdb.log"
n_oracle=$(wc -l <"$tmp/oracle.txt")
[ "$n_oracle" -gt 0 ] || hard "the oracle saw no cce_log call"
if [ -n "$E2E_ORACLE_ONLY" ]; then
  show "$tmp/oracle.txt"
  exit 0
fi
if [ "$cmp" = threads ]; then
  canon_threads "$tmp/oracle.txt" >"$tmp/expected"
else
  cp "$tmp/oracle.txt" "$tmp/expected"
fi
echo "   $n_oracle records ($(($(now) - t_start))s)"

# ---- the instrumented variants --------------------------------------------------

fail () {
  echo "FAIL: $tag: $*"
  failed=$((failed + 1))
}

# Traced functions: on the compile and the link command.
[ -z "$trace" ] ||
  extra_cflags="$extra_cflags -fplugin-arg-cce-trace=$(echo $trace | tr ' ' ,)"

variants=${E2E_VARIANTS:-"O1:default O1:none O2:default O2:none O3:default O3:none O2:default:all O3:many O2:many:all O2:default:reg O3:none:regall O2:none:lp $more"}
failed=0 passed=0
for v in $variants; do
  # OPT:PART[:all|:fold|:gc] -- "all": with -fplugin-arg-cce-observe-all,
  # every call encoded as if every function logged; "fold": that, exact at
  # every instruction (async), with recursion folded into the id up to a
  # limit of BASE * 2 (fold=1: the cold push and pop at almost every
  # level); "gc": lto1 collects garbage at every chance, so a tree the
  # plugin keeps that is not a root of the collector would be freed under
  # it; "reg": with -fplugin-arg-cce-idreg, the id in a register;
  # "regall": that and every call encoded; "lp": every call encoded, and
  # every push reads the id and top where it is (local-pushes=1).
  opt=${v%%:*} part=${v#*:} all=
  case $part in
    *:all) part=${part%:all} all=-fplugin-arg-cce-observe-all ;;
    *:fold) part=${part%:fold}
            all="-fplugin-arg-cce-observe-all -fplugin-arg-cce-fold=1" ;;
    *:gc)  part=${part%:gc}
           all="--param=ggc-min-expand=0 --param=ggc-min-heapsize=0" ;;
    *:reg) part=${part%:reg} all=-fplugin-arg-cce-idreg ;;
    *:regall) part=${part%:regall}
              all="-fplugin-arg-cce-idreg -fplugin-arg-cce-observe-all" ;;
    *:lp) part=${part%:lp}
          all="-fplugin-arg-cce-observe-all -fplugin-arg-cce-local-pushes=1" ;;
  esac
  case $part in
    default) pflag= ;;
    # Up to 16 LTRANS partitions, however small: a module per function
    # in a small program, and a bounded number of jobs in a large one.
    many)    pflag="-flto-partition=balanced --param=lto-partitions=16 --param=lto-min-partition=1" ;;
    *)       pflag=-flto-partition=$part ;;
  esac
  pflag="$pflag${all:+ $all}"; pflag=${pflag# }
  case $v in
    *:gc) part=$part.gc ;;
    *:fold) part=$part.fold ;;
    *:reg) part=$part.reg ;;
    *:regall) part=$part.regall ;;
    *) part=$part${all:+.all} ;;
  esac
  tag="$name -$opt ${pflag:-(default partitioning)}"
  t0=$(now)
  exe="$tmp/prog.$opt.$part"
  log="$tmp/$opt.$part.log"
  # The shared libraries of the program are built without idreg, which
  # is for executables: such a program mixes the two.
  if ! build_solibs "$tmp/$opt.$part" cce_cc -"$opt" \
       $(echo " $pflag " | sed 's/ -fplugin-arg-cce-idreg / /') $extra_cflags \
       >"$tmp/cc.$opt.$part.log" 2>&1 ||
     ! cce_cc -"$opt" $pflag $extra_cflags "$@" $xobjs -o "$exe" $solink $libs \
       >>"$tmp/cc.$opt.$part.log" 2>&1; then
    head -n 40 "$tmp/cc.$opt.$part.log"
    fail "compilation failed"
    continue
  fi
  rm -f "$log"
  (cd "$tmp" && CCE_LOG="$log" limit 300 "$exe") \
    >"$tmp/run.$opt.$part.out" 2>&1
  st=$?
  if [ "$st" -ne 0 ]; then
    tail -n 20 "$tmp/run.$opt.$part.out"
    fail "the instrumented program failed (exit status $st)"
    continue
  fi
  [ -f "$log" ] || { fail "the instrumented program wrote no log"; continue; }
  limit 60 "$CCE_DECODE" --format=records "$exe" "$log" \
    >"$tmp/decoded.$opt.$part" 2>"$tmp/decode.$opt.$part.err"
  st=$?
  if [ "$st" -ne 0 ]; then
    head -n 20 "$tmp/decode.$opt.$part.err"
    fail "cce-decode failed (exit status $st$(
      [ "$st" -eq 124 ] && echo ": timed out after 60s"))"
    continue
  fi
  if [ -s "$tmp/decode.$opt.$part.err" ]; then
    head -n 20 "$tmp/decode.$opt.$part.err"
    fail "cce-decode wrote to stderr"
    continue
  fi
  if [ -n "$notext" ] &&
     "$CCE_DECODE" --format=text "$exe" "$log" 2>&1 | grep -E "$notext"; then
    fail "cce-decode --format=text shows names that match /$notext/"
    continue
  fi
  if [ "$cmp" = threads ]; then
    canon_threads "$tmp/decoded.$opt.$part" >"$tmp/got.$opt.$part"
  else
    cp "$tmp/decoded.$opt.$part" "$tmp/got.$opt.$part"
  fi
  if diff -u "$tmp/expected" "$tmp/got.$opt.$part" \
       >"$tmp/diff.$opt.$part" 2>&1; then
    echo "PASS: $tag: $n_oracle contexts match ($(($(now) - t0))s)"
    passed=$((passed + 1))
  else
    sed -e "1s|.*|--- oracle (gdb, -O0)|" \
        -e "2s|.*|+++ cce-decode (-$opt ${pflag:-default})|" \
        "$tmp/diff.$opt.$part" | show | head -n 80
    fail "decoded contexts differ from the oracle"
  fi
done

echo "== $name: $passed passed, $failed failed ($(($(now) - t_start))s)"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
