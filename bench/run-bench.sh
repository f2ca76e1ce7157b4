#!/bin/sh
# run-bench.sh -- what cce costs: run time of call-heavy programs, the cost
# of one context capture against other ways of getting a context, decoding
# speed and memory, build time and code size.  `make bench` runs it with
# the build tree's cce; docs/performance.md explains the method and the
# results.
#
# Usage: run-bench.sh [OPTION...]
#   --quick          fewer repetitions, half-size workloads and the
#                    corpus's smoke set (about 5 minutes)
#   --pairs N        alternated plain/cce run pairs per program (default 9,
#                    --quick 3)
#   --only LIST      sections to run, a comma-separated subset of
#                    run,event,heap,sample,decode,build,corpus (default
#                    all)
#   --corpus-pairs N workload pairs per corpus program (default 5;
#                    --quick: the three programs of the smoke set, 1 pair)
#   --corpus-build-pairs N  alternated build pairs per corpus program for
#                    its build-time ratio (default 1; 5 adds about 40
#                    minutes)
#   --corpus-workdir DIR  the corpus work dir (default
#                    ${TMPDIR:-/tmp}/cce-corpus; source packages
#                    downloaded there before are reused)
#   --out FILE       results file (default BUILDDIR/bench/results.md)
#   --workdir DIR    where binaries and logs go (default BUILDDIR/bench/work)
#   --builddir DIR   the cce build tree (default: the tree this script is in)
#   --cce-flags FLAGS  plugin options for the cce builds of the call-heavy
#                    programs (run, build), e.g.
#                    "-fplugin-arg-cce-observe-all"
#   --help
# BENCH_QUICK=1 in the environment is the same as --quick.
#
# Where cce comes from: CCE_PKG_CONFIG_PATH, CCE_PLUGIN, CCE_RTDIR,
# CCE_INCDIR (as for testsuite/cce-cc, which builds the cce variants) and
# CCE_DECODE from the environment, else the build tree.  CC (default gcc)
# is the compiler of both builds.
#
# The corpus section runs testsuite/corpus/run-corpus.sh without its
# validation against gdb (`make corpus` does that): Debian source packages
# (apt-get source, so it needs the package archive; without it the section
# says why it did not run), built plain and with cce, their own tests run
# on both, and their workloads timed in alternated pairs.  It takes about
# 20 minutes (--quick: the smoke set, about 3).
#
# Ratios are instrumented/plain of user+system CPU time (wait4 rusage,
# bench/runtime.c), from alternated runs: pair i runs plain then cce for
# odd i, cce then plain for even i.  The table gives the median of the
# per-pair ratios and their min-max.  This machine has no hardware cycle
# counter for perf stat, so CPU time it is.

LC_ALL=C
export LC_ALL
me=run-bench.sh
here=$(cd "$(dirname "$0")" && pwd) || exit 1
srcroot=$(dirname "$here")
# median, minmax, geomean, ratio, pair_order, run_pairs.
. "$srcroot/testsuite/lib/measure.sh"
builddir=$srcroot
quick=${BENCH_QUICK:-0}
test "$quick" = 0 || quick=1
pairs=
only=run,event,heap,sample,decode,build,corpus
corpus_pairs=
corpus_build_pairs=1
corpus_workdir=${TMPDIR:-/tmp}/cce-corpus
cce_flags=
out=
workdir=

while test $# -gt 0; do
  case $1 in
    --quick) quick=1; shift ;;
    --pairs) pairs=$2; shift 2 ;;
    --pairs=*) pairs=${1#--pairs=}; shift ;;
    --only) only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --corpus-pairs) corpus_pairs=$2; shift 2 ;;
    --corpus-pairs=*) corpus_pairs=${1#--corpus-pairs=}; shift ;;
    --corpus-build-pairs) corpus_build_pairs=$2; shift 2 ;;
    --corpus-build-pairs=*) corpus_build_pairs=${1#--corpus-build-pairs=}; shift ;;
    --corpus-workdir) corpus_workdir=$2; shift 2 ;;
    --corpus-workdir=*) corpus_workdir=${1#--corpus-workdir=}; shift ;;
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --workdir) workdir=$2; shift 2 ;;
    --workdir=*) workdir=${1#--workdir=}; shift ;;
    --cce-flags) cce_flags=$2; shift 2 ;;
    --cce-flags=*) cce_flags=${1#--cce-flags=}; shift ;;
    --builddir) builddir=$2; shift 2 ;;
    --builddir=*) builddir=${1#--builddir=}; shift ;;
    --help|-h) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "$me: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
builddir=$(cd "$builddir" && pwd) || exit 2

# Workload sizes and repetitions.
if test $quick = 1; then
  : "${pairs:=3}"
  scale=50              # percent of each program's default work
  build_pairs=1
  event_reps=1
  decode_reps=1
  decode_n=1000000      # records of the 1x log; the 4x log has 4 times
else
  : "${pairs:=9}"
  scale=100
  build_pairs=3
  event_reps=3
  decode_n=2000000
  decode_reps=3
fi
case $pairs in
  ''|*[!0-9]*|0) echo "$me: --pairs needs a positive number" >&2; exit 2 ;;
esac
: "${corpus_pairs:=5}"
for n in "$corpus_pairs" "$corpus_build_pairs"; do
  case $n in
    ''|*[!0-9]*|0) echo "$me: --corpus-pairs and --corpus-build-pairs need positive numbers" >&2; exit 2 ;;
  esac
done

: "${CC:=gcc}"
: "${CCE_INCDIR:=$srcroot/rt}"
: "${CCE_PLUGIN:=$builddir/plugin/.libs/cce.so}"
: "${CCE_RTDIR:=$builddir/rt/.libs}"
: "${CCE_DECODE:=$builddir/decode/cce-decode}"
# The build tree's cce-uninstalled.pc, when it has one (cce-flags.sh).
: "${CCE_PKG_CONFIG_PATH:=$builddir}"
export CC CCE_INCDIR CCE_PLUGIN CCE_RTDIR CCE_PKG_CONFIG_PATH
ccecc="sh $srcroot/testsuite/cce-cc"
: "${workdir:=$builddir/bench/work}"
: "${out:=$builddir/bench/results.md}"

for f in "$CCE_PLUGIN" "$CCE_DECODE" "$CCE_INCDIR/cce.h"; do
  if test ! -f "$f"; then
    echo "$me: $f not found: build the tree first (make)" >&2
    exit 1
  fi
done

mkdir -p "$workdir" || exit 1
w=$workdir
t_start=$(date +%s)

progress () { echo "bench: $*" >&2; }
final_status=0
die () { echo "$me: $*" >&2; exit 1; }

# Logs and decoder output go to /dev/null: if it is not the device (a
# program run as root can replace it with a regular file), every log goes
# to disk and the per-event and decoding numbers are wrong.
test -c /dev/null || die "/dev/null is not a character device (ls -l /dev/null); as root: rm /dev/null && mknod -m 666 /dev/null c 1 3"

# The results file: everything the tables print goes there too.
: > "$out.tmp" || die "cannot write $out.tmp"
emit () { printf '%s\n' "$*"; printf '%s\n' "$*" >> "$out.tmp"; }

# calc FMT EXPR: EXPR computed by awk, printed with FMT.
calc () { awk "BEGIN {printf \"$1\", ($2)}"; }

# bench-run: CPU and wall time and peak RSS of one command.
brun=$w/bench-run
$CC -O2 -o "$brun" "$here/runtime.c" || die "cannot build bench/runtime.c"
# measure FILE CMD...: run CMD (stdout to FILE.out), leave "CPU WALL RSS
# STATUS" in FILE.
measure () {
  m_file=$1; shift
  "$brun" "$m_file" "$@" > "$m_file.out" 2> "$m_file.err"
}
# measure_null FILE CMD...: the same with stdout to /dev/null.
measure_null () {
  m_file=$1; shift
  "$brun" "$m_file" "$@" > /dev/null 2> "$m_file.err"
}
field () { awk -v i="$2" '{print $i}' "$1"; }

# The plain builds' cce_log: an empty function in a non-LTO object.
$CC -O2 -c -o "$w/stub.o" "$here/stub.c" || die "cannot build bench/stub.c"

programs="fib ackermann tree dispatch callback interp parser"
kind_fib="recursive (self and mutual, no tail calls)"
kind_ackermann="tail-recursive (tailr off under cce)"
kind_tree="tree recursion"
kind_dispatch="pointer-heavy (vtables, handler tables)"
kind_callback="callbacks (qsort/bsearch comparators, visitor)"
kind_interp="bytecode interpreter (switch, recursive eval)"
kind_parser="recursive descent (many direct calls)"

want () { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }

emit "# cce benchmarks"
emit ""
emit "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); mode: $(test $quick = 1 && echo quick || echo full) ($pairs pairs, workload scale ${scale}%)"
emit "- machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, $(uname -sr); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
emit "- compiler: $($CC --version | sed 1q)"
emit "- measure: user+sys CPU time (wait4 rusage); ratio = cce / plain, median of per-pair ratios (min-max) over alternated pairs"
emit "- cce builds of the call-heavy programs: -O2${cce_flags:+ $cce_flags} (pkg-config flags)"
emit ""

# ---------------------------------------------------------------------------
# Build both versions of every program (section d measures these builds).
# ---------------------------------------------------------------------------
if want run || want build || want sample; then
# gen: a generated program of 1000 functions in 4 translation units
# (bench/gen-prog.sh), built but not timed for run time.
genn=1000
rm -rf "$w/gen"; mkdir -p "$w/gen"
sh "$here/gen-prog.sh" $genn 4 "$w/gen" || die "gen-prog.sh failed"
srcs () {
  if test "$1" = gen; then echo "$w/gen/g0.c $w/gen/g1.c $w/gen/g2.c $w/gen/g3.c $w/gen/gmain.c"
  else echo "$here/$1.c"; fi
}
build_plain () {  # NAME OUT MEASUREFILE
  measure "$3" $CC -O2 -flto -I"$CCE_INCDIR" -o "$2" $(srcs "$1") "$w/stub.o"
}
build_cce () {
  # shellcheck disable=SC2086
  measure "$3" $ccecc -O2 $cce_flags -fplugin-arg-cce-stats -o "$2" $(srcs "$1")
}

# build_one V I: build V of $p for build pair I.
build_one () {
  build_$1 "$p" "$w/$p.$1" "$w/m" || {
    cat "$w/m.err" >&2; die "cannot build $p ($1)"; }
  field "$w/m" 1 >> "$w/$p.build.$1"
  test $1 = cce && grep '^cce:' "$w/m.err" > "$w/$p.stats"
  return 0
}
build_done () {
  progress "[build] $p $1/$build_pairs: plain $(tail -1 "$w/$p.build.plain") s, cce $(tail -1 "$w/$p.build.cce") s"
}
progress "building the benchmarks, plain and with cce ($build_pairs times each, alternated)"
for p in $programs gen; do
  : > "$w/$p.build.plain"; : > "$w/$p.build.cce"
  run_pairs 1 "$build_pairs" build_one build_done
done
# The generated program must compute the same with both builds.
gp=$("$w/gen.plain") && gc=$(CCE_LOG=/dev/null "$w/gen.cce") \
  || die "the generated program failed"
test "$gp" = "$gc" || die "the generated program differs: '$gp' vs '$gc'"
fi

# ---------------------------------------------------------------------------
# (a) Run time of the call-heavy programs.
# ---------------------------------------------------------------------------
geo=
if want run; then
  CCE_LOG=/dev/null; export CCE_LOG
  emit "## Run time of call-heavy programs"
  emit ""
  emit "| program | kind | plain s | cce s | ratio (median) | min-max | checksum |"
  emit "|---|---|---:|---:|---:|---|---|"
  # run_one V I: run V of $p once, for pair I; run_ratio I: the pair's ratio.
  run_one () {
    measure "$w/m.$1" "$w/$p.$1" "$scale" || {
      cat "$w/m.$1.err" >&2; die "$p ($1) failed"; }
    sum=$(cat "$w/m.$1.out")
    test -n "$ref" || ref=$sum
    if test "$sum" != "$ref"; then
      ok="DIFFERS"
      progress "$p: checksum differs: '$ref' vs '$sum' ($1)"
    fi
    field "$w/m.$1" 1 >> "$w/$p.t.$1"
  }
  run_ratio () {
    a=$(field "$w/m.plain" 1) b=$(field "$w/m.cce" 1)
    r=$(ratio "$b" "$a" '%.4f')
    echo "$r" >> "$w/$p.ratios"
    progress "[run] $p pair $1/$pairs: plain ${a}s cce ${b}s ratio $r"
  }
  nprog=0 worst= over=0
  : > "$w/meds.tmp"
  for p in $programs; do
    : > "$w/$p.ratios"; : > "$w/$p.t.plain"; : > "$w/$p.t.cce"
    ref= ok=same
    run_pairs 1 "$pairs" run_one run_ratio
    med=$(median < "$w/$p.ratios")
    mm=$(minmax < "$w/$p.ratios")
    tp=$(median < "$w/$p.t.plain") tc=$(median < "$w/$p.t.cce")
    eval kind=\$kind_$p
    emit "| $p | $kind | $(calc '%.3f' "$tp") | $(calc '%.3f' "$tc") | $(calc '%.3f' "$med") | $mm | $ok |"
    echo "$med" >> "$w/meds.tmp"
    nprog=$((nprog + 1))
    test "$(calc '%d' "($med > 1.05)")" = 1 && over=$((over + 1))
    echo "$med $p" >> "$w/worst.tmp"
  done
  geo=$(geomean < "$w/meds.tmp"); rm -f "$w/meds.tmp"
  worst=$(sort -g "$w/worst.tmp" | tail -1); rm -f "$w/worst.tmp"
  emit ""
  emit "Geometric mean of the median ratios: **$geo**; largest: ${worst#* } $(calc '%.3f' "${worst%% *}"); programs above 1.05: $over of $nprog."
  emit ""
  emit "Plugin statistics of the cce builds (-fplugin-arg-cce-stats):"
  emit ""
  for p in $programs; do
    emit "- $p: $(sed 's/^cce: //' "$w/$p.stats")"
  done
  emit ""
  unset CCE_LOG
fi

# ---------------------------------------------------------------------------
# (b) Per-event cost of capturing a context.
# ---------------------------------------------------------------------------
if want event; then
  progress "[event] building the capture variants"
  sh "$here/gen-chain.sh" 600 > "$w/chain.c"
  evsrc="$here/event.c $w/chain.c"
  # -flto-partition=one: one LTRANS job, as under cce (and no warning about
  # serial LTRANS jobs for the 600-function chain).
  plainev="$CC -O2 -flto -flto-partition=one"
  $plainev -DM_NONE -o "$w/ev-none" $evsrc 2> "$w/ev.log" || die "event (none)"
  $plainev -DM_BT -o "$w/ev-bt" $evsrc 2>> "$w/ev.log" || die "event (backtrace)"
  $plainev -fno-omit-frame-pointer -DM_FP -o "$w/ev-fp" $evsrc 2>> "$w/ev.log" || die "event (fp)"
  $plainev -finstrument-functions -DM_CYG -o "$w/ev-cyg" $evsrc 2>> "$w/ev.log" || die "event (cyg)"
  $ccecc -O2 -DM_CCE -fplugin-arg-cce-stats -o "$w/ev-cce" $evsrc 2>> "$w/ev.log" || {
    cat "$w/ev.log" >&2; die "event (cce)"; }
  unw_why=
  if $plainev -DM_UNW -o "$w/ev-unw" $evsrc -lunwind 2>> "$w/ev.log"; then :; else
    unw_why="libunwind not available (install libunwind-dev)"
    rm -f "$w/ev-unw"
  fi
  # ev METHOD-BINARY DEPTH SHAPE [MODE [LOG]]: median over event_reps
  # processes of the per-capture median, logging to LOG (default
  # /dev/null: records written to scratch memory, no file); leaves "NS
  # FRAMES" in $w/ev.res.  A MODE of agg-M is M with CCE_MODE=aggregate
  # (which needs a log file: tables live in it).
  ev () {
    : > "$w/ev.ns"
    j=1
    ev_mode=log ev_arg=$4
    case $4 in agg-*) ev_mode=aggregate ev_arg=${4#agg-} ;; esac
    while test $j -le $event_reps; do
      rm -f "$w/ev.file.log"
      CCE_MODE=$ev_mode CCE_LOG=${5:-/dev/null} "$w/ev-$1" "$2" "$3" ${ev_arg:+"$ev_arg"} > "$w/ev.one" || return 1
      cut -d' ' -f1 "$w/ev.one" >> "$w/ev.ns"
      j=$((j + 1))
    done
    echo "$(median < "$w/ev.ns") $(cut -d' ' -f2 "$w/ev.one")" > "$w/ev.res"
  }
  depths="5 50 500"
  # rows: label binary shape mode
  rows="none (the timing loop alone)|none|distinct|
cce_log (full: capture + append, CCE_LOG=/dev/null)|cce|distinct|log
cce_log to a log file (the kernel's page cache included)|cce|distinct|log|file
cce_count to a log file|cce|distinct|count|file
cce_log, CCE_MODE=aggregate (one more event of its table entry)|cce|distinct|agg-log|file
cce_count, CCE_MODE=aggregate|cce|distinct|agg-count|file
cce capture alone (id + depth + ccStack copy)|cce|distinct|raw
cce_log, recursive chain|cce|recursive|log
cce capture alone, recursive chain|cce|recursive|raw
-finstrument-functions shadow stack copy|cyg|distinct|
frame-pointer walk|fp|distinct|
libunwind unw_backtrace|unw|distinct|
glibc backtrace|bt|distinct|"
  emit "## Per-event cost of capturing one context"
  emit ""
  emit "Depth = frames of the program on the stack, main and the capturing function included; ns per event = median thread CPU time per capture; ns/frame = ns per event / depth; frames = what the capture held at depth 500 (ccStack entries for cce)."
  emit ""
  emit "| method | d=5 ns | ns/frame | d=50 ns | ns/frame | d=500 ns | ns/frame | frames at 500 |"
  emit "|---|---:|---:|---:|---:|---:|---:|---:|"
  echo "$rows" > "$w/ev.rows"
  while IFS='|' read -r label bin shape mode sink; do
    if test "$bin" = unw && test -n "$unw_why"; then
      emit "| $label | n/a | | n/a | | n/a | | $unw_why |"
      continue
    fi
    line="| $label"
    for d in $depths; do
      progress "[event] $label, depth $d"
      ev "$bin" "$d" "$shape" "$mode" ${sink:+"$w/ev.file.log"} < /dev/null || die "event $bin $d $shape $mode failed"
      rm -f "$w/ev.file.log"
      ns=$(cut -d' ' -f1 "$w/ev.res") fr=$(cut -d' ' -f2 "$w/ev.res")
      echo "$ns" > "$w/ev.$bin.$shape.$mode$sink.$d"
      line="$line | $(calc '%.1f' "$ns") | $(calc '%.2f' "$ns / $d")"
    done
    emit "$line | $fr |"
  done < "$w/ev.rows"
  emit ""
  c5=$(cat "$w/ev.cce.distinct.log.5") c500=$(cat "$w/ev.cce.distinct.log.500")
  r5=$(cat "$w/ev.cce.distinct.raw.5") r500=$(cat "$w/ev.cce.distinct.raw.500")
  emit "- cce_log, distinct chain: depth 500 / depth 5 = $(calc '%.2f' "$c500 / $c5"); capture alone: $(calc '%.2f' "$r500 / $r5")."
  f50=$(cat "$w/ev.cce.distinct.logfile.50") a50=$(cat "$w/ev.cce.distinct.agg-logfile.50")
  emit "- At depth 50, an aggregated event (CCE_MODE=aggregate: a hash of the context, a lookup, a count and a sum updated in place in the log file) costs $(calc '%.2f' "$a50 / $f50") times a cce_log record to the same file."
  if test -z "$unw_why"; then
    u50=$(cat "$w/ev.unw.distinct..50") c50=$(cat "$w/ev.cce.distinct.log.50")
    r50=$(cat "$w/ev.cce.distinct.raw.50")
    emit "- At depth 50, unw_backtrace costs $(calc '%.1f' "$u50 / $c50") times a full cce_log and $(calc '%.0f' "$u50 / $r50") times the capture alone."
  else
    emit "- unw_backtrace: n/a ($unw_why)."
  fi
  emit "- cce build of the chain: $(grep '^cce:' "$w/ev.log" | sed 's/^cce: //')"
  emit ""
fi

# ---------------------------------------------------------------------------
# (b'') The heap profile (CCE_HEAP): a malloc/free loop at depth 5 and 60,
# plain, built with cce (libcce's allocator functions) without and with
# CCE_HEAP=1, and the plain binary under heaptrack if it is installed.
# ---------------------------------------------------------------------------
if want heap; then
  progress "[heap] building the malloc/free loop"
  test -f "$w/chain.c" || sh "$here/gen-chain.sh" 600 > "$w/chain.c"
  hsrc="$here/event.c $w/chain.c"
  $CC -O2 -flto -flto-partition=one -DM_HEAP -o "$w/heap-plain" $hsrc \
    2> "$w/heap.log" || die "heap (plain)"
  $ccecc -O2 -DM_HEAP -fplugin-arg-cce-observe-all -o "$w/heap-cce" $hsrc \
    2>> "$w/heap.log" || { cat "$w/heap.log" >&2; die "heap (cce)"; }
  # hp LABEL CMD...: median over event_reps runs of the ns per malloc/free
  # (CMD prints it first), into $w/hp.res.
  hp () {
    : > "$w/hp.ns"
    j=1
    while test $j -le $event_reps; do
      rm -f "$w/hp.file.log" "$w"/ht.heaptrack.*
      "$@" > "$w/hp.one" 2>> "$w/heap.log" < /dev/null || return 1
      grep -E '^[0-9.]+ -?[0-9]+$' "$w/hp.one" | cut -d' ' -f1 >> "$w/hp.ns"
      j=$((j + 1))
    done
    median < "$w/hp.ns" > "$w/hp.res"
  }
  heaptrack=$(command -v heaptrack 2>/dev/null)
  emit "## The heap profile (CCE_HEAP)"
  emit ""
  emit "ns per malloc (32 bytes) and free at call depth d, median thread CPU time; the cce build with -fplugin-arg-cce-observe-all; its log in a file."
  emit ""
  emit "| variant | d=5 ns | d=60 ns |"
  emit "|---|---:|---:|"
  for v in plain nohe heap sampled heaptrack; do
    line=
    for d in 5 60; do
      case $v in
        plain) label="plain -O2 build (the C library's malloc)"
               hp env -u CCE_HEAP "$w/heap-plain" "$d" distinct ;;
        nohe) label="cce build without CCE_HEAP (libcce's malloc forwards)"
              hp env -u CCE_HEAP "$w/heap-cce" "$d" distinct ;;
        heap) label="cce build, CCE_HEAP=1"
              hp env CCE_HEAP=1 CCE_LOG="$w/hp.file.log" "$w/heap-cce" "$d" distinct ;;
        sampled) label="cce build, CCE_HEAP=1 CCE_HEAP_SAMPLE=524288"
              hp env CCE_HEAP=1 CCE_HEAP_SAMPLE=524288 CCE_LOG="$w/hp.file.log" \
                "$w/heap-cce" "$d" distinct ;;
        heaptrack) label="plain build under heaptrack"
              if test -z "$heaptrack"; then
                line="$line | n/a"
                continue
              fi
              hp "$heaptrack" -o "$w/ht.heaptrack" "$w/heap-plain" "$d" distinct ;;
      esac || die "heap: $v at depth $d failed"
      progress "[heap] $label, depth $d: $(cat "$w/hp.res") ns"
      cp "$w/hp.res" "$w/hp.$v.$d"
      line="$line | $(calc '%.1f' "$(cat "$w/hp.res")")"
    done
    emit "| $label$line |"
  done
  emit ""
  for d in 5 60; do
    p=$(cat "$w/hp.plain.$d") n=$(cat "$w/hp.nohe.$d") h=$(cat "$w/hp.heap.$d")
    msg="- depth $d: CCE_HEAP=1 adds $(calc '%.1f' "$h - $p") ns per allocation; without CCE_HEAP libcce's malloc adds $(calc '%.1f' "$n - $p") ns"
    if test -n "$heaptrack"; then
      t=$(cat "$w/hp.heaptrack.$d")
      msg="$msg; heaptrack adds $(calc '%.0f' "$t - $p") ns, $(calc '%.0f' "($t - $p) / ($h - $p)") times cce's"
    fi
    emit "$msg."
  done
  test -n "$heaptrack" ||
    emit "- heaptrack: not installed (apt-get install heaptrack), not measured."
  emit ""
fi

# ---------------------------------------------------------------------------
# (b') The CPU-time sampler: the cce builds with CCE_SAMPLE=HZ against
# the same binaries without it.
# ---------------------------------------------------------------------------
if want sample; then
  emit "## The CPU-time sampler (CCE_SAMPLE)"
  emit ""
  emit "The cce build of each program run with CCE_SAMPLE=HZ and without it, in alternated pairs, both logging to a file; ratio = sampled / unsampled CPU time, median of the per-pair ratios (min-max); records/CPU s = the sample records of the last sampled run per second of its CPU time (HZ when every period is logged)."
  emit ""
  emit "| program | HZ | unsampled s | sampled s | ratio (median) | min-max | records/CPU s |"
  emit "|---|---:|---:|---:|---:|---:|---:|"
  pcrecords=$srcroot/testsuite/e2e/pcrecords.py
  # sample_one V I: run $p's cce build once, sampled at $hz if V is cce.
  sample_one () {
    rm -f "$w/sample.log"
    s_hz=
    test "$1" = cce && s_hz=$hz
    measure "$w/m.$1" env CCE_SAMPLE="$s_hz" CCE_LOG="$w/sample.log" \
      "$w/$p.cce" "$scale" \
      || { cat "$w/m.$1.err" >&2; die "$p (CCE_SAMPLE=$hz) failed"; }
    if test "$1" = cce; then
      nrec=$(python3 "$pcrecords" "$w/sample.log" | awk -F '\t' '$2 == 4292870400' | wc -l)
    fi
    rm -f "$w/sample.log"
    field "$w/m.$1" 1 >> "$w/$p.s.$1"
  }
  sample_ratio () {
    a=$(field "$w/m.plain" 1) b=$(field "$w/m.cce" 1)
    r=$(ratio "$b" "$a" '%.4f')
    echo "$r" >> "$w/$p.sratios"
    progress "[sample] $p HZ=$hz pair $1/$pairs: unsampled ${a}s sampled ${b}s ratio $r"
  }
  : > "$w/smeds.100"; : > "$w/smeds.1000"
  for p in $programs; do
    for hz in 100 1000; do
      : > "$w/$p.sratios"; : > "$w/$p.s.plain"; : > "$w/$p.s.cce"
      run_pairs 1 "$pairs" sample_one sample_ratio
      tp=$(median < "$w/$p.s.plain") tc=$(median < "$w/$p.s.cce")
      med=$(median < "$w/$p.sratios")
      echo "$med" >> "$w/smeds.$hz"
      emit "| $p | $hz | $(calc '%.3f' "$tp") | $(calc '%.3f' "$tc") | $(calc '%.4f' "$med") | $(minmax '%.4f' < "$w/$p.sratios") | $(calc '%.0f' "$nrec / $(field "$w/m.cce" 1)") |"
    done
  done
  emit ""
  emit "Geometric mean of the median ratios: 100 Hz $(geomean '%.4f' < "$w/smeds.100"), 1000 Hz $(geomean '%.4f' < "$w/smeds.1000")."
  rm -f "$w/smeds.100" "$w/smeds.1000"
  emit ""
fi

# ---------------------------------------------------------------------------
# (c) Decoding speed and memory.
# ---------------------------------------------------------------------------
if want decode; then
  progress "[decode] building declog and writing logs of $decode_n and $((4 * decode_n)) records"
  $ccecc -O2 -o "$w/declog" "$here/declog.c" 2> "$w/declog.build" || {
    cat "$w/declog.build" >&2; die "cannot build declog"; }
  emit "## Decoding speed (cce-decode --format=records PROG LOG > /dev/null)"
  emit ""
  emit "Logs written by bench/declog.c: normal = paths through four layers of a call graph, some through a pointer or a recursion of up to 3 levels; deep = the same with recursions of up to 63 levels (longer ccStacks, more distinct paths).  CPU and wall: median of $decode_reps runs; peak RSS: the largest."
  emit ""
  emit "| log | records | log MB | distinct paths | CPU s | wall s | records/s (CPU) | peak RSS MB |"
  emit "|---|---:|---:|---:|---:|---:|---:|---:|"
  for shape in normal deep; do
  for x in 1 4; do
    n=$((x * decode_n))
    rm -f "$w/dec.log"
    CCE_LOG=$w/dec.log "$w/declog" "$n" $shape > /dev/null || die "declog failed"
    mb=$(calc '%.1f' "$(wc -c < "$w/dec.log") / 1048576")
    "$CCE_DECODE" --format=records "$w/declog" "$w/dec.log" > "$w/dec.txt" \
      || die "cce-decode failed"
    got=$(wc -l < "$w/dec.txt")
    test "$got" = "$n" || die "cce-decode gave $got records, expected $n"
    paths=$(awk '!seen[$0]++' "$w/dec.txt" | wc -l)
    grep -q incomplete "$w/dec.txt" && progress "[decode] warning: incomplete paths in the log"
    rm -f "$w/dec.txt"
    : > "$w/dec.cpu"; : > "$w/dec.wall"; : > "$w/dec.rss"
    j=1
    while test $j -le $decode_reps; do
      progress "[decode] $shape ${x}x log, run $j/$decode_reps"
      measure_null "$w/m" "$CCE_DECODE" --format=records "$w/declog" \
        "$w/dec.log" || die "cce-decode failed"
      field "$w/m" 1 >> "$w/dec.cpu"; field "$w/m" 2 >> "$w/dec.wall"
      field "$w/m" 3 >> "$w/dec.rss"
      j=$((j + 1))
    done
    cpu=$(median < "$w/dec.cpu") wall=$(median < "$w/dec.wall")
    rss=$(sort -g "$w/dec.rss" | tail -1)
    emit "| $shape ${x}x | $n | $mb | $paths | $(calc '%.3f' "$cpu") | $(calc '%.3f' "$wall") | $(calc '%.2e' "$n / $cpu") | $(calc '%.1f' "$rss / 1024") |"
  done
  done
  rm -f "$w/dec.log"
  emit ""
fi

# ---------------------------------------------------------------------------
# (d) Build time and size.
# ---------------------------------------------------------------------------
if want build; then
  emit "## Build time and size"
  emit ""
  emit "Build = CPU time of the whole \`gcc -O2 -flto\` compile and link (all its processes), median of $build_pairs alternated builds.  .text = the code section; file text = size(1)'s text column, which also counts read-only data, .eh_frame and cce_dict (the dictionary, an allocated read-only section).  gen = a generated program of $genn functions in 4 files (bench/gen-prog.sh), a DAG with very many paths."
  emit ""
  emit "| program | build plain s | build cce s | ratio | .text plain | .text cce | ratio | file text ratio | cce_dict bytes |"
  emit "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  : > "$w/gbuild.tmp"; : > "$w/gtext.tmp"; : > "$w/gfile.tmp"
  for p in $programs gen; do
    bp=$(median < "$w/$p.build.plain") bc=$(median < "$w/$p.build.cce")
    xp=$(size -A "$w/$p.plain" | awk '$1 == ".text" {print $2}')
    xc=$(size -A "$w/$p.cce" | awk '$1 == ".text" {print $2}')
    tp=$(size "$w/$p.plain" | awk 'NR == 2 {print $1}')
    tc=$(size "$w/$p.cce" | awk 'NR == 2 {print $1}')
    dict=$(size -A "$w/$p.cce" | awk '$1 == "cce_dict" {print $2}')
    emit "| $p | $(calc '%.3f' "$bp") | $(calc '%.3f' "$bc") | $(calc '%.2f' "$bc / $bp") | $xp | $xc | $(calc '%.3f' "$xc / $xp") | $(calc '%.3f' "$tc / $tp") | ${dict:-none} |"
    ratio "$bc" "$bp" '%.9g\n' >> "$w/gbuild.tmp"
    ratio "$xc" "$xp" '%.9g\n' >> "$w/gtext.tmp"
    ratio "$tc" "$tp" '%.9g\n' >> "$w/gfile.tmp"
  done
  emit ""
  emit "Geometric means: build time $(geomean %.2f < "$w/gbuild.tmp"), .text $(geomean < "$w/gtext.tmp"), file text $(geomean < "$w/gfile.tmp")."
  rm -f "$w/gbuild.tmp" "$w/gtext.tmp" "$w/gfile.tmp"
  emit ""
  emit "- gen: $(sed 's/^cce: //' "$w/gen.stats")"
  emit ""
fi

# ---------------------------------------------------------------------------
# (e) The corpus.
# ---------------------------------------------------------------------------
corpus=$srcroot/testsuite/corpus/run-corpus.sh
if want corpus && test -f "$corpus"; then
  emit "## Real programs (the corpus)"
  emit ""
  if test $quick = 1; then
    cargs="--smoke"
  else
    cargs="--ratio-pairs $corpus_pairs --build-pairs $corpus_build_pairs"
  fi
  # corpus_run NAME WHAT [WRAPPER CXXWRAPPER]: run the corpus with this
  # build tree's cce (CCE_PKG_CONFIG_PATH, CCE_PLUGIN, CCE_RTDIR and
  # CCE_INCDIR are exported), every call encoded, and emit its summary;
  # WRAPPER (CXXWRAPPER for the C++ programs) builds the instrumented
  # variant instead of the default flags.
  corpus_run () {
    cn=$1 cwhat=$2 cwrap=$3 cxxwrap=$4
    progress "[corpus] run-corpus.sh $cargs --no-validate ${cwrap:+--wrapper '$cwrap' }(log: $w/$cn.log)"
    if test -n "$cwrap"; then
      sh "$corpus" --workdir "$corpus_workdir" $cargs --no-validate \
         --wrapper "$cwrap" --cxx-wrapper "$cxxwrap" --table "$w/$cn.md" \
         > "$w/$cn.log" 2>&1
    else
      sh "$corpus" --workdir "$corpus_workdir" $cargs --no-validate \
         --table "$w/$cn.md" > "$w/$cn.log" 2>&1
    fi
    cs=$?
    case $cs in 0|77) ;; *) final_status=1 ;; esac
    emit "### $cwhat"
    emit ""
    if test $cs = 77 || test ! -s "$w/$cn.md"; then
      emit "Not run: $(grep -v '^\[' "$w/$cn.log" | tail -n 1) (exit $cs; log: $w/$cn.log)."
      emit ""
      return
    fi
    # The columns that matter here, by name, from run-corpus.sh's table.
    awk -F ' *[|] *' '
      /^[|] program [|]/ {
        for (i = 2; i < NF; i++) col[$i] = i
        print "| program | run time | build | text / .text | dict bytes | result |"
        print "|---|--:|--:|--:|--:|---|"
        intab = 1; next
      }
      intab && /^[|]---/ { next }
      intab && /^[|]/ {
        rt = $col["run time"]
        printf "| %s | %s | %s | %s | %s | %s |\n", $2, rt, $col["build"], \
               $col["text / .text"], $col["dict bytes"], $col["result"]
        if (rt ~ /^[0-9.]+$/) { n++; lg += log(rt); if (rt > 1.05) { over++; ol = ol ", " $2 " " rt } }
        next
      }
      intab { intab = 0 }
      END {
        if (n) {
          printf "\nGeometric mean of the run-time ratios: **%.3f** over %d programs; above 1.05: %d%s.\n", exp(lg / n), n, over + 0, (over ? " (" substr(ol, 3) ")" : "")
        }
      }' "$w/$cn.md" > "$w/$cn.sum"
    while IFS= read -r line; do emit "$line"; done < "$w/$cn.sum"
    emit ""
    emit "Run time = median over the workload pairs of cce / plain CPU time, every call encoded ($cwhat); build = configure and make CPU time (median of $corpus_build_pairs alternated pair(s) of builds); text = size(1)'s text (dictionary included) / the .text section alone.  The whole table, with the workloads and the plugin's counts: $w/$cn.md (\`make corpus\` also validates the contexts against gdb and writes docs/corpus.md).  run-corpus.sh exit status: $cs."
    emit ""
  }
  corpus_run corpus "observe-all"
  # Every call encoded without the protocol that places every
  # instruction (async=0: restores left out where nothing reads them,
  # functions that return with another id), through a compiler wrapper
  # (run-corpus.sh adds observe-all to its link).
  printf '#!/bin/sh\nCC=%s exec sh %s -fplugin-arg-cce-async=0 "$@"\n' \
    "$CC" "$srcroot/testsuite/cce-cc" > "$w/cce-cc-noasync"
  printf '#!/bin/sh\nCC=%s exec sh %s -fplugin-arg-cce-async=0 "$@"\n' \
    "${CXX:-g++}" "$srcroot/testsuite/cce-cc" > "$w/cce-cxx-noasync"
  chmod +x "$w/cce-cc-noasync" "$w/cce-cxx-noasync"
  corpus_run corpus-noasync "observe-all, async=0" "$w/cce-cc-noasync" \
    "$w/cce-cxx-noasync"
  emit ""
fi

test $final_status = 0 || progress "the corpus failed (run-corpus.sh exit $cs): see $w/corpus.log"
t_end=$(date +%s)
emit "Total time of this run: $((t_end - t_start)) s."
mv "$out.tmp" "$out"
progress "done in $((t_end - t_start)) s; results in $out"
exit $final_status
