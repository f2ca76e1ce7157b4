/* multi_tu -- three translation units, chains of direct calls across
   them, the same function reached along several paths, and a static
   function of the same name ("helper") in every TU.  */
#include <stdlib.h>
#include <cce.h>
#include "multi_tu.h"

volatile int mt_sink;

/* Reached from all three TUs along several paths.  */
__attribute__ ((noinline)) void
shared_leaf (unsigned tag)
{
  mt_sink += tag;
  cce_log (tag);
}

static __attribute__ ((noinline)) int
helper (int n)
{
  cce_log (100 + n);
  return n * 3;
}

/* main -> a_chain -> b_step -> c_step -> a_chain -> ... until depth 0.  */
int
a_chain (int depth)
{
  if (depth <= 0)
    {
      shared_leaf (10);
      return 1;
    }
  int r = b_step (depth - 1);
  mt_sink += r;
  return r + 1;
}

int
a_fan (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += c_fan (i);
  shared_leaf (20 + n);
  return s + helper (n);
}

int
main (void)
{
  cce_log (1);
  atexit (c_at_exit);
  shared_leaf (2);
  mt_sink += a_chain (0);
  mt_sink += a_chain (4);
  mt_sink += a_fan (2);
  mt_sink += b_twice (3);
  mt_sink += b_helper_user (5);
  mt_sink += c_helper_user (6);
  mt_sink += helper (7);
  b_to_shared (30);
  cce_log (3);
  return 0;
}
