#include <stdio.h>
#include "prog.h"
__thread unsigned fuel = 800u, tick, cur_d;
__thread jmp_buf *jbp;
static long f2 (long dl);
static unsigned f7 (unsigned d, unsigned a);
static unsigned f11 (unsigned d, unsigned a);
static long f12 (long dl);

__attribute__ ((noinline)) int main (void)
{
  unsigned d = 0;
  unsigned s = 0;
  s += (unsigned) f2 ((long) d + 1);
  printf ("%u\n", s);
  return 0;
}

static __attribute__ ((noinline)) long f2 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return f12 ((long) d + 1);
  return (long) s;
}

static __attribute__ ((noinline)) unsigned f7 (unsigned d, unsigned a)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  cce_log (6u);
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f11 (unsigned d, unsigned a)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return f7 (d + 1, s);
  return (unsigned) s;
}

static __attribute__ ((noinline)) long f12 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) f14 (d + 1);
  return (long) s;
}

__attribute__ ((noinline)) unsigned f14 (unsigned d)
{
  volatile unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) lp_f2 (d + 1, f14);
  {
    jmp_buf jb;
    jmp_buf *saved = jbp;
    if (setjmp (jb) == 0)
      {
        jbp = &jb;
        s += (unsigned) f11 (d + 1, s);
      }
    else
      s += 1000;
    jbp = saved;
  }
  return (unsigned) s;
}
