/* trace.c -- functions traced with -fplugin-arg-cce-trace: a small static
   function GCC would inline everywhere, one reached through a pointer and
   through qsort, a recursive one, and one with an IPA clone.  Their
   entries are compared with gdb's breakpoints on the same functions.  */
#include <stdlib.h>
#include "cce.h"

static int counter;

static int
bump (int x)                    /* traced: inlined everywhere without it */
{
  counter += x;
  return counter;
}

static int
cmp (const void *a, const void *b)      /* traced: called back by qsort */
{
  int x = *(const int *) a, y = *(const int *) b;
  bump (1);
  return (x > y) - (x < y);
}

static int
depth (int n)                   /* traced: recursive */
{
  if (n == 0)
    return bump (2);
  return depth (n - 1) + 1;
}

static int __attribute__ ((noinline))
scaled (int x, int k)           /* traced: constant-propagated clone */
{
  cce_log (7);
  return bump (x) * k;
}

static int (*volatile fp) (int) = bump;

int
main (void)
{
  int v[6] = { 5, 2, 4, 1, 3, 0 };
  int s = 0;
  for (int i = 0; i < 3; i++)
    s += bump (i);
  s += fp (4);
  qsort (v, 6, sizeof *v, cmp);
  s += depth (3);
  s += scaled (1, 3) + scaled (2, 3);
  cce_log (9);
  return s < 0;
}
