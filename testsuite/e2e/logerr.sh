#!/bin/sh
# logerr.sh -- a log that cannot be written changes nothing in the
# program but one line on standard error.
#
# logerr.c (4 threads logging, a line of output before and after, exit
# status 3) is run with CCE_LOG naming
#   - a file in a directory that does not exist (ENOENT),
#   - a file under a regular file (ENOTDIR),
#   - a directory (EISDIR),
#   - a file in a read-only directory: a directory of mode 0555, or, for
#     root, whom modes do not stop, a read-only tmpfs mounted for the test
#     (EROFS); skipped if neither can be had,
#   - /dev/full, every write of which fails with ENOSPC;
# and each time its standard output and exit status must be those of a run
# with a log that can be written (whose records must all decode), and its
# standard error exactly one line, which names the log.  A case that
# cannot be set up says SKIP, and the test as a whole is then skipped
# (exit 77) unless another case failed.
#
# Knobs: E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb logerr
e2e_tmpdir logerr || exit 1

src=$here/logerr.c
nthreads=4 n=2000
t_start=$(date +%s)

# Unmount the read-only tmpfs, if any, before the directory goes.
crash_trap_umount

crash_logerr_build logerr

# The reference: a log that can be written.
crash_logerr_run ok "$tmp/ok/log"
ref_st=$st
"$CCE_DECODE" --format=records "$exe" "$tmp/ok/log" >"$tmp/ok/decoded" 2>&1
crash_counts "$tmp/ok/counts" $nthreads >"$tmp/ok/counts.txt"
crash_check exact "$tmp/ok/counts.txt" "$tmp/ok/decoded" || exit 1
if [ "$ref_st" -ne 3 ] || [ -s "$tmp/ok/err" ] ||
   [ "$logged" -ne $((nthreads * n)) ] || [ "$decoded" -ne "$logged" ] ||
   [ "$wrong" -ne 0 ]; then
  cat "$tmp/ok/err" "$tmp/details"
  echo "ERROR: logerr: the run with a good log: exit status $ref_st, $decoded of $logged records decoded, $wrong wrong"
  exit 1
fi
echo "reference: exit status $ref_st, $(wc -l <"$tmp/ok/out") lines of output, $decoded records decoded"

failed=0 passed=0 skipped=0

# check NAME LOG WHAT: run with CCE_LOG=LOG and compare with the reference.
check () {
  crash_logerr_run "$1" "$2"
  why=
  [ "$st" -eq "$ref_st" ] || why="exit status $st, not $ref_st"
  cmp -s "$tmp/ok/out" "$tmp/$1/out" || why="${why:+$why; }standard output differs"
  lines=$(wc -l <"$tmp/$1/err")
  if [ "$lines" -ne 1 ]; then
    why="${why:+$why; }$lines lines on standard error, not 1"
  elif ! grep -F -q -e "$2" "$tmp/$1/err"; then
    why="${why:+$why; }standard error does not name $2"
  fi
  if [ -z "$why" ]; then
    echo "PASS: logerr $1 ($3): $(cat "$tmp/$1/err")"
    passed=$((passed + 1))
  else
    echo "FAIL: logerr $1 ($3): $why"
    head -n 5 "$tmp/$1/err" | sed 's/^/    stderr: /'
    diff "$tmp/ok/out" "$tmp/$1/out" | head -n 5 | sed 's/^/    stdout: /'
    failed=$((failed + 1))
  fi
}

check missing "$tmp/no/such/dir/log" "no such directory"

: >"$tmp/afile"
check notdir "$tmp/afile/log" "a regular file as the directory"

mkdir "$tmp/adir"
check isdir "$tmp/adir" "the log is a directory"

mkdir "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  chmod 0555 "$tmp/ro"
  check readonly "$tmp/ro/log" "a directory of mode 0555"
  chmod 0755 "$tmp/ro"
elif mount -t tmpfs -o ro,size=64k none "$tmp/ro" 2>"$tmp/mount.err"; then
  crash_mounted=$tmp/ro
  check readonly "$tmp/ro/log" "a read-only tmpfs"
  umount "$tmp/ro" && crash_mounted=
else
  echo "SKIP: logerr readonly: root, and no read-only tmpfs: $(cat "$tmp/mount.err")"
  skipped=$((skipped + 1))
fi

if [ -c /dev/full ]; then
  check devfull /dev/full "every write fails with ENOSPC"
else
  echo "SKIP: logerr devfull: no /dev/full"
  skipped=$((skipped + 1))
fi

echo "== logerr: $passed passed, $failed failed, $skipped skipped ($(($(date +%s) - t_start))s)"
[ "$failed" -eq 0 ] || exit 1
[ "$skipped" -eq 0 ] || exit 77
exit 0
