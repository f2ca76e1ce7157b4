#include <stdio.h>
#include "prog.h"
__thread unsigned fuel = 800u, tick, cur_d;
__thread jmp_buf *jbp;
static unsigned f7 (unsigned d);

__attribute__ ((noinline)) int main (void)
{
  unsigned d = 0;
  unsigned s = 0;
  s += (unsigned) f7 (d + 1);
  printf ("%u\n", s);
  return 0;
}

static __attribute__ ((noinline)) unsigned f7 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) f5 (d + 1, s);
  return (unsigned) s;
}
