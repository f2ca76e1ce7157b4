#!/usr/bin/env python3
# heapcmp.py -- compare the heap profile cce-decode gives (its records
# format) with the oracle's (heaporacle.py), for e2e/heap.sh.
#
#   heapcmp.py ORACLE RECORDS
#
# Per context (path, whatever the thread): the allocations and their
# bytes, and the blocks and bytes live at the exit (allocations less
# frees), must be the same.  A path the decoder could not complete, or
# the oracle's empty path (no frame of the program: the C library's own
# allocations at start and exit) do not count.  The blocks of
# pthread_create (the new thread's TLS vector, whose size is that of the
# program's TLS modules, and cce adds one) are compared by count only.
# getline, inline at -O2, has the frame of the function it calls
# (__getdelim) after its own; at -O0 it has none.  Prints the
# differences; exit status 1 if any.

import sys


def norm(path):
    return path.replace("getline;__getdelim", "getline")


def read_oracle(name):
    alloc, inuse = {}, {}
    for line in open(name):
        kind, path, n, b = line.rstrip("\n").split("\t")
        if not path:
            continue
        (alloc if kind == "alloc" else inuse)[path] = [int(n), int(b)]
    return alloc, inuse


def read_records(name):
    sums = {"alloc": {}, "free": {}, "peak": {}}
    for line in open(name):
        f = line.rstrip("\n").split("\t")
        tag, path = f[1], norm(f[2])
        if tag not in sums or path.startswith("[incomplete]"):
            continue
        n, v = 1, 0
        for x in f[3:]:
            if x.startswith("count="):
                n = int(x[6:])
            elif x.startswith("value="):
                v = int(x[6:])
        s = sums[tag].setdefault(path, [0, 0])
        s[0] += n
        s[1] += v
    inuse = {}
    for path, (n, v) in sums["alloc"].items():
        fn, fv = sums["free"].get(path, [0, 0])
        if n - fn or v - fv:
            inuse[path] = [n - fn, v - fv]
    return sums["alloc"], inuse, sums["peak"]


def main():
    oalloc, oinuse = read_oracle(sys.argv[1])
    calloc, cinuse, _ = read_records(sys.argv[2])
    bad = 0
    for what, o, c in (("allocations", oalloc, calloc),
                       ("live at exit", oinuse, cinuse)):
        for path in sorted(set(o) | set(c)):
            ov, cv = o.get(path, [0, 0]), c.get(path, [0, 0])
            if path.endswith(";pthread_create"):
                ov, cv = ov[:1], cv[:1]
            if ov != cv:
                print("%s of %s: gdb %s, cce %s" % (what, path, ov, cv))
                bad = 1
    print("heapcmp: %d contexts, %d with blocks live at exit"
          % (len(oalloc), len(oinuse)))
    sys.exit(bad)


if __name__ == "__main__":
    main()
