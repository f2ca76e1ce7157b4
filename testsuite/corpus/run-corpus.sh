#!/bin/sh
# run-corpus.sh -- build real C and C++ programs from Debian source
# packages twice, plain (-O2 -flto) and instrumented with cce, run each
# program's own tests (or a documented deterministic workload) on both
# builds, compare them, and measure what cce costs.
#
# Usage: run-corpus.sh [OPTION...] [PROGRAM...]
#
#   --workdir DIR      work directory (default ${TMPDIR:-/tmp}/cce-corpus)
#   --smoke            the smoke set (lua5.4 xz-utils gawk: setjmp/longjmp,
#                      callbacks, threads) with --ratio-pairs 1
#   --lto-jobs J       build both variants with -flto=J (auto, or a number
#                      of LTRANS jobs run at once), last on the command
#                      line; the default is plain -flto, which runs them
#                      one after the other
#   --ratio-pairs N    run each program's workload N times on each build,
#                      alternating, for the run-time ratio (default 5, or
#                      1 with --smoke; 0: no run-time measurement)
#   --build-pairs N    build each program N times on each build, in
#                      alternated pairs, for the build-time ratio (the
#                      median; default 1: the ratio of the one build)
#   --table FILE       write the results table (markdown) to FILE; the
#                      default is docs/corpus.md of the source tree when
#                      the full default set runs, no table otherwise
#   --no-table         write no table
#   --table-only       only write the table, from the results of earlier
#                      runs in the work dir
#   --validate-only    only the validation against gdb (and the table, if
#                      one is asked for), keeping earlier runs' results
#   --no-validate      skip the validation of decoded contexts against gdb
#                      (validate.sh; by default each program is built twice
#                      more: with -g and -fplugin-arg-cce-trace of a few
#                      functions listed in recipes/PROG.sh, and at -O0
#                      -g for gdb; DIR/PROG/validated, DIR/PROG/pushes)
#   --observed-only    build with the plugin's default, which encodes only
#                      the calls that can reach a log site.  These programs
#                      log nothing, so their cce build then runs their
#                      original code.  By default the runner passes
#                      -fplugin-arg-cce-observe-all: every call encoded, as
#                      if every function logged (the full cost, and the
#                      encoding tested on every call of the program).
#   --wrapper CMD      build the instrumented variant with CMD as the
#                      compiler (CC=CMD; for CMake -DCMAKE_C_COMPILER=CMD;
#                      a path, or a command in PATH, perhaps with options)
#                      and the plain build's CFLAGS and LDFLAGS, instead
#                      of adding the cce flags to CFLAGS and LDFLAGS: a
#                      check of a compiler wrapper that adds them itself
#                      (testsuite/cce-cc, say).  The tests, the workload,
#                      the dictionary and the validation are as without
#                      it; no table unless --table asks for one.
#   --cxx-wrapper CMD  with --wrapper: the C++ compiler wrapper of the C++
#                      programs (CXX=CMD; default: cce-g++ beside a
#                      --wrapper named cce-gcc)
#   --list             list the programs and exit
#
# PROGRAM is one of: lua5.4 zlib sqlite3 gawk jq bzip2 xz-utils zstd tcc
# bash json-c redis python3.11 (C), tinyxml2 snappy yaml-cpp (C++).  With
# no PROGRAM (and no --smoke) the full set runs.
#
# Where cce comes from (testsuite/lib/cce-flags.sh): the build tree whose
# cce-uninstalled.pc is in CCE_PKG_CONFIG_PATH (`make corpus` passes the
# build tree's top), else `pkg-config --cflags/--libs cce` (an installed
# cce).
#
# The instrumented build is what a user does: `pkg-config --cflags cce`
# goes into CFLAGS, --cflags and --libs into LDFLAGS (README.md's link
# line), with AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm so that static
# archives keep their LTO objects; or, with --wrapper, the compiler is the
# wrapper, which adds the flags.  Its link also gets -fplugin-arg-cce-stats
# (and observe-all, below).  Both builds run with LC_ALL=C.  Where a
# program's build system gets in the way, its recipe
# (testsuite/corpus/recipes/PROG.sh) does what a user would have to do,
# and says why.
#
# What it needs: root, or the source packages already in DIR/src and the
# packages of each recipe's deps installed.  As root it adds a deb-src entry
# to apt's sources if there is none, downloads the source packages with
# `apt-get source`, and installs what the recipes need with apt-get.
#
# Exit status: 0 if every program builds and behaves the same with cce;
# 1 if any instrumented build, test or workload fails or differs where the
# plain one did not; 77 (skipped) if sources or packages cannot be
# downloaded (no network, no deb-src), with a one-line reason on stderr;
# 2 on a usage error.
#
# Work dir layout: DIR/src (downloaded sources), DIR/data (workload input),
# DIR/PROG/{plain,cce} (build trees), DIR/PROG/VARIANT.{build,test}.log,
# DIR/PROG/VARIANT.test.norm (normalised test output),
# DIR/PROG/VARIANT.workload.out, DIR/PROG/cce.stats (the main binary's
# stats line), DIR/PROG/record (the table row's values), and optionally
# DIR/PROG/pushes and DIR/PROG/validated (filled in by other tools: the
# first line of pushes goes into the table as is, "N M ..." in validated
# as "N / M").

LC_ALL=C
export LC_ALL
# Run by make (make check, make corpus): the programs' own makes must not
# inherit its flags and variables (TESTS=..., the jobserver).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES GNUMAKEFLAGS MAKEOVERRIDES
here=$(cd "$(dirname "$0")" && pwd) || exit 1
self=$here/$(basename "$0")
srcroot=$(cd "$here/../.." && pwd) || exit 1
me=run-corpus.sh
# median, ratio, fsub, cpu_now, pair_order, run_pairs.
. "$here/../lib/measure.sh"

all_programs="lua5.4 zlib sqlite3 gawk jq bzip2 xz-utils zstd tcc bash json-c redis python3.11 tinyxml2 snappy yaml-cpp"
smoke_programs="lua5.4 xz-utils gawk"
# The C++ ones (with --wrapper, they need --cxx-wrapper).
cxx_programs="tinyxml2 snappy yaml-cpp"

workdir=${TMPDIR:-/tmp}/cce-corpus
internal=
observe_flag=
progs=
smoke=no
ratio_pairs=
lto_jobs=
build_pairs=1
table=
table_set=no
observe=all
validate=yes
table_only=no
validate_only=no
wrapper=
cxx_wrapper=
while test $# -gt 0; do
  case $1 in
    --workdir) workdir=$2; shift 2 ;;
    --workdir=*) workdir=${1#--workdir=}; shift ;;
    --smoke) smoke=yes; shift ;;
    --lto-jobs) lto_jobs=$2; shift 2 ;;
    --lto-jobs=*) lto_jobs=${1#--lto-jobs=}; shift ;;
    --ratio-pairs) ratio_pairs=$2; shift 2 ;;
    --ratio-pairs=*) ratio_pairs=${1#--ratio-pairs=}; shift ;;
    --build-pairs) build_pairs=$2; shift 2 ;;
    --build-pairs=*) build_pairs=${1#--build-pairs=}; shift ;;
    --table) table=$2; table_set=yes; shift 2 ;;
    --table=*) table=${1#--table=}; table_set=yes; shift ;;
    --no-table) table=; table_set=yes; shift ;;
    --observed-only) observe=observed; shift ;;
    --no-validate) validate=no; shift ;;
    --table-only) table_only=yes; shift ;;
    --validate-only) validate_only=yes; shift ;;
    --wrapper) wrapper=$2; shift 2 ;;
    --wrapper=*) wrapper=${1#--wrapper=}; shift ;;
    --cxx-wrapper) cxx_wrapper=$2; shift 2 ;;
    --cxx-wrapper=*) cxx_wrapper=${1#--cxx-wrapper=}; shift ;;
    --list) echo "$all_programs"; exit 0 ;;
    # Internal: run-corpus.sh --internal-call VARIANT TREE (see the end).
    --internal-call) internal=$2 internal_tree=$3; shift 3 ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "$me: unknown option $1" >&2; exit 2 ;;
    *) progs="$progs $1"; shift ;;
  esac
done
case $ratio_pairs in
  '') if test $smoke = yes; then ratio_pairs=1; else ratio_pairs=5; fi ;;
  *[!0-9]*) echo "$me: --ratio-pairs wants a number" >&2; exit 2 ;;
esac
case $build_pairs in
  ''|0|*[!0-9]*) echo "$me: --build-pairs wants a positive number" >&2; exit 2 ;;
esac
# The recipes build in their trees: a relative path of the wrapper
# becomes absolute.
case $wrapper in
  /*|'') ;;
  */*) wrapper=$(pwd)/$wrapper ;;
esac
case $cxx_wrapper in
  /*) ;;
  '') case $wrapper in
        cce-gcc|*/cce-gcc) cxx_wrapper=${wrapper%gcc}g++ ;;
      esac ;;
  */*) cxx_wrapper=$(pwd)/$cxx_wrapper ;;
esac
full=no
if test $smoke = yes; then
  test -z "$progs" || { echo "$me: --smoke takes no PROGRAM" >&2; exit 2; }
  progs=$smoke_programs
elif test -z "$progs"; then
  progs=$all_programs full=yes
fi
test $table_set = yes || { test $full = yes && test -z "$wrapper" &&
  table=$srcroot/docs/corpus.md; }
for p in $progs; do
  case " $all_programs " in
    *" $p "*) ;;
    *) echo "$me: no recipe for $p (known: $all_programs)" >&2; exit 2 ;;
  esac
  case " $cxx_programs " in
    *" $p "*) test -z "$wrapper" || test -n "$cxx_wrapper" || {
      echo "$me: $p is C++: --wrapper $wrapper needs a --cxx-wrapper" >&2; exit 2; } ;;
  esac
done
# The command that regenerates this run, for the table.
command="testsuite/corpus/run-corpus.sh"
test $smoke = yes && command="$command --smoke"
test -n "$wrapper" && command="$command --wrapper $wrapper"
test $full = yes || test $smoke = yes || command="$command$progs"

# ---------------------------------------------------------------- cce flags
if test -n "$wrapper"; then
  # The wrapper adds the flags itself.
  CCE_CFLAGS= CCE_LIBS= cce_from="wrapper \`$wrapper\`"
elif test -z "$internal"; then
  # (an internal call gets its build variables from the environment)
  . "$here/../lib/cce-flags.sh"
  cce_flags || exit 1
fi
if test -z "$internal" && test -n "${cce_tree:-}"; then
  # The build tree's decoder (validate-recipes.sh), and its libcce for the
  # recipes that run programs the loader must find it for (recipes/tcc.sh).
  : "${CCE_DECODE:=$cce_tree/decode/cce-decode}"
  : "${CCE_RTDIR:=$cce_tree/rt/.libs}"
  export CCE_RTDIR
fi

PLAIN_CFLAGS="-O2 -flto"
JOBS=$(nproc 2>/dev/null || echo 2)
# A test or workload that runs longer than this (seconds) has hung.
TIMEOUT=${CCE_CORPUS_TIMEOUT:-1800}

mkdir -p "$workdir/src" "$workdir/data" || exit 1
workdir=$(cd "$workdir" && pwd)

# Extra link options for the instrumented build: the plugin's one-line
# summary goes to the build log, and from there into PROG/cce.stats; and
# observe-all (see --observed-only), unless the plugin predates it.
if test -z "$internal" && test $observe = all && test -z "${CCE_EXTRA_LDFLAGS+set}"; then
  probe=$workdir/.probe
  mkdir -p "$probe" && echo 'int main (void) { return 0; }' > "$probe/p.c"
  if ${wrapper:-gcc} -O2 -flto $CCE_CFLAGS "$probe/p.c" -o "$probe/p" $CCE_LIBS \
       -fplugin-arg-cce-observe-all > "$probe/log" 2>&1; then
    observe_flag=-fplugin-arg-cce-observe-all
  elif grep -q 'observe-all' "$probe/log"; then
    observe=old  # a plugin that encodes every call anyway
  else
    echo "$me: the cce flags${wrapper:+ (the wrapper)} do not link a trivial program:" >&2
    sed 's/^/  /' "$probe/log" >&2
    exit 1
  fi
  rm -rf "$probe"
fi
CCE_EXTRA_LDFLAGS=${CCE_EXTRA_LDFLAGS-"-fplugin-arg-cce-stats $observe_flag"}
# Logs of instrumented programs go here, never into the build trees.
CCE_LOG=$workdir/cce-run.log
export CCE_LOG

# ------------------------------------------------------------ progress
start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
# log MSG: a timestamped progress line, with the seconds since the start.
log () { printf '[%s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - start ))" "$*"; }
now () { date +%s.%N; }
elapsed () { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }
# cpu_now's scratch file.
measure_times=$workdir/.times

skip () { echo "$me: SKIP: $*" >&2; exit 77; }

# ------------------------------------------------------------ fetch sources
have_debsrc () {
  grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources ||
  grep -qs '^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}
debsrc_checked=no
ensure_debsrc () {
  test $debsrc_checked = yes && return 0
  if ! have_debsrc; then
    if test "$(id -u)" != 0; then
      echo "$me: no deb-src entry in the apt sources, and not root." >&2
      echo "  Add one: copy the 'Types: deb' stanzas of /etc/apt/sources.list.d/debian.sources as 'Types: deb-src'." >&2
      return 1
    fi
    test -f /etc/apt/sources.list.d/debian.sources || return 1
    log "adding deb-src entry /etc/apt/sources.list.d/cce-corpus-src.sources"
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      > /etc/apt/sources.list.d/cce-corpus-src.sources || return 1
    apt_update || return 1
  fi
  debsrc_checked=yes
}
apt_updated=no
apt_update () {
  test $apt_updated = yes && return 0
  test "$(id -u)" = 0 || return 1
  log "apt-get update"
  apt-get update -q > "$workdir/src/apt-update.log" 2>&1 || return 1
  apt_updated=yes
}

# fetch PROG: download PROG's source package into $workdir/src (once) and
# record its .dsc in $workdir/src/PROG.dsc.  recipe_PROG_pkg lists source
# package specs to try in order (NAME or NAME=VERSION).
fetch () {
  test -s "$workdir/src/$1.dsc" && test -f "$(cat "$workdir/src/$1.dsc")" && return 0
  for spec in $("recipe_$(fn "$1")_pkg"); do
    name=${spec%%=*}
    case $spec in
      *=*) ver=${spec#*=}; ver=${ver#*:}; dsc="$workdir/src/${name}_$ver.dsc" ;;
      *) dsc=$(ls -t "$workdir/src/${name}"_*.dsc 2>/dev/null | head -1) ;;
    esac
    if test -n "$dsc" && test -f "$dsc"; then echo "$dsc" > "$workdir/src/$1.dsc"; return 0; fi
    case $spec in *=*) ;; *) dsc= ;; esac
    ensure_debsrc || return 1
    for attempt in 1 2; do
      log "$1: fetch: apt-get source --download-only $spec"
      if (cd "$workdir/src" && apt-get source -q --download-only "$spec") \
           > "$workdir/src/$1.fetch.log" 2>&1; then
        test -n "$dsc" ||
          dsc=$(ls -t "$workdir/src/${name}"_*.dsc 2>/dev/null | head -1)
        test -f "$dsc" || break
        echo "$dsc" > "$workdir/src/$1.dsc"
        return 0
      fi
      # Stale package lists are a common cause: update once and retry.
      test $attempt = 1 && test $apt_updated = no && apt_update || break
    done
    log "$1: fetch: $spec failed: $(grep -m1 '^E:' "$workdir/src/$1.fetch.log")"
  done
  return 1
}

# version PROG: the Debian version of PROG's fetched source package.
version () { sed -n 's/^Version: //p' "$(cat "$workdir/src/$1.dsc")" | head -1; }

# unpack_deb PROG DEST: the Debian-patched source tree, as apt-get source
# gives it.
unpack_deb () {
  rm -rf "$2"
  dpkg-source -q -x "$(cat "$workdir/src/$1.dsc")" "$2" > "$2.unpack.log" 2>&1 &&
    rm -f "$2.unpack.log"
}
# unpack_orig PROG DEST: the upstream tarball of PROG's source package (the
# .orig.tar.* named in the .dsc).
unpack_orig () {
  dsc=$(cat "$workdir/src/$1.dsc")
  orig=$(sed -n 's/^ [0-9a-f]\{32\} [0-9]* \(.*\.orig\.tar\.[a-z0-9]*\)$/\1/p' "$dsc" | head -1)
  test -n "$orig" || return 1
  rm -rf "$2" && mkdir -p "$2" &&
  tar -xf "$(dirname "$dsc")/$orig" -C "$2" --strip-components=1
}

# ------------------------------------------------------- packages needed
common_deps="gcc make binutils dpkg-dev tar xz-utils bzip2 coreutils"
missing_pkgs () {
  for p in "$@"; do
    dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
      echo "$p"
  done
}
ensure_deps () {
  miss=$(missing_pkgs "$@" | tr '\n' ' ')
  test -z "$miss" && return 0
  if test "$(id -u)" != 0; then
    echo "$me: missing packages; run: apt-get install $miss" >&2
    return 1
  fi
  log "deps: apt-get install $miss"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $miss \
    > "$workdir/src/apt-install.log" 2>&1 && return 0
  apt_update && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $miss > "$workdir/src/apt-install.log" 2>&1 && return 0
  tail -n 5 "$workdir/src/apt-install.log" | sed 's/^/    /' >&2
  return 1
}

# ------------------------------------------------------- workload input
# data MB: a deterministic text of about MB megabytes (words drawn from a
# generated vocabulary with a skewed distribution, some numbers and
# punctuation), made once per work dir with awk and a Park-Miller
# generator (exact in double arithmetic, so mawk and gawk agree).
data () {
  dfile=$workdir/data/text-$1M
  if ! test -s "$dfile"; then
    awk -v bytes=$(($1 * 1000000)) '
      function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
      BEGIN {
        seed = 42
        for (i = 0; i < 4000; i++) {
          n = 2 + int(rnd() * 9); w = ""
          for (j = 0; j < n; j++)
            w = w substr("etaoinshrdlucmfwypvbgkqjxz", 1 + int(rnd() * rnd() * 26), 1)
          voc[i] = w
        }
        total = 0; line = ""
        while (total < bytes) {
          r = rnd(); w = voc[int(4000 * r * r * r)]
          if (rnd() < 0.05) w = w ","
          if (rnd() < 0.02) w = int(rnd() * 100000)
          line = line (line == "" ? "" : " ") w
          if (length(line) > 60 + int(rnd() * 20)) {
            print line; total += length(line) + 1; line = ""
          }
        }
      }' > "$dfile.tmp" && mv "$dfile.tmp" "$dfile"
  fi
  echo "$dfile"
}

# ------------------------------------------------------ output filtering
# norm_common TREE: the part of a test log that is test results.  Drops
# what the build system echoes (compiler and libtool command lines, which
# carry the different flags; automake's silent-rule lines; make's
# directory and up-to-date lines), compiler diagnostics with their source
# excerpts, lto-wrapper notes and the plugin's stats lines, and writes the
# build tree's path as TREE and the compiler wrapper (--wrapper) as the
# plain build's compiler.  Everything else is kept.
norm_common () {
  awk -v tree="$1" -v wrap="$wrapper" -v cc="${CC:-gcc}" '
    function replace(s, from, to,   i) {
      while (from != "" && (i = index(s, from)) > 0)
        s = substr(s, 1, i - 1) to substr(s, i + length(from))
      return s
    }
    { line = replace(replace($0, tree, "TREE"), wrap, cc) }
    indiag && (line ~ /^ *[0-9]* \| / || line ~ /^ +\| /) { next }
    { indiag = 0 }
    line ~ /^[^ ]+:[0-9]+:[0-9]+: (warning|note): / { indiag = 1; next }
    line ~ /^[^ ]+: (In function|In member function|At top level|In instantiation)/ { next }
    line ~ /^In file included from [^ ]+:[0-9]+/ { next }
    line ~ /^ +from [^ ]+:[0-9]+[,:]$/ { next }
    line ~ /^make(\[[0-9]+\])?: (Entering|Leaving) directory / { next }
    line ~ /^make(\[[0-9]+\])?: Nothing to be done for / { next }
    line ~ /^make(\[[0-9]+\])?: .* is up to date\.$/ { next }
    line ~ /^Making [a-z-]+ in / { next }
    line ~ /^(\/usr\/bin\/)?make +[^ :]/ { next }
    line ~ /^mv -f \.deps\/[^ ]+\.Tpo \.deps\/[^ ]+\.Po$/ { next }
    line ~ /-flto|-fplugin|-specs=/ { next }
    line ~ /^lto-wrapper: / { next }
    line ~ /^cce: [0-9]+ functions, / { next }
    line ~ /^libtool: (compile|link|install|relink|warning): / { next }
    line ~ /^  (CC|CCLD|AR|GEN|YACC|LEX|RANLIB|CPP|CXX|CXXLD|LINK) +[^ ]/ { next }
    { print line }'
}

# --------------------------------------------------------------- recipes
# Each program PROG has a file recipes/PROG.sh, sourced here, that defines
# these functions (PROG in their names with dots and dashes as
# underscores: fn PROG), and the validation recipe of validate-recipes.sh:
#   recipe_PROG_pkg        source package specs to try, in order
#   recipe_PROG_deps       Debian packages the build and tests need
#   recipe_PROG_prepare D  a fresh source tree in D
#   recipe_PROG_build V D  build variant V (plain or cce) in D
#   recipe_PROG_bin D      the main binary (size, dictionary, stats)
#   recipe_PROG_test V D   run the tests; raw output on stdout
#   recipe_PROG_summary L  "PASSED TOTAL" from test log L
#   recipe_PROG_normalize  stdin to stdout: strips run-dependent noise
#                          (times, temporary names) after norm_common
#   recipe_PROG_workload   the run-time workload, run in the build tree;
#                          its stdout is compared between the builds
#   recipe_PROG_about      one line on the workload, for the table
#   recipe_PROG_setup      optional: prepares the machine, once per run
# Build variables: CC_V CXX_V CFLAGS_V LDFLAGS_V (the variant's C and C++
# compilers, compile and link flags; CFLAGS_V is the C++ programs'
# CXXFLAGS too).  $JOBS is the make parallelism.  Test and
# workload functions run in a child process (under timeout).

fn () { echo "$1" | tr '.-' '__'; }

for p in $all_programs; do . "$here/recipes/$p.sh" || exit 1; done

# -------------------------------------------------------------- driver
status=0
skipped=

# size_text: "text" of size(1) (Berkeley): all read-only sections, cce's
# dictionary included; dot_text: the .text section alone; dict_size: the
# cce_dict section.
size_text () { size "$1" 2>/dev/null | awk 'NR == 2 { print $1 }'; }
dot_text () { size -A "$1" 2>/dev/null | awk '$1 == ".text" { print $2 }'; }
dict_size () { size -A "$1" 2>/dev/null | awk '$1 == "cce_dict" { print $2 }'; }

# main_stats BIN BUILDLOG: the plugin's stats of the link of BIN: one
# line per LTRANS partition, added up (the largest numCC), with the number
# of partitions at the end.  A build may link several programs, in
# parallel: the lines that name BIN's file as their output are taken (of
# all lines, if none does), and of them a run of consecutive ones whose
# function and site counts add up to the numbers of node and call-site
# entries of BIN's dictionaries (section cce_dict).
main_stats () {
  counts=$(objcopy -O binary --only-section=cce_dict "$1" /dev/stdout 2>/dev/null |
           awk '/^n / { n++ } /^c / { c++ } END { printf "%d %d", n, c }')
  awk -v counts="$counts" -v out="$(basename "$1")" '
    /^cce: [0-9]+ functions, [0-9]+ sites:/ {
      all[++na] = $0
      o = index ($0, "; output ")
      if (o && substr ($0, o + 9) == out) mine[++nm] = $0
    }
    END {
      if (nm) { for (i = 1; i <= nm; i++) line[i] = mine[i]; k = nm }
      else { for (i = 1; i <= na; i++) line[i] = all[i]; k = na }
      split(counts, want, " ")
      for (i = 1; i <= k && !found; i++) {
        f = s = 0
        for (j = i; j <= k; j++) {
          split(line[j], w, " "); f += w[2]; s += w[4]
          if (f == want[1] && s == want[2]) { found = 1; first = i; last = j; break }
          if (f > want[1] || s > want[2]) break
        }
      }
      if (!found) exit
      for (j = first; j <= last; j++) {
        t = line[j]; gsub(/[^0-9]+/, " ", t); n = split(t, v, " ")
        for (x = 1; x <= n; x++) {
          if (x == 12) { if (v[x] + 0 > sum[x] + 0) sum[x] = v[x] }
          else sum[x] += v[x]
        }
      }
      printf "cce: %d functions, %d sites: %d direct (%d free), %d back edges (%d folded), %d overflow cuts, %d indirect (%d guessed), %d external, %d log; max numCC %s; %d sites unobserved; %d functions return without restoring the id; %d pushes out of line; %d LTRANS partitions\n", sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9], sum[10], sum[11], sum[12], sum[13], sum[14], sum[15], last - first + 1
    }' "$2"
}

# stat_field LINE WORD: the number before WORD (e.g. "back" -> back edges).
# (numCC: the number after it).
stat_field () {
  echo "$1" | awk -v w="$2" '{ gsub(/[(),:;]/, " "); n = split($0, f, " ")
    for (i = 2; i <= n; i++) if (f[i] == w) { print (w == "numCC" ? f[i+1] : f[i-1]); exit } }'
}

# count_c_lines DIR: non-blank lines of the C and C++ source and header
# files under DIR (*.c *.h *.cc *.cpp *.cxx *.hh *.hpp).
count_c_lines () {
  find "$1" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' \
    -o -name '*.cxx' -o -name '*.hh' -o -name '*.hpp' \) -exec cat {} + 2>/dev/null |
    grep -c '[^[:space:]]'
}

# put KEY VALUE: one value of the program's record (sourced by the table).
put () { printf "%s='%s'\n" "$1" "$(echo "$2" | sed "s/'/'\\\\''/g")" >> "$record"; }

# workload VARIANT OUT: run the program's workload once on VARIANT's build,
# output to OUT; sets w_VARIANT (user+sys CPU seconds) and wrc_VARIANT.
workload () {
  cpu_now c0
  CCE_CORPUS_RECIPE="recipe_${f}_workload" timeout "$TIMEOUT" sh "$self" \
    --workdir "$workdir" --internal-call "$1" "$pdir/$1" < /dev/null > "$2" 2> "$pdir/$1.workload.err"
  wrc=$?
  cpu_now c1
  eval "w_$1=$(fsub "$c1" "$c0") wrc_$1=$wrc"
}

# workload_timed V I: run the workload on V for pair I, checking that its
# output is the warm-up run's; workload_pair I: the ratio of pair I;
# workloads_ok: no workload run failed.
workload_timed () {
  workload $1 "$pdir/$1.workload.tmp"
  cmp -s "$pdir/$1.workload.tmp" "$pdir/$1.workload.out" ||
    eval "test \$wrc_$1 != 0 || wrc_$1=output-changed"
}
workload_pair () {
  r=$(ratio "$w_cce" "$w_plain")
  echo "$r" >> "$pdir/ratios"
  log "$prog: measure: pair $1/$ratio_pairs: plain $w_plain s, cce $w_cce s CPU (exit $wrc_plain/$wrc_cce): ratio $r"
  workloads_ok
}
workloads_ok () { test "$wrc_plain" = 0 && test "$wrc_cce" = 0; }

# variant_flags V: CC_V, CXX_V, CFLAGS_V and LDFLAGS_V for build V (plain
# or cce).
variant_flags () {
  CXX_V=g++
  if test "$1" = plain; then
    CC_V=gcc CFLAGS_V=$PLAIN_CFLAGS LDFLAGS_V=$PLAIN_CFLAGS
  else
    # README.md: compile and link with the flags of `pkg-config cce`,
    # --cflags and --libs both on the link.  The -specs of --cflags is
    # what keeps libcce in links that put LDFLAGS before the objects
    # (lua's, tcc's); --libs alone does not.
    CC_V=gcc CFLAGS_V="$PLAIN_CFLAGS $CCE_CFLAGS"
    LDFLAGS_V="$PLAIN_CFLAGS $CCE_CFLAGS $CCE_LIBS $CCE_EXTRA_LDFLAGS"
    # --wrapper: the wrapper is the compiler and adds the cce flags.
    if test -n "$wrapper"; then
      CC_V=$wrapper CFLAGS_V=$PLAIN_CFLAGS CXX_V=$cxx_wrapper
      LDFLAGS_V="$PLAIN_CFLAGS $CCE_EXTRA_LDFLAGS"
    fi
  fi
  if test -n "$lto_jobs"; then
    CFLAGS_V="$CFLAGS_V -flto=$lto_jobs" LDFLAGS_V="$LDFLAGS_V -flto=$lto_jobs"
  fi
}

# build_pairs_ratio PROG: with --build-pairs N, N - 1 more builds of each
# variant in fresh trees (PROG/V.bp), alternating the order per pair; sets
# bp_median to the median of the N build-time ratios (the first pair's is
# $cpu_cce / $cpu_plain from run_program).
build_pairs_ratio () {
  bp_prog=$1 bp_f=$(fn "$1") bp_dir=$workdir/$1
  { ratio "$cpu_cce" "$cpu_plain"; echo; } > "$bp_dir/buildratios"
  run_pairs 2 "$build_pairs" build_pair_one build_pair_done || return 1
  bp_median=$(median %.3f - < "$bp_dir/buildratios")
}
# build_pair_one V I: build V in a fresh tree for build pair I; sets bp_V.
build_pair_one () {
  variant_flags $1
  rm -rf "$bp_dir/$1.bp"
  "recipe_${bp_f}_prepare" "$bp_dir/$1.bp" || return 1
  cpu_now bc0
  "recipe_${bp_f}_build" $1 "$bp_dir/$1.bp" > "$bp_dir/$1.bp.log" 2>&1 || {
    log "$bp_prog/$1: build pair $2 FAILED (log: $bp_dir/$1.bp.log)"
    return 1
  }
  cpu_now bc1
  eval "bp_$1=$(fsub "$bc1" "$bc0")"
  rm -rf "$bp_dir/$1.bp"
}
# build_pair_done I: the build-time ratio of pair I.
build_pair_done () {
  bp_r=$(ratio "$bp_cce" "$bp_plain")
  echo "$bp_r" >> "$bp_dir/buildratios"
  log "$bp_prog: build pair $1/$build_pairs: plain $bp_plain s, cce $bp_cce s CPU: ratio $bp_r"
}

run_program () {
  prog=$1 f=$(fn "$1")
  pdir=$workdir/$prog
  record=$pdir/record
  mkdir -p "$pdir" && : > "$record"
  rm -f "$pdir/cce.stats" "$pdir/ratios" "$pdir"/*.test.norm "$pdir"/*.workload.out
  put r_prog "$prog"
  put r_version "$(version "$prog")"
  t_prog=$(now)
  if type "recipe_${f}_setup" >/dev/null 2>&1; then
    "recipe_${f}_setup" || log "$prog: setup FAILED"
  fi

  for v in plain cce; do
    eval "build_$v=FAIL tests_$v=- trc_$v=- secs_$v=- cpu_$v= text_$v= dtext_$v="
    variant_flags $v
    tree=$pdir/$v
    log "$prog/$v: unpack"
    if ! "recipe_${f}_prepare" "$tree"; then
      log "$prog/$v: unpack FAILED"; continue
    fi
    test $v = plain && put r_lines "$(count_c_lines "$tree")"
    log "$prog/$v: build (log: $pdir/$v.build.log)"
    rm -f "$CCE_LOG"*
    t0=$(now); cpu_now c0
    if "recipe_${f}_build" $v "$tree" > "$pdir/$v.build.log" 2>&1; then
      t1=$(now); cpu_now c1
      eval "build_$v=ok secs_$v=$(elapsed "$t0" "$t1") cpu_$v=$(fsub "$c1" "$c0")"
      bin=$("recipe_${f}_bin" "$tree")
      eval "text_$v=$(size_text "$bin") dtext_$v=$(dot_text "$bin")"
      log "$prog/$v: built in $(eval echo \$secs_$v) s ($(eval echo \$cpu_$v) s CPU)"
    else
      t1=$(now)
      log "$prog/$v: build FAILED after $(elapsed "$t0" "$t1") s; first errors and last lines of $pdir/$v.build.log:"
      { grep -E -m 6 -B 2 'error:|internal compiler error|Error [0-9]' "$pdir/$v.build.log"
        echo ...; tail -n 6 "$pdir/$v.build.log"; } |
        grep -v '^ *[0-9]* | \|^ *| ' | sed 's/^/    /'
      continue
    fi
    if test $v = cce; then
      main_stats "$bin" "$pdir/$v.build.log" > "$pdir/cce.stats"
      if test -s "$pdir/cce.stats"; then
        log "$prog/cce: $(basename "$bin"): $(cat "$pdir/cce.stats")"
      else
        log "$prog/cce: WARNING no stats line matches $(basename "$bin")'s dictionary ($(dict_size "$bin" || echo no) bytes)"
      fi
      put r_dict "$(dict_size "$bin")"
      # The runtime must stay silent at build time: no stray logs.
      stray=$(find "$tree" -name 'cce-*.log' | head -3)
      test -n "$stray" && log "$prog/cce: WARNING stray log files in the build tree: $stray"
    fi
    log "$prog/$v: test (log: $pdir/$v.test.log)"
    t0=$(now)
    # timeout(1) cannot run a shell function: run it in a child shell that
    # is this script, with the recipe's name.
    CCE_CORPUS_RECIPE="recipe_${f}_test" CC_V="$CC_V" CXX_V="$CXX_V" CFLAGS_V="$CFLAGS_V" \
      LDFLAGS_V="$LDFLAGS_V" timeout "$TIMEOUT" sh "$self" --workdir "$workdir" \
      --internal-call "$v" "$tree" < /dev/null > "$pdir/$v.test.log" 2>&1
    rc=$?
    t1=$(now)
    test $rc = 124 && echo "run-corpus.sh: TIMEOUT after $TIMEOUT s" >> "$pdir/$v.test.log"
    echo "run-corpus.sh: test exit status $rc" >> "$pdir/$v.test.log"
    set -- $("recipe_${f}_summary" "$pdir/$v.test.log")
    eval "tests_$v=$1/$2 trc_$v=$rc"
    log "$prog/$v: tests $1/$2 passed, exit status $rc, $(elapsed "$t0" "$t1") s"
    norm_common "$tree" < "$pdir/$v.test.log" | "recipe_${f}_normalize" > "$pdir/$v.test.norm"
    rm -f "$CCE_LOG"*
  done

  verdict=ok
  if test "$build_plain" != ok; then verdict=PLAIN-BUILD-FAIL
  elif test "$build_cce" != ok; then verdict=CCE-BUILD-FAIL
  elif test "$trc_plain" = 0 && test "$trc_cce" != 0; then verdict=CCE-TEST-FAIL
  elif test "$tests_plain" != "$tests_cce"; then verdict=CCE-TEST-FAIL
  elif ! cmp -s "$pdir/plain.test.norm" "$pdir/cce.test.norm"; then
    verdict=OUTPUT-DIFFERS
    log "$prog: normalised test outputs differ (diff $pdir/plain.test.norm $pdir/cce.test.norm):"
    diff "$pdir/plain.test.norm" "$pdir/cce.test.norm" | head -20 | sed 's/^/    /'
  fi

  # Run-time ratio: the workload, alternately on each build, in pairs
  # whose order alternates too; the ratio of user+sys CPU time per pair.
  # A first, untimed run of each build warms the caches and gives the
  # output that every later run must repeat.
  runratio=-
  if test "$build_plain" = ok && test "$build_cce" = ok && test "$ratio_pairs" -gt 0; then
    log "$prog: measure: workload, warm-up run of each build"
    for v in plain cce; do
      workload $v "$pdir/$v.workload.out"
    done
    log "$prog: measure: warm-up: plain $w_plain s, cce $w_cce s CPU (exit $wrc_plain/$wrc_cce)"
    : > "$pdir/ratios"
    # Pairs until one of the builds fails or changes its output.
    workloads_ok && run_pairs 1 "$ratio_pairs" workload_timed workload_pair
    rm -f "$pdir/plain.workload.tmp" "$pdir/cce.workload.tmp"
    if test "$wrc_plain" = 0 && test "$wrc_cce" != 0; then
      test $verdict = ok && verdict=CCE-WORKLOAD-FAIL
      log "$prog: the workload failed with cce (exit $wrc_cce); $pdir/cce.workload.err:"
      tail -n 5 "$pdir/cce.workload.err" | sed 's/^/    /'
    elif test "$wrc_plain" = 0 &&
         ! cmp -s "$pdir/plain.workload.out" "$pdir/cce.workload.out"; then
      test $verdict = ok && verdict=WORKLOAD-DIFFERS
      log "$prog: workload outputs differ:"
      diff "$pdir/plain.workload.out" "$pdir/cce.workload.out" | head -10 | sed 's/^/    /'
    elif test "$wrc_plain" = 0; then
      runratio=$(median %.3f - < "$pdir/ratios")
      log "$prog: run-time ratio (median of $(wc -l < "$pdir/ratios") pairs): $runratio"
    else
      log "$prog: the workload failed on the plain build (exit $wrc_plain); no run-time ratio"
    fi
  fi

  case $verdict in
    ok|PLAIN-BUILD-FAIL) ;;
    *) status=1 ;;
  esac
  put r_stats "$(cat "$pdir/cce.stats" 2>/dev/null)"
  put r_tests_plain "$tests_plain"
  put r_tests_cce "$tests_cce"
  put r_build_plain "$secs_plain"
  put r_build_cce "$secs_cce"
  buildratio=-
  if test -n "$cpu_plain" && test -n "$cpu_cce"; then
    build_pairs_ratio "$prog" && buildratio=$bp_median
    test "$build_pairs" = 1 ||
      log "$prog: build-time ratio (median of $build_pairs pairs): $buildratio"
  fi
  put r_buildratio "$buildratio"
  put r_runratio "$runratio"
  put r_textratio "$(test -n "$text_plain" && test -n "$text_cce" && ratio "$text_cce" "$text_plain" || echo -)"
  put r_dtextratio "$(test -n "$dtext_plain" && test -n "$dtext_cce" && ratio "$dtext_cce" "$dtext_plain" || echo -)"
  put r_verdict "$verdict"
  log "$prog: $verdict ($(elapsed "$t_prog" "$(now)") s)"
}

# write_table FILE PROG...: the results table, from the programs' records.
write_table () {
  out=$1; shift
  mkdir -p "$(dirname "$out")" || return 1
  {
    echo "# cce on real programs"
    echo
    echo "Generated by \`testsuite/corpus/run-corpus.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); do not edit."
    echo
    echo "- **Machine:** $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs,"
    echo "  $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo) RAM;"
    echo "  Debian $(cat /etc/debian_version 2>/dev/null), $(uname -sr), $(gcc --version | head -1)."
    echo "  Load average (1 min) when the run started: $load_start (above 0: other jobs"
    echo "  shared the CPUs during the run, and the timings are noisier)."
    echo "- **cce:** $cce_from$(cd "$srcroot" && git describe --always --dirty 2>/dev/null | sed 's/^/, commit /')."
    echo "- **Regenerate:** \`$command\` (or \`make corpus\` in the build tree);"
    echo "  it took $(( $(date +%s) - start )) s for this run, with $ratio_pairs workload pairs per program."
    echo
    echo "**Method.** Each program is built from its Debian 12 source package twice"
    echo "with GCC 12: plain (\`CFLAGS=LDFLAGS=\"-O2 -flto\"\`, and CXXFLAGS the same for C++), and instrumented, with the"
    if test -n "$wrapper"; then
      echo "compiler wrapper \`$wrapper\` as CC (CMake: CMAKE_C_COMPILER)${cxx_wrapper:+, \`$cxx_wrapper\` as CXX,} and the plain"
      echo "build's CFLAGS and LDFLAGS, and \`$CCE_EXTRA_LDFLAGS\` on the link."
    else
      echo "flags of \`pkg-config --cflags\` and \`--libs cce\` added to CFLAGS and LDFLAGS"
      echo "as README.md tells a user, and \`$CCE_EXTRA_LDFLAGS\` on the link."
    fi
    case $observe in
      all) echo "The programs log nothing, and cce encodes only the calls that can reach a log"
           echo "site: \`observe-all\` makes it encode every call as if every function logged,"
           echo "with the protocol that keeps the context exact at every instruction (it"
           echo "implies \`async\`), so these builds test the encoding on every call, and the"
           echo "ratios are its full cost." ;;
      observed) echo "The programs log nothing, and cce encodes only the calls that can reach a log"
           echo "site (\`--observed-only\`): their cce builds run their original code." ;;
    esac
    echo "Both builds run the program's own test suite (lua5.4,"
    echo "which has none in the package, runs \`testsuite/corpus/lua-workload.lua\`), and the"
    echo "test outputs are compared after removing what is not a test result: echoed"
    echo "compiler and libtool commands, compiler diagnostics, make's directory lines,"
    echo "timings. *Tests* counts tests passed / tests run. The plugin's columns"
    echo "(functions = call-graph nodes, call sites, free sites = direct sites with"
    echo "addition value 0, back edges and overflow cuts carried on the ccStack, the"
    echo "largest numCC) are those of the main binary's link. *Lines of C/C++* counts the"
    echo "non-blank lines of all C and C++ sources and headers of the unpacked source tree (tests and"
    echo "tools included). *Run time* is the median over the workload pairs of the"
    echo "ratio cce / plain of user+sys CPU time (\`times\`), the builds run alternately;"
    echo "each recipe in \`testsuite/corpus/recipes/\` documents its workload. *Build* is the ratio of"
    echo "the user+sys CPU time of configure and make ($build_pairs build pair(s) per program, the median). *Text* is the ratio of size(1)'s"
    echo "text (all read-only sections, the dictionary included) / of the .text section"
    echo "alone; *dict* is the size of the \`cce_dict\` section in bytes. The last two"
    echo "columns come from \`PROG/pushes\` and \`PROG/validated\` in the work dir when"
    echo "another tool has written them. Everything runs with \`LC_ALL=C\`."
    echo
    echo "| program | Debian source | lines of C/C++ | functions | call sites | free sites | back edges | overflow cuts | max numCC | tests plain / cce | run time | build | text / .text | dict bytes | ccStack pushes/s | contexts validated / mismatches | result |"
    echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
    for p in "$@"; do
      rec=$workdir/$p/record
      test -f "$rec" || continue
      r_prog='' r_version='' r_lines='' r_stats='' r_tests_plain='' r_tests_cce=''
      r_runratio='' r_buildratio='' r_textratio='' r_dtextratio='' r_dict='' r_verdict=
      . "$rec"
      s=$r_stats
      if test -n "$s"; then
        nf=$(stat_field "$s" functions) ns=$(stat_field "$s" sites)
        nfree=$(stat_field "$s" free) nb=$(stat_field "$s" back)
        no=$(stat_field "$s" overflow) nc=$(stat_field "$s" numCC)
      else
        nf=- ns=- nfree=- nb=- no=- nc=-
      fi
      pushes=$(head -n 1 "$workdir/$p/pushes" 2>/dev/null); : "${pushes:=-}"
      # validate.sh writes "N M D": N contexts validated, M mismatches.
      valid=$(head -n 1 "$workdir/$p/validated" 2>/dev/null |
              sed 's|^\([0-9][0-9]*\) \([0-9][0-9]*\)\( .*\)\{0,1\}$|\1 / \2|'); : "${valid:=-}"
      echo "| $r_prog | ${r_version:--} | ${r_lines:--} | $nf | $ns | $nfree | $nb | $no | $nc | ${r_tests_plain:--} / ${r_tests_cce:--} | ${r_runratio:--} | ${r_buildratio:--} | ${r_textratio:--} / ${r_dtextratio:--} | ${r_dict:--} | $pushes | $valid | $r_verdict |"
    done
    echo
    echo "Workloads (run time):"
    echo
    for p in "$@"; do
      echo "- **$p:** $("recipe_$(fn "$p")_about")"
    done
    echo
    echo "Result: \`ok\` when both builds pass the same tests with the same output and"
    echo "the workload's output is the same; otherwise the first of CCE-BUILD-FAIL,"
    echo "CCE-TEST-FAIL, OUTPUT-DIFFERS, CCE-WORKLOAD-FAIL, WORKLOAD-DIFFERS that applies"
    echo "(PLAIN-BUILD-FAIL: the plain build failed, nothing to compare)."
  } > "$out.tmp" && mv "$out.tmp" "$out"
}

# ----------------------------------------------------- internal calls
# run-corpus.sh --workdir DIR --internal-call VARIANT TREE runs the recipe
# function named in CCE_CORPUS_RECIPE, so that timeout(1) can bound it: a
# test (with the variant's build variables from the environment) or a
# workload (in TREE).
if test -n "$internal"; then
  case $CCE_CORPUS_RECIPE in
    recipe_*_test) "$CCE_CORPUS_RECIPE" "$internal" "$internal_tree" ;;
    recipe_*_workload) cd "$internal_tree" && "$CCE_CORPUS_RECIPE" ;;
    *) echo "$me: bad internal call" >&2; exit 2 ;;
  esac
  exit
fi

# ------------------------------------------------------------------ main
if test $table_only = yes; then
  test -n "$table" || { echo "$me: --table-only needs a table (--table FILE, or the full set)" >&2; exit 2; }
  write_table "$table" $progs && log "table: $table"
  exit
fi
log "run-corpus: programs:$(echo " $progs" | tr -s ' ') (work dir $workdir)"
log "run-corpus: cce $cce_from; extra link flags: $CCE_EXTRA_LDFLAGS; $ratio_pairs workload pairs; table: ${table:-none}"

# Step 1: sources.  Without them (no network, no deb-src) nothing can run.
fetched=
for p in $progs; do
  t0=$(now)
  if fetch "$p"; then
    fetched="$fetched $p"
    log "$p: fetch: $(basename "$(cat "$workdir/src/$p.dsc")") ($(elapsed "$t0" "$(now)") s)"
  else
    test $smoke = yes &&
      skip "cannot download the source package of $p (network or deb-src unavailable; see $workdir/src/$p.fetch.log)"
    log "$p: fetch FAILED (see $workdir/src/$p.fetch.log)"
    mkdir -p "$workdir/$p" && record=$workdir/$p/record && : > "$record" &&
      put r_prog "$p" && put r_verdict FETCH-FAIL
  fi
done
test -n "$fetched" ||
  skip "cannot download any source package (network or deb-src unavailable)"

# Step 2: the packages the recipes need.
deps=$common_deps
for p in $fetched; do deps="$deps $("recipe_$(fn "$p")_deps")"; done
t0=$(now)
log "deps: checking$(echo " $deps" | tr -s ' ')"
ensure_deps $deps || skip "cannot install the packages the recipes need (network unavailable or not root)"
log "deps: ok ($(elapsed "$t0" "$(now)") s)"
# Workload input, made once per work dir.
if test "$ratio_pairs" -gt 0 || case " $fetched " in *" xz-utils "*) true ;; *) false ;; esac; then
  t0=$(now)
  data 8 > /dev/null && data 16 > /dev/null
  log "data: workload input in $workdir/data ($(elapsed "$t0" "$(now)") s)"
fi

# Step 3: build, test and measure each program, then check its decoded
# contexts against gdb (validate-recipes.sh).
. "$here/validate-recipes.sh"
for p in $fetched; do
  # --validate-only needs the program's earlier run in this work dir (its
  # build flags and the recipe's state).
  if test $validate_only = yes && ! test -d "$workdir/$p/cce"; then
    log "$p: not built in $workdir yet: run it once without --validate-only"
    status=1
    continue
  fi
  test $validate_only = yes || run_program "$p"
  rm -f "$workdir/$p/validated" "$workdir/$p/pushes"
  if test $validate = yes && ! validate_program "$p"; then
    log "$p: VALIDATION FAILED"
    status=1
  fi
done

# Step 4: report.
echo
echo "Summary (work dir $workdir; $(( $(date +%s) - start )) s)"
printf '%-9s %-23s %-13s %-13s %-6s %-6s %-13s %s\n' program 'tests plain / cce' \
  'build s' '' 'run' build 'text / .text' result
for p in $progs; do
  r_tests_plain=- r_tests_cce=- r_build_plain=- r_build_cce=- r_runratio=-
  r_buildratio=- r_textratio=- r_dtextratio=- r_verdict=-
  test -f "$workdir/$p/record" && . "$workdir/$p/record"
  printf '%-9s %-23s %-13s %-13s %-6s %-6s %-13s %s\n' "$p" \
    "$r_tests_plain / $r_tests_cce" "$r_build_plain / $r_build_cce" '' \
    "$r_runratio" "$r_buildratio" "$r_textratio / $r_dtextratio" "$r_verdict"
done
if test -n "$table"; then
  write_table "$table" $progs && log "table: $table"
fi
exit $status
