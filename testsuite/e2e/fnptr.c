/* fnptr -- calls through function pointers: a table of handlers, a
   pointer passed as an argument, a function called both directly and
   through a pointer, pointer calls inside a recursion, a recursion that
   goes through a pointer, and callbacks from the C library: a qsort
   comparator, a signal handler run by raise, atexit handlers run by an
   exit call.  */
#include <signal.h>
#include <stdlib.h>
#include <cce.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

typedef int (*handler) (int);

static int
h_add (int x)
{
  cce_log (100 + x);
  return x + 1;
}

static int
h_mul (int x)
{
  cce_log (200 + x);
  return x * 2;
}

NOINLINE static int
h_neg (int x)
{
  cce_log (300 + x);
  return -x;
}

/* Constant table: calls through it may be devirtualized by GCC.  */
static const handler ctable[] = { h_add, h_mul, h_neg };
/* Volatile pointer: never devirtualized.  */
static handler volatile vptr = h_mul;

NOINLINE int
dispatch (int i, int x)
{
  return ctable[i] (x);
}

NOINLINE int
apply (handler h, int x)
{
  return h (x) + 1;
}

static int
apply_inl (handler h, int x)
{
  return h (x) - 1;
}

/* A pointer call at every level of a recursion.  */
NOINLINE int
rec_fp (int n, handler h)
{
  if (n == 0)
    return h (40);
  int r = rec_fp (n - 1, h);
  r += h (40 + n);
  return r;
}

/* A recursion through a pointer to itself.  */
int recp (int n);
static int (*volatile self_ptr) (int) = recp;

int
recp (int n)
{
  if (n == 0)
    {
      cce_log (500);
      return 0;
    }
  int r = self_ptr (n - 1);
  if (n == 2)
    cce_log (502);
  return r + 1;
}

static int
cmp_int (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  cce_log (600 + x * 10 + y);
  return (x > y) - (x < y);
}

NOINLINE static void
sort_all (void)
{
  int v[4] = { 3, 1, 4, 2 };
  qsort (v, 4, sizeof v[0], cmp_int);
  sink += v[0];
}

static void
on_signal (int sig)
{
  (void) sig;
  cce_log (700);
}

NOINLINE static void
raise_it (void)
{
  signal (SIGUSR1, on_signal);
  raise (SIGUSR1);
  cce_log (701);
}

static void
at_exit_first (void)
{
  cce_log (800);
}

static void
at_exit_second (void)
{
  cce_log (801);
}

NOINLINE static void
finish (int status)
{
  cce_log (802);
  exit (status);
}

int
main (void)
{
  cce_log (1);
  atexit (at_exit_first);
  atexit (at_exit_second);
  for (int i = 0; i < 3; i++)
    sink += dispatch (i, i);
  sink += apply (h_add, 10);
  sink += apply (h_neg, 11);
  sink += apply (vptr, 12);
  sink += apply_inl (h_mul, 13);
  sink += apply_inl (vptr, 14);
  sink += h_add (20);
  sink += h_mul (21);
  sink += vptr (22);
  sink += rec_fp (2, h_add);
  sink += rec_fp (1, vptr);
  sink += recp (3);
  cce_log (2);
  sort_all ();
  raise_it ();
  cce_log (3);
  finish (sink == 12345);
}
