#!/usr/bin/env python3
# pcrecords.py -- print the records of a cce log raw, for the tests of
# records of interrupted instructions (crashrec.sh, sample.sh), which
# cce-decode does not place by itself.
#
#   pcrecords.py LOG [PROGRAM]
#
# One line per valid record, in file order:
#
#   THREAD<TAB>TAG<TAB>SITE<TAB>ID<TAB>NSTACK<TAB>WHERE
#
# THREAD, TAG, ID and NSTACK decimal, SITE the site word in hex (16
# digits).  WHERE, for a PC word (cce-format.h) whose key is the key of
# the log's stamp: the function of PROGRAM that holds its address, from
# "nm -n" (the symbol as nm spells it: clones keep their suffix), or "?"
# if no symbol does; for a PC word of a call out of the program
# (CCE_PC_CALLER) "caller:" and the function that holds the call;
# "external" for CCE_PC_EXTERNAL; "-" otherwise (a
# site word, or no PROGRAM).  A record without its mark (torn) is left
# out; the count of those goes to standard error when there are any.
#
# The reader follows cce-format.h, part 2: the header, then either
# records back to back (chunk size 0) or spans of chunks, each a struct
# cce_log_span and records until the span ends or a record's first word
# is 0; a chunk that starts with 0 is not used.

import struct
import subprocess
import sys

SPAN_MARK = 0x53454343
RECORD_MARK = 0x52454343
PC_FLAG = 0x80000000
PC_CALLER = 0x40000000
PC_EXTERNAL = 0xfffffffffffffffb


def module_key(stamp):
    k = stamp & 0xffffffff
    if k == 0 or k == 0xffffffff:
        k = (stamp >> 32) | 1
    if k == 0xffffffff:
        k = 0x7fffffff
    return k


def symbols(program):
    """Sorted (address, name) of the text symbols of PROGRAM."""
    out = subprocess.run(["nm", "-n", "--defined-only", program],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwWiI":
            syms.append((int(f[0], 16), f[2]))
    return syms


def where(syms, addr):
    lo, hi = 0, len(syms)
    while lo < hi:
        mid = (lo + hi) // 2
        if syms[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    return syms[lo - 1][1] if lo > 0 else "?"


def records(data):
    """Yield (thread, tag, site, id, frames) of each valid record; count
    the torn ones in records.torn."""
    magic, version, header_size, stamp, pid, nmod, chunk = \
        struct.unpack_from("=8sIIQQII", data, 0)
    if magic != b"CCE-LOG\0":
        sys.exit("pcrecords.py: not a cce log")
    records.stamp = stamp
    records.torn = 0

    def one(off):
        mark, tag, site, ident, nstack, thread = \
            struct.unpack_from("=IIQQII", data, off)
        frames = [struct.unpack_from("=QQ", data, off + 32 + 16 * i)
                  for i in range(nstack)]
        return mark, (thread, tag, site, ident, frames), 32 + 16 * nstack

    off = header_size
    if chunk == 0:
        while off + 32 <= len(data):
            mark, rec, size = one(off)
            yield rec
            off += size
        return
    while off + chunk <= len(data):
        (first,) = struct.unpack_from("=I", data, off)
        if first != SPAN_MARK:
            off += chunk            # not used
            continue
        _, _, nchunks, _ = struct.unpack_from("=IIII", data, off)
        end = off + nchunks * chunk
        p = off + 16
        while p + 32 <= end:
            mark, rec, size = one(p)
            if mark != RECORD_MARK:
                if any(data[p:min(end, p + size)]):
                    records.torn += 1
                break
            yield rec
            p += size
        off = end


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: pcrecords.py LOG [PROGRAM]")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    syms = symbols(sys.argv[2]) if len(sys.argv) == 3 else None
    recs = list(records(data))
    key = module_key(records.stamp)
    for thread, tag, site, ident, frames in recs:
        w = "-"
        if site == PC_EXTERNAL:
            w = "external"
        elif syms is not None and site >> 32 == key and site & PC_FLAG:
            if site & PC_CALLER:
                # The return address of a call out of the program: the
                # call is the instruction before it.
                w = "caller:" + where(syms, (site & 0x3fffffff) - 1)
            else:
                w = where(syms, site & 0x3fffffff)
        print("%d\t%d\t%016x\t%d\t%d\t%s" % (thread, tag, site, ident,
                                             len(frames), w))
    if records.torn:
        print("pcrecords.py: %d torn records" % records.torn,
              file=sys.stderr)


if __name__ == "__main__":
    main()
