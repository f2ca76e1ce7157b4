/* shlibguess.c -- a table of function pointers that mixes functions of
   the executable and of a shared library built with cce, called after a
   call into that library (a ccStack call) in the same function.  */
#include "cce.h"
#include "shlibguess.h"

int
exe_hook (int x)
{
  cce_log (300);
  return x + 1;
}

static int (*const table[]) (int) = { exe_hook, sg_lib_hook };

static int __attribute__ ((noinline))
e_table (int i)
{
  int s = sg_lib_work (i);
  return s + table[i % 2] (i);
}

int
main (void)
{
  int s = 0;
  for (int i = 0; i < 4; i++)
    s += e_table (i);
  cce_log (310);
  return s == 0;
}
