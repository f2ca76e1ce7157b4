#!/bin/sh
# crashrec.sh -- the record of a thread that dies of a signal (cce(3),
# CCE_CRASH).  crashrec.c, built with cce at -O2, dies in each way below;
# its log is read raw (pcrecords.py: cce-decode does not place the PC
# words of these records) and must hold exactly one crash record, of tag
# CCE_TAG_SIGNAL + the signal's number, on the thread that died (the
# thread of the record the program made there first: tag 1 on the main
# thread, tag 2 on the second), whose site is the PC word of an address
# in the function that faulted (nm -n of the program), or where that is
# the C library (abort) the PC word of the call from the program that led
# there (CCE_PC_CALLER: the call is in the function that called abort).  A thread made through
# pthread_create carries its thread entry on the ccStack: at least one.
#
# Each way runs twice, with core dumps allowed (ulimit -c unlimited, in a
# directory of its own): as is, and with CCE_CRASH=0, which must give no
# crash record.  How the process ended, as its parent sees it
# (waitstatus.py: exit status, or signal and core dump flag), and what it
# printed must be the same in both runs.
#
#   way              signal  thread  function
#   segv             SEGV    main    store_through (a null pointer, called
#                                    through a function pointer at the end
#                                    of a call chain)
#   fpe              FPE     main    divide (integer division by zero)
#   abort            ABRT    main    caller:recurse_abort (abort at the
#                                    bottom of a recursion 2000 deep: the
#                                    call of abort)
#   overflow         SEGV    main    recurse_forever (stack exhausted)
#   overflow-thread  SEGV    second  recurse_forever (stack exhausted)
#   qsort            SEGV    second  compare_faulting (a qsort comparator)
#   handler          SEGV    main    store_through, under a handler of the
#                                    program that leaves by siglongjmp: it
#                                    runs ("handler ran"), the program
#                                    logs tag 3 and exits 0
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: crashrec: no python3"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: crashrec: no nm"; exit 77; }
e2e_tmpdir crashrec || exit 1

exe=$tmp/crashrec
if ! cce_cc -O2 "$here/crashrec.c" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: crashrec: compilation failed"; exit 1
fi

# The tags of crash records: CCE_TAG_SIGNAL (cce-format.h) + the signal.
tag_signal=4292870144
signo () { python3 -c "import signal; print(int(signal.SIG$1))"; }

failed=0 passed=0

# run WAY SIG THREAD_TAG FUNCTION STATUS
run () {
  way=$1 sig=$2 ttag=$3 fn=$4 want=$5
  d=$tmp/$way
  mkdir -p "$d/on" "$d/off" || exit 1
  (cd "$d/on" && ulimit -c unlimited 2>/dev/null;
   CCE_LOG=$d/on/log python3 "$here/waitstatus.py" "$exe" "$way") \
    >"$d/on/out" 2>"$d/on/err"
  (cd "$d/off" && ulimit -c unlimited 2>/dev/null;
   CCE_CRASH=0 CCE_LOG=$d/off/log python3 "$here/waitstatus.py" "$exe" "$way") \
    >"$d/off/out" 2>"$d/off/err"
  rm -f "$d"/on/core* "$d"/off/core*
  ended=$(tail -n 1 "$d/on/out") ended0=$(tail -n 1 "$d/off/out")
  why=
  [ "$ended" = "$ended0" ] \
    || why="ended with '$ended', with CCE_CRASH=0 '$ended0'"
  case $ended in
    "$want"|"$want core") ;;
    *) why="${why:+$why; }ended with '$ended', not '$want'" ;;
  esac
  cmp -s "$d/on/out" "$d/off/out" \
    || why="${why:+$why; }its output differs from CCE_CRASH=0's"
  for v in on off; do
    if [ -f "$d/$v/log" ]; then
      python3 "$here/pcrecords.py" "$d/$v/log" "$exe" >"$d/$v/records" \
        || why="${why:+$why; }pcrecords.py failed ($v)"
    else
      : >"$d/$v/records"
    fi
  done
  n0=$(awk -F '\t' -v s="$tag_signal" '$2 >= s' "$d/off/records" | wc -l)
  [ "$n0" -eq 0 ] || why="${why:+$why; }$n0 crash records with CCE_CRASH=0"
  tag=$((tag_signal + $(signo "$sig")))
  r=$(awk -F '\t' -v s="$tag_signal" -v tag="$tag" -v ttag="$ttag" \
        -v fn="$fn" '
    $2 == ttag && !(ttag in thread) { thread[ttag] = $1 }
    $2 >= s { n++; t = $2; th = $1; w = $6; ns = $5 }
    END {
      if (n != 1) { print n + 0 " crash records, not 1"; exit }
      if (t != tag) { print "tag " t ", not " tag; exit }
      if (!(ttag in thread)) { print "no record of tag " ttag; exit }
      if (th != thread[ttag]) {
        print "on thread " th ", not " thread[ttag] " (tag " ttag ")"; exit
      }
      sub(/\..*/, "", w)
      if (w != fn) { print "at " w ", not " fn; exit }
      if (ttag == 2 && ns < 1) { print "no thread entry on the ccStack"; exit }
      print "ok"
    }' "$d/on/records")
  [ "$r" = ok ] || why="${why:+$why; }$r"
  if [ "$way" = handler ]; then
    grep -qx "handler ran" "$d/on/out" \
      || why="${why:+$why; }the program's handler did not run"
    awk -F '\t' '$2 == 3 { found = 1 } END { exit !found }' "$d/on/records" \
      || why="${why:+$why; }no record after the handler"
  fi
  if [ -z "$why" ]; then
    echo "PASS: crashrec $way: $ended, one record of SIG$sig at $fn"
    passed=$((passed + 1))
  else
    echo "FAIL: crashrec $way: $why"
    sed 's/^/    record: /' "$d/on/records"
    head -n 5 "$d/on/err" | sed 's/^/    stderr: /'
    failed=$((failed + 1))
  fi
}

run segv SEGV 1 store_through "signal SIGSEGV"
run fpe FPE 1 divide "signal SIGFPE"
run abort ABRT 1 caller:recurse_abort "signal SIGABRT"
run overflow SEGV 1 recurse_forever "signal SIGSEGV"
run overflow-thread SEGV 2 recurse_forever "signal SIGSEGV"
run qsort SEGV 2 compare_faulting "signal SIGSEGV"
run handler SEGV 1 store_through "status 0"

echo "== crashrec: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
