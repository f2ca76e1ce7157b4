/* extmain.c -- a program whose main is not in the LTO unit: main is in
   extmain_main.c, compiled without -flto and without the plugin (as
   GoogleTest's gtest_main is, linked into a test program).  The LTO unit
   still belongs to an executable, whose dictionary the runtime must find:
   each record's path starts at run_all, the first function of the
   program, called from the external main.  */
#include <cce.h>

static volatile int sink;

__attribute__ ((noinline)) static void
leaf (int i)
{
  cce_log (1);
  sink = i;
}

__attribute__ ((noinline)) static void
middle (int i)
{
  leaf (i);
  sink++;
}

/* Called by the external main.  */
int
run_all (int n)
{
  for (int i = 0; i < n; i++)
    middle (i);
  cce_log (2);
  return sink;
}
