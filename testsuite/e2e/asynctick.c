/* asynctick.c -- CPU-bound work made of calls of every kind, for
   asynctick.sh: CPU-time ticks (CCE_SAMPLE) land in and around them.

   asynctick T MS: the main thread and T - 1 threads it creates
   (pthread_create) each run rounds of work until they have used MS
   milliseconds of their own CPU time.  A round is dense in calls, so
   that many ticks land between the store of an id and its call, or
   between a call's return and its restore:

     - direct calls with addition values: leaf has several callers
       (caller_a, caller_b, caller_c, descend, op_d, key), so that only
       one of them calls it for free, and caller_a has several too;
     - inlined frames: blend is always inlined, and calls caller_b and
       leaf from its callers' bodies;
     - recursion: descend calls itself DEPTH levels deep, with work at
       every level (its result is used after the call: no tail call);
     - indirect calls through a table of function pointers (ops);
     - callbacks from the C library: qsort with a comparator that calls
       the program's functions (key).

   leaf may log (cce_log), under a flag that is never set: every function
   reaches a log site, so that the default encoding instruments them all
   (they are observed), yet the log only holds the ticks.  */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline, noclone))
#define INLINE static inline __attribute__ ((always_inline))

#define NVALUES 24

static long ms;
static volatile int log_now;
static volatile uint64_t sink;

static uint64_t
cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

NOINLINE static uint64_t
leaf (uint64_t x)
{
  if (log_now)
    cce_log (7);
  x ^= x >> 29;
  x *= UINT64_C (0xbf58476d1ce4e5b9);
  return x ^ (x >> 32);
}

NOINLINE static uint64_t
caller_a (uint64_t x)
{
  x = leaf (x + 1);
  return leaf (x) + 3;
}

NOINLINE static uint64_t
caller_b (uint64_t x)
{
  return leaf (x ^ 5) * 7;
}

NOINLINE static uint64_t
caller_c (uint64_t x)
{
  uint64_t y = caller_a (x);
  return leaf (y) ^ caller_b (y);
}

INLINE uint64_t
blend (uint64_t x)
{
  return caller_b (x) + leaf (x >> 3);
}

NOINLINE static uint64_t
descend (uint64_t x, int depth)
{
  if (depth == 0)
    return caller_a (x);
  uint64_t r = descend (leaf (x), depth - 1);
  return r ^ blend (r + (uint64_t) depth);
}

NOINLINE static uint64_t
op_a (uint64_t x)
{
  return caller_a (x) + 1;
}

NOINLINE static uint64_t
op_b (uint64_t x)
{
  return blend (x) - 1;
}

NOINLINE static uint64_t
op_c (uint64_t x)
{
  return descend (x, 2) * 3;
}

NOINLINE static uint64_t
op_d (uint64_t x)
{
  return leaf (x) - caller_c (x);
}

/* Volatile: the calls through it are never devirtualized.  */
static uint64_t (*volatile ops[4]) (uint64_t) = { op_a, op_b, op_c, op_d };

NOINLINE static uint64_t
key (uint64_t x)
{
  return leaf (x) >> 1;
}

static int
compare_keys (const void *p, const void *q)
{
  uint64_t a = key (*(const uint64_t *) p), b = key (*(const uint64_t *) q);
  sink += blend (a);
  return (a > b) - (a < b);
}

NOINLINE static uint64_t
round_of_work (uint64_t x)
{
  uint64_t v[NVALUES];
  for (int i = 0; i < 48; i++)
    {
      x = caller_a (x);
      x = caller_b (x);
      x = caller_c (x);
      x = blend (x);
      x = ops[i & 3] (x);
    }
  x ^= descend (x, 5);
  for (int i = 0; i < NVALUES; i++)
    v[i] = x + (uint64_t) i * 977;
  qsort (v, NVALUES, sizeof v[0], compare_keys);
  return x ^ v[0];
}

NOINLINE static uint64_t
work (unsigned idx)
{
  uint64_t x = idx + 1, end = cpu_ns () + (uint64_t) ms * 1000000u;
  while (cpu_ns () < end)
    for (int i = 0; i < 8; i++)
      x = round_of_work (x);
  return x;
}

static void *
worker (void *arg)
{
  sink += work ((unsigned) (uintptr_t) arg);
  return NULL;
}

int
main (int argc, char **argv)
{
  int t = argc > 1 ? atoi (argv[1]) : 3;
  pthread_t th[16];
  ms = argc > 2 ? atol (argv[2]) : 300;
  if (t < 1 || t > 16 || ms <= 0)
    return 2;
  for (int i = 1; i < t; i++)
    if (pthread_create (&th[i], NULL, worker, (void *) (uintptr_t) i) != 0)
      return 3;
  sink += work (0);
  for (int i = 1; i < t; i++)
    pthread_join (th[i], NULL);
  return 0;
}
