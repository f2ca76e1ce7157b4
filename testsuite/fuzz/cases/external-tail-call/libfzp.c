#include <stdio.h>
#include "prog.h"

__attribute__ ((noinline)) unsigned lp_f2 (unsigned d, fn_s0 cb)
{
  unsigned s = 0;
  if (cb) s += cb (d + 1);
  return (unsigned) s;
}
