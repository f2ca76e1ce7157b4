/* shlib_lib.c -- the shared library of the shlib end-to-end test, built
   with cce like the executable (shlib.c).  It calls back into the
   executable through pointers and by name, recurses, sorts with a
   comparator of its own, and calls its own exported functions (which the
   executable could interpose).  */
#include <stdlib.h>
#include "cce.h"
#include "shlib.h"

static int
inner (int x)
{
  cce_log (100 + (unsigned) x % 8);
  return x + 1;
}

static int
twice (int x)
{
  return inner (x) + inner (x + 1);
}

int
lib_work (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += twice (i);
  cce_log (110);
  return s;
}

int
lib_apply (int (*fn) (int), int x)
{
  cce_log (120);
  return fn (x) + fn (x + 1);
}

static int (*saved) (int);

void
lib_register (int (*fn) (int))
{
  saved = fn;
}

int
lib_fire (int x)
{
  return saved ? saved (x) : 0;
}

int
lib_call_exe (int x)
{
  cce_log (130);
  return exe_hook (x) + 1;
}

int
lib_cb (int x)
{
  cce_log (140);
  return inner (x);
}

static int
cmp (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  cce_log (150);
  return (x > y) - (x < y);
}

void
lib_sort (int *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp);
}

int
lib_rec (int n)
{
  if (n == 0)
    {
      cce_log (160);
      return 0;
    }
  return lib_rec (n - 1) + 1;
}

int
lib_pub (int x)
{
  cce_log (170);
  return x;
}

int
lib_uses_pub (int x)
{
  return lib_pub (x) + 1;
}
