#include <stdio.h>
#include "prog.h"

__attribute__ ((noinline)) unsigned lc_f0 (unsigned d, fn_s0 cb)
{
  unsigned s = 0;
  cce_log (20u);
  return (unsigned) s;
}
