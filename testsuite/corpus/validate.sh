#!/bin/sh
# validate.sh -- check the contexts cce decodes on a real run against gdb.
#
# Usage: validate.sh [OPTION...] TRACED_BIN O0_BIN [ARG...]
#
#   TRACED_BIN  the program built with cce and
#               -fplugin-arg-cce-trace=F1,F2,... (the functions of --funcs)
#   O0_BIN      the same program built at -O0 -g without cce
#   ARG...      the workload: arguments of the program
#
# Options:
#   --funcs "F1 F2 ..."  the traced functions (required)
#   --stdin FILE         the workload's standard input (default /dev/null)
#   --cwd DIR            run both programs in DIR (default: the current one)
#   --budget N           records to compare, about (default 2500), shared
#                        out among the functions: one with few entries
#                        gives all of them, and each hotter one F with H
#                        entries is sampled every S_F = ceil(H / share)
#   --max-stops N        leave out the functions with the most entries
#                        until the others have at most N (default 200000):
#                        gdb stops at every entry, some 5,000 a second
#   --out DIR            work files (default: a new directory in TMPDIR)
#   --decode PATH        cce-decode (default: cce-decode in PATH)
#   --gdb PATH           gdb (default: gdb)
#
# 1. Run TRACED_BIN ARG... with CCE_LOG set and decode the log with
#    "cce-decode --format=records": one record per entry of a traced
#    function, its tag the function's name (a C++ function's qualified
#    name becomes the F of --funcs it ends with, as gdb's breakpoints on
#    F stop in every function named F).
# 2. Count each function's entries H_F and choose its stride S_F.
# 3. Keep entries 1, 1 + S_F, 1 + 2 S_F, ... of each F of the decoded
#    records.
# 4. Run O0_BIN ARG... under gdb with testsuite/e2e/oracle.py, which stops
#    at every entry of each traced function and records gdb's backtrace at
#    the same entries.  Frames outside the program count as one external
#    frame.
# 5. Compare line by line (the programs must be single-threaded and
#    deterministic).
#
# Prints "validated N contexts (D distinct paths), M mismatches" and writes
# "N M D" to OUT/validated, and the traced run's wall time in seconds to
# OUT/traced.secs.  Exit status 0 if N > 0 and M = 0, 1 otherwise,
# 77 (skip) if gdb or its Python is missing.

here=$(cd "$(dirname "$0")" && pwd) || exit 1
oracle=$here/../e2e/oracle.py

funcs= stdin=/dev/null cwd=. budget=2500 out= decode=cce-decode gdb=gdb
max_stops=200000
while test $# -gt 0; do
  case $1 in
    --funcs) funcs=$2; shift 2 ;;
    --stdin) stdin=$2; shift 2 ;;
    --cwd) cwd=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --max-stops) max_stops=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --decode) decode=$2; shift 2 ;;
    --gdb) gdb=$2; shift 2 ;;
    -h|--help) sed -n '2,40s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "validate.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
test $# -ge 2 || { echo "validate.sh: usage: validate.sh --funcs \"F...\" TRACED_BIN O0_BIN [ARG...]" >&2; exit 2; }
test -n "$funcs" || { echo "validate.sh: --funcs is required" >&2; exit 2; }
traced=$1 o0=$2
shift 2
command -v "$gdb" >/dev/null 2>&1 || { echo "validate.sh: SKIP: no $gdb"; exit 77; }
"$gdb" -q -nx -batch -ex 'python print("cce-py-ok")' 2>/dev/null \
  | grep -q cce-py-ok || { echo "validate.sh: SKIP: $gdb has no Python"; exit 77; }
if test -z "$out"; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/cce-validate.XXXXXX") || exit 1
fi
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
stdin=$(cd "$(dirname "$stdin")" && pwd)/$(basename "$stdin")

log () { printf '[%s] validate: %s\n' "$(date +%H:%M:%S)" "$*"; }

# 1. The traced run.
log "traced run of $(basename "$traced")"
rm -f "$out/trace.log"
t0=$(date +%s.%N)
# At most 2 GB of log (a traced function far hotter than expected must not
# fill the disk): the run is then killed by SIGXFSZ and reported.
(cd "$cwd" && ulimit -f 4194304 && CCE_LOG="$out/trace.log" "$traced" "$@" <"$stdin") \
  >"$out/traced.out" 2>&1
st=$?
echo "$t0 $(date +%s.%N)" | awk '{ printf "%.3f\n", $2 - $1 }' >"$out/traced.secs"
rm -f "$out/trace.log".*      # children's logs, if the run forked
test -s "$out/trace.log" || {
  echo "validate.sh: the traced run wrote no log (exit status $st)" >&2
  exit 1; }
test $st -ne $((128 + 25)) || {
  echo "validate.sh: the traced run's log reached 2 GB (SIGXFSZ): trace less hot functions" >&2
  exit 1; }
"$decode" --format=records "$traced" "$out/trace.log" >"$out/decoded.raw" \
  2>"$out/decode.err" || {
  echo "validate.sh: cce-decode failed: $(head -1 "$out/decode.err")" >&2
  exit 1; }
# A traced record's tag is its function's name as the records name it: a
# C++ function's is qualified (ns::Class::F, F<int>).  gdb's breakpoint
# on F stops in every function named F, and the oracle tags them all F:
# so does this.
awk -F '\t' -v OFS='\t' -v funcs="$funcs" '
  BEGIN { n = split (funcs, f, " ") }
  { t = $2
    for (i = 1; i <= n; i++) {
      F = f[i]; l = length (F)
      if (t == F || (length (t) > l + 2 && substr (t, length (t) - l - 1) == "::" F) ||
          index (t, F "<") == 1 || index (t, "::" F "<") > 0) { $2 = F; break }
    }
    print }' "$out/decoded.raw" >"$out/decoded"
rm -f "$out/decoded.raw"
rm -f "$out/trace.log"

# 2. Each function's entries, counted once ("F H" lines).  The functions
# whose entries gdb can afford to stop at (every entry is a stop, sampled
# or not): the hottest are left out until the others add up to at most
# --max-stops.  Then strides: the budget shared out, functions with few
# entries first (all their entries), the rest evenly among the others.
awk -F '\t' -v funcs="$funcs" '
  BEGIN { n = split (funcs, f, " "); for (i = 1; i <= n; i++) h[f[i]] = 0 }
  ($2 in h) { h[$2]++ }
  END { for (i = 1; i <= n; i++) print f[i], h[f[i]] }' "$out/decoded" \
  >"$out/entries"
kept=$(awk -v max="$max_stops" '
  { f[NR] = $1; h[NR] = $2; total += $2 }
  END { while (total > max) {
          m = -1; for (i = 1; i <= NR; i++) if (!(i in out) && h[i] > m) { m = h[i]; k = i }
          out[k] = 1; total -= m }
        for (i = 1; i <= NR; i++) if (!(i in out)) print f[i], h[i] }' \
  "$out/entries")
for fn_ in $funcs; do
  echo "$kept" | grep -q "^$fn_ " ||
    log "$fn_: too many entries for gdb, not compared"
done
test -n "$kept" || { echo "validate.sh: every function has too many entries (--max-stops $max_stops)" >&2; exit 1; }
funcs=$(echo "$kept" | awk '{ printf "%s ", $1 }')
hits=$(echo "$kept" | awk '{ c += $2 } END { print c + 0 }')
spec=$(echo "$kept" | awk -v budget="$budget" '
  { f[NR] = $1; h[NR] = $2; o[NR] = NR }
  END { n = NR
        for (i = 2; i <= n; i++)       # by entries, fewest first
          for (j = i; j > 1 && h[o[j]] < h[o[j-1]]; j--) {
            t = o[j]; o[j] = o[j-1]; o[j-1] = t }
        left = budget
        for (i = 1; i <= n; i++) {
          e = h[o[i]]; per = left / (n - i + 1)
          s = (e <= per) ? 1 : int ((e + per - 1) / per); if (s < 1) s = 1
          st[o[i]] = s; left -= int ((e + s - 1) / s) }
        for (i = 1; i <= n; i++) printf "%s:%d ", f[i], st[i] }')
log "$hits entries of traced functions; strides: $spec"

# 3. The entries to compare.
awk -F '\t' -v spec="$spec" '
  BEGIN { n = split (spec, a, " ")
          for (i = 1; i <= n; i++) { split (a[i], p, ":"); s[p[1]] = p[2] } }
  ($2 in s) { k = c[$2]++; if (k % s[$2] == 0) print }' "$out/decoded" \
  >"$out/sample"
ns=$(wc -l <"$out/sample")

# 4. The oracle, stopped one record after the sample's end: more records
# there are a mismatch too.
log "gdb on the -O0 build ($hits stops)"
# CCE_LOG as in the traced run, so that both see as many variables.
(cd "$cwd" && CCE_LOG="$out/o0.log" \
   CCE_ORACLE_TRACE="$spec" CCE_ORACLE_OUT="$out/oracle" \
   CCE_ORACLE_MAX=$((ns + 1)) \
   "$gdb" -q -batch -nx -x "$oracle" --args "$o0" "$@" <"$stdin") \
  >"$out/gdb.log" 2>&1 || {
  echo "validate.sh: the oracle failed:" >&2
  tail -n 5 "$out/gdb.log" >&2
  exit 1; }

# 5. Compare.
n=$(wc -l <"$out/oracle")
m=$(diff "$out/oracle" "$out/sample" | grep -c '^[<>]')
d=$(cut -f 2,3 "$out/oracle" | sort -u | wc -l)
test "$ns" -eq "$n" || echo "validate.sh: $n oracle records, $ns decoded" >&2
echo "$n $m $d" >"$out/validated"
echo "validated $n contexts ($d distinct paths), $m mismatches"
if test "$m" -ne 0; then
  diff "$out/oracle" "$out/sample" | head -n 10 | cut -c 1-300
  exit 1
fi
test "$n" -gt 0
