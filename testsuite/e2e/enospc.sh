#!/bin/sh
# enospc.sh -- a log that fills its file system: the program runs on
# unharmed, says so in one line, and the records that fit decode.
#
# A tmpfs of 256 KiB is mounted for the test (root only; the test is
# skipped if it cannot be mounted, and says why), and logerr.c (4 threads
# logging 20000 records each, some megabytes of log; a line of output
# before and after, exit status 3) is run with its log there.  Its standard
# output and exit status must be those of a run with a log that can be
# written, and its standard error exactly one line, which names the log.
# The log must decode (cce-decode exit status 0) to records that are, for
# each thread, its first K records (K up to what it logged) in order, each
# exactly once and with the path gdb saw for its class (oracle.py on an -O0 build
# without cce); and at least MIN (1000) records must have fit.
#
# Knobs: E2E_KEEP, E2E_TMPDIR.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
. "$here/crash.sh"
crash_need_gdb enospc
e2e_tmpdir enospc || exit 1

src=$here/logerr.c
nthreads=4 n=20000 min=1000
t_start=$(date +%s)

crash_trap_umount

mkdir "$tmp/full" || exit 1
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: enospc: not root, cannot mount a small tmpfs"
  exit 77
fi
if ! mount -t tmpfs -o size=256k none "$tmp/full" 2>"$tmp/mount.err"; then
  echo "SKIP: enospc: cannot mount a tmpfs: $(cat "$tmp/mount.err")"
  exit 77
fi
crash_mounted=$tmp/full

crash_logerr_build enospc

# The reference, with a log that can be written.
crash_logerr_run ok "$tmp/ok/log"
ref_st=$st
if [ "$ref_st" -ne 3 ] || [ -s "$tmp/ok/err" ]; then
  cat "$tmp/ok/err"
  echo "ERROR: enospc: the run with a good log: exit status $ref_st"
  exit 1
fi
ref_bytes=$(wc -c <"$tmp/ok/log")

log=$tmp/full/log
r=$tmp/run
crash_logerr_run run "$log"
why=
[ "$st" -eq "$ref_st" ] || why="exit status $st ($(crash_end $st)), not $ref_st"
cmp -s "$tmp/ok/out" "$r/out" || why="${why:+$why; }standard output differs"
lines=$(wc -l <"$r/err")
if [ "$lines" -ne 1 ]; then
  why="${why:+$why; }$lines lines on standard error, not 1"
elif ! grep -F -q -e "$log" "$r/err"; then
  why="${why:+$why; }standard error does not name $log"
fi
bytes=0 dst=none
logged=0 decoded=0 lost=0 dup=0 wrong=0 beyond=0 holes=0 disorder=0 badthread=0
: >"$tmp/details"
crash_counts "$r/counts" $nthreads >"$r/counts.txt"
if [ -f "$log" ]; then
  bytes=$(wc -c <"$log")
  "$CCE_DECODE" --format=records "$exe" "$log" >"$r/decoded" \
    2>"$r/decode.err"
  dst=$?
  crash_check prefix "$r/counts.txt" "$r/decoded" || exit 1
else
  why="${why:+$why; }no log file"
fi
[ "$dst" = 0 ] || [ ! -f "$log" ] ||
  why="${why:+$why; }cce-decode exit status $dst: $(head -n 1 "$r/decode.err")"
[ "$logged" -eq $((nthreads * n)) ] ||
  why="${why:+$why; }the program logged $logged records, not $((nthreads * n))"
if [ "$dup" -ne 0 ] || [ "$wrong" -ne 0 ] || [ "$beyond" -ne 0 ] ||
   [ "$holes" -ne 0 ] || [ "$disorder" -ne 0 ] || [ "$badthread" -ne 0 ]; then
  why="${why:+$why; }duplicated $dup, wrong path $wrong, unaccounted $beyond, holes $holes, out of order $disorder, thread numbers $badthread"
fi
[ "$decoded" -ge "$min" ] || why="${why:+$why; }only $decoded records decoded (at least $min must fit)"

echo "enospc: logged $logged records ($ref_bytes bytes of log with room);" \
  "a 256 KiB tmpfs took $bytes bytes, $decoded records decoded"
[ ! -s "$r/err" ] || sed 's/^/  program stderr: /' "$r/err"
[ ! -s "$r/decode.err" ] || head -n 3 "$r/decode.err" | sed 's/^/  cce-decode: /'
if [ -n "$why" ]; then
  echo "FAIL: enospc: $why"
  sed 's/^/    /' "$tmp/details"
  exit 1
fi
echo "PASS: enospc: the program ran on, one line on stderr, $decoded records decoded ($(($(date +%s) - t_start))s)"
