/* shlib_mid.c -- a shared library built without cce, between the
   executable and the library built with cce (shlib.c).  */
#include "shlib.h"

int
mid_call (int (*fn) (int), int x)
{
  return fn (x) + 1;
}
