/* tailjump -- self calls in tail position, which GCC makes jumps to the
   top of their function (a loop), with every call encoded and exact at
   every instruction (async): every level of the recursion stays a frame
   of the source-level path.  pcstep.sh compares what cce decodes at
   every instruction of this build with what gdb sees in a build whose
   self tail calls stay calls.  */
#include <cce.h>

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
  if (n == 0)
    {
      leaf (1);
      return 0;
    }
  if (n % 3 == 0)
    leaf (2);
  return down (n - 1);
}

/* Ackermann's function: two self tail calls and an ordinary self call.  */
NOINLINE static long
ack (long m, long n)
{
  if (m == 0)
    {
      leaf (0);
      return n + 1;
    }
  if (n == 0)
    return ack (m - 1, 1);
  return ack (m - 1, ack (m, n - 1));
}

/* Euclid's gcd: a loop whose test GCC may copy to its end.  */
NOINLINE static long
gcd (long a, long b)
{
  if (b == 0)
    {
      leaf (3);
      return a;
    }
  return gcd (b, a % b);
}

int
main (void)
{
  cce_log (1);
  sink += (int) down (7);
  sink += (int) ack (2, 1);
  sink += (int) gcd (1071, 462);
  cce_log (2);
  return 0;
}
