#!/usr/bin/env python3
"""pcmap.py -- read the PC map (section cce_pcmap, cce-format.h) of an ELF
file, for the tests.

  pcmap.py EXE dump           every range: address, length, state, frames
  pcmap.py EXE states < ADDRS the state at each link-time address (one hex
                              address per line), one per line
  pcmap.py EXE summary        ranges and bytes per state
"""
import bisect
import os
import struct
import subprocess
import sys
import tempfile

STATES = ["OWN", "CALLEE", "PUSHING", "PUSHED", "POPPING", "UNKNOWN"]
MARK = 0x50454343


def read_ranges(exe):
    with tempfile.TemporaryDirectory() as d:
        sec = os.path.join(d, "pcmap")
        subprocess.run(["objcopy", "--dump-section", "cce_pcmap=" + sec,
                        exe, os.path.join(d, "copy")], check=True,
                       stderr=subprocess.DEVNULL)
        data = open(sec, "rb").read()
    ranges = []
    off = 0
    while off < len(data):
        mark, _ver, flags, size, _key, node, n = struct.unpack_from(
            "<IHHIIII", data, off)
        if mark != MARK or size < 24 or off + size > len(data):
            raise SystemExit("pcmap.py: %s: bad block at %d" % (exe, off))
        for i in range(n):
            start, length, state, callee, loc = struct.unpack_from(
                "<QIIII", data, off + 24 + 24 * i)
            text = ""
            if loc:
                end = data.index(b"\0", off + loc)
                text = data[off + loc:end].decode("utf-8", "replace")
            ranges.append((start, length, state, callee, node, flags, text))
        off += size
    ranges.sort()
    return ranges


def main():
    exe, cmd = sys.argv[1], sys.argv[2]
    ranges = read_ranges(exe)
    if cmd == "dump":
        for start, length, state, callee, node, flags, text in ranges:
            frames = " > ".join("%s:%s" % (f.split("\t")[0], f.split("\t")[2])
                                for f in text.split("\n")) if text else "-"
            st = STATES[state] + ("(%d)" % callee if state == 1 else "")
            print("%#x+%d node=%s %s %s" % (start, length,
                                            node if node != 0xffffffff
                                            else "-", st, frames))
    elif cmd == "states":
        starts = [r[0] for r in ranges]
        for line in sys.stdin:
            addr = int(line, 16)
            i = bisect.bisect_right(starts, addr) - 1
            if i >= 0 and addr < ranges[i][0] + ranges[i][1]:
                print(STATES[ranges[i][2]])
            else:
                print("NONE")
    elif cmd == "summary":
        count = {}
        for r in ranges:
            c = count.setdefault(STATES[r[2]], [0, 0])
            c[0] += 1
            c[1] += r[1]
        for k in STATES:
            if k in count:
                print("%-8s %6d ranges %8d bytes" % (k, count[k][0],
                                                     count[k][1]))
    else:
        raise SystemExit(__doc__)


main()
