/* shlibquiet.c -- an executable that never logs itself and calls a
   shared library built with cce that does (shlibguess_lib.c): by name,
   through a table that holds a function of the library, and through a
   pointer the library hands out.  Its calls
   must still carry their contexts into the library.  */
#include "cce.h"
#include "shlibguess.h"

int
exe_hook (int x)
{
  return x + 1;
}

static int (*const table[]) (int) = { exe_hook, sg_lib_hook };

static int __attribute__ ((noinline))
by_name (int i)
{
  return sg_lib_work (i);
}

static int __attribute__ ((noinline))
by_pointer (int i)
{
  return table[i % 2] (i);
}

static int __attribute__ ((noinline))
handed_out (int (*fn) (int), int i)
{
  return fn (i);
}

int
main (void)
{
  int s = 0;
  int (*hook) (int) = sg_get_hook ();
  for (int i = 0; i < 4; i++)
    s += by_name (i) + by_pointer (i) + handed_out (hook, i);
  return s == 0;
}
