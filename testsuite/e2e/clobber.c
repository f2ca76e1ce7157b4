/* clobber -- functions that return without restoring the id.

   A function that code outside the program cannot call (here: the static
   ones whose address is not taken) may return with the id its last call
   stored (cce_node's clobbers).  Its callers put their own id back where
   they read it again: after a free call of it, before a log site, in a
   loop, before a call with no addition value.  Without the restore after
   its last call, GCC may turn that call into a jump (a sibling call) or,
   for a self call with an accumulator, into a loop.  Functions entered
   from outside (main, qsort's comparator, a function called through a
   pointer) still return with the id they found, since their callers rely
   on it.  Every path below must decode exactly as gdb sees it at -O0.  */
#include <cce.h>
#include <stdlib.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

NOINLINE static int
leaf (int x)
{
  if (x % 3 == 0)
    cce_log (10 + x % 7);
  return x + sink;
}

NOINLINE static int
other (int x)
{
  cce_log (20);
  return x - sink;
}

/* Two calls of leaf, one of which pays: mid clobbers.  Both are calls in
   tail position.  */
NOINLINE static int
mid (int x)
{
  if (x & 1)
    return leaf (x);
  return leaf (x + 3) + 1;
}

/* A free call of mid may need a restore before the log and the call of
   other.  */
NOINLINE static int
after_call (int x)
{
  int r = mid (x);
  cce_log (30);
  r += other (r);
  return r;
}

/* A call of a clobbering function in a loop, a log on a cold branch.  */
NOINLINE static int
in_loop (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    {
      s += mid (i);
      if (i == 4)
        cce_log (31);
    }
  return s;
}

/* The id must be loaded before the first call that may change it, though
   the first call that uses it comes later.  */
NOINLINE static int
three_calls (int x)
{
  int a = mid (x);
  int b = leaf (a + 3);
  int c = after_call (b);
  return a + b + c;
}

/* A chain of single callers: chain_b and chain_a clobber only through
   their free calls.  */
NOINLINE static int
chain_b (int x)
{
  return mid (x) + 2;
}

NOINLINE static int
chain_a (int x)
{
  int r = chain_b (x);
  cce_log (32);
  return r;
}

/* Self calls that GCC may turn into loops after cce's pass: an
   accumulator of a sum, and a negation.  */
NOINLINE static long
acc (int n)
{
  if (n <= 0)
    {
      cce_log (40);
      return 0;
    }
  if (n == 2)
    leaf (3);
  return n + acc (n - 1);
}

NOINLINE static long
negs (int n)
{
  if (n <= 0)
    {
      cce_log (41);
      return 1;
    }
  return -negs (n - 1);
}

/* Mutual recursion in tail position.  */
NOINLINE static int ping (int n);

NOINLINE static int
pong (int n)
{
  if (n == 1)
    cce_log (50);
  return ping (n - 1) + 1;
}

NOINLINE static int
ping (int n)
{
  if (n <= 0)
    return leaf (6);
  return pong (n - 1);
}

/* Entered from outside: qsort's comparator calls a clobbering function,
   and must still return with the id it found, since qsort calls it again
   without any code of ours in between.  */
static int ncmp;

NOINLINE static int
cmp_helper (int a, int b)
{
  int d = (a > b) - (a < b);
  sink += mid (a);
  sink += mid (b);
  return d;
}

static int
cmp (const void *a, const void *b)
{
  if (++ncmp % 5 == 0)
    cce_log (60);
  return cmp_helper (*(const int *) a, *(const int *) b);
}

/* Called through a pointer: entered from outside too.  */
NOINLINE static int
by_pointer (int x)
{
  int r = mid (x);
  r += leaf (r * 3);
  return r;
}

static int (*volatile fp) (int) = by_pointer;

NOINLINE static int
calls_pointer (int x)
{
  int r = fp (x);
  cce_log (70);
  r += mid (r);
  cce_log (71);
  return r;
}

/* Pure to GCC, so it keeps the id (keeps_id) although one of its two
   calls of pure_leaf has an addition value under observe-all: GCC may move
   its caller's load of the id across a call of it.  */
NOINLINE static int __attribute__ ((pure))
pure_leaf (const int *p)
{
  return *p + 1;
}

NOINLINE static int __attribute__ ((pure))
pure_sum (const int *p)
{
  return pure_leaf (p) + pure_leaf (p + 1);
}

NOINLINE static int
calls_pure (const int *p)
{
  int s = pure_sum (p);
  cce_log (80);
  s += mid (s);
  return s;
}

int
main (void)
{
  int v[12] = { 5, 3, 9, 1, 7, 2, 8, 6, 4, 0, 11, 10 };

  cce_log (1);
  sink += after_call (2);
  sink += after_call (3);
  sink += in_loop (7);
  sink += three_calls (4);
  sink += three_calls (5);
  sink += chain_a (6);
  sink += (int) acc (4);
  sink += (int) negs (3);
  sink += ping (5);
  qsort (v, 12, sizeof *v, cmp);
  sink += calls_pointer (9);
  sink += mid (12);
  sink += calls_pure (v);
  cce_log (2);
  return v[0];
}
