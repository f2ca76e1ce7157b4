#include <stdio.h>
#include "prog.h"
__thread unsigned fuel = 150u, tick, cur_d;
__thread jmp_buf *jbp;

__attribute__ ((noinline)) int main (void)
{
  unsigned d = 0;
  unsigned s = 0;
  cce_log (1u);
  s += (unsigned) lc_f0 (d + 1, NULL);
  printf ("%u\n", s);
  return 0;
}
