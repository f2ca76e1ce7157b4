# crashcheck.awk -- check the decoded records of a program of crashlog.h
# against what it logged and against the oracle's paths.
#
#   awk -f crashcheck.awk -v mode=MODE -v nclass=16 -v details=FILE \
#       EXPECTED COUNTS DECODED
#
# EXPECTED: CLASS<TAB>PATH, the oracle's path of each class (crash.sh's
# crash_expected).  COUNTS: THREAD_INDEX<TAB>COUNT, how many records each
# thread logged (crash_counts).  DECODED: the output of
# "cce-decode --format=records": THREAD<TAB>TAG<TAB>PATH, the tag being
# THREAD_INDEX << 20 | SEQ.
#
# MODE says which records of thread I must be there, with C its count:
#   exact    SEQ 0 .. C-1, each once, and nothing else;
#   extra1   SEQ 0 .. C-1, each once, and perhaps SEQ C (a record whose
#            cce_log returned just before the process died, its count not
#            yet stored);
#   prefix   SEQ 0 .. K-1 for some K <= C, each once (the records that
#            fit in the file).
# Every record's PATH must be the path of its class, SEQ % NCLASS; the
# records of a thread must come in the order it made them (cce.h); all the
# records of one thread index must carry one thread number, and two thread
# indexes never the same one.
#
# Prints one line of shell assignments:
#   logged= decoded= lost= extra= dup= wrong= beyond= holes= disorder=
#   badthread=
# logged: the sum of the counts; decoded: records read; lost: records in
# the counts that are not there (for prefix: the count minus K, not an
# error); extra: records SEQ == C allowed in extra1; dup: records there
# more than once; wrong: records whose path is not their class's; beyond:
# records no count accounts for (unknown thread index, SEQ > C, SEQ == C
# outside extra1); holes: for prefix, records missing below the thread's
# last one; disorder: records that come after a later record of their
# thread; badthread: records whose thread number is not their thread
# index's, or is another index's.  The first problems, one line each, go to DETAILS.

BEGIN { FS = "\t"; nd = 0 }

function detail(msg) {
  if (nd++ < 12)
    print msg > details
}

FILENAME == ARGV[1] { expect[$1] = $2; next }

FILENAME == ARGV[2] { count[$1] = $2; logged += $2; next }

{
  decoded++
  tag = $2 + 0
  t = int(tag / 1048576)
  seq = tag % 1048576
  key = t SUBSEP seq
  if (!(t in count)) {
    beyond++
    detail("record of unknown thread index " t ": " $0)
    next
  }
  if (key in seen) {
    dup++
    detail("duplicate record: thread index " t " seq " seq)
    next
  }
  seen[key] = 1
  c = seq % nclass
  if (!(c in expect) || $3 != expect[c]) {
    wrong++
    detail("wrong path: thread index " t " seq " seq " class " c \
           ": got " $3 "; expected " expect[c])
  }
  if (seq >= count[t]) {
    if (mode == "extra1" && seq == count[t])
      extra++
    else {
      beyond++
      detail("record beyond the count: thread index " t " seq " seq \
             " count " count[t])
    }
  }
  if (!(t in number)) {
    number[t] = $1
    if ($1 in owner) {
      badthread++
      detail("thread number " $1 " used by thread indexes " owner[$1] \
             " and " t)
    }
    owner[$1] = t
  } else if (number[t] != $1) {
    badthread++
    detail("thread index " t " has thread numbers " number[t] " and " $1)
  }
  if ((t in top) && seq < top[t]) {
    disorder++
    detail("out of order: thread index " t " seq " seq " after seq " top[t] - 1)
  }
  if (!(t in top) || seq + 1 > top[t])
    top[t] = seq + 1
}

END {
  for (t in count) {
    n = count[t] + 0
    if (mode == "prefix") {
      k = (t in top) ? top[t] : 0
      if (k > n) k = n
      for (s = 0; s < k; s++)
        if (!((t SUBSEP s) in seen)) {
          holes++
          detail("hole: thread index " t " seq " s " missing below " k)
        }
      lost += n - k
    } else {
      for (s = 0; s < n; s++)
        if (!((t SUBSEP s) in seen)) {
          if (lost++ < 3)
            detail("lost: thread index " t " seq " s " (count " n ")")
        }
    }
  }
  printf "logged=%d decoded=%d lost=%d extra=%d dup=%d wrong=%d beyond=%d holes=%d disorder=%d badthread=%d\n", \
    logged, decoded, lost, extra, dup, wrong, beyond, holes, disorder, badthread
}
