#include <stdio.h>
#include "prog.h"
__thread unsigned fuel = 800u, tick, cur_d;
__thread jmp_buf *jbp;
static unsigned f1 (unsigned d);
static unsigned f3 (unsigned d);
static long f4 (long dl);
static long f13 (long dl);

__attribute__ ((noinline)) int main (void)
{
  unsigned d = 0;
  unsigned s = 0;
  s += (unsigned) f3 (d + 1);
  printf ("%u\n", s);
  return 0;
}

static __attribute__ ((noinline)) unsigned f1 (unsigned d)
{
  volatile unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  {
    jmp_buf jb;
    jmp_buf *saved = jbp;
    if (setjmp (jb) == 0)
      {
        jbp = &jb;
        s += (unsigned) f13 ((long) d + 1);
      }
    else
      s += 1000;
    jbp = saved;
  }
  return (unsigned) s;
}

__attribute__ ((noinline)) long f2 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) f4 ((long) d + 1);
  return (long) s;
}

static __attribute__ ((noinline)) unsigned f3 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  for (unsigned i = 0; i < 3u; i++) s += (unsigned) f2 ((long) d + 1);
  return (unsigned) s;
}

static __attribute__ ((noinline)) long f4 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) f1 (d + 1);
  return (long) s;
}

static __attribute__ ((noinline)) long f13 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  if (d < 72u && tick % 2u == 1u)
    return f13 ((long) d + 1);
  cce_log (14u);
  return (long) s;
}
