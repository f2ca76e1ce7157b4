#include <stdio.h>
#include "prog.h"
static unsigned f12 (unsigned d);
static unsigned f14 (unsigned d);
static long twin0 (long dl);
static const fn_s0 tab0[] = { f12, f14 };

__attribute__ ((noinline)) unsigned f5 (unsigned d, unsigned a)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) tab0[(tick + d) % 2u] (d + 1);
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f12 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  s += (unsigned) twin0 ((long) d + 1);
  return f12 (d + 1);
  return (unsigned) s;
}

static __attribute__ ((noinline)) unsigned f14 (unsigned d)
{
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  return (unsigned) s;
}

static __attribute__ ((noinline)) long twin0 (long dl)
{
  unsigned d = (unsigned) dl;
  unsigned s = 0;
  if (fuel == 0 || d >= DMAX)
    return 0;
  fuel--;
  tick++;
  cce_log (18u);
  s += (unsigned) tab0[(tick + d) % 2u] (d + 1);
  s += (unsigned) tab0[(tick + d) % 2u] (d + 1);
  return (long) s;
}
