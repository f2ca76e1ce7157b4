/* fib.c -- recursive: Fibonacci-shaped self and mutual recursion.  Each
   call combines its two recursive results with a xor, so that no call is
   a tail call and GCC's tail recursion elimination (which the cce plugin
   switches off) has nothing to do: both builds make exactly the same
   calls.  With cce every recursive call is a back edge, i.e. a ccStack
   push and pop.  (ackermann.c is the tail-recursive counterpart.)  */

#include "bench.h"

#define MIX(a, b) (((a) * 0x9E3779B97F4A7C15ULL) ^ (b))

/* Self recursion.  */
static uint64_t __attribute__ ((noinline))
fib (int n)
{
  if (n < 2)
    {
      BENCH_TICK (1);
      return (uint64_t) n + 1;
    }
  uint64_t a = fib (n - 1);
  uint64_t b = fib (n - 2);
  return MIX (a, b);
}

/* Mutual recursion: ping calls pong and itself, pong calls ping and
   itself.  */
static uint64_t pong (int n);

static uint64_t __attribute__ ((noinline))
ping (int n)
{
  if (n < 2)
    {
      BENCH_TICK (2);
      return (uint64_t) n + 3;
    }
  uint64_t a = pong (n - 1);
  uint64_t b = ping (n - 2);
  return MIX (a, b);
}

static uint64_t __attribute__ ((noinline))
pong (int n)
{
  if (n < 2)
    {
      BENCH_TICK (3);
      return (uint64_t) n + 5;
    }
  uint64_t a = ping (n - 1);
  uint64_t b = pong (n - 2);
  return MIX (b, a);
}

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 6400);
  uint64_t sum = 0;
  for (long r = 0; r < rounds; r++)
    {
      sum = MIX (sum, fib (20 + (int) (r & 3)));
      sum = MIX (sum, ping (20 + (int) (r & 3)));
    }
  bench_report ("fib", sum);
  return 0;
}
