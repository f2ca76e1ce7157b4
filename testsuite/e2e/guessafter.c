/* guessafter.c -- indirect calls with guessed targets after a ccStack
   call in the same function: the guessed branch calls its target
   directly and leaves the ccStack top as it finds it, so the top must
   have been restored after the ccStack call before it (qsort and bsearch
   here: external calls that call back).  */
#include <cce.h>
#include <stdlib.h>

static int
cmp (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

__attribute__ ((noinline)) static int
f1 (int x)
{
  cce_log (1);
  return x + 1;
}

__attribute__ ((noinline)) static int
f2 (int x)
{
  cce_log (2);
  return x + 2;
}

struct op
{
  int (*fn) (int);
};
static struct op ops[] = { { f1 }, { f2 } };

/* A logging comparator, and a guessed call after its bsearch.  */
static int
cmp_log (const void *a, const void *b)
{
  cce_log (3);
  return cmp (a, b);
}

static int (*const by_type[]) (int) = { f2, f1 };

__attribute__ ((noinline)) static int
after_bsearch (int i)
{
  static const int v[3] = { 1, 2, 3 };
  int key = 2;
  const int *p = bsearch (&key, v, 3, sizeof v[0], cmp_log);
  return by_type[i % 2] (i) + (p ? *p : 0);
}

int
main (int argc, char **argv)
{
  int v[2] = { 2, 1 };
  (void) argv;
  qsort (v, 2, sizeof v[0], cmp);
  int r = ops[argc - 1].fn (argc) + v[0];
  r += after_bsearch (0) + after_bsearch (1);
  return r == 0;
}
