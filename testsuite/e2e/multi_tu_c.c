/* multi_tu, third TU.  */
#include <cce.h>
#include "multi_tu.h"

static __attribute__ ((noinline)) int
helper (int n)
{
  cce_log (300 + n);
  return n * 7;
}

int
c_step (int depth)
{
  if (depth == 1)
    cce_log (50);
  return a_chain (depth - 1) + 1;
}

int
c_fan (int n)
{
  if (n % 2)
    b_to_shared (60 + n);
  else
    shared_leaf (70 + n);
  return n;
}

int
c_helper_user (int n)
{
  int r = helper (n);
  mt_sink += r;
  return r + 1;
}

/* Registered with atexit by main, run after main has returned: its path
   is the handler alone.  */
void
c_at_exit (void)
{
  cce_log (90);
}
