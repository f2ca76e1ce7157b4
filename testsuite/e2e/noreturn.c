/* noreturn -- calls to functions that do not return: abort and exit in
   branches not taken (error paths), a noreturn function of the program
   that logs and calls exit, and an atexit handler run by that exit; a
   recursive function (folded into the id with fold=N) with calls of that
   function on error paths.  */
#include <stdlib.h>
#include <cce.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

static void
at_exit_handler (void)
{
  cce_log (900);
}

NOINLINE __attribute__ ((noreturn)) static void
die (int code)
{
  cce_log (800 + code);
  exit (sink == 12345);
}

NOINLINE static int
check (int x)
{
  if (x < 0)
    abort ();
  cce_log (100 + x);
  return x * 2;
}

NOINLINE static int
check_exit (int x)
{
  if (x > 1000)
    exit (3);
  cce_log (150 + x);
  return x + 1;
}

NOINLINE static void
maybe_die (int x)
{
  if (x == 7)
    die (1);
  cce_log (200 + x);
}

NOINLINE static int
descend (int n)
{
  if (n < 0)
    die (8);
  if (n == 0)
    {
      cce_log (300);
      return 0;
    }
  int r = descend (n - 1);
  if (r > 1000)
    die (9);
  cce_log (310 + n);
  return r + 1;
}

int
main (void)
{
  atexit (at_exit_handler);
  cce_log (1);
  sink += check (1);
  sink += check (2);
  sink += check_exit (3);
  sink += descend (6);
  for (int i = 5; i < 10; i++)
    maybe_die (i);
  cce_log (2);
  return 1;
}
