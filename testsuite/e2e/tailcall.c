/* tailcall -- calls in tail position, which GCC turns into jumps or, for
   self recursion, into loops (-foptimize-sibling-calls, -O2 and up).  The
   source calling context still has every frame.  */
#include <cce.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

/* Plain tail recursion.  */
NOINLINE int
tail_self (int n)
{
  if (n == 0)
    {
      cce_log (100);
      return sink;
    }
  if (n == 2)
    cce_log (102);
  return tail_self (n - 1);
}

/* Recursion with an accumulator GCC can introduce (n + f (n - 1)).  */
NOINLINE int
acc_sum (int n)
{
  if (n == 0)
    {
      cce_log (200);
      return 0;
    }
  return n + acc_sum (n - 1);
}

/* Mutual tail recursion.  */
int is_odd (int n);

NOINLINE int
is_even (int n)
{
  if (n == 0)
    {
      cce_log (300);
      return 1;
    }
  return is_odd (n - 1);
}

NOINLINE int
is_odd (int n)
{
  if (n == 0)
    {
      cce_log (301);
      return 0;
    }
  return is_even (n - 1);
}

/* Sibling calls to other functions.  */
NOINLINE int
sib_leaf (int x)
{
  cce_log (400 + x);
  return x + sink;
}

NOINLINE int
sib_mid (int x)
{
  return sib_leaf (x + 1);
}

NOINLINE int
sib_top (int x)
{
  return sib_mid (x + 1);
}

/* A state machine of three states in mutual tail recursion, 1,000 steps:
   every step stays a frame of the source-level path.  */
NOINLINE int state_b (int n);
NOINLINE int state_c (int n);

NOINLINE int
state_a (int n)
{
  if (n == 0)
    {
      cce_log (500);
      return sink;
    }
  if (n % 250 == 0)
    cce_log (501);
  return state_b (n - 1);
}

NOINLINE int
state_b (int n)
{
  if (n % 333 == 0)
    cce_log (502);
  return state_c (n - 1);
}

NOINLINE int
state_c (int n)
{
  return state_a (n - 1);
}

int
main (void)
{
  cce_log (1);
  sink += tail_self (3);
  sink += acc_sum (3);
  sink += is_even (4);
  sink += is_even (3);
  sink += sib_top (0);
  sink += sib_mid (10);
  sink += state_a (999);
  cce_log (2);
  return 0;
}
