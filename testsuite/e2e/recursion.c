/* recursion -- self recursion, mutual recursion (a -> b -> a), a 3-cycle
   (c1 -> c2 -> c3 -> c1), logs at various depths and after the recursion
   has returned, and one recursion 100000 levels deep logging at the
   bottom and on the way back.  Every recursive call's result is used
   after the call, so GCC cannot turn the recursion into a loop.  */
#include <cce.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))
#define DEEP 100000

/* Self recursion, logs at depth 0 and on the way back at depths 2, 4.  */
NOINLINE int
self_rec (int n)
{
  if (n == 0)
    {
      cce_log (100);
      return 1;
    }
  if (n == 3)
    cce_log (103);
  int r = self_rec (n - 1);
  if (n % 2 == 0)
    cce_log (100 + 10 * n);
  return r * 2 + sink;
}

/* Mutual recursion ping -> pong -> ping ...  */
int pong (int n);

NOINLINE int
ping (int n)
{
  if (n <= 0)
    {
      cce_log (200);
      return 0;
    }
  int r = pong (n - 1);
  if (n == 2)
    cce_log (202);
  return r + sink + 1;
}

NOINLINE int
pong (int n)
{
  if (n <= 0)
    {
      cce_log (250);
      return 0;
    }
  if (n == 1)
    cce_log (251);
  int r = ping (n - 1);
  return r * 3 + sink;
}

/* A 3-cycle c1 -> c2 -> c3 -> c1; small enough to be inlined into each
   other at -O2/-O3 (which then are still frames).  */
int cyc2 (int n);
int cyc3 (int n);

int
cyc1 (int n)
{
  if (n <= 0)
    {
      cce_log (301);
      return 1;
    }
  int r = cyc2 (n - 1);
  if (n == 4)
    cce_log (311);
  return r + 1;
}

int
cyc2 (int n)
{
  if (n <= 0)
    {
      cce_log (302);
      return 2;
    }
  if (n == 5)
    cce_log (312);
  return cyc3 (n - 1) * 2 - sink;
}

int
cyc3 (int n)
{
  if (n <= 0)
    {
      cce_log (303);
      return 3;
    }
  int r = cyc1 (n - 1);
  cce_log (320 + n);
  return r ^ sink;
}

/* DEEP levels; a handful of records.  */
NOINLINE int
deep (int n)
{
  if (n == DEEP)
    {
      cce_log (400);
      return 0;
    }
  int r = deep (n + 1);
  if (n == DEEP - 1 || n == DEEP / 2 || n == 1)
    cce_log (n == 1 ? 401 : n == DEEP / 2 ? 402 : 403);
  return r + (n & 1) + sink;
}

/* Recursion entered from two different places.  */
NOINLINE int
twice (int k)
{
  return self_rec (k) + ping (k);
}

int
main (void)
{
  cce_log (1);
  sink += self_rec (4);
  cce_log (2);
  sink += ping (4);
  sink += pong (3);
  cce_log (3);
  sink += cyc1 (7);
  sink += cyc2 (5);
  cce_log (4);
  sink += deep (0);
  cce_log (5);
  sink += twice (1);
  sink += self_rec (0);
  cce_log (6);
  return sink == 12345;
}
