#!/bin/sh
# run-corpus.sh -- build real C programs from Debian source packages twice,
# plain (-O2 -flto) and instrumented with cce, run each program's own tests
# (or a documented deterministic workload) on both builds, and compare.
#
# Usage: run-corpus.sh [--workdir DIR] [--keep] [PROGRAM...]
#
# PROGRAM is one of: lua5.4 zlib sqlite3 (default: lua5.4 zlib).
#
# Where cce comes from, in this order:
#   - CCE_PLUGIN, CCE_RTDIR, CCE_INCDIR from the environment (a build tree:
#     CCE_PLUGIN=B/plugin/.libs/cce.so CCE_RTDIR=B/rt/.libs CCE_INCDIR=SRC/rt);
#   - otherwise `pkg-config --cflags/--libs cce` (an installed cce).
#
# The instrumented build is what a user does: the cce flags go into CFLAGS
# and LDFLAGS (and into CC for libtool projects, because libtool drops
# -fplugin when it links shared objects), with AR=gcc-ar RANLIB=gcc-ranlib
# NM=gcc-nm so that static archives keep their LTO objects.
#
# Exit status: 1 if any instrumented build or test fails where the plain
# one passed, or if their test results differ; 0 otherwise.
#
# Work dir layout: DIR/src (downloaded sources), DIR/PROG/{plain,cce}
# (build trees), DIR/PROG/{plain,cce}.{build,test}.log, DIR/PROG/cce.stats.

here=$(cd "$(dirname "$0")" && pwd) || exit 1

workdir=${TMPDIR:-/tmp}/cce-corpus
progs=
while test $# -gt 0; do
  case $1 in
    --workdir) workdir=$2; shift 2 ;;
    --workdir=*) workdir=${1#--workdir=}; shift ;;
    -h|--help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "run-corpus.sh: unknown option $1" >&2; exit 2 ;;
    *) progs="$progs $1"; shift ;;
  esac
done
test -n "$progs" || progs="lua5.4 zlib"

# ---------------------------------------------------------------- cce flags
if test -n "$CCE_PLUGIN"; then
  : "${CCE_RTDIR:?CCE_RTDIR must be set with CCE_PLUGIN}"
  : "${CCE_INCDIR:?CCE_INCDIR must be set with CCE_PLUGIN}"
  # As pkg-config cce, with the build tree's specs file (rt/Makefile.am).
  : "${CCE_SPECS:=$(dirname "$CCE_RTDIR")/cce-uninstalled.specs}"
  CCE_CFLAGS="-I$CCE_INCDIR -flto -fplugin=$CCE_PLUGIN -fno-ipa-icf -specs=$CCE_SPECS"
  CCE_LIBS="-flto -fplugin=$CCE_PLUGIN -fno-ipa-icf -L$CCE_RTDIR -Wl,-rpath,$CCE_RTDIR -lcce"
  CCE_CCFLAGS="-flto -fplugin=$CCE_PLUGIN -fno-ipa-icf -specs=$CCE_SPECS"
else
  CCE_CFLAGS=$(pkg-config --cflags cce) || exit 1
  CCE_LIBS=$(pkg-config --libs cce) || exit 1
  CCE_CCFLAGS=$(echo "$CCE_CFLAGS" | tr ' ' '\n' | grep -v '^-I' | tr '\n' ' ')
fi
# Extra link options for the instrumented build: the plugin's one-line
# summary goes to the build log and into PROG/cce.stats.
CCE_EXTRA_LDFLAGS=${CCE_EXTRA_LDFLAGS--fplugin-arg-cce-stats}

# Where the instrumented build puts `pkg-config --libs cce`: "ldflags" (the
# default: LDFLAGS, as the README says) or "libs" (LIBS / MYLIBS, after the
# objects; diagnostic only, for recipes that have such a variable) or
# "noasneeded" (LDFLAGS, with -lcce inside -Wl,--push-state,--no-as-needed;
# diagnostic only: shows what lies behind the --as-needed link failure).
CCE_LIBS_PLACEMENT=${CCE_LIBS_PLACEMENT:-ldflags}

PLAIN_CFLAGS="-O2 -flto"
JOBS=$(nproc 2>/dev/null || echo 2)

mkdir -p "$workdir/src" || exit 1
workdir=$(cd "$workdir" && pwd)
# Logs of instrumented programs go here, never into the build trees.
CCE_LOG=$workdir/cce-run.log
export CCE_LOG

log () { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
now () { date +%s.%N; }
elapsed () { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }

# ------------------------------------------------------------ fetch sources
ensure_debsrc () {
  if grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources ||
     grep -qs '^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
  then return 0; fi
  if test "$(id -u)" != 0; then
    echo "run-corpus.sh: no deb-src entry in the apt sources, and not root." >&2
    echo "  Add one: copy the 'Types: deb' stanzas of /etc/apt/sources.list.d/debian.sources as 'Types: deb-src'." >&2
    return 1
  fi
  log "adding deb-src entry /etc/apt/sources.list.d/cce-corpus-src.sources"
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
    > /etc/apt/sources.list.d/cce-corpus-src.sources || return 1
  apt-get update -q >/dev/null 2>&1
}

# fetch PKG: download the source package into $workdir/src (once).
fetch () {
  if ls "$workdir/src/$1"_*.dsc >/dev/null 2>&1; then return 0; fi
  ensure_debsrc || return 1
  log "$1: apt-get source --download-only $1"
  (cd "$workdir/src" && apt-get source -q --download-only "$1") \
    > "$workdir/src/$1.fetch.log" 2>&1 ||
    { cat "$workdir/src/$1.fetch.log" >&2; return 1; }
}

# unpack_deb PKG DEST: the Debian-patched source tree, as apt-get source gives it.
unpack_deb () {
  rm -rf "$2"
  dpkg-source -q -x "$(ls "$workdir/src/$1"_*.dsc | head -1)" "$2" >/dev/null 2>&1
}

# --------------------------------------------------------------- recipes
# Each program has recipe_PROG_build VARIANT DIR and recipe_PROG_test VARIANT
# DIR, and recipe_PROG_prepare DIR (fresh source tree), recipe_PROG_bin DIR
# (the main binary, for `size`).  Build variables available: CC_V CFLAGS_V
# LDFLAGS_V LIBS_V (the variant's compiler, compile, link flags, libraries).  A test writes
# its raw output to stdout; recipe_PROG_summary reads it and prints
# "PASSED TOTAL"; recipe_PROG_normalize strips run-dependent noise (times).

# --- lua5.4: upstream tarball + its own Makefile (Debian's patches switch to
# libtool).  No test suite in the package: testsuite/corpus/lua-workload.lua.
recipe_lua5_4_prepare () {
  rm -rf "$1" && mkdir -p "$1" &&
  tar -xzf "$(ls "$workdir"/src/lua5.4_*.orig.tar.gz | head -1)" -C "$1" --strip-components=1
}
recipe_lua5_4_build () {
  make -C "$2" linux CC="$CC_V -std=gnu99" MYCFLAGS="$CFLAGS_V" MYLDFLAGS="$LDFLAGS_V" MYLIBS="$LIBS_V" \
    AR="gcc-ar rcu" RANLIB=gcc-ranlib -j"$JOBS"
}
recipe_lua5_4_bin () { echo "$1/src/lua"; }
recipe_lua5_4_test () {
  (cd "$2" && ./src/lua "$here/lua-workload.lua")
}
recipe_lua5_4_summary () {
  p=$(grep -c '^PASS ' "$1"); f=$(grep -c '^FAIL ' "$1")
  echo "$p $((p + f))"
}
recipe_lua5_4_normalize () { cat; }

# --- zlib: its own configure (static and shared) and `make test`.
recipe_zlib_prepare () { unpack_deb zlib "$1"; }
recipe_zlib_build () {
  (cd "$2" && CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm ./configure &&
   make -j"$JOBS" AR=gcc-ar RANLIB=gcc-ranlib all)
}
recipe_zlib_bin () { echo "$1/minigzip"; }
recipe_zlib_test () { make -C "$2" test AR=gcc-ar RANLIB=gcc-ranlib; }
recipe_zlib_summary () {
  p=$(grep -c 'test OK' "$1"); f=$(grep -ci 'test FAILED' "$1")
  echo "$p $((p + f))"
}
recipe_zlib_normalize () { grep -v '^make'; }

# --- sqlite3: autoconf + libtool, static only, `make fuzztest`.
recipe_sqlite3_prepare () { unpack_deb sqlite3 "$1"; }
recipe_sqlite3_build () {
  (cd "$2" && ./configure CC="$CC_V" CFLAGS="$CFLAGS_V" LDFLAGS="$LDFLAGS_V" \
     LIBS="$LIBS_V" AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm --disable-shared --disable-tcl \
     --disable-readline &&
   make -j"$JOBS" sqlite3)
}
recipe_sqlite3_bin () { echo "$1/sqlite3"; }
recipe_sqlite3_test () { make -C "$2" fuzztest; }
recipe_sqlite3_summary () {
  # "fuzzcheck: 0 errors out of 12345 tests in 1.23s. SQLite ..."
  awk '/errors out of [0-9]+ tests/ { for (i = 1; i <= NF; i++) {
         if ($i == "errors") e += $(i-1); if ($i == "tests") t += $(i-1) } }
       END { printf "%d %d\n", t - e, t }' "$1"
}
recipe_sqlite3_normalize () {
  sed -e 's/ in [0-9.]*s\././' -e 's/SQLite [0-9].*/SQLite/' | grep -v '^make'
}

# -------------------------------------------------------------- driver
status=0
results=$workdir/results.txt
: > "$results"

# "text" of size(1) (Berkeley): all read-only sections, cce's dictionary
# included; dot_text: the .text section alone.
size_text () { size "$1" 2>/dev/null | awk 'NR == 2 { print $1 }'; }
dot_text () { size -A "$1" 2>/dev/null | awk '$1 == ".text" { print $2 }'; }

run_program () {
  prog=$1
  fn=$(echo "$prog" | tr '.-' '__')
  if ! type "recipe_${fn}_build" >/dev/null 2>&1; then
    log "$prog: no recipe (known: lua5.4 zlib sqlite3)"; status=1; return
  fi
  pdir=$workdir/$prog
  mkdir -p "$pdir"
  fetch "$prog" || { log "$prog: fetch FAILED"; status=1; return; }

  for v in plain cce; do
    eval "build_$v=FAIL tests_$v=- secs_$v=- text_$v= dtext_$v="
    if test $v = plain; then
      CC_V=gcc CFLAGS_V=$PLAIN_CFLAGS LDFLAGS_V=$PLAIN_CFLAGS LIBS_V=
    else
      CC_V="gcc $CCE_CCFLAGS"
      CFLAGS_V="$PLAIN_CFLAGS $CCE_CFLAGS"
      LDFLAGS_V="$PLAIN_CFLAGS $CCE_LIBS $CCE_EXTRA_LDFLAGS" LIBS_V=
      if test "$CCE_LIBS_PLACEMENT" = noasneeded; then
        LDFLAGS_V="$PLAIN_CFLAGS $(echo "$CCE_LIBS" | sed 's/-lcce/-Wl,--push-state,--no-as-needed -lcce -Wl,--pop-state/') $CCE_EXTRA_LDFLAGS"
      elif test "$CCE_LIBS_PLACEMENT" = libs; then
        LDFLAGS_V="$PLAIN_CFLAGS $CCE_CCFLAGS $CCE_EXTRA_LDFLAGS" LIBS_V=$CCE_LIBS
      fi
    fi
    tree=$pdir/$v
    log "$prog/$v: unpacking"
    "recipe_${fn}_prepare" "$tree" || { log "$prog/$v: unpack FAILED"; continue; }
    log "$prog/$v: building (log: $pdir/$v.build.log)"
    rm -f "$CCE_LOG"*
    t0=$(now)
    if "recipe_${fn}_build" $v "$tree" > "$pdir/$v.build.log" 2>&1; then
      t1=$(now)
      eval "build_$v=ok secs_$v=$(elapsed "$t0" "$t1")"
      bin=$("recipe_${fn}_bin" "$tree")
      eval "text_$v=$(size_text "$bin") dtext_$v=$(dot_text "$bin")"
      log "$prog/$v: built in $(eval echo \$secs_$v) s"
    else
      log "$prog/$v: build FAILED; last lines of $pdir/$v.build.log:"
      tail -n 15 "$pdir/$v.build.log" | sed 's/^/    /'
      continue
    fi
    if test $v = cce; then
      grep -h '^cce: [0-9]* functions' "$pdir/$v.build.log" > "$pdir/cce.stats"
      test -s "$pdir/cce.stats" && log "$prog/cce: stats: $(cat "$pdir/cce.stats")"
      # The runtime must stay silent at build time: no stray logs.
      stray=$(find "$tree" -name 'cce-*.log' | head -3)
      test -n "$stray" && log "$prog/cce: WARNING stray log files in the build tree: $stray"
    fi
    log "$prog/$v: testing (log: $pdir/$v.test.log)"
    "recipe_${fn}_test" $v "$tree" > "$pdir/$v.test.log" 2>&1
    rc=$?
    set -- $("recipe_${fn}_summary" "$pdir/$v.test.log")
    eval "tests_$v=$1/$2 trc_$v=$rc"
    log "$prog/$v: tests $1/$2 passed, exit status $rc"
    "recipe_${fn}_normalize" < "$pdir/$v.test.log" > "$pdir/$v.test.norm"
  done

  verdict=ok
  if test "$build_plain" = ok && test "$build_cce" != ok; then verdict="CCE-BUILD-FAIL"
  elif test "$build_plain" = ok; then
    if test "$trc_plain" = 0 && test "$trc_cce" != 0; then verdict="CCE-TEST-FAIL"
    elif test "$tests_plain" != "$tests_cce"; then verdict="CCE-TEST-FAIL"
    elif ! cmp -s "$pdir/plain.test.norm" "$pdir/cce.test.norm"; then verdict="OUTPUT-DIFFERS"
    fi
  else verdict="PLAIN-BUILD-FAIL"
  fi
  case $verdict in
    ok|PLAIN-BUILD-FAIL) ;;
    *) status=1
       test "$verdict" = OUTPUT-DIFFERS &&
         diff "$pdir/plain.test.norm" "$pdir/cce.test.norm" | head -20 | sed 's/^/    /' ;;
  esac
  ratio=- dratio=-
  test -n "$text_plain" && test -n "$text_cce" &&
    ratio=$(echo "$text_cce $text_plain" | awk '{ printf "%.3f", $1 / $2 }') &&
    dratio=$(echo "$dtext_cce $dtext_plain" | awk '{ printf "%.3f", $1 / $2 }')
  log "$prog: $verdict"
  printf '%-10s %-5s %-5s %-11s %-11s %-7s %-7s %-6s %-6s %s\n' "$prog" \
    "$build_plain" "$build_cce" "$tests_plain" "$tests_cce" \
    "$secs_plain" "$secs_cce" "$ratio" "$dratio" "$verdict" >> "$results"
}

for p in $progs; do
  run_program "$p"
done

echo
echo "Summary (work dir $workdir)"
printf '%-10s %-5s %-5s %-11s %-11s %-7s %-7s %-6s %-6s %s\n' program build '' \
  'tests passed' '' 'build s' '' 'size ratio cce/plain' '' ''
printf '%-10s %-5s %-5s %-11s %-11s %-7s %-7s %-6s %-6s %s\n' '' plain cce plain cce \
  plain cce text .text verdict
cat "$results"
exit $status
