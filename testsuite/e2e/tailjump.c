/* tailjump -- self calls in tail position, which GCC makes jumps to the
   top of their function (a loop), with every call encoded and exact at
   every instruction (async): every level of the recursion stays a frame
   of the source-level path.  pcstep.sh compares what cce decodes at
   every instruction of this build with what gdb sees in a build whose
   self tail calls stay calls; tailjump.sh compares the contexts of its
   logs, one on every level of down and length, with gdb's at -O0.  */
#include <cce.h>
#include <stddef.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

NOINLINE static int
leaf (int x)
{
  sink += x;
  return sink;
}

/* Plain tail recursion, with an ordinary call on some levels.  */
NOINLINE static long
down (long n)
{
  cce_log (10);
  if (n == 0)
    {
      leaf (1);
      return 0;
    }
  if (n % 3 == 0)
    leaf (2);
  return down (n - 1);
}

/* Ackermann's function: a self tail call, and an ordinary self call
   made on some of its levels.  */
NOINLINE static long
ack (long m, long n)
{
  if (m == 0)
    {
      leaf (0);
      return n + 1;
    }
  return ack (m - 1, n == 0 ? 1 : ack (m, n - 1));
}

/* The length of a list: a loop whose test GCC may copy to its end.  */
struct cell
{
  const struct cell *next;
};

NOINLINE static long
length (const struct cell *c, long n)
{
  cce_log (30);
  if (!c)
    {
      leaf (3);
      return n;
    }
  return length (c->next, n + 1);
}

static const struct cell c3 = { NULL }, c2 = { &c3 }, c1 = { &c2 };

int
main (void)
{
  cce_log (1);
  sink += (int) down (7);
  sink += (int) ack (2, 1);
  sink += (int) length (&c1, 0);
  cce_log (2);
  return 0;
}
