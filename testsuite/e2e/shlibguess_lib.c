/* shlibguess_lib.c -- the shared library of the shlibguess end-to-end
   test, built with cce.  */
#include "cce.h"
#include "shlibguess.h"

int
sg_lib_work (int x)
{
  cce_log (320);
  return x * 2;
}

int
sg_lib_hook (int x)
{
  cce_log (330);
  return x + 3;
}

static int
hidden_hook (int x)
{
  cce_log (340);
  return x + 5;
}

int (*sg_get_hook (void)) (int)
{
  return hidden_hook;
}
