/* ackermann.c -- tail recursion: Ackermann's function, Takeuchi's tak and
   a recursive gcd, written as the textbook has them.  Their outer calls are
   self tail calls, which plain GCC turns into loops when compiling (tail
   recursion elimination, "tailr").  The cce plugin switches tailr off, so
   that their frames can be decoded (README, Limitations); since these
   functions are static, GCC's tail call pass makes the loops again at
   link time, after the plugin's pass, with the folded id stored in each
   iteration.  This measures that, not the encoding of plain calls alone
   (fib.c does).  */

#include "bench.h"

static uint64_t __attribute__ ((noinline))
ack (uint64_t m, uint64_t n)
{
  if (m == 0)
    {
      BENCH_TICK (1);
      return n + 1;
    }
  if (n == 0)
    return ack (m - 1, 1);
  return ack (m - 1, ack (m, n - 1));
}

static int __attribute__ ((noinline))
tak (int x, int y, int z)
{
  if (y >= x)
    {
      BENCH_TICK (2);
      return z;
    }
  return tak (tak (x - 1, y, z), tak (y - 1, z, x), tak (z - 1, x, y));
}

static uint64_t __attribute__ ((noinline))
gcd (uint64_t a, uint64_t b)
{
  if (b == 0)
    {
      BENCH_TICK (3);
      return a;
    }
  return gcd (b, a % b);
}

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 200);
  uint64_t sum = 0;
  uint64_t seed = 42;
  for (long r = 0; r < rounds; r++)
    {
      sum = sum * 31 + ack (2, 1000 + (uint64_t) (r & 7));
      sum = sum * 31 + (uint64_t) tak (18, 12, 6 + (int) (r & 1));
      for (int i = 0; i < 20000; i++)
        {
          uint64_t a = bench_rand (&seed) >> 20, b = bench_rand (&seed) >> 24;
          sum = sum * 31 + gcd (a, b);
        }
    }
  bench_report ("ackermann", sum);
  return 0;
}
