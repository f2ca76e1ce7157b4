/* bench.h -- shared by the call-heavy benchmarks of bench/.

   Every benchmark is built twice from the same source: plain
   (gcc -O2 -flto, with stub.c, an empty cce_log in a non-LTO object) and
   with cce (testsuite/cce-cc -O2).  Each logs at a rare point -- once
   every 2^20 ticks -- from the leaves of its call graph, so that the
   plugin has to keep the context of every call on the way there: cce
   instruments only the calls through which a cce_log can be reached.  */

#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cce.h>

/* Log once every 2^20 ticks.  */
#define BENCH_LOG_MASK 0xfffffUL

static unsigned long bench_ticks;

/* A tick at a leaf: counts, and logs rarely with TAG.  */
#define BENCH_TICK(tag)                                                 \
  do                                                                    \
    {                                                                   \
      if (__builtin_expect ((++bench_ticks & BENCH_LOG_MASK) == 0, 0))  \
        cce_log (tag);                                                  \
    }                                                                   \
  while (0)

/* Every benchmark prints one line, "NAME checksum HEX ticks N", which
   must be the same for both builds.  */
static inline void
bench_report (const char *name, uint64_t sum)
{
  printf ("%s checksum %016llx ticks %lu\n", name, (unsigned long long) sum,
          bench_ticks);
}

/* A deterministic generator (xorshift64*).  */
static inline uint64_t
bench_rand (uint64_t *s)
{
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* Scale: argv[1] if given (a percentage of the default work), else 100.  */
static inline long
bench_scale (int argc, char **argv, long n)
{
  long pct = argc > 1 ? strtol (argv[1], NULL, 10) : 100;
  if (pct <= 0)
    pct = 100;
  long r = n * pct / 100;
  return r > 0 ? r : 1;
}

#endif
