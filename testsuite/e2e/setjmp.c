/* setjmp.c -- longjmp out of deep recursion and between nested setjmp
   buffers.  After each jump, every context must be exact again: nothing
   stale may stay on the ccStack and the id must be the jumping-to
   function's.  */

#include <setjmp.h>
#include <stdio.h>
#include <cce.h>

static jmp_buf outer, inner;
static volatile int zero;

/* Non-tail recursion (the result is used), so each level is a frame.  */
__attribute__ ((noinline)) static int
deep (int n)
{
  if (n == 0)
    {
      cce_log (1);
      longjmp (outer, 1);
    }
  int r = deep (n - 1);
  return r + 1 + zero;
}

__attribute__ ((noinline)) static void
after (void)
{
  cce_log (2);
}

__attribute__ ((noinline)) static void
thrower (int k)
{
  cce_log (6);
  if (k)
    longjmp (inner, 2);
}

__attribute__ ((noinline)) static void
nested (int k)
{
  if (setjmp (inner) == 0)
    {
      cce_log (3);
      thrower (k);
    }
  else
    {
      cce_log (4);
      after ();
    }
  after ();
}

__attribute__ ((noinline)) static void
driver (int depth)
{
  if (setjmp (outer) == 0)
    deep (depth);
  else
    {
      cce_log (5);
      after ();
      nested (1);
      nested (0);
    }
  after ();
}

int
main (void)
{
  driver (40);
  driver (3000);
  after ();
  return 0;
}
