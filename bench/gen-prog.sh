#!/bin/sh
# gen-prog.sh N T DIR -- write a generated C program of N functions in T
# translation units (DIR/gen.h, DIR/g0.c .. DIR/g{T-1}.c, DIR/gmain.c), for
# measuring build time and code size on something bigger than the
# hand-written benchmarks.  Deterministic (its own LCG, not awk's rand).
# Function i does some arithmetic and calls two or three functions of
# higher index directly (a DAG with very many paths, so the plugin has to
# cut edges to stay within 64 bits), one in eight calls through a table of
# function pointers, one in sixteen calls itself, and every one may call
# cce_log.  The program prints a checksum.
n=${1:-2000}
t=${2:-8}
dir=${3:-.}
awk -v n="$n" -v t="$t" -v dir="$dir" '
function rnd(m) { seed = (seed * 1103515245 + 12345) % 2147483648; return int(seed / 65536) % m }
BEGIN {
  seed = 12345
  h = dir "/gen.h"
  print "#include <stdint.h>" > h
  print "#include <cce.h>" > h
  print "typedef uint64_t (*gfn) (uint64_t, int);" > h
  print "extern const gfn gtab[64];" > h
  for (i = 0; i < n; i++)
    print "uint64_t f" i " (uint64_t x, int d);" > h
  close(h)
  for (i = 0; i < n; i++) {
    f = dir "/g" (i % t) ".c"
    if (!(f in started)) { started[f] = 1; print "#include \"gen.h\"" > f }
    print "uint64_t" > f
    print "f" i " (uint64_t x, int d)" > f
    print "{" > f
    print "  x = x * " (rnd(1000) * 2 + 1) "u + " rnd(100000) "u;" > f
    print "  if (d <= 0)" > f
    print "    return x ^ (x >> " (rnd(20) + 1) ");" > f
    k = 2 + rnd(2)
    for (j = 0; j < k && i + 1 < n; j++) {
      c = i + 1 + rnd(n - i - 1 < 40 ? n - i - 1 : 40)
      print "  if ((x >> " rnd(48) ") & 1)" > f
      print "    x ^= f" c " (x >> " (rnd(5) + 1) ", d - 1);" > f
    }
    if (rnd(8) == 0)
      print "  x += gtab[x & 63] (x >> 7, d - 1);" > f
    if (rnd(16) == 0)
      print "  if ((x & 3) == 0)\n    x += f" i " (x >> 2, d - 2);" > f
    print "  if ((x & 0xfffff) == " rnd(1000) ")" > f
    print "    cce_log (" i ");" > f
    print "  return x;" > f
    print "}" > f
  }
  for (ff in started) close(ff)
  m = dir "/gmain.c"
  print "#include <stdio.h>" > m
  print "#include \"gen.h\"" > m
  printf "const gfn gtab[64] = {" > m
  for (j = 0; j < 64; j++)
    printf "%s f%d", (j ? "," : ""), n / 2 + rnd(n / 2) > m
  print " };" > m
  print "int" > m
  print "main (void)" > m
  print "{" > m
  print "  uint64_t s = 0;" > m
  print "  for (int i = 0; i < 2000; i++)" > m
  print "    s = s * 31 + f" rnd(10) " ((uint64_t) i, 12);" > m
  print "  printf (\"gen checksum %016llx\\n\", (unsigned long long) s);" > m
  print "  return 0;" > m
  print "}" > m
}'
