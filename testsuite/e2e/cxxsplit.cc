// cxxsplit.cc -- a function whose cold part GCC splits off at compile
// time (work.part.0) and may inline back at link time, recursing through
// that part: each level is one frame of work, as in the source.
#include <cce.h>

static volatile int sink;
static int table[64];

__attribute__ ((noinline)) static void
leaf (int n)
{
  cce_log (2);
  sink = n;
}

int work (int n);
extern int (*volatile entry) (int);

/* The recursion goes through here, so that the part of work is called
   from work alone and LTO inlines it back.  */
__attribute__ ((noinline)) static int
again (int n)
{
  int r = entry (n);
  sink = r;
  return r + 1;
}

/* The early exit stays in work; the rest is cold enough to split.  */
int
work (int n)
{
  if (__builtin_expect (n <= 0, 1))
    {
      cce_log (1);
      return 0;
    }
  int s = 0;
  for (int i = 0; i < 64; i++)
    {
      table[i] += i * n;
      s += table[(i * 7 + n) & 63];
    }
  if (n % 2)
    leaf (n);
  s += again (n - 1);
  sink = s;
  return s;
}

int (*volatile entry) (int) = work;

int
main ()
{
  for (int k = 0; k < 3; k++)
    sink = entry (k + 2) + entry (k);
  return 0;
}
