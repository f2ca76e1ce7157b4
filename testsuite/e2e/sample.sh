#!/bin/sh
# sample.sh -- the CPU-time sampler (cce(3), CCE_SAMPLE).  sample.c,
# built with cce at -O2, spins on T threads for MS ms of CPU time each;
# its log is read raw (pcrecords.py: cce-decode does not place the PC
# words of sample records).
#
#   1. CCE_SAMPLE=1000, T = 1 and T = 4, 500 ms each: every thread has a
#      number of sample records (tag CCE_TAG_SAMPLE) within a band of its
#      CPU time (which it prints) times HZ: from half that less 8 to 1.1
#      times that plus 8.  The kernel checks CPU-time timers at its
#      scheduler tick (CONFIG_HZ, 4 ms at 250 Hz), when the thread is the
#      one running: a signal comes late and stands for the periods since
#      the last one (the timer's overrun), for which libcce logs a record
#      each, so the count is that of the periods that ended by the
#      thread's last check.  On an idle machine that is a few periods
#      short at most (the count is 490 to 500 for 500 ms); on a loaded
#      one, where a thread runs in slices shorter than a tick, checks are
#      rarer and more of the end is lost (60% of the count has been seen
#      with both CPUs busy).  The band leaves room for that, and a run
#      out of it is made once more before it fails; it fails for a
#      sampler that logs at the wrong rate by half or more, or gives no
#      thread its own timer (every tick on one thread).  Every sample's site must
#      be a PC word of the program's key in a function of the program
#      (nm -n) or CCE_PC_EXTERNAL (the C library's clock_gettime), and the
#      kernel must have a handler for SIGPROF (SigCgt).
#   2. No CCE_SAMPLE: no sample record, and SIGPROF is left alone (no
#      handler at the kernel, sigaction gives SIG_DFL).
#   3. A program that profiles itself with setitimer (ITIMER_PROF, 10 ms)
#      and a SIGPROF handler of its own, with CCE_SAMPLE=1000: its handler
#      gets its signals and none of libcce's ticks (a count from 0.3 to
#      1.5 times, plus 5, its CPU time / 10 ms: the kernel's process
#      timer falls behind on a loaded machine as the threads' do, and
#      never catches up by more than one signal per check), sigaction
#      gives its handler back, and the thread still has its sample records
#      (the band of 1).
#   4. CCE_SAMPLE=abc: one line on standard error that names CCE_SAMPLE,
#      the program runs as without it (exit 0, the same lines but the CPU
#      times), and no sample record.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: sample: no python3"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: sample: no nm"; exit 77; }
e2e_tmpdir sample || exit 1

exe=$tmp/sample
if ! cce_cc -O2 "$here/sample.c" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: sample: compilation failed"; exit 1
fi

tag_sample=4292870400
failed=0 passed=0

# go NAME ENV ARGS...: run the program in $tmp/NAME with the environment
# assignments ENV (a string for env) and CCE_LOG=$tmp/NAME/log; its
# records in $tmp/NAME/records; set st.
go () {
  name=$1 envs=$2; shift 2
  d=$tmp/$name
  mkdir -p "$d" || exit 1
  env $envs CCE_LOG="$d/log" "$exe" "$@" >"$d/out" 2>"$d/err"
  st=$?
  if [ -f "$d/log" ]; then
    python3 "$here/pcrecords.py" "$d/log" "$exe" >"$d/records"
  else
    : >"$d/records"
  fi
}

# check_samples NAME T HZ: the band of 1 for each of the T threads of the
# run NAME, and the sites; prints "ok" or what is wrong.
check_samples () {
  awk -F '\t' -v t="$2" -v hz="$3" -v s="$tag_sample" '
    FILENAME ~ /out$/ { if ($0 ~ /^cpu /) { split($0, f, " "); cpu[f[2]] = f[3] }
                        if ($0 == "sigprof caught") caught = 1
                        next }
    $2 >= 100 && $2 < 100 + t { idx[$1] = $2 - 100; next }
    $2 == s { n[$1]++
              if ($6 == "?" || $6 == "-") { bad++; badw = $3 " " $6 } }
    END {
      if (bad) { print bad " samples outside the program and not external (" badw ")"; exit }
      if (!caught) { print "SIGPROF has no handler at the kernel"; exit }
      for (th in idx) { i = idx[th]; got[i] = n[th] + 0; seen[i] = 1 }
      for (i = 0; i < t; i++) {
        if (!(i in seen)) { print "no record of thread " i; exit }
        e = cpu[i] / 1e9 * hz
        lo = 0.5 * e - 8; hi = 1.1 * e + 8
        line = line sprintf(" %d:%d/%.0f", i, got[i], e)
        if (got[i] < lo || got[i] > hi) {
          printf "thread %d: %d samples for %.3f s of CPU at %d Hz (band %.0f-%.0f)\n", i, got[i], cpu[i] / 1e9, hz, lo, hi
          exit
        }
      }
      print "ok" line
    }' "$tmp/$1/out" "$tmp/$1/records"
}

result () {
  if [ -z "$why" ]; then
    echo "PASS: sample $1${2:+: $2}"; passed=$((passed + 1))
  else
    echo "FAIL: sample $1: $why"; failed=$((failed + 1))
    head -n 5 "$d/err" | sed 's/^/    stderr: /'
  fi
}

# 1.
for t in 1 4; do
  go "t$t" CCE_SAMPLE=1000 "$t" 500
  r=$(check_samples "t$t" "$t" 1000)
  case $r in
    ok*) ;;
    *) echo "sample: $t threads, once more after: $r"
       go "t$t" CCE_SAMPLE=1000 "$t" 500
       r=$(check_samples "t$t" "$t" 1000) ;;
  esac
  why=
  [ $st -eq 0 ] || why="exit status $st"
  case $r in ok*) ;; *) why="${why:+$why; }$r" ;; esac
  [ -s "$d/err" ] && why="${why:+$why; }wrote to stderr"
  result "CCE_SAMPLE=1000, $t threads" "samples/expected per thread${r#ok}"
done

# 2.
go off "" 1 200
why=
[ $st -eq 0 ] || why="exit status $st"
n=$(awk -F '\t' -v s="$tag_sample" '$2 == s' "$d/records" | wc -l)
[ "$n" -eq 0 ] || why="${why:+$why; }$n sample records"
grep -qx "sigprof default" "$d/out" || why="${why:+$why; }SIGPROF has a handler at the kernel"
grep -qx "action mine" "$d/out" || why="${why:+$why; }sigaction does not give SIG_DFL for SIGPROF"
result "without CCE_SAMPLE"

# 3.
go prof0 "" 1 500 prof
p0=$(awk '$1 == "prof" { print $2 }' "$d/out")
prof_check () {
  go prof CCE_SAMPLE=1000 1 500 prof
  p1=$(awk '$1 == "prof" { print $2 }' "$d/out")
  e=$(awk '$1 == "cpu" { printf "%d", $3 / 1e7 }' "$d/out")
  why=
  [ $st -eq 0 ] || why="exit status $st"
  if [ -z "$p1" ] || [ -z "$e" ] || [ $((10 * p1)) -lt $((3 * e)) ] ||
     [ $((2 * p1)) -gt $((3 * e + 10)) ]; then
    why="${why:+$why; }the program's handler counted '$p1' for $e periods of 10 ms"
  fi
  grep -qx "action mine" "$d/out" || why="${why:+$why; }sigaction does not give back the program's SIGPROF handler"
  r=$(check_samples prof 1 1000)
  case $r in ok*) ;; *) why="${why:+$why; }$r" ;; esac
}
prof_check
if [ -n "$why" ]; then
  echo "sample: the program's own profiling, once more after: $why"
  prof_check
fi
result "with the program's own setitimer (ITIMER_PROF)" "its handler counted $p1 for $e periods of its CPU time (without CCE_SAMPLE $p0); samples/expected${r#ok}"

# 4.
go garbage CCE_SAMPLE=abc 1 100
why=
[ $st -eq 0 ] || why="exit status $st"
[ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "CCE_SAMPLE" "$d/err" \
  || why="${why:+$why; }not one line that names CCE_SAMPLE on stderr"
n=$(awk -F '\t' -v s="$tag_sample" '$2 == s' "$d/records" | wc -l)
[ "$n" -eq 0 ] || why="${why:+$why; }$n sample records"
grep -v '^cpu ' "$d/out" >"$d/out.nocpu"
grep -v '^cpu ' "$tmp/off/out" | cmp -s - "$d/out.nocpu" \
  || why="${why:+$why; }its output differs from a run without CCE_SAMPLE"
result "CCE_SAMPLE=abc" "$(cat "$d/err")"

echo "== sample: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
