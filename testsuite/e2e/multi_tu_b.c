/* multi_tu, second TU.  */
#include <cce.h>
#include "multi_tu.h"

static __attribute__ ((noinline)) int
helper (int n)
{
  cce_log (200 + n);
  return n * 5;
}

int
b_step (int depth)
{
  int r = c_step (depth);
  if (depth == 3 || depth == 1)
    cce_log (40 + depth);
  return r * 2;
}

/* The same callee twice from two call sites of one function.  */
int
b_twice (int n)
{
  int r = c_fan (n);
  r += c_fan (n + 1);
  return r;
}

int
b_helper_user (int n)
{
  return helper (n) + c_helper_user (n + 1);
}

void
b_to_shared (unsigned tag)
{
  shared_leaf (tag);
  shared_leaf (tag + 1);
}
