/* ctors.c -- code that runs before and after main: constructors with and
   without a priority, destructors with and without one, and atexit
   handlers registered by constructors.  They call into the program and
   log; main logs too.  Each path starts at the constructor, destructor or
   handler (glibc's callers of them are external frames at the outer end,
   which are not part of a path).

   The order is fixed: constructors by priority (101, 200, 300, then those
   without one), main, then at exit the atexit handlers (last registered
   first) and, from _dl_fini, the destructors (those without a priority
   first, then by decreasing priority).

   There are two constructors and two destructors without a priority.
   With LTO, GCC merges constructors (destructors) of the same priority
   into one artificial function _sub_I_65535_0 (_sub_D_65535_1) that
   calls them in reverse order of declaration, while the -O0 build runs
   them in order.  So only one of each pair logs or registers a handler:
   the record order then does not depend on it, and the merged function is
   still on the paths.  It must not appear as a frame: it is not in the
   source.  */
#include <stdlib.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile int sink;

NOINLINE static void
leaf (unsigned t)
{
  cce_log (t);
  sink++;
}

NOINLINE static void
mid (unsigned t)
{
  leaf (t);
  sink++;
}

NOINLINE void
shared (unsigned t)
{
  cce_log (t);
  mid (t + 1);
}

static void
at_exit_a (void)
{
  cce_log (60);
  mid (61);
}

static void
at_exit_b (void)
{
  shared (62);
}

__attribute__ ((constructor (101))) static void
ctor_first (void)
{
  cce_log (10);
  mid (11);
}

__attribute__ ((constructor (200))) static void
ctor_second (void)
{
  leaf (20);
  atexit (at_exit_a);
}

__attribute__ ((constructor)) static void
ctor_plain (void)
{
  shared (30);
  atexit (at_exit_b);
}

/* Same priority as ctor_plain, does not log.  */
__attribute__ ((constructor)) static void
ctor_quiet (void)
{
  sink += 2;
}

/* Externally visible.  */
__attribute__ ((constructor (300))) void
ctor_extern (void)
{
  mid (35);
}

__attribute__ ((destructor)) static void
dtor_plain (void)
{
  cce_log (70);
  mid (71);
}

/* Same priority as dtor_plain, does not log.  */
__attribute__ ((destructor)) static void
dtor_quiet (void)
{
  sink += 3;
}

__attribute__ ((destructor (150))) static void
dtor_prio (void)
{
  leaf (80);
  shared (81);
}

NOINLINE static void
work (void)
{
  mid (2);
  shared (3);
}

int
main (void)
{
  cce_log (1);
  work ();
  mid (5);
  return 0;
}
