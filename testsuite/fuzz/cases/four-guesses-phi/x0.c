#include <stdio.h>
#include "prog.h"
__thread unsigned fuel = 800u, tick, cur_d;
__thread jmp_buf *jbp;
static long f1 (long dl);
static unsigned f8 (unsigned d);
static unsigned f9 (unsigned d);
static unsigned f16 (unsigned d);
static unsigned f18 (unsigned d);
static const struct { fn_s0 fn; int k; } tab1[] = { { f8, 0 }, { f2, 1 } };
static const fn_s0 tab2[] = { f9, f18 };

__attribute__ ((noinline)) int main (void)
{
  unsigned d = 0;
  unsigned s = 0;
  s += (unsigned) f16 (d + 1);
  s += (unsigned) f1 ((long) d + 1);
  printf ("%u\n", s);
  return 0;
}

static __attribute__ ((noinline)) long f1 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) tab2[(tick + d) % 2u] (d + 1);
  return (long) s;
}

__attribute__ ((noinline)) unsigned f2 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f8 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f9 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f16 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) tab1[(tick + d) % 2u].fn (d + 1);
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f18 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  cce_log (19u);
  return (unsigned) s;
}
